//! The npm package (npm/, docs/npm.md) in headless Chromium: a page imports
//! it as any page would, compiles `examples/softmax.te` with the compiler
//! built for WebAssembly, runs the plan on the page's WebGPU with the
//! package's runtime and compares the outputs with the interpreter running
//! in the page. The test then checks the page's findings against the
//! native compiler and interpreter: the same WGSL, the same random inputs,
//! and outputs within the interpreter's error bounds here too.
//!
//! Skipped loudly without Chromium or without what building the package
//! needs (the wasm32 target); under TEXPR_REQUIRE_GPU=1
//! either is a failure.

use std::time::Duration;

use serde_json::Value as Json;
use texpr::{Options, Target, compile_source};
use texpr_interp::Value;
use texpr_interp::accuracy::check_report;
use texpr_tests::browser::{self, NPM_PAGE};
use texpr_tests::gpu::reference;
use texpr_tests::npm;

/// A vector the page posted (numbers; non-finite ones as strings).
fn floats(v: &Json) -> Vec<f32> {
    (v.as_array().expect("an array").iter())
        .map(|x| match x {
            Json::Number(n) => n.as_f64().expect("a number") as f32,
            Json::String(s) => s.parse().expect("Infinity, -Infinity or NaN"),
            other => panic!("not an element: {other}"),
        })
        .collect()
}

