//! What a benchmark measures: the programs (files, or the suite at the
//! sizes of a [`Scale`]), where each one's source is, and the hand-written
//! baselines that compute what a suite program computes.
//!
//! The suite holds every example, `axpb` (built-in text) and the loop
//! examples' steps unrolled into chains of `let`s ([`unrolled`]): the
//! programs on which `texprc bench --suite` shows the heuristic against the
//! default schedule (BENCHMARKS.md: never more than 5% slower).

use super::unrolled;
use std::path::{Path, PathBuf};
use texpr_ir::Program;
use texpr_runtime::raw::{RawProgram, baselines};
use texpr_runtime::{HostBuffer, RuntimeError};

/// `y = 2x + 1`: the program the `axpb_vec4` baseline computes, benched with it.
const AXPB: &str = "// axpb: y = 2x + 1 (the axpb_vec4 baseline's program)
param N = 1048576
input x: f32[N]
output y: f32[N] = compute N |i| x[i] * 2.0 + 1.0
";

/// Sizes for a device class: the suite's, and those of the roofline probes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scale {
    /// Sizes that lavapipe (a CPU) runs in seconds
    Cpu,
    /// Sizes that fill a data-centre GPU (an H100): 2^28-element streams, matmul 4096^3
    Gpu,
}

type Sizes = &'static [(&'static str, i64)];

/// The suite at [`Scale::Cpu`]: every example (name, `-D` overrides), and
/// `axpb` (not an example: [`AXPB`]).
pub const CPU: &[(&str, Sizes)] = &[
    ("saxpy", &[("N", 1 << 24)]),
    ("axpb", &[("N", 1 << 24)]),
    ("chain", &[("N", 1 << 24)]),
    ("dot", &[("N", 1 << 22)]),
    ("sum", &[("N", 1 << 24)]),
    ("max", &[("N", 1 << 24)]),
    ("softmax", &[("R", 4096), ("C", 1024)]),
    ("layernorm", &[("R", 4096), ("C", 1024)]),
    ("matvec", &[("M", 4096), ("N", 4096)]),
    ("matmul", &[("M", 1024), ("N", 1024), ("K", 1024)]),
    ("matmul_f16", &[("M", 1024), ("N", 1024), ("K", 1024)]),
    ("mlp_f16", &[("T", 256), ("D", 256), ("H", 1024)]),
    (
        "batched_matmul",
        &[("BATCH", 8), ("M", 128), ("N", 128), ("K", 128)],
    ),
    ("transpose", &[("M", 2048), ("N", 2048)]),
    ("conv1d", &[("N", 1 << 22), ("K", 7)]),
    ("stencil2d", &[("H", 2048), ("W", 2048)]),
    ("attention", &[("S", 128), ("T", 128), ("D", 64)]),
    ("jacobi2d", &[("N", 512), ("T", 50)]),
    ("heat3d", &[("N", 64), ("T", 20)]),
    ("adi", &[("N", 128), ("T", 4)]),
    ("cholesky", &[("N", 256)]),
    ("cholesky_right", &[("N", 256)]),
    ("lu", &[("N", 256)]),
    ("ludcmp", &[("N", 256)]),
    ("trisolv", &[("N", 1024)]),
    ("cumsum", &[("T", 64), ("N", 4096)]),
    ("floyd_warshall", &[("N", 256)]),
    ("cholesky_unrolled", &[("N", 128)]),
    ("cholesky_right_unrolled", &[("N", 128)]),
    ("lu_unrolled", &[("N", 128)]),
    ("ludcmp_unrolled", &[("N", 128)]),
    ("floyd_warshall_unrolled", &[("N", 128)]),
    ("jacobi2d_unrolled", &[("N", 64), ("T", 32)]),
];

/// The suite at [`Scale::Gpu`] (the sizes of the H100 measurements in
/// issue 11): streams of 2^28 elements (1 GiB each), matmul at 1024^3 and
/// 4096^3, rows of 16384 x 4096.
pub const GPU: &[(&str, Sizes)] = &[
    ("saxpy", &[("N", 1 << 28)]),
    ("axpb", &[("N", 1 << 28)]),
    ("chain", &[("N", 1 << 28)]),
    ("dot", &[("N", 1 << 28)]),
    ("sum", &[("N", 1 << 28)]),
    ("max", &[("N", 1 << 28)]),
    ("softmax", &[("R", 16384), ("C", 4096)]),
    ("layernorm", &[("R", 16384), ("C", 4096)]),
    ("matvec", &[("M", 8192), ("N", 8192)]),
    ("matmul", &[("M", 1024), ("N", 1024), ("K", 1024)]),
    ("matmul", &[("M", 4096), ("N", 4096), ("K", 4096)]),
    ("matmul_f16", &[("M", 4096), ("N", 4096), ("K", 4096)]),
    ("matmul_f16", &[("M", 8192), ("N", 8192), ("K", 8192)]),
    ("mlp_f16", &[("T", 4096), ("D", 1024), ("H", 4096)]),
    (
        "batched_matmul",
        &[("BATCH", 64), ("M", 512), ("N", 512), ("K", 512)],
    ),
    ("transpose", &[("M", 8192), ("N", 8192)]),
    ("conv1d", &[("N", 1 << 22), ("K", 7)]),
    ("stencil2d", &[("H", 8192), ("W", 8192)]),
    ("attention", &[("S", 1024), ("T", 1024), ("D", 64)]),
    ("jacobi2d", &[("N", 4096), ("T", 100)]),
    ("heat3d", &[("N", 256), ("T", 50)]),
    ("adi", &[("N", 1024), ("T", 10)]),
    ("cholesky", &[("N", 2048)]),
    ("cholesky_right", &[("N", 2048)]),
    ("lu", &[("N", 2048)]),
    ("ludcmp", &[("N", 2048)]),
    ("trisolv", &[("N", 8192)]),
    ("cumsum", &[("T", 256), ("N", 65536)]),
    ("floyd_warshall", &[("N", 2048)]),
    ("cholesky_unrolled", &[("N", 256)]),
    ("cholesky_right_unrolled", &[("N", 256)]),
    ("lu_unrolled", &[("N", 256)]),
    ("ludcmp_unrolled", &[("N", 256)]),
    ("floyd_warshall_unrolled", &[("N", 256)]),
    ("jacobi2d_unrolled", &[("N", 1024), ("T", 64)]),
];

