//! Benchmark: compile time (parse to validated WGSL) of programs large in
//! the ways that used to be quadratic or worse: 10^4 chained top-level
//! `let`s (elementwise, which the heuristic fuses; elementwise each reading
//! the one before three times, which fusion once expanded into a tree 3^n
//! in size and now fuses in runs of two; and reductions, which stay 10^4
//! kernels) and a 10^4-element vector literal, under the heuristic and the
//! default schedule (release build).
//!
//! `cargo bench -p texpr --bench compile` prints the median wall-clock time
//! of several runs per program and schedule, and the mean CPU time of the
//! compiling thread (on Linux: what a compile costs however loaded the
//! machine is); `-- N` sets the size (default 10^4).

use std::fmt::Write as _;
use std::time::{Duration, Instant};
use texpr::{Options, ScheduleChoice, compile_source};

/// `n` top-level lets, each elementwise in the one before.
fn chained_lets(n: usize) -> String {
    let mut src =
        String::from("param N = 1024\ninput x: f32[N]\nlet t0 = compute N |i| x[i] + 1.0\n");
    for k in 1..n {
        let _ = writeln!(src, "let t{k} = compute N |i| t{}[i] * 0.5 + x[i]", k - 1);
    }
    let _ = writeln!(src, "output y = compute N |i| t{}[i]", n - 1);
    src
}

/// `n` top-level lets, each a smoothing stencil reading the one before
/// three times per element (issue 25's chain).
fn chained_stencils(n: usize) -> String {
    let mut src = String::from("param N = 1024\ninput x: f32[N]\n");
    let mut prev = "x".to_string();
    for k in 0..n {
        let _ = writeln!(
            src,
            "let a{k} = compute N |i| {prev}[i] * 0.5 + {prev}[(i + 1) % N] * 0.25 + {prev}[(i + N - 1) % N] * 0.25"
        );
        prev = format!("a{k}");
    }
    let _ = writeln!(src, "output y = compute N |i| {prev}[i]");
    src
}

/// `n` top-level lets, each a windowed sum of the one before (no fusion).
fn chained_reductions(n: usize) -> String {
    let mut src = String::from("param N = 64\ninput x: f32[N]\nlet t0 = compute N |i| x[i]\n");
    for k in 1..n {
        let _ = writeln!(
            src,
            "let t{k} = compute N |i| (reduce 4 |j| t{}[(i + j) % N]) * 0.25",
            k - 1
        );
    }
    let _ = writeln!(src, "output y = compute N |i| t{}[i]", n - 1);
    src
}

/// A literal of `n` elements, multiplied into an input.
fn literal(n: usize) -> String {
    let items: Vec<String> = (0..n).map(|k| format!("{}.5", k % 1000)).collect();
    format!(
        "input x: f32[{n}]\nlet c = [{}]\noutput y = compute {n} |i| x[i] * c[i]\n",
        items.join(", ")
    )
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

/// The CPU time this thread has run, where Linux says it
/// (`/proc/thread-self/schedstat`, nanoseconds): what a compile costs
/// however loaded the machine is.
fn thread_cpu_time() -> Option<Duration> {
    let stat = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    let ns = stat.split_whitespace().next()?.parse().ok()?;
    Some(Duration::from_nanos(ns))
}

/// The median wall-clock time and the mean CPU time of compiling `src` under `schedule`
/// (after a warm-up run that must succeed).
fn time(src: &str, schedule: ScheduleChoice, runs: usize) -> (Duration, Option<Duration>) {
    let opts = Options {
        schedule,
        ..Options::default()
    };
    if let Err(d) = compile_source(src, &opts) {
        let shown = texpr_ir::diag::render("bench.te", src, &d);
        panic!("the benchmark program does not compile:\n{shown}");
    }
    let mut wall = Vec::new();
    let cpu_before = thread_cpu_time();
    for _ in 0..runs {
        let t = Instant::now();
        let _ = compile_source(src, &opts);
        wall.push(t.elapsed());
    }
    // The kernel updates the figure at ticks (a few ms): a mean over all
    // runs, not a median of short ones.
    let cpu = cpu_before
        .zip(thread_cpu_time())
        .map(|(a, b)| b.saturating_sub(a) / runs as u32);
    (median(wall), cpu)
}

fn main() {
    let n: usize = std::env::args()
        .skip(1)
        .find_map(|a| a.parse().ok())
        .unwrap_or(10_000);
    let runs = 5;
    println!(
        "compile time (parse to validated WGSL), {runs} runs (median wall clock, mean CPU time of the compiling thread), n = {n}:"
    );
    let programs = [
        ("chained elementwise lets", chained_lets(n)),
        ("chained lets read 3x", chained_stencils(n)),
        ("chained reduction lets", chained_reductions(n)),
        ("vector literal", literal(n)),
    ];
    for (what, src) in &programs {
        for (name, schedule) in [
            ("heuristic", ScheduleChoice::Heuristic),
            ("default", ScheduleChoice::Default),
        ] {
            let (wall, cpu) = time(src, schedule, runs);
            let cpu = cpu.map_or("-".to_string(), |c| format!("{:.1}", c.as_secs_f64() * 1e3));
            println!(
                "  {what:<26} {name:<10} {:>9.1} ms wall {cpu:>9} ms CPU  ({:.1} KB of source)",
                wall.as_secs_f64() * 1e3,
                src.len() as f64 / 1e3
            );
        }
    }
}
