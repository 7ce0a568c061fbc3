//! The optimizer's correctness on generated programs and the examples:
//! - every pass keeps the interpreter's result bit for bit and leaves a
//!   program the IR verifier accepts (300 generated programs);
//! - under the heuristic schedule and under legal schedules drawn at random
//!   from each item's candidates (generated programs, the examples, and
//!   folds under epilogues and with vector bodies; for the examples and the
//!   folds also every kind of strategy the candidates offer, staged tiles
//!   with padded `vec4` fills among them), the compiled program gives the
//!   interpreter's result on the GPU within the tolerance the program allows,
//!   and the scheduled program does in the interpreter too (at least 1,000
//!   program x schedule pairs; `TEXPR_SCHED_N` sets the number, `TEXPR_SCHED_SEED`
//!   the first generator seed, and skips the examples; `TEXPR_SCHED_ONLY=name`
//!   runs one example; `TEXPR_SCHED_VERBOSE=1` times every pair). A failing
//!   pair names the strategy it comes from.

use std::collections::BTreeMap;
use std::time::Instant;

use texpr::{Schedule, ScheduleChoice};
use texpr_ir::Program;
use texpr_opt::pipeline::{APPLY, run_with};
use texpr_target::{DeviceKind, DeviceLimits, Target};
use texpr_tests::r#gen as generator;
use texpr_tests::golden::{inputs as files, repo_root};
use texpr_tests::gpu::{RunError, gpu};
use texpr_tests::sched::{
    candidates, check_with, culprits, kind, random_schedule, refused_by_device, small_sizes,
};

fn env(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(default)
}

/// Bit patterns of every output, so NaNs and signed zeros compare exactly.
fn bits(vs: &[texpr_interp::Value]) -> Vec<Vec<u32>> {
    vs.iter().map(texpr_interp::Value::bits).collect()
}

fn cpu_limits() -> Target {
    let limits = DeviceLimits {
        max_invocations_per_workgroup: 1024,
        max_workgroup_size: [1024, 1024, 64],
        max_loop_iterations: Some(65_535),
        ..DeviceLimits::default()
    };
    let mut t = Target {
        limits,
        ..Target::default()
    };
    t.profile.kind = DeviceKind::Cpu;
    t
}

/// Every pass (heuristic schedule) on 300 generated programs: the verifier
/// accepts the program after each, and each pass before scheduling keeps the
/// interpreter's result bit for bit (`shift_lse`, which changes rounding,
/// within the tolerance, and the passes after it bit for bit).
#[test]
fn every_pass_keeps_generated_programs_meaning_and_verifying() {
    let mut changed = 0;
    for seed in 0..300 {
        let src = generator::program(seed);
        let p = texpr_syntax::frontend(&src, &[]).expect("generated programs check");
        let inputs = texpr_interp::random_inputs(&p, seed);
        let mut want = bits(&texpr_interp::eval(&p, &inputs).unwrap());
        let limits = if seed % 2 == 0 {
            Target::default()
        } else {
            cpu_limits()
        };
        let mut last = p.clone();
        let r = run_with(
            &p,
            &limits,
            &ScheduleChoice::Heuristic,
            &texpr::verdict(&limits),
            &mut |pass, q| {
                if let Err(d) = texpr_ir::verify(q) {
                    panic!(
                        "seed {seed}: after `{pass}` the verifier says {d:#?}\n{}\n{src}",
                        texpr_ir::print::program(q)
                    );
                }
                if pass != APPLY {
                    let got = texpr_interp::eval(q, &inputs)
                        .unwrap_or_else(|e| panic!("seed {seed} after `{pass}`: {e:?}\n{src}"));
                    if pass == "shift_lse" && *q != last {
                        let r =
                            texpr_interp::accuracy::reference_rewritten(&p, q, &inputs).unwrap();
                        let bad = texpr_interp::accuracy::check_outputs(&p, &got, &r);
                        assert!(
                            bad.is_empty(),
                            "seed {seed}: `shift_lse`: {}\n{src}",
                            bad[0]
                        );
                        want = bits(&got);
                    }
                    assert_eq!(
                        bits(&got),
                        want,
                        "seed {seed}: `{pass}` changed the result\n{}\n{src}",
                        texpr_ir::print::program(q)
                    );
                    changed += usize::from(*q != last);
                    last = q.clone();
                }
            },
        );
        // Choosing asks code generation, so no candidate it takes fails.
        if let Err(d) = r {
            panic!("seed {seed}: {d:#?}\n{src}");
        }
    }
    // The passes are not vacuous on generated programs.
    assert!(changed > 50, "the passes changed only {changed} programs");
}

