//! `texprc block FILE`: optimise a block program, print its stages, graph or plan, and run it over ranks.
//!
//! Without an MPI launcher every rank runs as a thread of this process;
//! under `mpirun -np P*Q` each process runs one rank ([`mpi`],
//! feature `mpi`). Both use the same executor.

mod flags;
#[cfg(feature = "mpi")]
mod mpi;

use crate::block_io::{BlockInputs, write_matrix};
use crate::common::{Defines, Failure, Source, read_source};
use std::path::PathBuf;
use texpr::ScheduleChoice;
use texpr_block::driver::run::{Backend, check_run, full_inputs, job, report, run_in_process};
use texpr_block::driver::{BlockOptions, Device, Emit, Planned, emit_all, plan};
use texpr_block::exec::{LocalPart, Matrix};
use texpr_ir as ir;
use texpr_ir::Diagnostic;
use texpr_runtime::Gpu;
use texpr_tune::cache;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// The block program (a .air file)
    file: PathBuf,
    /// The grid of ranks, PxQ
    #[arg(long, default_value = "2x2")]
    grid: String,
    /// The rank R,C that holds every matrix's top-left tile and gathers the result
    #[arg(long, value_name = "R,C", default_value = "0,0")]
    source_rank: String,
    /// The tile size: sets the program's `param T`
    #[arg(long)]
    tile: Option<u64>,
    #[command(flatten)]
    defines: Defines,
    /// What to print: ir, passes, stages, graph, dot, plan, texpr (repeatable)
    #[arg(long)]
    emit: Vec<String>,
    /// Memory budget per rank in bytes: the scheduler plans within it, the executor never exceeds it
    #[arg(long)]
    budget: Option<u64>,
    /// The scheduler whose plan runs: greedy (the seed's, ready tasks in node order) or critical-path (within the budget)
    #[arg(long, default_value = "critical-path")]
    scheduler: String,
    /// Skip the fusion passes
    #[arg(long)]
    no_fuse: bool,
    /// Run the program
    #[arg(long)]
    run: bool,
    /// With --run: compare with the interpreter's dense reference, each element within its own error bound
    #[arg(long)]
    check: bool,
    /// With --check: pass even where elements were not compared (unspecified, or ill-conditioned)
    #[arg(long, requires = "check")]
    allow_unchecked: bool,
    /// With --run: where block bodies run, cpu (the interpreter) or gpu
    #[arg(long, default_value = "cpu")]
    device: String,
    /// With --run: read input NAME from a 2-D f32 .npy file (repeatable)
    #[arg(short = 'i', long = "input", value_name = "NAME=PATH", value_parser = parse_input)]
    pub inputs: Vec<(String, PathBuf)>,
    /// With --run: the seed of the inputs not read from files
    #[arg(long, value_name = "SEED", default_value_t = 1)]
    pub random: u64,
    /// With --run: write the result to DIR/NAME.npy (gathered to the source rank)
    #[arg(short = 'o', long, value_name = "DIR")]
    output: Option<PathBuf>,
    /// With -o: write each rank's local matrix to DIR/NAME.rank<R>.npy instead
    #[arg(long, requires = "output")]
    output_per_rank: bool,
    /// With --run: seconds a rank may wait without progress before every rank stops (E0564)
    #[arg(long, value_name = "SECONDS", default_value_t = 120.0)]
    watchdog: f64,
}

fn parse_input(s: &str) -> Result<(String, PathBuf), String> {
    let (name, path) = s.split_once('=').ok_or("expected NAME=PATH")?;
    Ok((
        name.trim().trim_start_matches('%').to_string(),
        PathBuf::from(path),
    ))
}

pub fn run(args: Args) -> Result<(), Failure> {
    let src = read_source(&args.file)?;
    let b = block_args(&args, &src)?;
    #[cfg(feature = "mpi")]
    if texpr_block::exec::transport::mpi::Mpi::launched() {
        return mpi::run(&args, &b, &src);
    }
    #[cfg(not(feature = "mpi"))]
    if ["OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK"]
        .iter()
        .any(|v| std::env::var_os(v).is_some())
    {
        let d = Diagnostic::error(
            texpr_block::codes::NO_MPI,
            "this texprc was built without MPI (feature `mpi`), but an MPI launcher started it",
        );
        return Err(Failure::about(&src, d));
    }
    in_process(&args, &b, &src)
}

/// The failure of diagnostics from the block layer: a usage error (exit
/// status 2) when one of them is about the arguments.
pub fn failure(src: &Source, diags: Vec<Diagnostic>) -> Failure {
    let usage = diags.iter().any(|d| texpr_block::codes::is_usage(d.code));
    Failure {
        usage,
        ..Failure::new(src, diags)
    }
}

