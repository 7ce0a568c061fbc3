//! Running a compiled module in the page: the plan as the page needs it
//! (every buffer with its contents, every dispatch with its bindings
//! resolved for its loops' steps), and the outputs it reads back.

use serde_json::{Value as Json, json};
use texpr_codegen::plan::{Access, BufferRole, Module};
use texpr_interp::Value;
use texpr_runtime::HostBuffer;
use texpr_tune::values::{to_host, to_value};

/// The most dispatches a run may take (a loop's kernels once per step).
pub const MAX_DISPATCHES: u64 = 10_000;

/// What the page needs to run `m` on `inputs` (one per program input):
/// `{buffers: [{bytes, bits}], layouts: {entry_point: [[binding,
/// writable]]}, dispatches: [{entry_point, dispatch, bindings: [[binding,
/// buffer]]}], outputs: [buffer]}`, `bits` being an input's or a constant's
/// contents (else `null`: zeros). `None` when the
/// run would take more than [`MAX_DISPATCHES`] dispatches.
pub fn run_plan(m: &Module, inputs: &[Value]) -> Option<Json> {
    if m.dispatch_count() > MAX_DISPATCHES {
        return None;
    }
    let buffers: Vec<Json> = (m.buffers.iter())
        .map(|b| {
            let bits = match b.role {
                BufferRole::Input(i) => Some(to_host(&inputs[i as usize]).data),
                BufferRole::Constant => Some(b.init.clone()),
                _ => None,
            };
            json!({"bytes": b.len * 4, "bits": bits})
        })
        .collect();
    let dispatches: Vec<Json> = (m.dispatches())
        .map(|(k, steps)| {
            let kernel = &m.kernels[k];
            let bindings: Vec<[u32; 2]> = (kernel.bindings.iter())
                .map(|b| [b.binding, b.buffer_at(&steps).0])
                .collect();
            json!({
                "entry_point": kernel.entry_point,
                "dispatch": kernel.dispatch,
                "bindings": bindings,
            })
        })
        .collect();
    // Each entry point's layout, as a host builds it from the plan (an
    // explicit one: `layout: "auto"` leaves out bindings the browser's
    // compiler finds unused, which a bind group then may not name).
    let mut layouts = serde_json::Map::new();
    for k in &m.kernels {
        let bindings: Vec<Json> = (k.bindings.iter())
            .map(|b| json!([b.binding, matches!(b.access, Access::ReadWrite)]))
            .collect();
        layouts.insert(k.entry_point.clone(), Json::Array(bindings));
    }
    Some(json!({
        "buffers": buffers,
        "layouts": layouts,
        "dispatches": dispatches,
        "outputs": output_buffers(m),
    }))
}

/// The buffer of each program output, in output order.
fn output_buffers(m: &Module) -> Vec<u32> {
    let mut outs: Vec<(u32, u32)> = (m.buffers.iter().enumerate())
        .filter_map(|(at, b)| match b.role {
            BufferRole::Output(i) => Some((i, at as u32)),
            _ => None,
        })
        .collect();
    outs.sort();
    outs.into_iter().map(|(_, at)| at).collect()
}

/// The outputs the page read back (each output buffer's words), as values
/// of their element types.
pub fn outputs(m: &Module, words: &[Vec<u32>]) -> Vec<Value> {
    (output_buffers(m).iter().zip(words))
        .map(|(&at, data)| {
            let elem = m.buffers[at as usize].elem;
            to_value(&HostBuffer {
                elem,
                data: data.clone(),
            })
        })
        .collect()
}
