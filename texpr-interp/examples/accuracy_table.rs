//! Where the check's bounds vouch for a program, and how tight they are:
//! for each output of a program on its seed-1 random inputs, the share of
//! elements compared rigorously (specified, with a useful bound:
//! `accuracy::useful`), and the
//! ratio of each bound to the element's actual distance from an `f64`
//! evaluation (`accuracy::f64_values`), as one Markdown table row.
//! `tools/oracle-table` runs it over the factorizations and stencils of
//! examples/ (docs/oracle.md).
//!
//! ```text
//! cargo run --release -p texpr-interp --example accuracy_table -- examples/lu.te N=64
//! ```

use std::time::Instant;
use texpr_interp::{accuracy, random_inputs};

mod common;

fn main() {
    let (file, defines, p) = common::program_from_args("accuracy_table");
    let inputs = random_inputs(&p, 1);
    let start = Instant::now();
    let refs = accuracy::reference(&p, &inputs).expect("evaluates");
    let secs = start.elapsed().as_secs_f64();
    let f64s = accuracy::f64_values(&p, &inputs).expect("evaluates");
    let name = std::path::Path::new(&file)
        .file_stem()
        .unwrap()
        .to_string_lossy();
    let sizes = if defines.is_empty() {
        "as written".to_string()
    } else {
        defines
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join(" ")
    };
    for ((out, r), exact) in p.outputs.iter().zip(&refs).zip(&f64s) {
        println!("{}", row(&name, &sizes, &out.name, r, exact, secs));
    }
}

/// `| name | sizes | output | compared | median | min | largest bound | s |`
fn row(
    name: &str,
    sizes: &str,
    out: &str,
    r: &accuracy::Reference,
    exact: &[f64],
    secs: f64,
) -> String {
    let v = r.value.to_f64();
    let n = v.len();
    let scale = r.scale();
    let bounded: Vec<usize> = (0..n)
        .filter(|&i| r.bounds[i].specified && accuracy::useful(r.bounds[i].err, v[i], scale))
        .collect();
    let mut ratios: Vec<f64> = bounded
        .iter()
        .filter_map(|&i| {
            let d = (v[i] - exact[i]).abs();
            (d > 0.0).then(|| r.bounds[i].err / d)
        })
        .collect();
    ratios.sort_by(f64::total_cmp);
    let median = ratios.get(ratios.len() / 2).copied();
    let min = ratios.first().copied();
    let largest = bounded.iter().map(|&i| r.bounds[i].err).fold(0.0, f64::max);
    let fmt = |x: Option<f64>| x.map_or("-".to_string(), |x| format!("{x:.3}"));
    format!(
        "| {name} | {sizes} | {out} | {} of {n} ({:.1}%) | {} | {} | {largest:.2e} | {secs:.2} |",
        bounded.len(),
        100.0 * bounded.len() as f64 / n.max(1) as f64,
        fmt(median),
        fmt(min),
    )
}
