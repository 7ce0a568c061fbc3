//! Schedules for the schedule tests: legal schedules drawn at random from the
//! heuristic's candidates, programs run on the GPU under a given schedule, and
//! the item whose strategy a failure comes from.

use std::time::Duration;

use texpr::{Combine, Options, Schedule, ScheduleChoice, Strategy, compile};
use texpr_interp::Value;
use texpr_interp::accuracy::{Reference, check_outputs};
use texpr_ir::Program;
use texpr_ir::diag;
use texpr_runtime::Gpu;
use texpr_target::Target;

use crate::r#gen::Rng;
use crate::gpu::{RunError, from_host, to_host};

/// The kind of a strategy, as its text form starts (`tile`, `rows`, ...).
pub fn kind(s: &Strategy) -> &'static str {
    match s {
        Strategy::Default => "default",
        Strategy::Coarsen { .. } => "coarsen",
        Strategy::Rows { .. } => "rows",
        Strategy::WideRows {
            combine: Combine::Subgroup,
            ..
        } => "wide_rows combine=subgroup",
        Strategy::WideRows { .. } => "wide_rows",
        Strategy::Flash { .. } => "flash",
        Strategy::Tile {
            shared: None,
            kstep: None,
            ..
        } => "tile",
        Strategy::Tile {
            shared: None,
            kstep: Some(_),
            ..
        } => "tile kstep",
        Strategy::Tile {
            shared: Some(st), ..
        } => match (st.prefetch, st.vec4, st.pad) {
            (true, _, _) => "tile shared vec4 prefetch",
            (false, true, 0) => "tile shared vec4",
            (false, true, _) => "tile shared pad vec4",
            (false, false, 0) => "tile shared",
            (false, false, _) => "tile shared pad",
        },
        Strategy::MultiPass { combine, .. } => match combine {
            Combine::Serial => "multipass",
            Combine::Tree => "multipass combine=tree",
            Combine::Subgroup => "multipass combine=subgroup",
        },
        Strategy::GridStride { combine, .. } => match combine {
            Combine::Serial => "gridstride",
            Combine::Tree => "gridstride combine=tree",
            Combine::Subgroup => "gridstride combine=subgroup",
        },
        Strategy::Transpose { .. } => "transpose",
        Strategy::Mma { .. } => "mma",
        Strategy::Loop { .. } => "loop",
    }
}

/// One candidate per item, drawn with `seed` (the same schedule for the same
/// seed); items without candidates are left out (they get the default).
pub fn random_schedule(cands: &[(String, Vec<Strategy>)], seed: u64) -> Schedule {
    let mut rng = Rng::new(seed);
    let mut s = Schedule::default();
    for (item, options) in cands {
        if !options.is_empty() {
            s.set(item, rng.pick(options).clone());
        }
    }
    s
}

/// Each item's name with its legal strategies, best guess first.
pub type Candidates = Vec<(String, Vec<Strategy>)>;

/// The legal candidates of every item of `p` as `texprc tune` sees them
/// (`p` optimized first); errors of the passes before scheduling as text.
pub fn candidates(p: &Program, target: &Target) -> Result<(texpr::Optimized, Candidates), String> {
    let optimized = texpr::optimize(p, target).map_err(|d| {
        let src = texpr_ir::print::program(p);
        diag::render_with("program.te", &src, &d, false)
    })?;
    let cands = texpr::candidates(&optimized, target);
    Ok((optimized, cands))
}

/// What one program under one schedule gave.
#[derive(Debug)]
pub struct Outcome {
    /// The scheduled program the compiler produced.
    pub scheduled: Program,
    pub gpu_time: Duration,
}

/// Compiles `p` for `gpu` with `choice`, runs it on `inputs` and compares
/// with `want` (the interpreter's result of `p`) within the tolerance `p`
/// allows. The scheduled program must also verify and, in the interpreter,
/// agree with `want` within that tolerance.
pub fn check_with(
    gpu: &Gpu,
    p: &Program,
    inputs: &[Value],
    want: &[Reference],
    choice: &ScheduleChoice,
) -> Result<Outcome, RunError> {
    let opts = Options {
        target: gpu.target().clone(),
        overrides: Vec::new(),
        schedule: choice.clone(),
    };
    let compiled = compile(p, &opts).map_err(|d| {
        let src = texpr_ir::print::program(p);
        RunError::Compile(diag::render_with("program.te", &src, &d, false))
    })?;
    if let Err(d) = texpr_ir::verify(&compiled.scheduled) {
        let src = texpr_ir::print::program(&compiled.scheduled);
        return Err(RunError::Compile(format!(
            "the scheduled program does not verify:\n{}",
            diag::render_with("scheduled.te", &src, &d, false)
        )));
    }
    let interp = texpr_interp::eval(&compiled.scheduled, inputs)
        .map_err(|e| RunError::Interp(format!("scheduled program: {e:?}")))?;
    let bad = check_outputs(p, &interp, want);
    if !bad.is_empty() {
        return Err(RunError::Interp(format!(
            "the scheduled program means something else in the interpreter:\n{}",
            RunError::Mismatch(bad)
        )));
    }
    let hosts: Vec<_> = inputs.iter().map(to_host).collect();
    let r = gpu
        .run(&compiled.module, &hosts)
        .map_err(RunError::Runtime)?;
    let got: Vec<Value> = r.outputs.iter().map(from_host).collect();
    let bad = check_outputs(p, &got, want);
    if !bad.is_empty() {
        return Err(RunError::Mismatch(bad));
    }
    Ok(Outcome {
        scheduled: compiled.scheduled,
        gpu_time: r.gpu_time,
    })
}

/// The items of `s` whose strategy alone (every other item default) fails
/// [`check_with`], with their strategies: which strategy a failure comes from.
pub fn culprits(
    gpu: &Gpu,
    p: &Program,
    inputs: &[Value],
    want: &[Reference],
    s: &Schedule,
) -> Vec<(String, Strategy)> {
    s.items
        .iter()
        .filter(|(_, st)| *st != Strategy::Default)
        .filter(|(item, st)| {
            let mut one = Schedule::default();
            one.set(item, st.clone());
            check_with(gpu, p, inputs, want, &ScheduleChoice::Given(one)).is_err()
        })
        .cloned()
        .collect()
}

/// Whether the compiler refused the program for the device's loop budget
/// (E0316 from the code generator): the right answer on a device that cuts
/// long loops short.
pub fn refused_by_device(e: &RunError) -> bool {
    matches!(e, RunError::Compile(text) if text.contains("[E0316]"))
}

/// `-D` overrides that shrink an example's sizes as the differential test
/// does: params whose value is a plain number above 64 become 37 or 24.
pub fn small_sizes(src: &str) -> Vec<(String, i64)> {
    let mut out = Vec::new();
    for line in src.lines() {
        let Some(rest) = line.trim().strip_prefix("param ") else {
            continue;
        };
        let Some((name, value)) = rest.split_once('=') else {
            continue;
        };
        if let Ok(v) = value.trim().parse::<i64>()
            && v > 64
        {
            out.push((
                name.trim().to_string(),
                if out.len() % 2 == 0 { 37 } else { 24 },
            ));
        }
    }
    out
}
