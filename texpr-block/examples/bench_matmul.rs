//! Benchmark: blocked matmul on a 2x2 grid of ranks (one device) vs one dense TExpr kernel.
//!
//! `cargo run -p texpr-block --example bench_matmul -- N T` (defaults 2048 256); prints a
//! markdown table row. GPU times are wgpu's per-run times summed over shards.

use std::time::Instant;
use texpr_block::air::parse;
use texpr_block::exec::gpu::GpuRunner;
use texpr_block::exec::{KernelRunner, random_inputs, run_plan};
use texpr_block::graph::{GridConfig, Policy, build, prune, schedule};
use texpr_block::passes::{Env, optimize};

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
    let p = optimize(&parse(&src, &[]).expect("parses"), &mut Env::new()).expect("optimises");
    let gpu = texpr_codegen::runtime::Gpu::open_from_env().expect("a GPU adapter");
    let g = prune(&build(&p, GridConfig::new(2, 2)).expect("builds"));
    let plan = schedule(&g, 4, Policy::CriticalPath { budget: u64::MAX });
    let inputs = random_inputs(&p, 1);

    let mut blocked = GpuRunner::new(&gpu);
    let start = Instant::now();
    let report = run_plan(&p, &g, &plan, &inputs, &mut blocked).expect("runs");
    let blocked_wall = start.elapsed();

    let sent: u64 = plan.sent.iter().sum();
    println!("device: {}", gpu.info());
    println!(
        "blocked: n {n}, tile {t}, {} shards, {} kernels, GPU time {:.3} s, wall {:.3} s, bytes between ranks {sent}, sent {:?}, received {:?}",
        report.shards,
        report.kernels,
        blocked.gpu_time.as_secs_f64(),
        blocked_wall.as_secs_f64(),
        plan.sent,
        plan.received
    );
    let dense_src = format!(
        "input a: f32[{}]\ninput b: f32[{}]\noutput out: f32[{}] = compute {n} |j| compute {n} |i| reduce {n} |k| a[i + k * {n}] * b[k + j * {n}]\n",
        n * n,
        n * n,
        n * n
    );
    let mut dense = GpuRunner::new(&gpu);
    let start = Instant::now();
    match dense.run(&dense_src, &[&inputs[0].data, &inputs[1].data]) {
        Ok(out) => {
            let diff = out
                .iter()
                .zip(&report.result.data)
                .map(|(a, b)| (a - b).abs())
                .fold(0.0f32, f32::max);
            println!(
                "dense: GPU time {:.3} s, wall {:.3} s, max abs diff {diff:.2e}",
                dense.gpu_time.as_secs_f64(),
                start.elapsed().as_secs_f64()
            );
        }
        Err(e) => println!(
            "dense: failed after {:.3} s: {e}",
            start.elapsed().as_secs_f64()
        ),
    }
}
