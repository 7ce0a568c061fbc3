//! The npm package's exports on hostile arguments, in Node: no call throws
//! or traps, every result has the documented shape, and where an argument's
//! kind decides the error its code is the one docs/language.md gives
//! (`tests/src/browser/hostile.mjs`, a property over a seeded generator).
//! Also: a call before `init()`, budgets that refuse work instead of
//! running out of memory, and a megabyte of garbage answered with capped
//! diagnostics.
//!
//! Skipped loudly without Node or without what building the package needs;
//! under TEXPR_REQUIRE_GPU=1 either is a failure.

use std::time::Duration;

use serde_json::Value as Json;
use texpr_tests::npm;

/// Runs `body` (module code with `texpr`, the package, and `hostile`, the
/// property's module, imported) in Node and parses the JSON it prints.
fn in_node(body: &str) -> Option<Json> {
    let node = npm::tool("node")?;
    if !npm::package() {
        return None;
    }
    let script = format!(
        "import * as texpr from './npm/index.js';\n\
         import * as hostile from './tests/src/browser/hostile.mjs';\n\
         import {{ readFileSync }} from 'node:fs';\n{body}"
    );
    let out = npm::node_module(&node, &script, Duration::from_secs(300))
        .unwrap_or_else(|e| panic!("{e}"));
    Some(serde_json::from_str(out.trim()).unwrap_or_else(|e| panic!("{e}: {out}")))
}

#[test]
fn no_export_throws_or_traps_on_hostile_arguments() {
    let Some(r) = in_node(
        "const before = texpr.compile('input x: f32[4]');\n\
         await texpr.init();\n\
         const small = { softmax: { R: 8, C: 8 }, saxpy: { N: 64 }, matmul: { M: 8, N: 8, K: 8 } };\n\
         const sources = Object.entries(small).map(([n, defines]) =>\n\
           ({ text: readFileSync(`examples/${n}.te`, 'utf8'), defines }));\n\
         const report = hostile.hostile(texpr, { seed: 43, cases: 2500, sources });\n\
         console.log(JSON.stringify({ before, report }));",
    ) else {
        return;
    };
    // Before init(): a coded error in the shape of a compile.
    let before = &r["before"];
    assert_eq!(before["ok"], false);
    assert_eq!(before["diagnostics"][0]["code"], "E0708", "{before}");
    assert!(before.get("wgsl").is_some_and(Json::is_null), "{before}");

    let report = &r["report"];
    assert_eq!(report["cases"], 2500);
    assert_eq!(
        report["failed"], 0,
        "calls that threw, broke the shape or gave the wrong code: {:#}",
        report["failures"]
    );
    // The generator reaches every error the argument kinds decide, and
    // work past its budgets, and also compiles and evaluates.
    let codes = report["codes"].as_object().expect("codes by count");
    for code in [
        "E0701", "E0702", "E0703", "E0705", "E0706", "E0707", "E0605",
    ] {
        assert!(codes.contains_key(code), "no {code} in {codes:?}");
    }
    assert!(codes.keys().any(|c| c.starts_with("E00")), "{codes:?}");
    assert!(
        report["succeeded"].as_u64().is_some_and(|n| n >= 100),
        "{report}"
    );
}

#[test]
fn budgets_refuse_work_and_garbage_gets_capped_diagnostics() {
    let Some(r) = in_node(
        "await texpr.init();\n\
         const code = (r) => r.ok ? 'ok' : r.diagnostics[0].code;\n\
         const big = (n) => `input x: f32[${n}]\\noutput y = compute 1 |i| x[i]`;\n\
         const out = {\n\
           // 2^29 elements: more than one WebAssembly vector holds.\n\
           random_huge: code(texpr.randomInputs(big(2 ** 29))),\n\
           random_over: code(texpr.randomInputs(big(1024), { maxMemory: 4095 })),\n\
           random_within: code(texpr.randomInputs(big(1024), { maxMemory: 4096 })),\n\
           // 64 MiB given for a program of 4 elements: refused before the copy.\n\
           evaluate_copy: code(texpr.evaluate(big(4), { x: new Float32Array(1 << 24) }, { maxMemory: 1 << 20 })),\n\
           evaluate_ops: code(texpr.evaluate(big(4), { x: new Float32Array(4) }, { maxOps: 0 })),\n\
           memory_range: texpr.compile(big(4), { maxMemory: 2 ** 32 }).diagnostics[0],\n\
           garbage: hostile.garbage(texpr, 1 << 20),\n\
         };\n\
         console.log(JSON.stringify(out));",
    ) else {
        return;
    };
    assert_eq!(r["random_huge"], "E0705", "{r}");
    assert_eq!(r["random_over"], "E0705", "{r}");
    assert_eq!(r["random_within"], "ok", "{r}");
    assert_eq!(r["evaluate_copy"], "E0705", "{r}");
    assert_eq!(r["evaluate_ops"], "E0705", "{r}");
    let range = &r["memory_range"];
    assert_eq!(range["code"], "E0701", "{range}");
    assert!(
        range["message"].as_str().unwrap().contains("`maxMemory`"),
        "{range}"
    );
    // A megabyte of garbage: the first 20 diagnostics, the rest counted.
    for (f, g) in r["garbage"].as_object().expect("each call") {
        assert_eq!(g["problem"], Json::Null, "{f}: {g}");
        assert_eq!(
            (&g["ok"], &g["listed"]),
            (&Json::Bool(false), &Json::from(20)),
            "{f}: {g}"
        );
        assert!(g["hidden"].as_u64().is_some_and(|n| n > 1000), "{f}: {g}");
        eprintln!("npm_hostile: {f} on 1 MiB of garbage took {} ms", g["ms"]);
    }
}