impl Scale {
    /// The suite's programs and their sizes at this scale.
    pub fn suite(self) -> &'static [(&'static str, Sizes)] {
        match self {
            Scale::Cpu => CPU,
            Scale::Gpu => GPU,
        }
    }
}

/// Where a job's source comes from.
#[derive(Clone, Debug)]
enum Origin {
    File(PathBuf),
    /// [`AXPB`].
    Axpb,
    /// An unrolled chain, made at the job's sizes ([`unrolled::source`]).
    Unrolled,
}

/// One program to measure.
#[derive(Clone, Debug)]
pub struct Job {
    pub name: String,
    origin: Origin,
    pub defines: Vec<(String, i64)>,
    /// Whether to run the hand-written baselines of this program.
    pub baselines: bool,
}

impl Job {
    /// The program in `file` at the sizes `defines`, without baselines.
    pub fn of_file(file: &Path, defines: &[(String, i64)]) -> Job {
        Job {
            name: file
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default(),
            origin: Origin::File(file.to_path_buf()),
            defines: defines.to_vec(),
            baselines: false,
        }
    }

    /// The sizes as `N=1024,K=7`.
    pub fn size(&self) -> String {
        let size: Vec<String> = self
            .defines
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect();
        size.join(",")
    }
}

/// The suite at `scale`, only the programs named in `only` (all when empty).
pub fn suite_jobs(scale: Scale, only: &[String]) -> Vec<Job> {
    scale
        .suite()
        .iter()
        .filter(|(name, _)| only.is_empty() || only.iter().any(|o| o == name))
        .map(|(name, defs)| Job {
            name: name.to_string(),
            origin: match *name {
                "axpb" => Origin::Axpb,
                _ if unrolled::CHAINS.iter().any(|(n, _)| n == name) => Origin::Unrolled,
                _ => Origin::File(Path::new("examples").join(format!("{name}.te"))),
            },
            defines: defs.iter().map(|(k, v)| (k.to_string(), *v)).collect(),
            baselines: true,
        })
        .collect()
}

/// Where a job's source text is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum JobSource {
    /// A file, for the caller to read.
    File(PathBuf),
    /// Text made here (a built-in program, an unrolled chain), and the
    /// name to report it by (`<NAME>`).
    Text { name: String, text: String },
}

impl Job {
    /// Where the job's source text is.
    pub fn source(&self) -> JobSource {
        let built_in = |text: String| JobSource::Text {
            name: format!("<{}>", self.name),
            text,
        };
        match &self.origin {
            Origin::File(file) => JobSource::File(file.clone()),
            Origin::Axpb => built_in(AXPB.to_string()),
            // The suite's table gives each chain its sizes (a test holds it to that).
            Origin::Unrolled => built_in(
                unrolled::source(&self.name, &self.defines).expect("the suite sizes every chain"),
            ),
        }
    }
}

