//! The browser as a second WGSL consumer: every example and a batch of
//! generated programs, compiled for the `webgpu` target, are accepted by
//! headless Chromium's WebGPU (Tint's module checks and pipeline creation),
//! all in one browser process and one page load (`texpr_tests::browser`).

use std::fmt::Write as _;
use std::time::Duration;

use texpr::{Options, Schedule, ScheduleChoice, Strategy, Target, compile};
use texpr_codegen::plan_json::plan_json;
use texpr_syntax::Diagnostic;
use texpr_syntax::ir::Program;
use texpr_tests::browser::{self, Report, Shader, Verdict, webgpu_with_subgroups};
use texpr_tests::r#gen as generator;
use texpr_tests::sched::{candidates, kind};

/// Generated programs to compile (`TEXPR_BROWSER_N`, 500 unless set).
fn generated_count() -> u64 {
    std::env::var("TEXPR_BROWSER_N")
        .ok()
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(500)
}

/// The most the browser may take for `modules` modules: several times what
/// it needs (about 30 ms a module on SwiftShader, and seconds to start), so
/// a hung page fails the test instead of hanging it.
fn timeout(modules: usize) -> Duration {
    Duration::from_secs(60) + Duration::from_millis(200) * modules as u32
}

/// Where a shader came from: what a failure prints to reproduce it.
#[derive(Clone, Debug)]
struct Origin {
    program: String,
    source: String,
}

/// Compiles `p` for `target` under `schedule` into a shader named `name`.
fn shader(
    name: String,
    p: &Program,
    target: &Target,
    schedule: ScheduleChoice,
) -> Result<Shader, Vec<Diagnostic>> {
    let opts = Options {
        target: target.clone(),
        schedule,
        ..Options::default()
    };
    let m = compile(p, &opts)?.module;
    let mut entry_points: Vec<String> = m.kernels.iter().map(|k| k.entry_point.clone()).collect();
    entry_points.sort();
    entry_points.dedup();
    Ok(Shader {
        name,
        entry_points,
        extensions: m.uses.iter().map(|e| e.name().to_string()).collect(),
        requires: plan_json(&m, target)["requires"].clone(),
        wgsl: m.wgsl,
    })
}

/// For each item of `p`, the first candidate of each kind of strategy
/// (`tile shared pad vec4`, `multipass combine=subgroup`, ...) the
/// optimizer offers it on `target`.
fn every_kind(p: &Program, target: &Target) -> Vec<(String, Strategy)> {
    let (_, cands) = candidates(p, target).unwrap_or_else(|e| panic!("{e}"));
    let mut out = Vec::new();
    for (item, options) in cands {
        let mut kinds = Vec::new();
        for st in options {
            if !kinds.contains(&kind(&st)) {
                kinds.push(kind(&st));
                out.push((item.clone(), st));
            }
        }
    }
    out
}

/// Whether every error refuses the program for a device limit (E0310-E0319:
/// workgroup memory, invocations, storage buffers, buffer sizes, budgets),
/// the right answer for a generated program too big for WebGPU's defaults.
fn over_a_limit(diags: &[Diagnostic]) -> bool {
    let limit = |code: &str| code.len() == 5 && code.starts_with("E031");
    !diags.is_empty() && diags.iter().all(|d| limit(d.code))
}

/// The modules to load: every example under both `webgpu` targets and both
/// schedule choices, and with subgroups under one schedule per kind of
/// strategy each of its items is offered ([`every_kind`]); then `n`
/// generated programs (the heuristic's schedule) alternating between the
/// two targets. Panics when an example does not compile, or a generated
/// program fails for anything but a device limit (those are listed, and at
/// most one in 50 may be).
fn shaders(n: u64) -> (Vec<Shader>, Vec<Origin>) {
    let targets = [
        Target::builtin("webgpu").expect("a built-in"),
        webgpu_with_subgroups(),
    ];
    let (mut shaders, mut origins, mut failures, mut refused) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let mut add = |compiled: Result<Shader, Vec<Diagnostic>>, origin: &Origin, may_refuse: bool| {
        match compiled {
            Ok(s) => {
                shaders.push(s);
                origins.push(origin.clone());
            }
            Err(d) if may_refuse && over_a_limit(&d) => {
                let codes: Vec<&str> = d.iter().map(|d| d.code).collect();
                refused.push(format!("{} ({})", origin.program, codes.join(", ")));
            }
            Err(d) => failures.push(format!("{}: {d:#?}\n{}", origin.program, origin.source)),
        }
    };
    for path in texpr_tests::golden::inputs("examples", "te") {
        let source = std::fs::read_to_string(&path).expect("readable");
        let stem = path
            .file_stem()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned();
        let p = texpr_syntax::frontend(&source, &[]).unwrap_or_else(|d| panic!("{stem}: {d:#?}"));
        let origin = Origin {
            program: format!("examples/{stem}.te"),
            source,
        };
        for target in &targets {
            for schedule in [ScheduleChoice::Heuristic, ScheduleChoice::Default] {
                let name = format!("{} for {} ({schedule:?})", origin.program, target.name);
                add(shader(name, &p, target, schedule), &origin, false);
            }
        }
        for (item, strategy) in every_kind(&p, &targets[1]) {
            let name = format!(
                "{} for {} ({item}: {strategy})",
                origin.program, targets[1].name
            );
            let mut s = Schedule::default();
            s.set(&item, strategy);
            add(
                shader(name, &p, &targets[1], ScheduleChoice::Given(s)),
                &origin,
                false,
            );
        }
    }
    for seed in 0..n {
        let source = generator::program(seed);
        let p =
            texpr_syntax::frontend(&source, &[]).unwrap_or_else(|d| panic!("seed {seed}: {d:#?}"));
        let target = &targets[(seed % 2) as usize];
        let origin = Origin {
            program: format!("generated program {seed} (TEXPR_DIFF_SEED={seed})"),
            source,
        };
        let name = format!("{} for {}", origin.program, target.name);
        add(
            shader(name, &p, target, ScheduleChoice::Heuristic),
            &origin,
            true,
        );
    }
    assert!(
        failures.is_empty(),
        "{} programs did not compile for the browser:\n{}",
        failures.len(),
        failures.join("\n")
    );
    eprintln!(
        "{} of {n} generated programs refused for WebGPU's limits: {refused:?}",
        refused.len()
    );
    assert!(
        refused.len() as u64 <= n / 50,
        "{} of {n} generated programs are over WebGPU's limits; the generator should keep most within them",
        refused.len()
    );
    (shaders, origins)
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

/// Modules the browser must refuse, each with the stage that refuses it
/// (the page's check of a plan's requirements, Tint's module checks, or
/// pipeline creation against the device's limits): sent in the same page load, so a page that accepted everything
/// fails the test.
fn controls() -> Vec<(Shader, &'static str)> {
    let control = |name: &str, wgsl: &str| Shader {
        name: format!("control: {name}"),
        wgsl: wgsl.to_string(),
        entry_points: vec!["main".into()],
        extensions: Vec::new(),
        requires: serde_json::Value::Null,
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

/// Every example (both `webgpu` targets, heuristic and default schedules)
/// and 500 generated programs compiled for `webgpu` pass Chromium's
/// `createShaderModule`, `getCompilationInfo` and compute pipeline creation
/// for every entry point, on a device with WebGPU's default limits, which
/// meet what each module's plan says it requires.
#[test]
fn chromium_accepts_every_example_and_generated_program() {
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
        if seen.insert((&s.wgsl, s.requires.to_string()), k).is_none() {
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
