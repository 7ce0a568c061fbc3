//! `texprc`: the command-line compiler. Only this crate reads files and prints.
//!
//! Each subcommand lives in `cmd/<name>.rs` with an `Args` struct and a
//! `run(Args) -> Result<(), Failure>`; adding one is a `pub mod` line in `cmd`,
//! a variant in [`Command`] and an arm in [`main`]. Exit codes: 0 success,
//! 1 errors in the program or its files (printed as diagnostics), 2 usage errors.

mod codes;
mod common;
mod npy;
mod summary;

mod cmd {
    pub mod check;
    pub mod eval;
    pub mod fmt;
}

use clap::{Parser, Subcommand};
use std::process::ExitCode;

/// The texpr compiler: checks, formats and evaluates TExpr programs.
#[derive(Debug, Parser)]
#[command(name = "texprc", version, propagate_version = true)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Parse and check a program, printing every diagnostic
    #[command(
        after_help = "Exit code 0 when the program checks, 1 when it has errors.\n\n\
        Example:\n  texprc check examples/matmul.te -D M=64 -D N=64 -D K=64"
    )]
    Check(cmd::check::Args),
    /// Print a program in canonical form (comments kept)
    #[command(after_help = "Example:\n  texprc fmt examples/softmax.te\n  \
        texprc fmt --check examples/softmax.te   # exit 1 if not canonical")]
    Fmt(cmd::fmt::Args),
    /// Run a program on the reference interpreter
    #[command(
        after_help = "Inputs come from .npy files (f32, i32 or u32; any shape of the right size) \
        or, with --random SEED, from a deterministic generator (f32 in [-1, 1), i32 in [-100, 100], \
        u32 in [0, 100]).\n\n\
        Examples:\n  texprc eval examples/saxpy.te --random 1 -D N=8\n  \
        texprc eval examples/matvec.te --input a=a.npy --input x=x.npy -o out/"
    )]
    Eval(cmd::eval::Args),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Check(args) => cmd::check::run(args),
        Command::Fmt(args) => cmd::fmt::run(args),
        Command::Eval(args) => cmd::eval::run(args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(failure) => failure.report(),
    }
}