/// Pairs run, refused and failed, per strategy kind.
#[derive(Default)]
struct Tally {
    pairs: u64,
    refused: Vec<String>,
    failures: Vec<String>,
    /// kind -> (pairs using it, failures attributed to it)
    kinds: BTreeMap<&'static str, (u64, u64)>,
}

impl Tally {
    /// Runs `p` under `choice`; `what` names the pair in messages.
    fn run(
        &mut self,
        gpu: &texpr_runtime::Gpu,
        p: &Program,
        seed: u64,
        choice: &ScheduleChoice,
        what: &str,
    ) {
        let inputs = texpr_interp::random_inputs(p, seed);
        let want =
            texpr_tests::gpu::reference(p, &inputs).expect("the interpreter runs the program");
        self.pairs += 1;
        let used: Vec<&'static str> = match choice {
            ScheduleChoice::Given(s) => s.items.iter().map(|(_, st)| kind(st)).collect(),
            _ => vec!["heuristic"],
        };
        for k in &used {
            self.kinds.entry(k).or_default().0 += 1;
        }
        let t0 = Instant::now();
        let r = check_with(gpu, p, &inputs, &want, choice);
        if std::env::var("TEXPR_SCHED_VERBOSE").is_ok() {
            eprintln!("{what}: {:?} {:.3}s", used, t0.elapsed().as_secs_f64());
        }
        match r {
            Ok(_) => {}
            Err(e) if refused_by_device(&e) => self.refused.push(what.to_string()),
            Err(e) => {
                let blame = match choice {
                    ScheduleChoice::Given(s) => culprits(gpu, p, &inputs, &want, s),
                    _ => match candidates(p, gpu.target()) {
                        Ok((optimized, _)) => {
                            match texpr::choose(
                                &optimized,
                                gpu.target(),
                                &ScheduleChoice::Heuristic,
                            ) {
                                Ok(c) => culprits(gpu, p, &inputs, &want, &c.schedule),
                                Err(_) => Vec::new(),
                            }
                        }
                        Err(_) => Vec::new(),
                    },
                };
                for (_, st) in &blame {
                    self.kinds.entry(kind(st)).or_default().1 += 1;
                }
                if blame.is_empty() {
                    let k = if used == ["heuristic"] {
                        "heuristic"
                    } else {
                        "combination"
                    };
                    self.kinds.entry(k).or_default().1 += 1;
                }
                let blame: Vec<String> = blame.iter().map(|(i, s)| format!("{i}: {s}")).collect();
                let sched = match choice {
                    ScheduleChoice::Given(s) => s.to_string(),
                    _ => "heuristic\n".into(),
                };
                let e = e.to_string();
                let e: String = e.lines().take(30).collect::<Vec<_>>().join("\n");
                self.failures.push(format!(
                    "{what}: failing strategies [{}]\nschedule:\n{sched}{e}",
                    blame.join(", ")
                ));
            }
        }
    }
}

/// `draws` distinct random legal schedules of `p`; with `every_kind`, then
/// for each item the first candidate of every kind of strategy (`tile shared
/// pad vec4`, `multipass combine=tree`, ...) no schedule drawn gave it, so
/// that every form the candidates offer runs.
fn schedules(
    p: &Program,
    gpu_limits: &Target,
    seed: u64,
    (draws, every_kind): (u64, bool),
) -> Vec<Schedule> {
    let (_, cands) = candidates(p, gpu_limits).unwrap_or_else(|e| panic!("{e}"));
    let mut out: Vec<Schedule> = Vec::new();
    for k in 0..draws * 4 {
        if out.len() as u64 == draws {
            break;
        }
        let s = random_schedule(&cands, seed.wrapping_mul(0x9e37_79b9).wrapping_add(k));
        if !out.contains(&s) {
            out.push(s);
        }
    }
    // Every loop whole in one workgroup: each item of a loop that may run
    // so takes its `loop` candidate.
    let mut whole = Schedule::default();
    for (item, options) in &cands {
        if let Some(l) = options.iter().find(|s| kind(s) == "loop") {
            whole.set(item, l.clone());
        }
    }
    if !whole.items.is_empty() && !out.contains(&whole) {
        out.push(whole);
    }
    for (item, options) in cands.iter().filter(|_| every_kind) {
        for st in options {
            if !out.iter().any(|s| kind(&s.get(item)) == kind(st)) {
                let mut s = Schedule::default();
                s.set(item, st.clone());
                out.push(s);
            }
        }
    }
    out
}

