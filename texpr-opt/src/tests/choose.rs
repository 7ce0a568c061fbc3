//! `choose`: every choice names every item of the program it applies to,
//! the baseline applies to the program as written, a printed schedule
//! applies back to the same program, code generation's verdict steers the
//! heuristic, and a tuned strategy that no longer fits falls back alone.

use super::fitting;
use super::strategies::examples;
use crate::schedule::apply::Verdict;
use crate::schedule::data::Loads;
use crate::{Schedule, ScheduleChoice, Strategy, accept_all, apply, choose, optimize};
use texpr_ir::Diagnostic;
use texpr_ir::{Expr, ExprKind, Program};
use texpr_target::Target;

/// A program whose top-level let the optimizing passes fuse away.
fn fusable() -> Program {
    let src = "param N = 64\ninput x: f32[N]\nlet t = compute N |i| x[i] * 2.0\n\
               output y = compute N |i| t[i] + 1.0\n";
    texpr_syntax::frontend(src, &[]).unwrap()
}

fn names(s: &Schedule) -> Vec<&str> {
    s.items.iter().map(|(n, _)| n.as_str()).collect()
}

#[test]
fn the_baseline_names_every_item_as_written_and_applies_back() {
    let target = Target::default();
    let o = optimize(&fusable(), &target).unwrap();
    let base = choose(&o, &target, &ScheduleChoice::Default, &accept_all).unwrap();
    assert!(!base.schedule.optimize);
    assert_eq!(names(&base.schedule), ["t", "y"]);
    assert_eq!(
        base.schedule.to_string(),
        "optimize = off\nt: default\ny: default\n"
    );
    // The optimized program has fused `t` away.
    let heur = choose(&o, &target, &ScheduleChoice::Heuristic, &accept_all).unwrap();
    assert_eq!(names(&heur.schedule), ["y"]);
    // The printed baseline, pinned, is the baseline.
    let text: Schedule = base.schedule.to_string().parse().unwrap();
    let pinned = choose(&o, &target, &ScheduleChoice::Given(text), &accept_all).unwrap();
    assert_eq!(pinned.schedule, base.schedule);
    let a = apply(&o, &target, &base.schedule).unwrap();
    assert_eq!(a.globals.len(), 1);
    assert_eq!(apply(&o, &target, &pinned.schedule).unwrap(), a);
}

/// Every example, on a GPU-like and a CPU-like target: the heuristic's
/// schedule names every item, and its text pinned schedules the same program.
#[test]
fn a_printed_schedule_applies_back_to_the_same_program() {
    for target in [Target::default(), Target::builtin("llvmpipe").unwrap()] {
        for (name, p) in examples() {
            let o = optimize(&p, &target).unwrap();
            let h = choose(&o, &target, &ScheduleChoice::Heuristic, &accept_all).unwrap();
            let items: Vec<&str> = o
                .optimized
                .items()
                .iter()
                .map(|it| it.name(&o.optimized))
                .collect();
            assert_eq!(names(&h.schedule), items, "{name}");
            let text: Schedule = h.schedule.to_string().parse().unwrap();
            let back = choose(&o, &target, &ScheduleChoice::Given(text), &accept_all).unwrap();
            assert_eq!(back.schedule, h.schedule, "{name}");
            assert_eq!(
                apply(&o, &target, &back.schedule).unwrap(),
                apply(&o, &target, &h.schedule).unwrap(),
                "{name}"
            );
        }
    }
}

