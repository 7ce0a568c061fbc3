//! The kernel plan as JSON, for hosts that run the WGSL themselves (a web
//! page, a Python host): `texprc compile --emit plan-json`. The format is
//! `texpr-plan`, version [`VERSION`]; docs/plan-json.md describes every
//! field. A host needs nothing else: the module, the buffers (which is
//! which input or output, sizes, and the contents of constant buffers), the
//! kernels in dispatch order with their bindings and sizes, the loops that
//! repeat them, and what the device must offer (extensions to request,
//! limits to meet).

use crate::plan::{Access, BufferRole, Module, StepBuffer};
use serde_json::{Value, json};
use texpr_target::Target;

/// The format's version: a host reads a plan whose version it knows.
pub const VERSION: u32 = 1;

/// `module`, compiled for `target`, as a `texpr-plan` document.
pub fn plan_json(module: &Module, target: &Target) -> Value {
    let buffers: Vec<Value> = (module.buffers.iter().enumerate())
        .map(|(i, b)| {
            let (kind, index) = role(b.role);
            let mut v = json!({
                "id": i,
                "name": b.name,
                "role": kind,
                "elem": b.elem.name(),
                "len": b.len,
                "bytes": b.len * 4,
            });
            if let Some(index) = index {
                v["index"] = json!(index);
            }
            if b.role == BufferRole::Constant {
                v["init_bits"] = json!(b.init);
            }
            v
        })
        .collect();
    let kernels: Vec<Value> = (module.kernels.iter())
        .map(|k| {
            let bindings: Vec<Value> = (k.bindings.iter())
                .map(|b| {
                    let mut v = json!({
                        "group": b.group,
                        "binding": b.binding,
                        "buffer": b.buffer.0,
                        "access": match b.access {
                            Access::Read => "read",
                            Access::ReadWrite => "read_write",
                        },
                    });
                    if let Some(s) = &b.step {
                        v["step"] = step(s);
                    }
                    v
                })
                .collect();
            json!({
                "entry_point": k.entry_point,
                "workgroup_size": k.workgroup_size,
                "dispatch": k.dispatch,
                "workgroup_storage_bytes": k.workgroup_storage_bytes,
                "bindings": bindings,
            })
        })
        .collect();
    let loops: Vec<Value> = (module.loops.iter())
        .map(|l| {
            json!({
                "count": l.count,
                "kernels": [l.kernels.start, l.kernels.end],
                "within": l.within,
                "step": l.step.as_ref().map(step),
            })
        })
        .collect();
    json!({
        "format": "texpr-plan",
        "version": VERSION,
        "target": target.name,
        "requires": requires(module, target),
        "wgsl": module.wgsl,
        "buffers": buffers,
        "kernels": kernels,
        "loops": loops,
    })
}

/// What the device must offer: the extensions the module uses, the least
/// subgroup size its kernels assume (`target`'s smallest, where they use
/// subgroups; else `null`), and the least of each limit the kernels and
/// buffers need.
fn requires(module: &Module, target: &Target) -> Value {
    let sizes = module.kernels.iter().map(|k| k.workgroup_size);
    let max_size = sizes.fold([0u32; 3], |m, s| {
        [m[0].max(s[0]), m[1].max(s[1]), m[2].max(s[2])]
    });
    let invocations = (module.kernels.iter())
        .map(|k| k.workgroup_size.iter().product::<u32>())
        .max()
        .unwrap_or(0);
    let groups = (module.kernels.iter())
        .flat_map(|k| k.dispatch)
        .max()
        .unwrap_or(0);
    let buffers_per_stage = (module.kernels.iter())
        .map(|k| k.bindings.len())
        .max()
        .unwrap_or(0);
    let largest = module.buffers.iter().map(|b| b.len * 4).max().unwrap_or(0);
    let workgroup_storage = (module.kernels.iter())
        .map(|k| k.workgroup_storage_bytes)
        .max()
        .unwrap_or(0);
    let subgroup_min_size = (target.features.subgroup_size)
        .filter(|_| module.uses.contains(&texpr_target::Extension::Subgroups))
        .map(|(min, _)| min);
    let names = |es: &[texpr_target::Extension]| es.iter().map(|e| e.name()).collect::<Vec<_>>();
    json!({
        "extensions": names(&module.uses),
        "enables": names(&module.enables),
        "subgroup_min_size": subgroup_min_size,
        "limits": {
            "max_compute_workgroup_size": max_size,
            "max_compute_invocations_per_workgroup": invocations,
            "max_compute_workgroups_per_dimension": groups,
            "max_storage_buffers_per_shader_stage": buffers_per_stage,
            "max_storage_buffer_binding_size": largest,
            "max_buffer_size": largest,
            "max_compute_workgroup_storage_size": workgroup_storage,
        },
    })
}

fn role(r: BufferRole) -> (&'static str, Option<u32>) {
    match r {
        BufferRole::Input(i) => ("input", Some(i)),
        BufferRole::Output(i) => ("output", Some(i)),
        BufferRole::Global(i) => ("global", Some(i)),
        BufferRole::Scratch => ("scratch", None),
        BufferRole::Constant => ("constant", None),
        BufferRole::State(i) => ("state", Some(i)),
        BufferRole::Step(i) => ("step", Some(i)),
    }
}

/// A binding that moves with a loop's step: which buffer step `t` binds
/// (`init` at step 0, then `a` and `b` by parity; module doc of `plan`).
fn step(s: &StepBuffer) -> Value {
    json!({
        "loop": s.loop_id,
        "next": s.next,
        "init": s.init.0,
        "a": s.a.0,
        "b": s.b.0,
        "init_from": s.init_from.map(|(l, a, b)| json!({"loop": l, "a": a.0, "b": b.0})),
    })
}
