//! `loop group=W`: a loop run whole in one workgroup. Every loop example
//! (and loops with several states, the step read as a value, no step, one
//! step, an even count, integer states, a fold in the step and states
//! updated in place), each of its
//! loops' items scheduled `loop`, compiles to one kernel per loop that the
//! run dispatches once, all in one submission, and matches the interpreter
//! with every element compared.

use texpr::{Options, Schedule, ScheduleChoice, Strategy, compile};
use texpr_opt::schedule::in_loop::fusable;
use texpr_tests::golden::inputs;
use texpr_tests::gpu::{self, from_host, gpu, to_host};
use texpr_tests::sched::small_sizes;

/// Loops the examples do not write.
const PROGRAMS: &[(&str, &str)] = &[
    (
        "swap_and_step",
        "param N = 20\ninput x: f32[N]\ninput y: f32[N]\n\
         let (a, b) = iterate 3 from (x, y) |a, b, t| (b, compute N |i| a[(i + 1) % N] + f32(t))\n\
         output s = compute N |i| a[i] - b[i]",
    ),
    (
        "no_step",
        "input x: f32[300]\noutput u = iterate 0 from x |u| compute 300 |i| u[i] * 2.0",
    ),
    (
        "one_step",
        "input x: f32[300]\noutput u = iterate 1 from x |u| compute 300 |i| u[(i + 7) % 300] * 0.5",
    ),
    (
        "even_steps_integers",
        "param N = 32\ninput x: i32[N]\n\
         output c = iterate 8 from x |c| compute N |i| select(c[i] % 2 == 0, c[i] / 2, 3 * c[i] + 1)",
    ),
    ("rows_in_place", crate::updates_in_place::ROWS),
    (
        "normalise",
        "param N = 300\ninput x: f32[N]\n\
         output u = iterate 3 from x |u| {\n\
             let s = reduce N |i| u[i] * u[i]\n\
             yield compute N |i| u[i] / sqrt(s[0] + 1.0)\n\
         }",
    ),
];

/// A program's name, source and `-D` values.
type Case = (String, String, Vec<(String, i64)>);

/// Every loop example at small sizes, and [`PROGRAMS`].
fn loop_programs() -> Vec<Case> {
    let mut out: Vec<_> = (inputs("examples", "te").into_iter())
        .filter_map(|path| {
            let src = std::fs::read_to_string(&path).unwrap();
            let name = path.file_stem().unwrap().to_string_lossy().into_owned();
            src.contains("iterate").then(|| {
                let sizes = small_sizes(&src);
                (name, src, sizes)
            })
        })
        .collect();
    assert!(out.len() >= 5, "the loop examples: {out:?}");
    for (name, src) in PROGRAMS {
        out.push((name.to_string(), src.to_string(), Vec::new()));
    }
    out
}

/// The heuristic's schedule with every item of every loop that may run
/// whole in one workgroup `loop group=w`, and how many such loops.
fn whole_loops(p: &texpr_ir::Program, opts: &Options, w: u64) -> (Schedule, usize) {
    let o = texpr::optimize(p, &opts.target).unwrap();
    let mut s = texpr::choose(&o, &opts.target, &ScheduleChoice::Heuristic)
        .unwrap()
        .schedule;
    let loops = fusable(&o.optimized);
    for (_, items) in &loops {
        for it in items {
            s.set(it.name(&o.optimized), Strategy::Loop { group: w });
        }
    }
    (s, loops.len())
}

#[test]
fn every_loop_in_one_workgroup_is_one_dispatch_and_matches_the_interpreter() {
    let Some(gpu) = gpu() else { return };
    let mut failures = Vec::new();
    for (name, src, sizes) in loop_programs() {
        let p = texpr_syntax::frontend(&src, &sizes).unwrap_or_else(|d| panic!("{name}: {d:?}"));
        for w in [64, 256] {
            let mut opts = Options {
                target: gpu.target().clone(),
                ..Options::default()
            };
            let (s, loops) = whole_loops(&p, &opts, w);
            assert!(loops > 0, "{name}: no loop runs in one workgroup");
            opts.schedule = ScheduleChoice::Given(s);
            let c = compile(&p, &opts).unwrap_or_else(|d| panic!("{name} (W = {w}): {d:?}"));
            let m = &c.module;
            // Each loop's plan runs its one kernel once.
            assert!(
                m.loops.iter().all(|l| l.count == 1 && l.kernels.len() == 1),
                "{name}: {m}"
            );
            let values = texpr_interp::random_inputs(&p, 3);
            let host: Vec<_> = values.iter().map(to_host).collect();
            let want = gpu::reference(&p, &values).unwrap();
            let r = gpu.run(m, &host).unwrap_or_else(|e| panic!("{name}: {e}"));
            assert_eq!(
                r.dispatches,
                m.kernels.len() as u64,
                "{name}: one dispatch a kernel"
            );
            assert_eq!(r.submissions, 1, "{name}");
            let got: Vec<_> = r.outputs.iter().map(from_host).collect();
            let report = texpr_interp::accuracy::check_report(&p, &got, &want);
            for (o, checked) in p.outputs.iter().zip(&report) {
                match checked {
                    Ok(c) if c.all_compared() => {}
                    other => failures.push(format!("{name} (W = {w}) {}: {other:?}", o.name)),
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// A loop whose steps each dispatch is the control: lu at N = 8 makes 8
/// dispatches of its loop kernel by default, one in one workgroup.
#[test]
fn a_loop_in_one_workgroup_makes_one_dispatch_where_each_step_made_one() {
    let src =
        std::fs::read_to_string(texpr_tests::golden::repo_root().join("examples/lu.te")).unwrap();
    let p = texpr_syntax::frontend(&src, &[("N".into(), 8)]).unwrap();
    let target = texpr::Target::builtin("llvmpipe").unwrap();
    let mut opts = Options {
        target,
        schedule: ScheduleChoice::Default,
        ..Options::default()
    };
    let each = compile(&p, &opts).unwrap();
    // `A`, the loop's kernel 8 times, the output's copy.
    assert_eq!(each.module.dispatch_count(), 10);
    let (s, _) = whole_loops(&p, &opts, 64);
    let text = s.to_string();
    assert!(text.contains("LU_state_next: loop group=64"), "{text}");
    opts.schedule = ScheduleChoice::Given(s);
    let whole = compile(&p, &opts).unwrap();
    assert_eq!(whole.module.dispatch_count(), 3);
    assert!(
        whole.module.wgsl.contains("storageBarrier();"),
        "{}",
        whole.module.wgsl
    );
    // The printed schedule compiles back to the same module.
    opts.schedule = ScheduleChoice::Given(text.parse().unwrap());
    assert_eq!(compile(&p, &opts).unwrap().module, whole.module);
}

/// `loop` names an item of a loop's block: elsewhere it is E0211.
#[test]
fn loop_outside_a_loop_is_refused() {
    let p = texpr_syntax::frontend("input x: f32[8]\noutput y = compute 8 |i| x[i]", &[]).unwrap();
    let opts = Options {
        target: texpr::Target::builtin("llvmpipe").unwrap(),
        schedule: ScheduleChoice::Given("y: loop group=64".parse().unwrap()),
        ..Options::default()
    };
    let d = compile(&p, &opts).unwrap_err();
    assert_eq!(d[0].code, "E0211", "{d:?}");
    assert!(
        d[0].message.contains("not an item of a loop's block"),
        "{d:?}"
    );
}
