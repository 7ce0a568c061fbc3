//! The npm package's figures for BENCHMARKS.md: its files' sizes (raw and
//! gzip -9), and each example's compile time in headless Chromium (the
//! compiler built for WebAssembly, `compile(source, {target: "webgpu"})`,
//! the median of 9 rounds after one compile to warm up, each round the mean
//! of as many compiles as fill 5 ms).
//!
//! `cargo bench -p texpr-tests --bench npm_compile` (builds the package with
//! npm/build.sh first; needs Chromium and the wasm32 target).

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use serde_json::Value as Json;
use texpr_tests::browser::{self, BENCH_PAGE, Page, Site};
use texpr_tests::npm;

/// Bytes of the file at `path` compressed by `gzip -9`.
fn gzipped(path: &Path) -> Option<usize> {
    let out = Command::new("gzip")
        .arg("-9")
        .arg("-c")
        .arg(path)
        .output()
        .ok()?;
    out.status.success().then_some(out.stdout.len())
}

fn main() {
    if std::env::args().any(|a| a == "--list") {
        return; // `cargo test --benches` lists benchmarks: there are no tests here
    }
    if !npm::package() {
        return;
    }
    println!("| file | KB | KB gzip -9 |\n|---|---:|---:|");
    for f in [
        "pkg/texpr_wasm_bg.wasm",
        "pkg/texpr_wasm.js",
        "run.js",
        "index.js",
        "index.d.ts",
        "run.d.ts",
        "webgpu.js",
    ] {
        let path = npm::root().join("npm").join(f);
        let data = std::fs::read(&path).expect("the built package");
        let gz = gzipped(&path).map_or("?".into(), |n| format!("{:.1}", n as f64 / 1000.0));
        println!("| npm/{f} | {:.1} | {gz} |", data.len() as f64 / 1000.0);
    }
    let Some(chromium) = browser::chromium() else {
        return;
    };
    let site = Site::start(&npm::root(), vec![("/bench.html", BENCH_PAGE)]).expect("a server");
    let mut page = Page::open(&chromium, &format!("{}/bench.html", site.url())).expect("Chromium");
    let deadline = Instant::now() + Duration::from_secs(600);
    let body = (site.results(deadline, || page.alive()))
        .unwrap_or_else(|e| panic!("{e}\n{}", page.log_tail()));
    let r: Json = serde_json::from_str(&body).expect("JSON");
    assert!(r.get("error").is_none(), "{}", r["error"]);
    println!(
        "\n{}; init (fetch and instantiate the .wasm) {:.0} ms",
        r["user_agent"],
        r["init_ms"].as_f64().unwrap_or(0.0)
    );
    println!("\n| example | kernels | median ms | fastest ms |\n|---|---:|---:|---:|");
    for e in r["results"].as_array().expect("results") {
        let ok = e["ok"] == true;
        println!(
            "| {} | {} | {:.2} | {:.2} |",
            e["name"].as_str().unwrap_or("?"),
            if ok {
                e["kernels"].to_string()
            } else {
                "error".into()
            },
            e["median_ms"].as_f64().unwrap_or(f64::NAN),
            e["min_ms"].as_f64().unwrap_or(f64::NAN)
        );
    }
}