/// The library's arguments from the command line's.
fn block_args(args: &Args, src: &Source) -> Result<BlockOptions, Failure> {
    let fail = |d| failure(src, vec![d]);
    let mut b = BlockOptions::new(&src.name, &src.text);
    b.grid = flags::grid(&args.grid).map_err(fail)?;
    b.source_rank = flags::source_rank(&args.source_rank).map_err(fail)?;
    if b.source_rank.0 >= b.grid.0 || b.source_rank.1 >= b.grid.1 {
        let (r, c) = b.source_rank;
        let msg = format!(
            "--source-rank {r},{c} is outside the {}x{} grid",
            b.grid.0, b.grid.1
        );
        return Err(fail(Diagnostic::error(texpr_block::codes::BAD_ARG, msg)));
    }
    b.tile = args.tile;
    b.defines = Vec::new();
    for (n, v) in &args.defines.defines {
        let value = u64::try_from(*v).map_err(|_| {
            fail(Diagnostic::error(
                texpr_block::codes::BAD_DEFINE,
                format!("-D {n}={v}: a param is a size, at least 0"),
            ))
        })?;
        b.defines.push((n.clone(), value));
    }
    b.emit = args
        .emit
        .iter()
        .map(|e| flags::emit(e))
        .collect::<Result<_, _>>()
        .map_err(fail)?;
    if !(args.watchdog > 0.0 && args.watchdog <= 1e6) {
        let msg = format!(
            "--watchdog wants seconds above 0 (at most 1e6), not {}",
            args.watchdog
        );
        return Err(fail(Diagnostic::error(texpr_block::codes::BAD_ARG, msg)));
    }
    b.watchdog = std::time::Duration::from_secs_f64(args.watchdog);
    b.budget = args.budget;
    b.scheduler = flags::scheduler(&args.scheduler).map_err(fail)?;
    b.fuse = !args.no_fuse;
    b.run = args.run;
    b.check = args.check;
    b.allow_unchecked = args.allow_unchecked;
    b.seed = args.random;
    b.gather = args.check || (args.output.is_some() && !args.output_per_rank);
    b.device = match args.device.as_str() {
        "gpu" => Device::Gpu,
        "cpu" => Device::Cpu,
        other => {
            let msg = format!("--device wants cpu or gpu, not `{other}`");
            return Err(fail(Diagnostic::error(texpr_block::codes::BAD_ARG, msg)));
        }
    };
    Ok(b)
}

/// Opens the GPU when `--device gpu` needs one.
pub fn open_gpu(b: &BlockOptions) -> Result<Option<Gpu>, Diagnostic> {
    if b.device != Device::Gpu || !(b.run || b.emit.contains(&Emit::Texpr)) {
        return Ok(None);
    }
    Gpu::open_from_env()
        .map(Some)
        .map_err(|e| Diagnostic::error(texpr_block::codes::NO_GPU, format!("no GPU adapter: {e}")))
}

/// The schedule of a block body: tuned for this GPU in the cache, else the heuristic's.
pub fn picker(gpu: Option<&Gpu>) -> impl Fn(&ir::Program) -> ScheduleChoice + Sync + use<> {
    let cache = crate::common::schedule_cache();
    let info = gpu.map(|g| g.info().clone());
    move |prog: &ir::Program| {
        let tuned = info
            .as_ref()
            .and_then(|i| cache.entry(&cache::key_for(prog, i)));
        match tuned {
            Some(e) => ScheduleChoice::Tuned(e.schedule.clone()),
            None => ScheduleChoice::Heuristic,
        }
    }
}

fn in_process(args: &Args, b: &BlockOptions, src: &Source) -> Result<(), Failure> {
    let fail = |d| Failure::about(src, d);
    let planned = plan(b).map_err(|d| failure(src, d))?;
    let gpu = open_gpu(b).map_err(fail)?;
    let pick = picker(gpu.as_ref());
    let backend = Backend {
        gpu: gpu.as_ref(),
        pick: &pick,
    };
    out!(
        "{}",
        emit_all(b, &planned, &backend.target(), &pick).map_err(fail)?
    );
    if !b.run {
        return Ok(());
    }
    let job = job(b, &planned).map_err(fail)?;
    let inputs = BlockInputs::open(&planned.p, &args.inputs, args.random).map_err(fail)?;
    let outcome = run_in_process(&job, &inputs, backend).map_err(fail)?;
    let how = format!("{} ranks as threads of one process", job.n_ranks());
    out!(
        "{}",
        report(
            &job,
            &outcome.gathered,
            &how,
            &backend.describe(),
            outcome.wall
        )
    );
    let parts: Vec<&LocalPart> = outcome.ranks.iter().map(|r| &r.part).collect();
    write_outputs(args, &planned, outcome.gathered.result.as_ref(), &parts).map_err(fail)?;
    if b.check {
        let full = full_inputs(&planned.p, &inputs).map_err(fail)?;
        let checked = check_run(&planned, &full, &outcome.gathered, b.allow_unchecked);
        out!("{}", checked.map_err(fail)?);
    }
    Ok(())
}

/// `-o DIR`: the gathered result, or (`--output-per-rank`) each given rank's part.
pub fn write_outputs(
    args: &Args,
    planned: &Planned,
    result: Option<&Matrix>,
    parts: &[&LocalPart],
) -> Result<(), Diagnostic> {
    let Some(dir) = &args.output else {
        return Ok(());
    };
    std::fs::create_dir_all(dir).map_err(|e| {
        Diagnostic::error(
            crate::codes::WRITE_OUTPUT,
            format!("cannot create `{}`: {e}", dir.display()),
        )
    })?;
    let name = &planned.q.name;
    if args.output_per_rank {
        for part in parts {
            let r = planned.cfg.grid.rank_of(part.rank).0;
            let size = part.layout.size();
            let path = dir.join(format!("{name}.rank{r}.npy"));
            write_matrix(&path, size.rows(), size.cols(), &part.data)?;
        }
        return Ok(());
    }
    match result {
        Some(m) => write_matrix(&dir.join(format!("{name}.npy")), m.rows, m.cols, &m.data),
        None => Ok(()),
    }
}
