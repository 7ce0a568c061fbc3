//! Programs end to end on the GPU: compile, run, and compare with the interpreter.

use std::time::Duration;

use texpr::{Options, ScheduleChoice, compile};
use texpr_codegen::runtime::{Gpu, RuntimeError};
use texpr_interp::Value;
use texpr_syntax::ir::Program;
use texpr_syntax::{Diagnostic, diag};

use super::convert::{from_host, to_host};
use texpr_interp::accuracy::{Mismatch, check_outputs};

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
        let src = texpr_syntax::print::program(p);
        RunError::Compile(diagnostics(&src, &d))
    })?;
    let hosts: Vec<_> = inputs.iter().map(to_host).collect();
    let r = gpu
        .run(&compiled.module, &hosts)
        .map_err(RunError::Runtime)?;
    Ok((r.outputs.iter().map(from_host).collect(), r.gpu_time))
}

/// Runs `p` on random inputs (from `seed`) on the GPU and in the interpreter
/// and compares every output within the tolerance the program allows.
pub fn check_program(gpu: &Gpu, p: &Program, seed: u64) -> Result<Duration, RunError> {
    check_program_with(gpu, p, seed, &ScheduleChoice::Default)
}

/// [`check_program`] with the schedule `choice`.
pub fn check_program_with(
    gpu: &Gpu,
    p: &Program,
    seed: u64,
    choice: &ScheduleChoice,
) -> Result<Duration, RunError> {
    let inputs = texpr_interp::random_inputs(p, seed);
    let want = super::reference(p, &inputs).map_err(|e| RunError::Interp(format!("{e:?}")))?;
    let (got, time) = run_program_with(gpu, p, &inputs, choice)?;
    let bad = check_outputs(p, &got, &want);
    if bad.is_empty() {
        Ok(time)
    } else {
        Err(RunError::Mismatch(bad))
    }
}

/// [`check_program`] on source text with `-D` overrides.
pub fn run_source(
    gpu: &Gpu,
    src: &str,
    overrides: &[(String, i64)],
    seed: u64,
) -> Result<Duration, RunError> {
    let p = texpr_syntax::frontend(src, overrides)
        .map_err(|d| RunError::Frontend(diagnostics(src, &d)))?;
    check_program(gpu, &p, seed)
}