/// The hand-written baselines computing what suite program `name` computes,
/// on the same inputs.
pub fn baselines_of(
    name: &str,
    program: &Program,
    inputs: &[HostBuffer],
) -> Vec<(&'static str, Result<RawProgram, RuntimeError>)> {
    let param = |p: &str| {
        program
            .params
            .iter()
            .find(|(n, _)| n == p)
            .map_or(0, |(_, v)| (*v).max(0) as u64)
    };
    let input = |i: usize| inputs.get(i).cloned().unwrap_or(HostBuffer::from_f32(&[]));
    match name {
        "matmul" => {
            let mnk = [param("M"), param("N"), param("K")];
            vec![
                (
                    "matmul_naive",
                    baselines::matmul_naive(mnk, input(0), input(1)),
                ),
                (
                    "matmul_tiled",
                    baselines::matmul_tiled(mnk, input(0), input(1)),
                ),
                (
                    "matmul_regk4",
                    baselines::matmul_regk4(mnk, input(0), input(1)),
                ),
            ]
        }
        "sum" => vec![("sum_tree", baselines::sum_tree(param("N"), input(0)))],
        "axpb" => vec![("axpb_vec4", baselines::axpb_vec4(param("N"), input(0)))],
        _ => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use texpr::{Options, ScheduleChoice, Target};

    fn load_from_repo(job: &Job) -> Program {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
        let text = match job.source() {
            JobSource::File(f) => std::fs::read_to_string(root.join(f)).unwrap(),
            JobSource::Text { text, .. } => text,
        };
        texpr_syntax::frontend(&text, &job.defines)
            .unwrap_or_else(|d| panic!("{}: {d:?}", job.name))
    }

    /// The heuristic's schedule of `job` on `target`.
    fn heuristic(job: &Job, target: &str) -> texpr::Schedule {
        let program = load_from_repo(job);
        let opts = Options {
            target: Target::builtin(target).unwrap(),
            overrides: job.defines.clone(),
            schedule: ScheduleChoice::Heuristic,
        };
        match texpr::compile(&program, &opts) {
            Ok(c) => c.schedule,
            Err(d) => panic!("{} {} on {target}: {:?}", job.name, job.size(), d),
        }
    }

    /// `--scale gpu` names every suite program, at the sizes of issue 11,
    /// and each compiles with the heuristic for an H100 (the built-in
    /// `nvidia` target: 48 KiB of workgroup memory, subgroups of 32,
    /// buffers past 1 GiB).
    #[test]
    fn the_gpu_scale_suite_compiles_for_a_data_centre_gpu() {
        let jobs = suite_jobs(Scale::Gpu, &[]);
        let cpu: Vec<&str> = CPU.iter().map(|(n, _)| *n).collect();
        for name in &cpu {
            assert!(jobs.iter().any(|j| j.name == *name), "{name} missing");
        }
        let sizes: Vec<String> = jobs
            .iter()
            .map(|j| format!("{} {}", j.name, j.size()))
            .collect();
        for want in [
            "matmul M=4096,N=4096,K=4096",
            "matmul M=1024,N=1024,K=1024",
            "sum N=268435456",
            "chain N=268435456",
            "saxpy N=268435456",
            "softmax R=16384,C=4096",
            "layernorm R=16384,C=4096",
            "matvec M=8192,N=8192",
            "transpose M=8192,N=8192",
            "attention S=1024,T=1024,D=64",
            "batched_matmul BATCH=64,M=512,N=512,K=512",
            "conv1d N=4194304,K=7",
        ] {
            assert!(sizes.iter().any(|s| s == want), "{want} not in {sizes:?}");
        }
        for job in &jobs {
            heuristic(job, "nvidia");
        }
        // Lavapipe's sizes are those of before.
        let cpu_jobs = suite_jobs(Scale::Cpu, &[]);
        assert_eq!(cpu_jobs.len(), CPU.len());
        assert!(cpu_jobs.iter().any(|j| j.size() == "M=1024,N=1024,K=1024"));
    }

    /// The suite holds every example and every unrolled chain, and each
    /// program of `--scale cpu` compiles with the heuristic for llvmpipe.
    #[test]
    fn the_cpu_scale_suite_holds_every_example_and_compiles_for_llvmpipe() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
        let examples = std::fs::read_dir(root.join("examples")).unwrap();
        let mut names: Vec<String> = examples
            .filter_map(|e| {
                let path = e.ok()?.path();
                (path.extension()? == "te")
                    .then(|| path.file_stem().unwrap().to_string_lossy().into_owned())
            })
            .collect();
        names.extend(unrolled::CHAINS.iter().map(|(n, _)| n.to_string()));
        for name in &names {
            assert!(
                CPU.iter().any(|(n, _)| n == name),
                "{name} is not in the suite"
            );
        }
        for job in suite_jobs(Scale::Cpu, &[]) {
            heuristic(&job, "llvmpipe");
        }
    }

    /// Unrolling a loop makes each step's number a constant; that must not
    /// make a step look like a contraction worth tiling (a matrix-wide
    /// `select` folding in one column, a fold of a few steps): every
    /// chain's heuristic tiles, on a CPU and on a GPU, no more items than
    /// its loop example's (the product `M M^T` that Cholesky factors).
    #[test]
    fn unrolled_steps_are_tiled_no_more_than_their_loop() {
        let tiles = |s: &texpr::Schedule| {
            (s.items.iter())
                .filter(|(_, st)| matches!(st, texpr::Strategy::Tile { .. }))
                .count()
        };
        let jobs = suite_jobs(Scale::Cpu, &[]);
        let job = |name: &str| jobs.iter().find(|j| j.name == name).unwrap();
        for (chain, example) in unrolled::CHAINS {
            for target in ["llvmpipe", "nvidia"] {
                let (c, e) = (
                    heuristic(job(chain), target),
                    heuristic(job(example), target),
                );
                assert!(
                    tiles(&c) <= tiles(&e),
                    "{chain} on {target}: {} tiled items, {example} {}\n{c}",
                    tiles(&c),
                    tiles(&e)
                );
            }
        }
    }
}