/// Small sizes for an example: the differential test's (`small_sizes`),
/// except where lavapipe takes minutes to compile a schedule's kernel at
/// those sizes (attention's rows schedule at `D = 64`: 228 s).
fn example_sizes(name: &str, src: &str) -> Vec<(String, i64)> {
    let own: &[(&str, i64)] = match name {
        // Keys enough for `wide_rows group=16` (rows of 4 x 16 terms) and
        // its shared vector `let`s to be among the candidates, and queries
        // that workgroups of 8 divide (`flash`).
        "attention" => &[("S", 40), ("T", 64), ("D", 16)],
        // Sizes with divisors, so register tiles and multi-pass folds are
        // among the candidates.
        "matmul" => &[("M", 32), ("N", 24), ("K", 20)],
        "sum" => &[("N", 6144)],
        "dot" => &[("N", 4096)],
        "max" => &[("N", 2048)],
        _ => return small_sizes(src),
    };
    own.iter().map(|(k, v)| (k.to_string(), *v)).collect()
}

/// Folds under an epilogue and with vector bodies, at sizes with many
/// divisors, so that random schedules draw `multipass` on them.
const EPILOGUE_FOLDS: [(&str, &str); 4] = [
    (
        "mean",
        "param N = 6144\ninput x: f32[N]\noutput m = (reduce N |i| x[i]) / f32(N)\n",
    ),
    (
        "rms of a max",
        "param N = 4096\ninput x: f32[N]\noutput m = sqrt(reduce max N |i| x[i] * x[i]) + 1.0\n",
    ),
    (
        "log-mean-exp",
        "param N = 4096\ninput x: f32[N]\noutput m = (reduce lse N |i| 8.0 * x[i]) - log(f32(N))\n",
    ),
    (
        "normalised histogram",
        "param N = 4096\ninput x: f32[N]\noutput h = (reduce N |i| compute 8 |b| select(i32(x[i] * 4.0 + 4.0) == b, 1.0, 0.0)) * (1.0 / f32(N))\n",
    ),
];

/// Transposed 2D items beside examples/transpose.te, at sizes only the
/// smaller `transpose` tiles fit without padding much: every candidate of
/// theirs runs, so `transpose` is always among the strategies tested.
const TRANSPOSES: [(&str, &str); 2] = [
    (
        "transposed function",
        "param R = 40\nparam C = 24\ninput a: f32[C * R]\ninput b: f32[R * C]\noutput y = compute R |r| compute C |c| exp(a[c * R + r]) * 0.5 + b[r * C + c]\n",
    ),
    (
        "i32 transpose",
        "input x: i32[1536]\noutput y = compute 32 |r| compute 48 |c| x[c * 32 + r] * 3 - (x[r + 1] else 0)\n",
    ),
];

