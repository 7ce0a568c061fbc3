//! How long the interpreter takes on a program: the median of `RUNS`
//! plain evaluations (`texpr_interp::eval`) and of `RUNS` evaluations with
//! the check's error bounds (`accuracy::reference`), on seed-1 random
//! inputs; then the same by the element-by-element path alone, without
//! the lane path (`eval_by_element`, `accuracy::reference_by_element`).
//! For BENCHMARKS.md ("The interpreter").
//!
//! ```text
//! cargo run --release -p texpr-interp --example eval_time -- examples/cholesky.te N=96
//! ```

use std::time::Instant;
use texpr_interp::{accuracy, eval, eval_by_element, random_inputs};

const RUNS: usize = 3;

fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(f64::total_cmp);
    xs[xs.len() / 2]
}

mod common;

fn main() {
    let (file, defines, p) = common::program_from_args("eval_time");
    let inputs = random_inputs(&p, 1);
    let time = |f: &dyn Fn()| {
        let start = Instant::now();
        f();
        start.elapsed().as_secs_f64()
    };
    let med = |f: &dyn Fn()| median((0..RUNS).map(|_| time(f)).collect());
    let plain = med(&|| drop(eval(&p, &inputs)));
    let bounded = med(&|| drop(accuracy::reference(&p, &inputs)));
    let by_element = med(&|| drop(eval_by_element(&p, &inputs)));
    let bounded_by_element = med(&|| drop(accuracy::reference_by_element(&p, &inputs)));
    println!(
        "{file} {}: eval {plain:.3} s, with bounds {bounded:.3} s; \
         element by element: eval {by_element:.3} s, with bounds {bounded_by_element:.3} s",
        defines
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join(" ")
    );
}