/// A verdict refusing every tile: the heuristic takes the next candidate.
#[test]
fn code_generation_steers_the_heuristic() {
    let target = Target::default();
    let ex = examples();
    let p = &ex.iter().find(|(n, _)| *n == "matmul").unwrap().1;
    let o = optimize(p, &target).unwrap();
    let h = choose(&o, &target, &ScheduleChoice::Heuristic, &accept_all).unwrap();
    assert!(matches!(h.schedule.get("c"), Strategy::Tile { .. }));
    let no_tiles = |q: &Program, items: &[String]| -> Result<(), Vec<Diagnostic>> {
        // A tile's accumulators: `let@reg acc = ...`.
        let acc = |e: &Expr| matches!(&e.kind, ExprKind::Let { var, .. } if q.var(*var).name.starts_with("acc"));
        let tiled = items
            .iter()
            .any(|n| q.item(n).is_some_and(|it| it.root(q).any(acc)));
        match tiled {
            true => Err(vec![Diagnostic::error("E0316", "no tiles today")]),
            false => Ok(()),
        }
    };
    let verdict: Verdict<'_> = &no_tiles;
    let steered = choose(&o, &target, &ScheduleChoice::Heuristic, verdict).unwrap();
    assert!(
        !matches!(steered.schedule.get("c"), Strategy::Tile { .. }),
        "{}",
        steered.schedule
    );
    assert!(steered.warnings.is_empty());
}

/// A tuned schedule with one item that no longer fits (subgroups on a
/// device without them): that item alone falls back, with one warning
/// naming it and why; the other keeps its tuned strategy.
#[test]
fn a_tuned_strategy_that_no_longer_fits_falls_back_alone() {
    let src = "param N = 4096\ninput x: f32[N]\noutput total = reduce N |i| x[i]\n\
               output z = compute N |i| x[i] * 3.0\n";
    let p = texpr_syntax::frontend(src, &[]).unwrap();
    let o = optimize(&p, &Target::default()).unwrap();
    let tuned: Schedule = "total: multipass parts=64 group=64 combine=subgroup\n\
                           z: coarsen group=64 per_thread=8\n"
        .parse()
        .unwrap();
    let target = Target::default();
    let c = choose(
        &o,
        &target,
        &ScheduleChoice::Tuned(tuned.clone()),
        &accept_all,
    )
    .unwrap();
    let heur = choose(&o, &target, &ScheduleChoice::Heuristic, &accept_all).unwrap();
    assert_eq!(c.schedule.get("total"), heur.schedule.get("total"));
    assert_eq!(c.schedule.get("z"), tuned.get("z"));
    assert_eq!(c.warnings.len(), 1, "{:#?}", c.warnings);
    let w = &c.warnings[0];
    assert_eq!(w.code, "E0220");
    assert!(
        w.message.contains("`total`") && w.message.contains("combine=subgroup"),
        "{}",
        w.message
    );
    assert!(
        w.notes.iter().any(|n| n.contains("E0215")),
        "{:#?}",
        w.notes
    );
    // Pinned, the same schedule is an error, not a fallback.
    let o2 = o.clone();
    let pinned = choose(
        &o2,
        &target,
        &ScheduleChoice::Given(tuned.clone()),
        &accept_all,
    )
    .unwrap();
    let errs = apply(&o2, &target, &pinned.schedule).unwrap_err();
    assert_eq!(errs.iter().map(|d| d.code).collect::<Vec<_>>(), ["E0215"]);
    // On a device with subgroups the tuned schedule stands.
    let sub = Target::builtin("nvidia").unwrap();
    let c = choose(&o, &sub, &ScheduleChoice::Tuned(tuned.clone()), &accept_all).unwrap();
    assert_eq!(c.schedule.items, tuned.items);
    assert!(c.warnings.is_empty());
}

#[test]
fn a_pinned_schedule_naming_no_item_is_e0210() {
    let o = optimize(&fusable(), &Target::default()).unwrap();
    let s: Schedule = "t: coarsen group=8 per_thread=2\n".parse().unwrap();
    let errs = choose(
        &o,
        &Target::default(),
        &ScheduleChoice::Given(s),
        &accept_all,
    )
    .unwrap_err();
    assert_eq!(errs[0].code, "E0210");
    assert!(
        errs[0].notes[0].contains("the items are: y"),
        "{:#?}",
        errs[0]
    );
}

