//! Benchmark: the compile time of every example in `examples/` under the
//! heuristic, for each built-in target, split into the compiler's phases
//! (front end, optimize, choose, apply, emit), and some at the GPU suite's
//! sizes for `nvidia`. The goal is under 5 ms per example in a release
//! build.
//!
//! `cargo bench -p texpr --bench examples` prints, per example and target,
//! the median of several runs of each phase and of the whole; `-- NAME`
//! measures only the examples whose name contains NAME.

use std::path::Path;
use std::time::{Duration, Instant};
use texpr::{ScheduleChoice, Target, choose, optimize};
use texpr_ir::Diagnostic;

/// The allocator `texprc` uses, so that these figures are the CLI's.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

const RUNS: usize = 21;

/// The sizes `texprc bench --suite --scale gpu` gives the examples whose
/// kernels they change most (issue 11's H100 table), compiled for `nvidia`.
const GPU_SIZES: &[(&str, &[(&str, i64)])] = &[
    ("attention", &[("S", 1024), ("T", 1024), ("D", 64)]),
    ("matmul", &[("M", 4096), ("N", 4096), ("K", 4096)]),
    (
        "batched_matmul",
        &[("BATCH", 64), ("M", 512), ("N", 512), ("K", 512)],
    ),
    ("softmax", &[("R", 16384), ("C", 4096)]),
    ("layernorm", &[("R", 16384), ("C", 4096)]),
    ("transpose", &[("M", 8192), ("N", 8192)]),
    ("sum", &[("N", 1 << 28)]),
];

fn median(mut v: Vec<Duration>) -> f64 {
    v.sort();
    v[v.len() / 2].as_secs_f64() * 1e3
}

/// The median time of each phase of compiling `src` for `target`, in ms:
/// front end, optimize, choose, apply, emit, and the whole; or the
/// diagnostic that refuses the program for the target (f16 where the
/// target has no shader-f16: E0395).
fn phases(
    src: &str,
    defines: &[(String, i64)],
    target: &Target,
) -> Result<[f64; 6], Vec<Diagnostic>> {
    let mut times: [Vec<Duration>; 6] = Default::default();
    for _ in 0..RUNS {
        let t0 = Instant::now();
        let program = texpr_syntax::frontend(src, defines).expect("the example checks");
        let t1 = Instant::now();
        let optimized = optimize(&program, target).expect("the example optimizes");
        let t2 = Instant::now();
        let chosen = choose(&optimized, target, &ScheduleChoice::Heuristic)?;
        let t3 = Instant::now();
        let scheduled = texpr_opt::apply(&optimized, target, &chosen.schedule)?;
        let t4 = Instant::now();
        let module = texpr_codegen::emit(&scheduled, target)?;
        let t5 = Instant::now();
        std::hint::black_box(module);
        for (k, (a, b)) in [(t0, t1), (t1, t2), (t2, t3), (t3, t4), (t4, t5), (t0, t5)]
            .into_iter()
            .enumerate()
        {
            times[k].push(b - a);
        }
    }
    Ok(times.map(median))
}

fn main() {
    let only: Option<String> = std::env::args().skip(1).find(|a| !a.starts_with('-'));
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("examples/ is readable")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "te"))
        .collect();
    files.sort();
    println!(
        "heuristic compile time of each example at its own sizes (`@gpu`: at the GPU suite's), median of {RUNS} runs (ms):"
    );
    println!(
        "  {:<16} {:<13} {:>8} {:>8} {:>8} {:>8} {:>8} {:>8}",
        "example", "target", "front", "optimize", "choose", "apply", "emit", "total"
    );
    for file in files {
        let name = file.file_stem().unwrap().to_string_lossy().into_owned();
        if only.as_ref().is_some_and(|o| !name.contains(o.as_str())) {
            continue;
        }
        let src = std::fs::read_to_string(&file).expect("the example is readable");
        let gpu_sizes = GPU_SIZES.iter().find(|(n, _)| *n == name).map(|(_, d)| {
            let d: Vec<(String, i64)> = d.iter().map(|(k, v)| (k.to_string(), *v)).collect();
            d
        });
        let runs = [("wgpu-default", None), ("llvmpipe", None), ("nvidia", None)]
            .into_iter()
            .chain(gpu_sizes.iter().map(|d| ("nvidia", Some(d))));
        for (target, defines) in runs {
            let t = phases(
                &src,
                defines.map_or(&[][..], |d| &d[..]),
                &Target::builtin(target).expect("a built-in target"),
            );
            let label = match defines {
                Some(_) => format!("{target}@gpu"),
                None => target.to_string(),
            };
            let t = match t {
                Ok(t) => t,
                Err(d) => {
                    let codes: Vec<&str> = d.iter().map(|d| d.code).collect();
                    println!(
                        "  {name:<16} {label:<13} not for this target ({})",
                        codes.join(", ")
                    );
                    continue;
                }
            };
            println!(
                "  {name:<16} {label:<13} {:>8.2} {:>8.2} {:>8.2} {:>8.2} {:>8.2} {:>8.2}",
                t[0], t[1], t[2], t[3], t[4], t[5]
            );
        }
    }
}
