//! Integer-to-float conversion at f32's rounding edges in Chromium (Tint on
//! SwiftShader), as `conversions.rs` checks it on wgpu: a page compiles
//! `f32(x[i])` of u32 and i32 edges with the npm package for `webgpu`,
//! runs it on the page's WebGPU and compares with the interpreter there.
//! Every element must be one of the two f32 values adjacent to its
//! integer, the page's comparison must pass, and the native check must
//! accept the browser's outputs too.
//!
//! Skipped loudly without Chromium or without what building the package
//! needs; under TEXPR_REQUIRE_GPU=1 either is a failure.

use std::time::Duration;

use texpr_interp::Value;
use texpr_interp::accuracy::check_outputs;
use texpr_tests::browser;
use texpr_tests::gpu::reference;
use texpr_tests::npm;

use crate::conversions::{edges, neighbours};

/// The page: for each case `[elem, values]`, compile, run, compare; posts
/// `{elem: {y, verdict}}`.
const SCRIPT: &str = r#"
import * as texpr from "/npm/index.js";
const ARRAYS = { u32: Uint32Array, i32: Int32Array };
async function main() {
  await texpr.init();
  const out = {};
  for (const [elem, values] of CASES) {
    const src = `param N = ${values.length}\ninput x: ${elem}[N]\noutput y: f32[N] = compute N |i| f32(x[i])\n`;
    const compiled = texpr.compile(src, { target: "webgpu" });
    if (!compiled.ok) return { error: compiled.rendered };
    const inputs = { x: ARRAYS[elem].from(values) };
    const got = await texpr.run(compiled, inputs);
    const verdict = texpr.compare(src, inputs, got.outputs);
    out[elem] = { y: Array.from(got.outputs.y), verdict: { ok: verdict.ok, complete: verdict.complete } };
  }
  return out;
}
main().catch((e) => ({ error: `${e?.stack ?? e}` }))
  .then((r) => fetch("/results", { method: "POST", body: JSON.stringify(r) }));
"#;

#[test]
fn int_to_f32_at_the_rounding_edges_in_chromium_is_either_neighbour() {
    let Some(chromium) = browser::chromium() else {
        return;
    };
    if !npm::package() {
        return;
    }
    let unsigned: Vec<i64> = (edges().into_iter())
        .filter(|&x| (0..=u32::MAX as i64).contains(&x))
        .collect();
    let signed: Vec<i64> = (edges().into_iter())
        .flat_map(|x| [x, -x])
        .filter(|&x| (i32::MIN as i64..=i32::MAX as i64).contains(&x))
        .collect();
    let cases = serde_json::json!([["u32", unsigned], ["i32", signed]]);
    let page_html = format!(
        "<!doctype html><meta charset=\"utf-8\"><script type=\"module\">\nconst CASES = {cases};\n{SCRIPT}</script>"
    );
    let html: &'static str = Box::leak(page_html.into_boxed_str());
    let r = browser::page_results(
        &chromium,
        vec![("/test/conversions.html", html)],
        "/test/conversions.html",
        Duration::from_secs(240),
    );

    for (elem, values) in [("u32", &unsigned), ("i32", &signed)] {
        let got = &r[elem];
        assert_eq!(
            got["verdict"],
            serde_json::json!({"ok": true, "complete": true}),
            "{elem}: the page's comparison"
        );
        let y: Vec<f32> = (got["y"].as_array().expect("y").iter())
            .map(|v| v.as_f64().expect("a finite number") as f32)
            .collect();
        assert_eq!(y.len(), values.len(), "{elem}");
        let other = (values.iter().zip(&y))
            .filter(|&(&x, &g)| g != x as f32)
            .count();
        eprintln!(
            "browser_conversions: {elem}: {other} of {} elements the other neighbour, not the nearest",
            values.len()
        );
        for (&x, &g) in values.iter().zip(&y) {
            let (lo, hi) = neighbours(x);
            assert!(
                f64::from(g) == lo || f64::from(g) == hi,
                "{elem}: f32({x}) gave {g} in Chromium: neither {lo} nor {hi}"
            );
        }
        // The native check accepts what the browser gave.
        let src = format!(
            "param N = {}\ninput x: {elem}[N]\noutput y: f32[N] = compute N |i| f32(x[i])\n",
            values.len()
        );
        let p = texpr_syntax::frontend(&src, &[]).unwrap();
        let input = match elem {
            "u32" => Value::u32(values.iter().map(|&x| x as u32).collect()),
            _ => Value::i32(values.iter().map(|&x| x as i32).collect()),
        };
        let want = reference(&p, &[input]).unwrap();
        let bad = check_outputs(&p, &[Value::f32(y)], &want);
        assert!(bad.is_empty(), "{elem}: {bad:?}");
    }
}