/// Tall register tiles whose rows a subgroup shares come first on a CPU
/// device with one subgroup width, in groups as wide as a subgroup; not
/// where the width varies, nor on a GPU.
#[test]
fn lane_shared_tiles_lead_only_with_one_subgroup_width() {
    let src = include_str!("../../../examples/matmul.te");
    let p = texpr_syntax::frontend(src, &[]).unwrap();
    let o = optimize(&p, &Target::default()).unwrap();
    let tile = |target: &Target| {
        let h = choose(&o, target, &ScheduleChoice::Heuristic, &accept_all).unwrap();
        h.schedule.items[0].1.to_string()
    };
    let llvmpipe = Target::builtin("llvmpipe").unwrap();
    assert_eq!(
        tile(&llvmpipe),
        "tile group=8x8 reg=16x4 kstep=4 lanes=on loads=wide"
    );
    let mut ranged = llvmpipe.clone();
    ranged.features.subgroup_size = Some((4, 64));
    assert_eq!(tile(&ranged), "tile group=8x8 reg=8x8 kstep=4 loads=wide");
    let mut none = llvmpipe;
    none.features.subgroup_size = None;
    assert_eq!(tile(&none), "tile group=8x8 reg=8x8 kstep=4 loads=wide");
    assert!(!tile(&Target::builtin("nvidia").unwrap()).contains("reg=16x4"));
    // At 32 x 16 a 128 x 32 block pads too much: the usual tiles.
    let small = &examples()[0].1;
    let o = optimize(small, &ranged).unwrap();
    let h = choose(&o, &ranged, &ScheduleChoice::Heuristic, &accept_all).unwrap();
    let l = Target::builtin("llvmpipe").unwrap();
    let hl = choose(&o, &l, &ScheduleChoice::Heuristic, &accept_all).unwrap();
    assert_eq!(h.schedule, hl.schedule);
}

/// `loads=` is the profile's choice: `wide` on a CPU device with 64-bit
/// integers, `vec4` on one without them and on a GPU; the first candidate
/// is offered with the other widths too (for `tune`), and `loads=wide` on
/// a device without 64-bit integers is E0217.
#[test]
fn loads_are_the_profiles_choice_and_wide_ones_need_int64() {
    let src = include_str!("../../../examples/saxpy.te");
    let p = texpr_syntax::frontend(src, &[]).unwrap();
    let o = optimize(&p, &Target::default()).unwrap();
    let first = |target: &Target| {
        let h = choose(&o, target, &ScheduleChoice::Heuristic, &accept_all).unwrap();
        h.schedule.items[0].1.clone()
    };
    let llvmpipe = Target::builtin("llvmpipe").unwrap();
    assert_eq!(first(&llvmpipe).loads(), Loads::Wide);
    let mut narrow = llvmpipe.clone();
    narrow.features.int64 = false;
    assert_eq!(first(&narrow).loads(), Loads::Vec4);
    let nvidia = Target::builtin("nvidia").unwrap();
    assert!(nvidia.features.int64);
    assert_eq!(first(&nvidia).loads(), Loads::Vec4);
    let loads_of = |target: &Target| {
        let c = fitting(&o, target, &accept_all);
        let ls: Vec<Loads> = c[0].1.iter().take(3).map(|s| s.loads()).collect();
        (c[0].1[0].clone(), ls)
    };
    let (s, ls) = loads_of(&llvmpipe);
    assert_eq!(ls, [Loads::Wide, Loads::Vec4, Loads::Scalar], "{s}");
    let (_, ls) = loads_of(&narrow);
    assert_eq!(ls[..2], [Loads::Vec4, Loads::Scalar]);
    let (_, ls) = loads_of(&nvidia);
    assert_eq!(ls, [Loads::Vec4, Loads::Wide, Loads::Scalar]);
    let wide: Schedule = format!("out: {}\n", first(&llvmpipe)).parse().unwrap();
    let errs = apply(&o, &narrow, &wide).unwrap_err();
    assert_eq!(errs.iter().map(|d| d.code).collect::<Vec<_>>(), ["E0217"]);
    assert!(apply(&o, &llvmpipe, &wide).is_ok());
}
