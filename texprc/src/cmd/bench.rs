//! `texprc bench FILE... | --suite`: compile time (parse to validated WGSL) and
//! GPU time of programs, as medians over several runs after warm-ups, with
//! the work they do (GFLOP/s) and the data they must move (GB/s).

use crate::cmd::run::{open_gpu, runtime_diag};
use crate::common::{Defines, Failure, Source, frontend, read_source};
use crate::inputs::to_host;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};
use texpr_codegen::Options;
use texpr_codegen::runtime::Gpu;

/// The suite: every example at a realistic size (name, `-D` overrides).
const SUITE: &[(&str, &[(&str, i64)])] = &[
    ("saxpy", &[("N", 1 << 24)]),
    ("dot", &[("N", 1 << 22)]),
    ("sum", &[("N", 1 << 24)]),
    ("max", &[("N", 1 << 24)]),
    ("softmax", &[("R", 1024), ("C", 256)]),
    ("layernorm", &[("R", 1024), ("C", 256)]),
    ("matvec", &[("M", 4096), ("N", 4096)]),
    ("matmul", &[("M", 512), ("N", 512), ("K", 512)]),
    (
        "batched_matmul",
        &[("BATCH", 8), ("M", 128), ("N", 128), ("K", 128)],
    ),
    ("transpose", &[("M", 2048), ("N", 2048)]),
    ("conv1d", &[("N", 1 << 22), ("K", 7)]),
    ("stencil2d", &[("H", 2048), ("W", 2048)]),
    ("attention", &[("S", 128), ("T", 128), ("D", 64)]),
];

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Programs to measure (.te files)
    #[arg(required_unless_present = "suite")]
    pub files: Vec<PathBuf>,
    /// Measure every example in examples/ at a realistic size
    #[arg(long, conflicts_with = "files")]
    pub suite: bool,
    /// Timed runs per program (the median is reported)
    #[arg(long, default_value_t = 5)]
    pub runs: usize,
    /// Untimed runs before timing
    #[arg(long, default_value_t = 2)]
    pub warmups: usize,
    /// Adapter: an index or part of its name (default: $TEXPR_ADAPTER, else wgpu's choice)
    #[arg(long, value_name = "ADAPTER")]
    pub adapter: Option<String>,
    #[command(flatten)]
    pub defines: Defines,
}

pub fn run(args: Args) -> Result<(), Failure> {
    let jobs: Vec<(PathBuf, Vec<(String, i64)>)> = if args.suite {
        SUITE
            .iter()
            .map(|(name, defs)| {
                let defs = defs.iter().map(|(k, v)| (k.to_string(), *v)).collect();
                (Path::new("examples").join(format!("{name}.te")), defs)
            })
            .collect()
    } else {
        args.files
            .iter()
            .map(|f| (f.clone(), args.defines.defines.clone()))
            .collect()
    };
    let none = Source {
        name: "<bench>".into(),
        text: String::new(),
    };
    let gpu = open_gpu(args.adapter.as_deref()).map_err(|d| Failure::about(&none, d))?;
    println!(
        "device: {} ({}), {} warm-ups, median of {} runs",
        gpu.info().name,
        gpu.info().backend,
        args.warmups,
        args.runs
    );
    println!(
        "{:<16} {:>24} {:>12} {:>12} {:>10} {:>10}",
        "program", "size", "compile ms", "gpu ms", "GFLOP/s", "GB/s"
    );
    for (file, defines) in jobs {
        let row = measure(&gpu, &file, defines, &args)?;
        println!("{row}");
    }
    Ok(())
}

fn measure(
    gpu: &Gpu,
    file: &Path,
    defines: Vec<(String, i64)>,
    args: &Args,
) -> Result<String, Failure> {
    let src = read_source(file)?;
    let defs = Defines {
        defines: defines.clone(),
    };
    let program = frontend(&src, &defs)?;
    let opts = Options {
        limits: gpu.limits(),
        overrides: defines.clone(),
        schedule: texpr_codegen::ScheduleChoice::Default,
    };
    let compile = || -> Result<_, Failure> {
        let p = frontend(&src, &defs)?;
        texpr_codegen::compile(&p, &opts).map_err(|d| Failure::new(&src, d))
    };
    let mut compile_times = Vec::new();
    let mut compiled = None;
    for _ in 0..args.runs.max(1) {
        let t = Instant::now();
        compiled = Some(compile()?);
        compile_times.push(t.elapsed());
    }
    let compiled = compiled.expect("at least one compile");
    let inputs: Vec<_> = texpr_interp::random_inputs(&program, 1)
        .iter()
        .map(to_host)
        .collect();
    let times = gpu
        .bench(&compiled.module, &inputs, args.warmups, args.runs.max(1))
        .map_err(|e| Failure::about(&src, runtime_diag(&e)))?;
    let gpu_time = median(times);
    let flops = texpr_opt::cost::flops(&program) as f64;
    let bytes = texpr_opt::cost::min_bytes(&program) as f64;
    let secs = gpu_time.as_secs_f64();
    let name = file
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let size: Vec<String> = defines.iter().map(|(k, v)| format!("{k}={v}")).collect();
    Ok(format!(
        "{:<16} {:>24} {:>12.2} {:>12.3} {:>10.3} {:>10.3}",
        name,
        size.join(","),
        median(compile_times).as_secs_f64() * 1e3,
        secs * 1e3,
        flops / secs / 1e9,
        bytes / secs / 1e9
    ))
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}
