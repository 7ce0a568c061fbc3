//! `texprc check FILE`: parse and check, print diagnostics, exit 1 on errors.

use crate::common::{Defines, Failure, frontend, read_source};
use std::path::PathBuf;

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
    println!(
        "{}: ok ({} inputs, {} outputs)",
        src.name,
        prog.inputs.len(),
        prog.outputs.len()
    );
    Ok(())
}
