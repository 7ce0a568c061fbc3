//! How long the interpreter takes on a program: the median of `RUNS`
//! plain evaluations (`texpr_interp::eval`) and of `RUNS` evaluations with
//! the check's error bounds (`accuracy::reference`), on seed-1 random
//! inputs. For BENCHMARKS.md ("The interpreter").
//!
//! ```text
//! cargo run --release -p texpr-interp --example eval_time -- examples/cholesky.te N=96
//! ```

use std::time::Instant;
use texpr_interp::{accuracy, eval, random_inputs};

const RUNS: usize = 3;

fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(f64::total_cmp);
    xs[xs.len() / 2]
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some((file, defines)) = args.split_first() else {
        eprintln!("usage: eval_time FILE [NAME=VALUE ...]");
        std::process::exit(2);
    };
    let defines: Vec<(String, i64)> = defines
        .iter()
        .map(|d| {
            let (k, v) = d.split_once('=').expect("NAME=VALUE");
            (k.to_string(), v.parse().expect("an integer value"))
        })
        .collect();
    let src = std::fs::read_to_string(file).expect("a readable file");
    let p = texpr_syntax::frontend(&src, &defines).unwrap_or_else(|d| panic!("{d:?}"));
    let inputs = random_inputs(&p, 1);
    let time = |f: &dyn Fn()| {
        let start = Instant::now();
        f();
        start.elapsed().as_secs_f64()
    };
    let plain = median(
        (0..RUNS)
            .map(|_| time(&|| drop(eval(&p, &inputs))))
            .collect(),
    );
    let bounded = median(
        (0..RUNS)
            .map(|_| time(&|| drop(accuracy::reference(&p, &inputs))))
            .collect(),
    );
    println!(
        "{file} {}: eval {plain:.3} s, with bounds {bounded:.3} s",
        args[1..].join(" ")
    );
}
