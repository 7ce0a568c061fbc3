//! `texprc run FILE`: compile a program, run it on the GPU, print each output
//! (and with `-o DIR` write each to `DIR/NAME.npy`, as `eval -o DIR` does);
//! with `--check`, compare with the reference interpreter element by element
//! (each within its own error bound) and report, per output, how many
//! elements were compared out of how many, the largest difference, and the
//! elements not compared: unspecified by the language, or ill-conditioned.
//! By default (`--check`, `--check=statistical`) an element without a
//! useful error bound (not finite, or past every value of its output:
//! `texpr_interp::accuracy::useful`) is compared within its spread under
//! random rounding
//! (the statistical tier, `texpr_interp::accuracy::add_spread`), and the
//! report says how many elements each tier compared; `--check=rigorous`
//! compares by error bounds only. A check that leaves any element of any
//! output uncompared fails (E0923) unless `--allow-unchecked` is given: it
//! never passes by comparing nothing.

use crate::codes;
use crate::common::{Defines, Failure, ScheduleArgs, compile_chosen, frontend, read_source};
use crate::inputs::{InputArgs, gather_inputs};
use crate::{npy, summary};
use std::path::PathBuf;
use texpr::Options;
use texpr_interp::accuracy::{Checked, Mismatch};
use texpr_ir::Diagnostic;
use texpr_ir::Program;
use texpr_runtime::{AdapterChoice, Gpu};
use texpr_tune::values::{to_host, to_value};

#[derive(Debug, clap::Args)]
pub struct Args {
    /// The program to run (a .te file)
    pub file: PathBuf,
    #[command(flatten)]
    pub inputs: InputArgs,
    /// Also run the reference interpreter and compare; exit 1 on a mismatch,
    /// or when some element was not compared (see --allow-unchecked). Each
    /// element is held to twice its rigorous error bound; `statistical` (the
    /// default) holds one without a useful bound (not finite, or past every
    /// value of its output) to its spread under random rounding, `rigorous`
    /// uses the bound alone (and leaves an element without one uncompared)
    #[arg(long, value_name = "TIER", num_args = 0..=1, require_equals = true, default_missing_value = "statistical")]
    pub check: Option<Tier>,
    /// With --check: pass even where elements were not compared (unspecified
    /// by the language: a NaN or infinity arose; or ill-conditioned)
    #[arg(long, requires = "check")]
    pub allow_unchecked: bool,
    /// Write each output to DIR/NAME.npy
    #[arg(short = 'o', long = "out-dir", value_name = "DIR")]
    pub out_dir: Option<PathBuf>,
    /// Adapter to use: an index or part of its name (default: $TEXPR_ADAPTER, else wgpu's choice)
    #[arg(long, value_name = "ADAPTER")]
    pub adapter: Option<String>,
    #[command(flatten)]
    pub schedule: ScheduleArgs,
    #[command(flatten)]
    pub defines: Defines,
}

/// What `--check` compares an element without a rigorous bound by.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Tier {
    /// Error bounds, then the spread under random rounding
    Statistical,
    /// Error bounds only
    Rigorous,
}

pub fn run(args: Args) -> Result<(), Failure> {
    let src = read_source(&args.file)?;
    let program = frontend(&src, &args.defines)?;
    let gpu = open_gpu(args.adapter.as_deref()).map_err(|d| Failure::about(&src, d))?;
    let chosen =
        args.schedule
            .choose_from(&program, Some(gpu.info()), &crate::common::schedule_cache())?;
    let opts = Options {
        target: gpu.target().clone(),
        overrides: args.defines.defines.clone(),
        schedule: chosen.choice.clone(),
    };
    let (compiled, chosen) = compile_chosen(&src, &program, &opts, chosen)?;
    let inputs = gather_inputs(&program, &args.inputs).map_err(|d| Failure::about(&src, d))?;
    let host: Vec<_> = inputs.iter().map(to_host).collect();
    let result = gpu
        .run(&compiled.module, &host)
        .map_err(|e| Failure::about(&src, runtime_diag(&e)))?;
    let outputs: Vec<_> = result.outputs.iter().map(to_value).collect();
    // A loop's kernels run once per step, unless the loop runs in one dispatch.
    let kernels = compiled.module.kernels.len();
    let steps = format!(
        " ({} in {})",
        plural(result.dispatches, "dispatch", "dispatches"),
        plural(result.submissions, "submission", "submissions")
    );
    outln!(
        "ran {}{steps} on {} in {:.3} ms (schedule: {})",
        plural(kernels as u64, "kernel", "kernels"),
        gpu.info().name,
        result.gpu_time.as_secs_f64() * 1e3,
        chosen.origin
    );
    if let Some(dir) = &args.out_dir {
        npy::write_outputs(dir, &program, &outputs).map_err(|d| Failure::about(&src, d))?;
    }
    for (out, v) in program.outputs.iter().zip(&outputs) {
        outln!("{}", summary::line(&out.name, v));
    }
    let Some(tier) = args.check else {
        return Ok(());
    };
    let failed = |e: texpr_interp::EvalError| {
        Failure::about(
            &src,
            Diagnostic::error(codes::EVAL, format!("evaluation failed: {e}")),
        )
    };
    let mut expected = match texpr_opt::pipeline::rounding_rewrite(&program) {
        Some(q) => texpr_interp::accuracy::reference_rewritten(&program, &q, &inputs),
        None => texpr_interp::accuracy::reference(&program, &inputs),
    }
    .map_err(failed)?;
    if tier == Tier::Statistical {
        texpr_interp::accuracy::add_spread(&program, &inputs, &mut expected).map_err(failed)?;
    }
    let report = texpr_interp::accuracy::check_report(&program, &outputs, &expected);
    verdict(&program, &report, args.allow_unchecked).map_err(|d| Failure::about(&src, d))
}

