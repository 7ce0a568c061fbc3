//! The browser as a second WGSL consumer: every example and a batch of
//! generated programs, compiled for the `webgpu` target, are accepted by
//! headless Chromium's WebGPU (Tint's module checks and pipeline creation),
//! and those sent with a plan to run match the interpreter there, all in one
//! browser process and one page load (`texpr_tests::browser`; the batch is
//! `browser_batch.rs`).

use std::fmt::Write as _;
use std::time::Duration;

use serde_json::Value as Json;
use texpr_interp::accuracy::check_report;
use texpr_tests::browser::{self, Report, Shader, Verdict};
use texpr_tests::gpu::reference;

use crate::browser_batch::{Origin, generated_count, shaders};

/// The most the browser may take for `modules` modules: several times what
/// it needs (about 30 ms a module on SwiftShader, and seconds to start), so
/// a hung page fails the test instead of hanging it.
fn timeout(modules: usize) -> Duration {
    Duration::from_secs(60) + Duration::from_millis(200) * modules as u32
}

/// Tint's messages on `shader`, each with the WGSL line it points at.
fn explain(shader: &Shader, origin: &Origin, verdict: &Verdict) -> String {
    let mut out = format!("{} REJECTED by the browser:\n", shader.name);
    if let Verdict::Rejected(messages) = verdict {
        for m in messages {
            let at = m.line.map(|l| format!(" at {l}:{}", m.column.unwrap_or(0)));
            let _ = writeln!(out, "  {}{}: {}", m.stage, at.unwrap_or_default(), m.text);
            let line = m
                .line
                .and_then(|l| shader.wgsl.lines().nth(l.saturating_sub(1) as usize));
            if let Some(line) = line {
                let _ = writeln!(out, "    | {}", line.trim());
            }
        }
    }
    let _ = writeln!(out, "-- {}:\n{}", origin.program, origin.source);
    out
}

/// Compares every run the page made with the interpreter, within each
/// element's own tolerance (the wgpu runs' comparison): how many runs, and
/// a message for each that differs or did not come back.
fn check_runs(
    unique: &[Shader],
    which: &[usize],
    origins: &[Origin],
    verdicts: &[Verdict],
    words: &[Option<Vec<Vec<u32>>>],
) -> (usize, Vec<String>) {
    let (mut runs, mut compared, mut bad) = (0, 0, Vec::new());
    // The interpreter's reference once per program and inputs (every
    // schedule of an example runs on the same ones).
    let mut references = std::collections::HashMap::new();
    for (((shader, &k), verdict), words) in unique.iter().zip(which).zip(verdicts).zip(words) {
        let (Some(run), Verdict::Accepted) = (&origins[k].run, verdict) else {
            continue;
        };
        let Some(words) = words else {
            bad.push(format!("{}: no outputs came back", shader.name));
            continue;
        };
        runs += 1;
        let got = browser::outputs(&run.module, words);
        let want = (references.entry(&origins[k].program)).or_insert_with(|| {
            reference(&run.program, &run.inputs).expect("the interpreter runs it")
        });
        let checked = check_report(&run.program, &got, want);
        compared += (checked.iter().flatten())
            .map(|c| c.compared)
            .sum::<usize>();
        if origins[k].every_element && !checked.iter().flatten().all(|c| c.all_compared()) {
            bad.push(format!(
                "{}: not every element compared: {checked:?}",
                shader.name
            ));
        }
        let mismatches: Vec<String> = (checked.into_iter())
            .filter_map(Result::err)
            .map(|m| m.to_string())
            .collect();
        if !mismatches.is_empty() {
            bad.push(format!(
                "{}:\n{}\n-- {}:\n{}",
                shader.name,
                mismatches.join("\n"),
                origins[k].program,
                origins[k].source
            ));
        }
    }
    eprintln!("browser: {compared} output elements compared with the interpreter");
    assert!(runs == 0 || compared > 0, "runs compared no element");
    (runs, bad)
}

/// How many of the modules run use subgroups.
fn runs_with_subgroups(unique: &[Shader], words: &[Option<Vec<Vec<u32>>>]) -> usize {
    (unique.iter().zip(words))
        .filter(|(s, w)| w.is_some() && s.extensions.iter().any(|e| e == "subgroups"))
        .count()
}

