//! `texprc block FILE`: optimise a block program, print its stages, graph or plan, and run it distributed.

use crate::common::{Defines, Failure, read_source};
use std::path::PathBuf;
use texpr_block::cli::{BlockArgs, Device, Emit, parse_grid, run_cli};

#[derive(Debug, clap::Args)]
pub struct Args {
    /// The block program (a .air file)
    file: PathBuf,
    /// The grid of ranks, PxQ
    #[arg(long, default_value = "2x2")]
    grid: String,
    /// The tile size: sets the program's `param T`
    #[arg(long)]
    tile: Option<u64>,
    #[command(flatten)]
    defines: Defines,
    /// What to print: ir, passes, stages, graph, dot, plan, texpr (repeatable)
    #[arg(long)]
    emit: Vec<String>,
    /// Memory budget per rank in bytes for the critical-path scheduler
    #[arg(long)]
    budget: Option<u64>,
    /// Skip the fusion passes
    #[arg(long)]
    no_fuse: bool,
    /// Run on random inputs (seed 1)
    #[arg(long)]
    run: bool,
    /// With --run: compare with the dense CPU reference
    #[arg(long)]
    check: bool,
    /// With --run: where block bodies run, cpu (the interpreter) or gpu
    #[arg(long, default_value = "cpu")]
    device: String,
}

pub fn run(args: Args) -> Result<(), Failure> {
    let src = read_source(&args.file)?;
    let fail = |d| Failure::about(&src, d);
    let mut b = BlockArgs::new(&src.name, &src.text);
    b.grid = parse_grid(&args.grid).map_err(fail)?;
    b.tile = args.tile;
    b.defines = args
        .defines
        .defines
        .iter()
        .map(|(n, v)| (n.clone(), (*v).max(0) as u64))
        .collect();
    b.emit = args
        .emit
        .iter()
        .map(|e| Emit::parse(e))
        .collect::<Result<_, _>>()
        .map_err(fail)?;
    b.budget = args.budget;
    b.fuse = !args.no_fuse;
    b.run = args.run;
    b.check = args.check;
    b.device = match args.device.as_str() {
        "gpu" => Device::Gpu,
        _ => Device::Cpu,
    };
    let out = run_cli(&b).map_err(|d| Failure::new(&src, d))?;
    print!("{out}");
    Ok(())
}
