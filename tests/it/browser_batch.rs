//! What the browser test loads into the page: every example and a batch of
//! generated programs compiled for the `webgpu` targets, some of them with
//! a plan to run (`texpr_tests::browser::run_plan`), each with where it came
//! from.

use serde_json::Value as Json;
use texpr::{Options, Schedule, ScheduleChoice, Strategy, Target, compile};
use texpr_codegen::plan::Module;
use texpr_codegen::plan_json::plan_json;
use texpr_interp::Value;
use texpr_ir::Diagnostic;
use texpr_ir::Program;
use texpr_tests::browser::{self, Shader, webgpu_with_subgroups};
use texpr_tests::r#gen as generator;
use texpr_tests::needs;
use texpr_tests::sched::{candidates, kind, small_sizes};

/// Generated programs to compile (`TEXPR_BROWSER_N`, 500 unless set).
pub fn generated_count() -> u64 {
    std::env::var("TEXPR_BROWSER_N")
        .ok()
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(500)
}

/// Where a shader came from: what a failure prints to reproduce it, and
/// the run to check where the page runs it.
#[derive(Clone, Debug)]
pub struct Origin {
    pub program: String,
    pub source: String,
    pub run: Option<Run>,
    /// A run whose every output element must be compared (a real size).
    pub every_element: bool,
}

/// A run in the page: the program, its inputs, the module run.
#[derive(Clone, Debug)]
pub struct Run {
    pub program: Program,
    pub inputs: Vec<Value>,
    pub module: Module,
}

