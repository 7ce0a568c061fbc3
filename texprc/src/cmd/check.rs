//! `texprc check FILE`: parse and check, print diagnostics, exit 1 on errors.

use crate::common::{Defines, Failure, frontend, read_source};
use std::path::PathBuf;
use texpr_ir::diag::count;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// The program to check (a .te file)
    file: PathBuf,
    #[command(flatten)]
    defines: Defines,
}

pub fn run(args: Args) -> Result<(), Failure> {
    let src = read_source(&args.file)?;
    let prog = frontend(&src, &args.defines)?;
    outln!(
        "{}: ok ({}, {})",
        src.name,
        count(prog.inputs.len() as u64, "input"),
        count(prog.outputs.len() as u64, "output")
    );
    Ok(())
}
