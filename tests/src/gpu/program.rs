//! Programs end to end on the GPU: compile, run, and compare with the interpreter.

use std::time::Duration;

use texpr::{Options, ScheduleChoice, compile};
use texpr_interp::Value;
use texpr_ir::Program;
use texpr_ir::{Diagnostic, diag};
use texpr_runtime::{Gpu, RuntimeError};

use super::{from_host, to_host};
use texpr_interp::accuracy::{Checked, Mismatch, check_report};

/// Why a program did not match the interpreter.
#[derive(Debug)]
pub enum RunError {
    Frontend(String),
    Compile(String),
    Interp(String),
    Runtime(RuntimeError),
    Mismatch(Vec<Mismatch>),
}

impl std::fmt::Display for RunError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RunError::Frontend(d) => write!(f, "front end rejected the program:\n{d}"),
            RunError::Compile(d) => write!(f, "compile failed:\n{d}"),
            RunError::Interp(e) => write!(f, "the interpreter failed: {e}"),
            RunError::Runtime(e) => write!(f, "the GPU run failed: {e}"),
            RunError::Mismatch(ms) => {
                for m in ms {
                    writeln!(f, "{m}")?;
                }
                Ok(())
            }
        }
    }
}

/// What a GPU run matching the interpreter compared: the GPU time and, per
/// output (by name), how many elements were compared, unspecified or
/// ill-conditioned. A match says nothing of the elements not compared:
/// tests that must vouch for every element ask [`Checks::require_all_compared`].
#[derive(Clone, Debug)]
pub struct Checks {
    pub gpu_time: Duration,
    pub outputs: Vec<(String, Checked)>,
}

impl Checks {
    /// Elements compared, all outputs together.
    pub fn compared(&self) -> usize {
        self.outputs.iter().map(|(_, c)| c.compared).sum()
    }

    /// Whether every element of every output was compared.
    pub fn all_compared(&self) -> bool {
        self.outputs.iter().all(|(_, c)| c.all_compared())
    }

    /// `Err` naming each output with elements not compared, and how many
    /// of its elements were.
    pub fn require_all_compared(&self) -> Result<(), String> {
        let partial: Vec<String> = (self.outputs.iter())
            .filter(|(_, c)| !c.all_compared())
            .map(|(name, c)| {
                format!(
                    "`{name}`: {} of {} elements compared ({} unspecified, {} ill-conditioned)",
                    c.compared,
                    c.total(),
                    c.unspecified,
                    c.unbounded
                )
            })
            .collect();
        match partial.is_empty() {
            true => Ok(()),
            false => Err(format!(
                "not every element compared: {}",
                partial.join("; ")
            )),
        }
    }
}

fn diagnostics(src: &str, diags: &[Diagnostic]) -> String {
    diag::render_with("program.te", src, diags, false)
}

/// Compiles `p` for `gpu` (default schedule) and runs it on `inputs`: the
/// outputs and the GPU time.
pub fn run_program(
    gpu: &Gpu,
    p: &Program,
    inputs: &[Value],
) -> Result<(Vec<Value>, Duration), RunError> {
    run_program_with(gpu, p, inputs, &ScheduleChoice::Default)
}

/// [`run_program`] with the schedule `choice`.
pub fn run_program_with(
    gpu: &Gpu,
    p: &Program,
    inputs: &[Value],
    choice: &ScheduleChoice,
) -> Result<(Vec<Value>, Duration), RunError> {
    let opts = Options {
        target: gpu.target().clone(),
        overrides: Vec::new(),
        schedule: choice.clone(),
    };
    let compiled = compile(p, &opts).map_err(|d| {
        let src = texpr_ir::print::program(p);
        RunError::Compile(diagnostics(&src, &d))
    })?;
    let hosts: Vec<_> = inputs.iter().map(to_host).collect();
    let r = gpu
        .run(&compiled.module, &hosts)
        .map_err(RunError::Runtime)?;
    Ok((r.outputs.iter().map(from_host).collect(), r.gpu_time))
}

/// Runs `p` on random inputs (from `seed`) on the GPU and in the interpreter
/// and compares every output within the tolerance the program allows: what
/// it compared, or the mismatches.
pub fn check_program(gpu: &Gpu, p: &Program, seed: u64) -> Result<Checks, RunError> {
    check_program_with(gpu, p, seed, &ScheduleChoice::Default)
}

/// [`check_program`] with the schedule `choice`.
pub fn check_program_with(
    gpu: &Gpu,
    p: &Program,
    seed: u64,
    choice: &ScheduleChoice,
) -> Result<Checks, RunError> {
    let inputs = texpr_interp::random_inputs(p, seed);
    let want = super::reference(p, &inputs).map_err(|e| RunError::Interp(format!("{e:?}")))?;
    let (got, gpu_time) = run_program_with(gpu, p, &inputs, choice)?;
    let (mut outputs, mut bad) = (Vec::new(), Vec::new());
    for (out, checked) in p.outputs.iter().zip(check_report(p, &got, &want)) {
        match checked {
            Ok(c) => outputs.push((out.name.clone(), c)),
            Err(m) => bad.push(m),
        }
    }
    match bad.is_empty() {
        true => Ok(Checks { gpu_time, outputs }),
        false => Err(RunError::Mismatch(bad)),
    }
}

/// [`check_program`] on source text with `-D` overrides.
pub fn run_source(
    gpu: &Gpu,
    src: &str,
    overrides: &[(String, i64)],
    seed: u64,
) -> Result<Checks, RunError> {
    let p = texpr_syntax::frontend(src, overrides)
        .map_err(|d| RunError::Frontend(diagnostics(src, &d)))?;
    check_program(gpu, &p, seed)
}

/// Panics (naming the program, schedule and seed) unless program `name`
/// matches the interpreter on `gpu` with every element compared, under the
/// default schedule and the heuristic's, on the random inputs of seeds 1
/// and 2.
pub fn assert_matches_everywhere(gpu: &Gpu, name: &str, p: &Program) {
    for choice in [ScheduleChoice::Default, ScheduleChoice::Heuristic] {
        for seed in [1, 2] {
            match check_program_with(gpu, p, seed, &choice) {
                Ok(c) => assert!(c.all_compared(), "{name} ({choice:?}): {c:?}"),
                Err(e) => panic!("{name} ({choice:?}, seed {seed}): {e}"),
            }
        }
    }
}