/// Compiles `p` for `target` under `schedule` into a shader named `name`;
/// with `inputs`, one the page runs on them (unless it takes more than
/// `MAX_DISPATCHES` dispatches), and the run to check.
fn shader(
    name: String,
    p: &Program,
    target: &Target,
    schedule: ScheduleChoice,
    inputs: Option<&[Value]>,
) -> Result<(Shader, Option<Run>), Vec<Diagnostic>> {
    let opts = Options {
        target: target.clone(),
        schedule,
        ..Options::default()
    };
    let m = compile(p, &opts)?.module;
    let plan = inputs.and_then(|inputs| Some((browser::run_plan(&m, inputs)?, inputs)));
    let run = plan.as_ref().map(|(_, inputs)| Run {
        program: p.clone(),
        inputs: inputs.to_vec(),
        module: m.clone(),
    });
    let mut entry_points: Vec<String> = m.kernels.iter().map(|k| k.entry_point.clone()).collect();
    entry_points.sort();
    entry_points.dedup();
    let shader = Shader {
        name,
        entry_points,
        extensions: m.uses.iter().map(|e| e.name().to_string()).collect(),
        requires: plan_json(&m, target)["requires"].clone(),
        run: plan.map_or(Json::Null, |(plan, _)| plan),
        wgsl: m.wgsl,
    };
    Ok((shader, run))
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

/// `src` at sizes to run in the page, with its random inputs: params over
/// 256 at 256 (large enough for the strategies that use subgroups), or,
/// where the inputs would then exceed [`RUN_ELEMENTS`], at the
/// differential test's small sizes (params over 64 at 37 or 24).
fn run_sizes(src: &str) -> (Program, Vec<(String, i64)>, Vec<Value>) {
    let at_256: Vec<(String, i64)> = (src.lines())
        .filter_map(|l| l.trim().strip_prefix("param ")?.split_once('='))
        .filter(|(_, v)| v.trim().parse::<i64>().is_ok_and(|v| v > 256))
        .map(|(name, _)| (name.trim().to_string(), 256))
        .collect();
    let sized = |overrides: Vec<(String, i64)>| {
        let p = texpr_syntax::frontend(src, &overrides).expect("checked before");
        let inputs = texpr_interp::random_inputs(&p, 1);
        (p, overrides, inputs)
    };
    let run = sized(at_256);
    match run.2.iter().map(Value::len).sum::<usize>() <= RUN_ELEMENTS {
        true => run,
        false => sized(small_sizes(src)),
    }
}

/// One generated program in this many is run in the page (the rest only
/// compiled there), which keeps the test within its time.
const RUN_EVERY: u64 = 10;

/// The most input elements a run in the page is given, all inputs together.
const RUN_ELEMENTS: usize = 1 << 16;

/// Examples run in the page at real sizes, each within [`RUN_ELEMENTS`]
/// (ludcmp and trisolv at N = 255: at 256 their right-hand side passes it).
const REAL_SIZES: &[(&str, &[(&str, i64)])] = &[
    ("lu", &[("N", 256)]),
    ("cholesky", &[("N", 256)]),
    ("ludcmp", &[("N", 255)]),
    ("trisolv", &[("N", 255)]),
    ("jacobi2d", &[("N", 64), ("T", 1000)]),
    ("heat3d", &[("N", 16), ("T", 1000)]),
];

/// The schedule that gives `item` `strategy` (every other item its default).
fn pinned(item: &str, strategy: Strategy) -> ScheduleChoice {
    let mut s = Schedule::default();
    s.set(item, strategy);
    ScheduleChoice::Given(s)
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
pub fn shaders(n: u64) -> (Vec<Shader>, Vec<Origin>) {
    let targets = [
        Target::builtin("webgpu").expect("a built-in"),
        webgpu_with_subgroups(),
    ];
    let (mut shaders, mut origins, mut failures, mut refused) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let mut add = |compiled: Result<(Shader, Option<Run>), Vec<Diagnostic>>,
                   origin: &Origin,
                   may_refuse: bool| {
        match compiled {
            Ok((s, run)) => {
                shaders.push(s);
                origins.push(Origin {
                    run,
                    ..origin.clone()
                });
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
        // An example that needs a feature WebGPU offers only optionally
        // (`f16`, where the browser's adapter lacks `shader-f16`): the
        // target refuses it with the coded error, and the page never sees it.
        if targets.iter().all(|t| needs::lacks(&p, t)) {
            for target in &targets {
                let opts = Options {
                    target: target.clone(),
                    ..Options::default()
                };
                let got = compile(&p, &opts).map(drop);
                needs::refusal(&stem, target, got).unwrap_or_else(|e| panic!("{e}"));
            }
            continue;
        }
        let origin = Origin {
            program: format!("examples/{stem}.te"),
            source,
            run: None,
            every_element: false,
        };
        for target in &targets {
            for schedule in [ScheduleChoice::Heuristic, ScheduleChoice::Default] {
                let name = format!("{} for {} ({schedule:?})", origin.program, target.name);
                add(shader(name, &p, target, schedule, None), &origin, false);
            }
        }
        for (item, strategy) in every_kind(&p, &targets[1]) {
            let name = format!(
                "{} for {} ({item}: {strategy})",
                origin.program, targets[1].name
            );
            let s = pinned(&item, strategy);
            add(shader(name, &p, &targets[1], s, None), &origin, false);
        }
        // Run at sizes the page holds, as the heuristic and each kind of
        // strategy (subgroups at 4 lanes among them) has it.
        let (small, overrides, inputs) = run_sizes(&origin.source);
        let small_origin = Origin {
            program: format!("{} -D {overrides:?}", origin.program),
            ..origin.clone()
        };
        for target in &targets {
            let name = format!("{} run for {}", small_origin.program, target.name);
            let compiled = shader(
                name,
                &small,
                target,
                ScheduleChoice::Heuristic,
                Some(&inputs),
            );
            add(compiled, &small_origin, false);
        }
        for (item, strategy) in every_kind(&small, &targets[1]) {
            let name = format!(
                "{} run for {} ({item}: {strategy})",
                small_origin.program, targets[1].name
            );
            let s = pinned(&item, strategy);
            add(
                shader(name, &small, &targets[1], s, Some(&inputs)),
                &small_origin,
                false,
            );
        }
    }
    // The factorizations and long stencils at the sizes people run them
    // (issue 41), as the heuristic compiles them for WebGPU.
    for &(stem, defines) in REAL_SIZES {
        let path = texpr_tests::golden::repo_root().join(format!("examples/{stem}.te"));
        let source = std::fs::read_to_string(&path).expect("readable");
        let d: Vec<(String, i64)> = defines.iter().map(|&(n, v)| (n.to_string(), v)).collect();
        let p = texpr_syntax::frontend(&source, &d).unwrap_or_else(|e| panic!("{stem}: {e:#?}"));
        let inputs = texpr_interp::random_inputs(&p, 1);
        let origin = Origin {
            program: format!("examples/{stem}.te -D {d:?}"),
            source,
            run: None,
            every_element: true,
        };
        let name = format!("{} run for {}", origin.program, targets[0].name);
        let compiled = shader(
            name,
            &p,
            &targets[0],
            ScheduleChoice::Heuristic,
            Some(&inputs),
        );
        add(compiled, &origin, false);
    }
    for seed in 0..n {
        let source = generator::program_without_f16(seed);
        let p =
            texpr_syntax::frontend(&source, &[]).unwrap_or_else(|d| panic!("seed {seed}: {d:#?}"));
        let target = &targets[(seed % 2) as usize];
        let origin = Origin {
            program: format!("generated program {seed} (TEXPR_DIFF_SEED={seed})"),
            source,
            run: None,
            every_element: false,
        };
        let name = format!("{} for {}", origin.program, target.name);
        // One in RUN_EVERY is also run, on random inputs.
        let inputs = (seed % RUN_EVERY == 0).then(|| texpr_interp::random_inputs(&p, seed));
        let compiled = shader(
            name,
            &p,
            target,
            ScheduleChoice::Heuristic,
            inputs.as_deref(),
        );
        add(compiled, &origin, true);
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