/// Generated programs, the examples and [`EPILOGUE_FOLDS`] under the
/// heuristic schedule and random legal schedules, and every candidate of
/// [`TRANSPOSES`], match the interpreter on the GPU.
#[test]
fn random_legal_schedules_match_the_interpreter_on_the_gpu() {
    let Some(gpu) = gpu() else { return };
    let limits = gpu.target().clone();
    let target = env("TEXPR_SCHED_N", 1000);
    let first = env("TEXPR_SCHED_SEED", 0);
    let start = Instant::now();
    let mut t = Tally::default();
    // The examples at small sizes: the heuristic and up to eight random schedules each.
    let mut examples = 0;
    let rerun = std::env::var("TEXPR_SCHED_SEED").is_ok();
    if !rerun && repo_root().join("examples").is_dir() {
        for path in files("examples", "te") {
            let src = std::fs::read_to_string(&path).unwrap();
            let name = path.file_stem().unwrap().to_string_lossy().to_string();
            let ov = example_sizes(&name, &src);
            let p = texpr_syntax::frontend(&src, &ov)
                .unwrap_or_else(|e| panic!("{}: {e:?}", path.display()));
            if std::env::var("TEXPR_SCHED_ONLY").is_ok_and(|o| o != name) {
                continue;
            }
            t.run(gpu, &p, 1, &ScheduleChoice::Heuristic, &name);
            for (k, s) in schedules(&p, &limits, 1000 + examples, (8, true))
                .into_iter()
                .enumerate()
            {
                t.run(
                    gpu,
                    &p,
                    1,
                    &ScheduleChoice::Given(s),
                    &format!("{name} #{k}"),
                );
            }
            examples += 1;
        }
    }
    if !rerun {
        for (k, (name, src)) in EPILOGUE_FOLDS.iter().enumerate() {
            let p = texpr_syntax::frontend(src, &[]).unwrap_or_else(|e| panic!("{name}: {e:?}"));
            t.run(gpu, &p, 1, &ScheduleChoice::Heuristic, name);
            for (j, s) in schedules(&p, &limits, 2000 + k as u64, (8, true))
                .into_iter()
                .enumerate()
            {
                let what = format!("{name} #{j}");
                t.run(gpu, &p, 1, &ScheduleChoice::Given(s), &what);
            }
        }
    }
    // Transposed items: every candidate of their item, `transpose` among them.
    if !rerun {
        for (name, src) in TRANSPOSES {
            let p = texpr_syntax::frontend(src, &[]).unwrap_or_else(|e| panic!("{name}: {e:?}"));
            let (_, cands) = candidates(&p, &limits).unwrap_or_else(|e| panic!("{e}"));
            for (item, options) in &cands {
                for st in options {
                    let mut s = Schedule::default();
                    s.set(item, st.clone());
                    let what = format!("{name} {item}: {st}");
                    t.run(gpu, &p, 1, &ScheduleChoice::Given(s), &what);
                }
            }
        }
    }
    // Generated programs: the heuristic and two random schedules each.
    let mut programs = 0;
    let mut lse_programs = 0;
    let mut seed = first;
    while programs == 0 || (t.pairs < target && seed < first + 20 * target.max(1)) {
        let src = generator::program(seed);
        let p = texpr_syntax::frontend(&src, &[]).expect("generated programs check");
        lse_programs += usize::from(src.contains("reduce lse"));
        let before = t.failures.len();
        t.run(
            gpu,
            &p,
            seed,
            &ScheduleChoice::Heuristic,
            &format!("seed {seed}"),
        );
        for (k, s) in schedules(&p, &limits, seed, (2, false))
            .into_iter()
            .enumerate()
        {
            t.run(
                gpu,
                &p,
                seed,
                &ScheduleChoice::Given(s),
                &format!("seed {seed} #{k}"),
            );
        }
        if t.failures.len() > before {
            eprintln!("seed {seed} program:\n{src}");
        }
        programs += 1;
        seed += 1;
    }
    let kinds: Vec<String> = t
        .kinds
        .iter()
        .map(|(k, (n, bad))| format!("{k} {n} ({bad} failed)"))
        .collect();
    eprintln!(
        "schedules: {} program x schedule pairs ({examples} examples, {programs} generated programs, {lse_programs} with `reduce lse`) in {:.1} s; {} refused by the loop budget; {} failed; strategies used: {}",
        t.pairs,
        start.elapsed().as_secs_f64(),
        t.refused.len(),
        t.failures.len(),
        kinds.join(", ")
    );
    for f in &t.failures {
        eprintln!("FAILED {f}\n");
    }
    // `transpose` is among the candidates run (of [`TRANSPOSES`], and maybe
    // drawn on the example): only transposed items offer it.
    if !rerun {
        let drawn = |k: &str| t.kinds.get(k).is_some_and(|n| n.0 > 0);
        assert!(drawn("transpose"), "no pair drew `transpose`: {kinds:?}");
    }
    assert!(
        programs < 20 || lse_programs > 0,
        "no generated program folds with `reduce lse`"
    );
    assert!(
        t.pairs >= target,
        "only {} pairs of the {target} asked for",
        t.pairs
    );
    assert!(
        t.refused.len() as u64 <= t.pairs / 50,
        "{} of {} pairs refused by the loop budget: {:?}",
        t.refused.len(),
        t.pairs,
        t.refused
    );
    if examples > 0 && std::env::var("TEXPR_SCHED_ONLY").is_err() {
        let tiles = [
            "tile",
            "tile kstep",
            "tile shared",
            "tile shared pad",
            "tile shared pad vec4",
            "tile shared vec4 prefetch",
            "wide_rows",
            "wide_rows combine=subgroup",
            "flash",
        ];
        for k in tiles {
            assert!(t.kinds.contains_key(k), "no `{k}` schedule ran");
        }
    }
    assert!(
        t.failures.is_empty(),
        "{} of {} program x schedule pairs differ (see FAILED above; rerun one with TEXPR_SCHED_SEED=<seed> TEXPR_SCHED_N=1)",
        t.failures.len(),
        t.pairs
    );
}

/// A failing pair is reported with its strategy: a mismatch is a failure,
/// not a refusal.
#[test]
fn a_mismatch_is_not_a_refusal() {
    assert!(!refused_by_device(&RunError::Mismatch(Vec::new())));
    assert!(refused_by_device(&RunError::Compile(
        "error[E0316]: too many loop iterations".into()
    )));
}
