//! Benchmark: blocked matmul on a 2x2 grid of ranks (threads of one process, one GPU) vs one dense TExpr kernel.
//!
//! `cargo run --release -p texpr-block --example bench_matmul -- N T` (defaults 2048 256);
//! both use the optimizer's heuristic schedule for the GPU.

use std::time::Instant;
use texpr_block::cli::{BlockArgs, plan};
use texpr_block::cli_run::{Backend, job, run_in_process};
use texpr_block::exec::device::heuristic;
use texpr_block::exec::{RandomSource, random_inputs};
use texpr_runtime::HostBuffer;

fn main() {
    let args: Vec<u64> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    let n = args.first().copied().unwrap_or(2048);
    let t = args.get(1).copied().unwrap_or(256);
    let src = format!(
        "func mm {{\n  %a = input : f32[{n}x{n}, {t}x{t}]\n  %b = input : f32[{n}x{n}, {t}x{t}]\n  %c = matmul %a, %b\n  ret %c\n}}"
    );
    let gpu = texpr_runtime::Gpu::open_from_env().expect("a GPU adapter");
    let mut b = BlockArgs::new("mm.air", &src);
    b.grid = (2, 2);
    let planned = plan(&b).expect("plans");
    let job = job(&b, &planned).expect("a job");
    let backend = Backend {
        gpu: Some(&gpu),
        pick: &heuristic,
    };
    let source = RandomSource { seed: 1 };
    let outcome = run_in_process(&job, &source, backend).expect("runs");
    let blocked = outcome.gathered.result.expect("gathered");
    println!("device: {}", gpu.info());
    println!(
        "blocked: n {n}, tile {t}, 2x2 ranks as threads, wall {:.3} s",
        outcome.wall.as_secs_f64()
    );
    let dense_src = format!(
        "input a: f32[{}]\ninput b: f32[{}]\noutput out: f32[{}] = compute {n} |j| compute {n} |i| reduce {n} |k| a[i + k * {n}] * b[k + j * {n}]\n",
        n * n,
        n * n,
        n * n
    );
    let opts = texpr::Options {
        target: gpu.target().clone(),
        ..Default::default()
    };
    let module = texpr::compile_source(&dense_src, &opts)
        .expect("compiles")
        .module;
    let inputs = random_inputs(&planned.p, 1);
    let host: Vec<HostBuffer> = inputs
        .iter()
        .map(|m| HostBuffer::from_f32(&m.data))
        .collect();
    let start = Instant::now();
    match gpu.run(&module, &host) {
        Ok(res) => {
            let out = res.outputs[0].to_f32();
            let diff = out
                .iter()
                .zip(&blocked.data)
                .map(|(a, b)| (a - b).abs())
                .fold(0.0f32, f32::max);
            println!(
                "dense: GPU time {:.3} s, wall {:.3} s, max abs diff {diff:.2e}",
                res.gpu_time.as_secs_f64(),
                start.elapsed().as_secs_f64()
            );
        }
        Err(e) => println!(
            "dense: failed after {:.3} s: {e}",
            start.elapsed().as_secs_f64()
        ),
    }
}
