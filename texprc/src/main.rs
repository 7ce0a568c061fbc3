//! `texprc`: the command-line compiler. Only this crate reads files and prints.
//!
//! Each subcommand lives in `cmd/<name>.rs` with an `Args` struct and a
//! `run(Args) -> Result<(), Failure>`; adding one is a `pub mod` line in `cmd`,
//! a variant in [`Command`] and an arm in [`main`]. Exit codes: 0 success,
//! 1 errors in the program or its files (printed as diagnostics), 2 usage errors.
//! Everything printed on stdout goes through `out` (`outln!`, `out!`): a
//! stdout its reader closed ends texprc quietly with status 0.

#[macro_use]
mod out;

mod block_io;
mod budget;
mod codes;
mod common;
mod inputs;
mod npy;
mod plot;
mod quiet;
mod summary;
mod targets;

mod cmd {
    pub mod bench;
    pub mod block;
    pub mod check;
    pub mod compile;
    pub mod eval;
    pub mod fmt;
    pub mod run;
    pub mod target;
    pub mod tune;
}

use clap::{Parser, Subcommand};
use std::process::ExitCode;

/// A compiler allocates many short strings: mimalloc compiles the
/// heuristic's matmul about a fifth faster than the system allocator
/// (`cargo bench -p texpr --bench examples`, which uses it too).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// The texpr compiler: checks, formats, evaluates, compiles and runs TExpr programs.
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
    /// Compile a program and print one stage: ast, typed, scheduled, kernels, wgsl, spirv, msl, hlsl, glsl
    #[command(
        after_help = "Every shader is validated by naga before it is printed.\n\n\
        Examples:\n  texprc compile examples/softmax.te                   # WGSL\n  \
        texprc compile examples/softmax.te --emit scheduled  # the scheduled TExpr\n  \
        texprc compile examples/matmul.te --emit kernels     # buffers, kernels, dispatch\n  \
        texprc compile examples/matmul.te --emit spirv -o matmul.spv\n  \
        texprc compile examples/matmul.te --emit schedule    # the schedule used, as a --schedule file\n  \
        texprc compile examples/matmul.te --schedule s.txt --dump-after all\n  \
        texprc compile examples/sum.te -D N=268435456 --target nvidia   # for a GPU this machine lacks\n\n\
        The target: --target NAME|FILE (a built-in: wgpu-default, webgpu, llvmpipe, nvidia; or a file \
        `texprc target` prints), else the one `texprc tune` stored for --device NAME (part of the \
        adapter's name, e.g. llvmpipe), else wgpu-default. The schedule: --schedule FILE, or \
        --default-schedule (one element per invocation, the optimizing passes off), else the one \
        tuned for --device NAME, else the heuristic's for the target."
    )]
    Compile(cmd::compile::Args),
    /// Print a target description: a built-in, a target file (checked), or an adapter's own
    #[command(
        after_help = "A target is what `compile` plans within: limits, features and profile, one \
        `key = value` a line. Without NAME|FILE, the adapter's (--adapter, else $TEXPR_ADAPTER, \
        else wgpu's choice).\n\n\
        Examples:\n  texprc target nvidia > h100.txt\n  texprc target          # this machine's adapter\n  \
        texprc compile examples/matmul.te --target h100.txt"
    )]
    Target(cmd::target::Args),
    /// Search for the fastest schedule of a program on this device and store it in the schedule cache
    #[command(
        after_help = "Coordinate descent from the heuristic's schedule: each item in turn tries its \
        candidate strategies with the other items fixed and keeps the fastest. Every candidate is \
        checked once against the interpreter (a wrong one is never chosen); the candidates of one item \
        and the best so far are then timed together, warm, their runs interleaved (median of --runs \
        after --warmups, by the GPU's timestamps where it has them; one over 4x the best is timed no \
        further). A device lost by a candidate is reopened and that candidate counted as failed. The \
        winner is stored in the schedule cache ($TEXPR_CACHE, else \
        $XDG_CACHE_HOME/texpr/schedules.txt, else ~/.cache/texpr/schedules.txt), keyed by the \
        program (with its -D values) and the device, where `run`, `bench` and `compile --device` \
        find it; stdout gets the schedule as a --schedule file.\n\n\
        Example:\n  texprc tune examples/matmul.te -D M=512 -D N=512 -D K=512 --budget-s 30"
    )]
    Tune(cmd::tune::Args),
    /// Run a program on the GPU; with --check, compare with the interpreter
    #[command(
        after_help = "The adapter is wgpu's choice unless --adapter or $TEXPR_ADAPTER names one \
        (an index or part of its name). -o DIR writes each output to DIR/NAME.npy, as eval -o does.\n\n\
        With --check, every output is compared with the reference interpreter element by element, \
        each within its own error bound, and each output's line says how many of its elements were \
        compared out of how many; exit 1 on a mismatch (E0914). An element the language leaves \
        unspecified (an infinity or NaN arose on the way to it) is not compared. One whose bound \
        is not finite (ill-conditioned), or past every value of its output, is compared statistically: within its spread over a few \
        interpreter runs under random rounding (Monte Carlo arithmetic, an estimate, not a bound); \
        --check=rigorous leaves it uncompared instead. A check that leaves any element of any \
        output uncompared also exits 1 (E0923), unless --allow-unchecked.\n\n\
        The schedule: --schedule FILE, --default-schedule, else the one `texprc tune` stored for \
        this program on this adapter, else the heuristic's.\n\n\
        Examples:\n  texprc run examples/matmul.te --random 1 --check\n  \
        texprc run examples/saxpy.te --input x=x.npy --input y=y.npy --input a=a.npy -o out/\n  \
        texprc run prog.te --input x=x.npy --check --allow-unchecked   # NaNs in x"
    )]
    Run(cmd::run::Args),
    /// Measure compile time and GPU time (median after warm-ups), GFLOP/s, GB/s and the share of the roofline
    #[command(
        after_help = "Every time comes from one harness: pipelines made and inputs uploaded first, \
        then --warmups runs, then the median of --runs, the rows of a program interleaved. `gpu ms` \
        is the GPU's own timestamps (where the device has timestamp queries), `wall ms` dispatch plus \
        wait. The roofline is measured in the same run (copy_buffer_to_buffer bandwidth, an FMA \
        throughput kernel); `roofline` is each row's share of the limit that binds it.\n\n\
        Examples:\n  texprc bench --suite                 # every example at a size for lavapipe\n  \
        texprc bench --suite --scale gpu     # sizes for a data-centre GPU (2^28 streams, matmul 4096^3)\n  \
        texprc bench examples/matmul.te -D M=1024 -D N=1024 -D K=1024 --runs 5"
    )]
    Bench(cmd::bench::Args),
    /// Optimise, stage, distribute and run a block-matrix program
    #[command(
        after_help = "Without an MPI launcher every rank runs as a thread of this process; under \
        `mpirun -np P*Q` each process runs one rank (docs/blocks.md, also for several machines).\n\n\
        Examples:\n  texprc block examples/blocks/gemm_bias_relu.air --grid 2x2 --emit stages --run --check\n  \
        mpirun -np 4 texprc block examples/blocks/gemm_bias_relu.air --grid 2x2 --run --device gpu -o out/"
    )]
    Block(cmd::block::Args),
}

fn main() -> ExitCode {
    quiet::reexec_without_device_select();
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Check(args) => cmd::check::run(args),
        Command::Fmt(args) => cmd::fmt::run(args),
        Command::Eval(args) => cmd::eval::run(args),
        Command::Compile(args) => cmd::compile::run(args),
        Command::Run(args) => cmd::run::run(args),
        Command::Tune(args) => cmd::tune::run(args),
        Command::Target(args) => cmd::target::run(args),
        Command::Bench(args) => cmd::bench::run(args),
        Command::Block(args) => cmd::block::run(args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(failure) => failure.report(),
    }
}