#[test]
fn the_package_compiles_runs_and_matches_the_interpreter_in_the_page() {
    let Some(chromium) = browser::chromium() else {
        return;
    };
    if !npm::package() {
        return;
    }
    let r = browser::page_results(
        &chromium,
        vec![("/test/npm.html", NPM_PAGE)],
        "/test/npm.html",
        Duration::from_secs(240),
    );

    // The compiler in the page is the native one.
    let path = npm::root().join("examples/softmax.te");
    let src = std::fs::read_to_string(&path).expect("examples/softmax.te");
    let opts = Options {
        target: Target::builtin("webgpu").unwrap(),
        ..Options::default()
    };
    let native = compile_source(&src, &opts).expect("softmax compiles");
    assert_eq!(
        r["wgsl"].as_str(),
        Some(native.module.wgsl.as_str()),
        "the page's WGSL differs"
    );
    assert_eq!(
        r["schedule"].as_str(),
        Some(native.schedule.to_string().as_str())
    );
    assert!(
        r["targets"]
            .as_array()
            .unwrap()
            .iter()
            .any(|t| t == "webgpu")
    );

    // The page's verdict: every element of `y` within its error bound.
    let verdict = &r["verdict"];
    assert_eq!(
        verdict["ok"], true,
        "the page's comparison failed: {verdict}"
    );
    assert_eq!(verdict["complete"], true, "{verdict}");
    let len = native.scheduled.outputs[0].value.ty.len;
    assert_eq!(
        verdict["outputs"][0]["compared"].as_u64(),
        Some(len),
        "{verdict}"
    );

    // The same inputs as the native interpreter's (bit for bit), and the
    // same outputs twice (the second run reuses the pipelines).
    let program = texpr_syntax::frontend(&src, &[]).unwrap();
    let inputs = texpr_interp::random_inputs(&program, 1);
    assert_eq!(Value::f32(floats(&r["inputs"]["x"])), inputs[0]);
    let got = floats(&r["outputs"]["y"]);
    assert_eq!(
        got,
        floats(&r["second"]["y"]),
        "two runs of one compiled program differ"
    );

    // The GPU's outputs, and the in-page interpreter's, hold here too by
    // the rule every GPU test applies. (The interpreter in WebAssembly is
    // not bit for bit the native one: `exp` is Rust's libm there, the
    // platform's here; each is within WGSL's accuracy, which the bounds hold.)
    let want = reference(&program, &inputs).unwrap();
    let interpreted = floats(&r["interpreter"]["y"]);
    let native = texpr_interp::eval(&program, &inputs).unwrap();
    let differ = (native[0].data.clone(), Value::f32(interpreted.clone()).data);
    if let (texpr_interp::Data::F32(a), texpr_interp::Data::F32(b)) = differ {
        let n = a.iter().zip(&b).filter(|(x, y)| x != y).count();
        eprintln!(
            "npm_package: {n} of {len} elements differ between the native and the in-page interpreter"
        );
    }
    for outputs in [got, interpreted] {
        for c in check_report(&program, &[Value::f32(outputs)], &want) {
            let c = c.unwrap_or_else(|m| panic!("{m}"));
            assert_eq!(c.compared as u64, len);
        }
    }
    if r["timestamps"] == true {
        assert!(
            r["gpu_time_ms"].as_f64().is_some_and(|t| t > 0.0),
            "{}",
            r["gpu_time_ms"]
        );
    }

    // Loops: each matches the interpreter in the page, and the runtime's
    // dispatch order (each kernel with every loop's step) is the plan's.
    for l in r["loops"].as_array().expect("the loop examples") {
        let name = l["name"].as_str().unwrap();
        assert_eq!(l["verdict"]["ok"], true, "{name}: {}", l["verdict"]);
        assert!(
            l["verdict"]["outputs"][0]["compared"]
                .as_u64()
                .is_some_and(|n| n > 0),
            "{name}"
        );
        let src = std::fs::read_to_string(npm::root().join(format!("examples/{name}.te"))).unwrap();
        let defines: Vec<(String, i64)> = (l["defines"].as_object().unwrap().iter())
            .map(|(k, v)| (k.clone(), v.as_i64().unwrap()))
            .collect();
        let opts = Options {
            overrides: defines,
            ..opts.clone()
        };
        let module = compile_source(&src, &opts).expect("compiles").module;
        assert!(!module.loops.is_empty(), "{name} has no loop");
        let want: Vec<Json> = (module.dispatches())
            .map(|(k, steps)| serde_json::json!([k, steps]))
            .collect();
        assert_eq!(
            l["dispatches"].as_array().unwrap(),
            &want,
            "{name}: the dispatch order"
        );
        assert_eq!(l["count"].as_u64(), Some(want.len() as u64), "{name}");
    }

    // Device arrays: two runs chained on the device give the interpreter's
    // result of both steps as one program, with one upload, two launches
    // and no read before `read()`; arrays that do not fit are refused.
    let chain = &r["chain"];
    assert_eq!(chain["verdict"]["ok"], true, "{chain}");
    assert_eq!(chain["verdict"]["outputs"][0]["compared"], 3000, "{chain}");
    assert_eq!(chain["device_outputs"], true, "{chain}");
    let between = &chain["between"];
    assert_eq!(
        (&between["uploads"], &between["reads"], &between["launches"]),
        (&Json::from(1), &Json::from(0), &Json::from(2)),
        "{chain}"
    );
    assert_eq!(chain["read"]["reads"], 1, "{chain}");
    assert_eq!(chain["read"]["readBytes"], 3000 * 4, "{chain}");
    assert_eq!(chain["kept"]["device"], true, "{chain}");
    assert_eq!(chain["kept"]["same"], true, "{chain}");
    let refusals: Vec<&str> = (chain["refusals"].as_array().unwrap().iter())
        .map(|m| m.as_str().unwrap_or("accepted"))
        .collect();
    assert!(
        refusals[0].contains("f32[3000]") && refusals[0].contains("f32[5]"),
        "{refusals:?}"
    );
    assert!(refusals[1].contains("i32[3000]"), "{refusals:?}");
    assert!(refusals[2].contains("destroyed"), "{refusals:?}");

    // A mistake comes back as coded diagnostics, rendered as the CLI does.
    let broken = &r["broken"];
    assert_eq!(broken["ok"], false);
    let code = broken["codes"][0].as_str().expect("a code");
    let rendered = broken["rendered"].as_str().unwrap();
    assert!(
        rendered.contains(&format!("error[{code}]")) && rendered.contains("input.te:2:"),
        "{rendered}"
    );
}