/// Modules the browser must refuse, each with the stage that refuses it
/// (the page's check of a plan's requirements, Tint's module checks, or
/// pipeline creation against the device's limits): sent in the same page
/// load, so a page that accepted everything fails the test.
fn controls() -> Vec<(Shader, &'static str)> {
    let control = |name: &str, wgsl: &str| Shader {
        name: format!("control: {name}"),
        wgsl: wgsl.to_string(),
        entry_points: vec!["main".into()],
        extensions: Vec::new(),
        requires: Json::Null,
        run: Json::Null,
    };
    vec![
        (
            control(
                "a type error",
                "@compute @workgroup_size(1)\nfn main() {\n  let x: u32 = 1.5;\n}\n",
            ),
            "createShaderModule",
        ),
        (
            control(
                "a subgroup built-in without `enable subgroups;`",
                "@group(0) @binding(0) var<storage, read_write> b: array<f32>;\n\
                 @compute @workgroup_size(4)\nfn main() {\n  b[0] = subgroupAdd(b[1]);\n}\n",
            ),
            "createShaderModule",
        ),
        (
            Shader {
                requires: serde_json::json!({
                    "limits": {"max_compute_workgroup_storage_size": 1u64 << 30},
                    "subgroup_min_size": 256,
                }),
                ..control(
                    "a plan that asks for more than the device has",
                    "@compute @workgroup_size(1)\nfn main() {}\n",
                )
            },
            "plan requires",
        ),
        (
            control(
                "512 invocations (WebGPU's default limit is 256)",
                "@compute @workgroup_size(512)\nfn main() {}\n",
            ),
            "createComputePipeline(main)",
        ),
    ]
}

/// Every example (both `webgpu` targets, heuristic and default schedules,
/// each kind of strategy) and 500 generated programs compiled for `webgpu`
/// pass Chromium's `createShaderModule`, `getCompilationInfo` and compute
/// pipeline creation for every entry point, on a device with WebGPU's
/// default limits, which meet what each module's plan says it requires;
/// the examples (at sizes the page holds, and the factorizations and long
/// stencils at real sizes, `REAL_SIZES`, every element compared) and one
/// generated program in `RUN_EVERY`, run there from their plans, match the
/// interpreter, subgroup kernels among them at Chromium's 4 lanes.
#[test]
fn chromium_accepts_and_runs_what_the_webgpu_target_writes() {
    let Some(chromium) = browser::chromium() else {
        return;
    };
    let n = generated_count();
    let (all, origins) = shaders(n);
    // One module per distinct WGSL text and requirements (the first program
    // that gave it names it).
    let mut seen = std::collections::HashMap::new();
    let (mut unique, mut which) = (Vec::new(), Vec::new());
    for (k, s) in all.iter().enumerate() {
        if seen
            .insert((&s.wgsl, s.requires.to_string(), s.run.to_string()), k)
            .is_none()
        {
            unique.push(s.clone());
            which.push(k);
        }
    }
    let controls = controls();
    let batch: Vec<Shader> = (controls.iter().map(|(s, _)| s.clone()))
        .chain(unique.iter().cloned())
        .collect();
    let Report {
        adapter,
        mut verdicts,
        outputs,
    } = browser::check(&chromium, &batch, timeout(batch.len()))
        .unwrap_or_else(|e| panic!("the browser gave no verdicts: {e}"));
    for ((control, stage), verdict) in controls.iter().zip(verdicts.drain(..controls.len())) {
        let refused = match &verdict {
            Verdict::Rejected(ms) => ms.iter().any(|m| m.stage == *stage && !m.text.is_empty()),
            _ => false,
        };
        assert!(
            refused,
            "{}: expected a refusal at {stage}, got {verdict:?}",
            control.name
        );
    }
    eprintln!(
        "browser: {} modules ({} distinct) on {} {} (subgroups {:?}, features {:?})",
        all.len(),
        unique.len(),
        adapter.vendor,
        adapter.architecture,
        adapter.subgroup_sizes,
        adapter.features
    );
    let (mut rejected, mut skipped) = (Vec::new(), Vec::new());
    for ((shader, &k), verdict) in unique.iter().zip(&which).zip(&verdicts) {
        match verdict {
            Verdict::Accepted => {}
            Verdict::Rejected(_) => rejected.push(explain(shader, &origins[k], verdict)),
            Verdict::Skipped(why) => skipped.push(format!("{}: {why}", shader.name)),
        }
    }
    if !skipped.is_empty() {
        eprintln!("{}", "=".repeat(78));
        eprintln!(
            "{} modules NOT CHECKED by the browser:\n{}",
            skipped.len(),
            skipped.join("\n")
        );
        eprintln!("{}", "=".repeat(78));
    }
    assert!(
        rejected.is_empty(),
        "{} of {} modules rejected by Chromium's WebGPU:\n{}",
        rejected.len(),
        unique.len(),
        rejected.join("\n")
    );
    let words = &outputs[controls.len()..];
    let (runs, mismatches) = check_runs(&unique, &which, &origins, &verdicts, words);
    eprintln!(
        "browser: {runs} modules run, {} using subgroups",
        runs_with_subgroups(&unique, words)
    );
    assert!(
        mismatches.is_empty(),
        "{} of {runs} runs in Chromium differ from the interpreter:\n{}",
        mismatches.len(),
        mismatches.join("\n")
    );
    assert!(
        runs_with_subgroups(&unique, words) > 0,
        "no subgroup kernel ran"
    );
    // Without subgroups only the subgroup modules may go unchecked.
    let plain = unique
        .iter()
        .zip(&verdicts)
        .filter(|(s, _)| s.extensions.is_empty());
    assert!(plain.clone().all(|(_, v)| *v == Verdict::Accepted));
    assert!(
        plain.count() * 2 > unique.len(),
        "most modules need no extension"
    );
}