/// "1 kernel", "3 kernels".
fn plural(n: u64, one: &str, many: &str) -> String {
    match n {
        1 => format!("1 {one}"),
        _ => format!("{n} {many}"),
    }
}

/// Prints what comparing each output found, then the verdict: a mismatch
/// fails (E0914), and so does an element left uncompared (E0923) unless
/// `allow_unchecked`.
fn verdict(
    program: &Program,
    report: &[Result<Checked, Mismatch>],
    allow_unchecked: bool,
) -> Result<(), Diagnostic> {
    let mut failed = Vec::new();
    let mut partial = Vec::new();
    for (out, checked) in program.outputs.iter().zip(report) {
        match checked {
            Err(m) => {
                outln!("check {}: MISMATCH: {m}", out.name);
                failed.push(out.name.clone());
            }
            Ok(c) => {
                outln!("check {}: {}", out.name, summary::checked(c));
                if !c.all_compared() {
                    partial.push((out.name.clone(), *c));
                }
            }
        }
    }
    if !failed.is_empty() {
        let msg = format!(
            "the GPU results differ from the interpreter for `{}`",
            failed.join("`, `")
        );
        return Err(Diagnostic::error(codes::CHECK_MISMATCH, msg));
    }
    let skipped: usize = partial.iter().map(|(_, c)| c.total() - c.compared).sum();
    match (partial.first(), allow_unchecked) {
        (None, _) => {
            let statistical: usize = report.iter().flatten().map(|c| c.statistical).sum();
            match statistical {
                0 => outln!(
                    "check passed: the GPU results match the interpreter, every element compared"
                ),
                n => outln!(
                    "check passed: the GPU results match the interpreter, every element compared \
                     ({} statistically: within their spread under random rounding, not a bound)",
                    texpr_ir::diag::count(n as u64, "element")
                ),
            }
            Ok(())
        }
        (Some(_), true) => {
            outln!(
                "check passed (--allow-unchecked): the GPU results match the interpreter on every \
                 compared element; {} not compared",
                texpr_ir::diag::count(skipped as u64, "element")
            );
            Ok(())
        }
        (Some(_), false) => {
            let which: Vec<String> = partial
                .iter()
                .map(|(name, c)| format!("`{name}`: {} of {}", c.compared, c.total()))
                .collect();
            let msg = format!(
                "the check compared only some elements ({}): it cannot vouch for the rest",
                which.join(", ")
            );
            Err(Diagnostic::error(codes::CHECK_INCOMPLETE, msg)
                .with_note(
                    "an element is not compared where the language leaves it unspecified (an \
                     infinity or NaN arose on the way to it) or where its error bound is not \
                     finite (ill-conditioned); see docs/language.md, \"Non-finite values\"",
                )
                .with_note("pass --allow-unchecked to accept a check that compares fewer than all elements"))
        }
    }
}

/// Opens the adapter named by `--adapter`, else `$TEXPR_ADAPTER`, else the default.
pub fn open_gpu(flag: Option<&str>) -> Result<Gpu, Diagnostic> {
    let choice = flag
        .map(AdapterChoice::parse)
        .unwrap_or_else(AdapterChoice::from_env);
    Gpu::open(&choice).map_err(|e| runtime_diag(&e))
}

/// A runtime error as a diagnostic: texpr's explanation, wgpu's text whole in a note.
pub fn runtime_diag(e: &texpr_runtime::RuntimeError) -> Diagnostic {
    e.to_diagnostic()
}
