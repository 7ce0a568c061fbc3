//! `texprc eval FILE`: run a program on the reference interpreter, with inputs
//! from `.npy` files or a seeded generator; print a summary of each output and
//! optionally write it to `DIR/NAME.npy`. Programs over the memory or
//! operation budget ([`crate::budget`]) are refused before anything is allocated.

use crate::budget::BudgetArgs;
use crate::common::{Defines, Failure, frontend, read_source};
use crate::inputs::{InputArgs, gather_inputs};
use crate::{codes, npy, summary};
use std::path::PathBuf;
use texpr_ir::Diagnostic;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// The program to run (a .te file)
    file: PathBuf,
    #[command(flatten)]
    inputs: InputArgs,
    /// Write each output to DIR/NAME.npy
    #[arg(short = 'o', long = "out-dir", value_name = "DIR")]
    out_dir: Option<PathBuf>,
    #[command(flatten)]
    budget: BudgetArgs,
    #[command(flatten)]
    defines: Defines,
}

pub fn run(args: Args) -> Result<(), Failure> {
    let src = read_source(&args.file)?;
    let prog = frontend(&src, &args.defines)?;
    let footprint = texpr_interp::footprint(&prog);
    args.budget
        .check(footprint)
        .map_err(|d| Failure::about(&src, d))?;
    let inputs = gather_inputs(&prog, &args.inputs).map_err(|d| Failure::about(&src, d))?;
    let outputs = texpr_interp::eval(&prog, &inputs).map_err(|e| {
        Failure::about(
            &src,
            Diagnostic::error(codes::EVAL, format!("evaluation failed: {e}")),
        )
    })?;
    if let Some(dir) = &args.out_dir {
        npy::write_outputs(dir, &prog, &outputs).map_err(|d| Failure::about(&src, d))?;
    }
    for (out, v) in prog.outputs.iter().zip(&outputs) {
        outln!("{}", summary::line(&out.name, v));
    }
    Ok(())
}
