//! Benchmark: parse + check of about 1 MB of generated TExpr source (release build).
//!
//! `cargo bench -p texpr-syntax --bench frontend` prints the median of several
//! runs for parsing alone and for parse + check, in ms and MB/s.

use std::fmt::Write as _;
use std::time::{Duration, Instant};

/// A deterministic program of roughly `target_bytes` bytes that checks
/// cleanly: inputs, then many outputs over every expression form.
fn generate(target_bytes: usize) -> String {
    let mut src = String::from(
        "// generated for the front-end benchmark\nparam N = 4096\nparam R = 64\nparam C = 64\n\
         input x: f32[N]\ninput y: f32[N]\ninput m: f32[R*C]\ninput k: i32[N]\n",
    );
    let mut n = 0usize;
    while src.len() < target_bytes {
        let s = (n % 7) as f32 * 0.5 + 1.25;
        let _ = match n % 6 {
            0 => writeln!(
                src,
                "output o{n}: f32[N] = compute N |i| x[i] * {s:?} + y[i] - exp(x[i]) / (1.0 + abs(y[i]))"
            ),
            1 => writeln!(
                src,
                "output o{n} = compute R |r| let mx = reduce max C |j| m[r*C + j] in\n    let s = reduce C |j| exp(m[r*C + j] - mx) in\n    compute C |j| exp(m[r*C + j] - mx) / s"
            ),
            2 => writeln!(
                src,
                "output o{n} = compute R |i| compute C |j| reduce C |q| m[i*C + q] * m[q*C + j]"
            ),
            3 => writeln!(
                src,
                "output o{n} = compute N |i| x[i + 1] else 0.0 + x[i - 1] else 0.0 - {s:?} * x[i]"
            ),
            4 => writeln!(
                src,
                "output o{n} = compute R*C {{t -> (t % R) * C + t / R}} |q| m[q] * {s:?}"
            ),
            _ => writeln!(
                src,
                "output o{n} = compute N |i| select(k[i] > 3, f32(k[i]) * x[i], max(x[i], y[i]))"
            ),
        };
        n += 1;
    }
    src
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn time<T>(runs: usize, mut f: impl FnMut() -> T) -> Duration {
    let _ = f(); // warm-up
    median(
        (0..runs)
            .map(|_| {
                let t = Instant::now();
                std::hint::black_box(f());
                t.elapsed()
            })
            .collect(),
    )
}

fn main() {
    let src = generate(1 << 20);
    let mb = src.len() as f64 / 1e6;
    let checked = texpr_syntax::frontend(&src, &[]);
    if let Err(diags) = &checked {
        eprintln!(
            "{}",
            texpr_ir::diag::render("generated.te", &src, &diags[..diags.len().min(5)])
        );
        panic!("generated benchmark source does not check");
    }
    let runs = 7;
    let parse = time(runs, || texpr_syntax::parse(&src));
    let full = time(runs, || texpr_syntax::frontend(&src, &[]));
    println!(
        "front end on {:.2} MB of TExpr ({} lines), median of {runs} runs:",
        mb,
        src.lines().count()
    );
    for (what, d) in [("parse", parse), ("parse + check", full)] {
        println!(
            "  {what:<14} {:>8.1} ms  {:>7.1} MB/s",
            d.as_secs_f64() * 1e3,
            mb / d.as_secs_f64()
        );
    }
}
