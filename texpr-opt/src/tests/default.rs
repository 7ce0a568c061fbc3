//! Tests of the default schedule on the hand-built samples: it schedules
//! every node, keeps the meaning bit for bit, and reports illegal levels.

use super::{default_schedule, run_passes};
use crate::samples;
use texpr_interp::{Value, eval, random_inputs};
use texpr_ir::build::*;
use texpr_ir::{ElemTy, Level, MemLevel, ReduceOp};
use texpr_ir::{Expr, ExprKind, Program, Ty};
use texpr_target::{DeviceLimits, Target};

/// Every `compute`, `reduce` and `let` in `e` has a level.
fn all_leveled(e: &Expr) -> bool {
    e.all(|x| !x.takes_level() || x.level().is_some())
}

fn is_scheduled(p: &Program) -> bool {
    let roots = p
        .globals
        .iter()
        .map(|g| &g.value)
        .chain(p.outputs.iter().map(|o| &o.value));
    let grid = |e: &Expr| {
        matches!(
            e.kind,
            ExprKind::Compute {
                level: Some(Level::Grid),
                ..
            }
        )
    };
    p.globals.iter().all(|g| g.level == Some(MemLevel::Global))
        && roots.clone().all(grid)
        && roots.clone().all(all_leveled)
}

/// Bit patterns of every output, so NaNs and signed zeros compare exactly.
fn bits(vs: &[Value]) -> Vec<Vec<u32>> {
    vs.iter().map(Value::bits).collect()
}

#[test]
fn every_sample_is_scheduled_and_means_the_same() {
    for (name, p) in samples::all() {
        let s =
            default_schedule(&p, &Target::default()).unwrap_or_else(|e| panic!("{name}: {e:?}"));
        assert!(is_scheduled(&s), "{name} is not fully scheduled: {s:#?}");
        for seed in [1, 2] {
            let inputs = random_inputs(&p, seed);
            let want = eval(&p, &inputs).unwrap_or_else(|e| panic!("{name}: {e:?}"));
            let got = eval(&s, &inputs).unwrap_or_else(|e| panic!("{name} scheduled: {e:?}"));
            assert_eq!(bits(&want), bits(&got), "{name} changed meaning");
        }
        let again = default_schedule(&s, &Target::default()).unwrap();
        assert_eq!(again, s, "{name}: scheduling is not idempotent");
    }
}

#[test]
fn padded_items_get_a_truncating_grid_and_full_groups() {
    let s = default_schedule(&samples::saxpy(1000), &Target::default()).unwrap();
    let ExprKind::Compute {
        n,
        map: Some(m),
        body,
        ..
    } = &s.outputs[0].value.kind
    else {
        panic!("expected a mapped grid: {:#?}", s.outputs[0].value)
    };
    assert_eq!((*n, m.len), (4, 1000));
    assert!(matches!(
        body.kind,
        ExprKind::Compute {
            level: Some(Level::Group),
            n: 256,
            ..
        }
    ));
    let s = default_schedule(&samples::saxpy(1024), &Target::default()).unwrap();
    assert!(matches!(
        s.outputs[0].value.kind,
        ExprKind::Compute {
            n: 4,
            map: None,
            ..
        }
    ));
}

#[test]
fn group_size_follows_the_device() {
    let limits = Target {
        limits: DeviceLimits {
            max_invocations_per_workgroup: 64,
            ..DeviceLimits::default()
        },
        ..Target::default()
    };
    let s = default_schedule(&samples::saxpy(1024), &limits).unwrap();
    let ExprKind::Compute { n, body, .. } = &s.outputs[0].value.kind else {
        panic!()
    };
    assert_eq!(*n, 16);
    assert!(matches!(body.kind, ExprKind::Compute { n: 64, .. }));
}

#[test]
fn user_levels_are_kept_and_completed() {
    let s = default_schedule(&samples::user_scheduled(), &Target::default()).unwrap();
    // the unleveled root of `sums` became the grid; the user's reduce@group stays
    let ExprKind::Compute { level, body, .. } = &s.outputs[1].value.kind else {
        panic!()
    };
    assert_eq!(*level, Some(Level::Grid));
    assert!(matches!(
        body.kind,
        ExprKind::Reduce {
            level: Some(Level::Group),
            ..
        }
    ));
}

#[test]
fn the_verifier_hook_sees_every_pass() {
    let mut seen = Vec::new();
    run_passes(
        &samples::matvec(5, 3),
        &Target::default(),
        &crate::ScheduleChoice::Heuristic,
        |name, _| seen.push(name.to_string()),
    )
    .unwrap();
    assert_eq!(seen, crate::pipeline::pass_names());
}

fn codes(r: Result<Program, Vec<texpr_ir::Diagnostic>>) -> Vec<&'static str> {
    r.err().unwrap_or_default().iter().map(|d| d.code).collect()
}

#[test]
fn illegal_levels_are_coded_errors() {
    let limits = Target::default();
    // compute@group 1024: over the device's 256 invocations
    let mut p = program();
    let x = input(&mut p, "x", ElemTy::F32, 1024);
    let l = index(&mut p, "l", 1024);
    let e = compute(Some(Level::Group), 1024, l, read(&p, x, tv(l)));
    output(&mut p, "y", e);
    assert_eq!(codes(default_schedule(&p, &limits)), ["E0202"]);
    // let@shared inside an invocation
    let mut p = program();
    let x = input(&mut p, "x", ElemTy::F32, 4);
    let l = index(&mut p, "l", 4);
    let v = vector(&mut p, "v", Ty::new(ElemTy::F32, 1));
    let inner = let_(
        Some(MemLevel::Shared),
        v,
        read(&p, x, tv(l)),
        whole(&p, texpr_ir::VecRef::Local(v)),
    );
    output(&mut p, "y", compute(Some(Level::Group), 4, l, inner));
    assert_eq!(codes(default_schedule(&p, &limits)), ["E0203"]);
    // a top-level let@reg
    let mut p = samples::saxpy(4);
    let y = p.outputs[0].value.clone();
    global(&mut p, "t", y);
    p.globals[0].level = Some(MemLevel::Reg);
    assert_eq!(codes(default_schedule(&p, &limits)), ["E0201"]);
    // an unleveled reduce between the grid and a group
    let mut p = program();
    let x = input(&mut p, "x", ElemTy::F32, 64);
    let (g, r, l) = (
        index(&mut p, "g", 1),
        index(&mut p, "r", 4),
        index(&mut p, "l", 16),
    );
    let grp = compute(
        Some(Level::Group),
        16,
        l,
        read(&p, x, tlin(tv(r), 16, tv(l))),
    );
    let e = compute(
        Some(Level::Grid),
        1,
        g,
        reduce(None, ReduceOp::Add, 4, r, grp),
    );
    output(&mut p, "y", e);
    assert_eq!(codes(default_schedule(&p, &limits)), ["E0204"]);
}

#[test]
fn the_verifier_accepts_every_pass_on_every_sample() {
    for (name, p) in samples::all() {
        run_passes(
            &p,
            &Target::default(),
            &crate::ScheduleChoice::Heuristic,
            |pass, q| {
                if let Err(e) = texpr_ir::verify(q) {
                    panic!("{name} after {pass}: {e:#?}");
                }
            },
        )
        .unwrap();
    }
}

#[test]
fn items_too_long_for_padded_i32_indices_are_refused() {
    // 2^31 - 1 elements pad to 2^31 with groups of 256
    let p = samples::saxpy(i32::MAX as u64);
    assert_eq!(codes(default_schedule(&p, &Target::default())), ["E0205"]);
}

#[test]
fn nested_grids_are_refused() {
    let mut p = program();
    let x = input(&mut p, "x", ElemTy::F32, 16);
    let (g, h) = (index(&mut p, "g", 4), index(&mut p, "h", 4));
    let inner = compute(Some(Level::Grid), 4, h, read(&p, x, tlin(tv(g), 4, tv(h))));
    output(&mut p, "y", compute(Some(Level::Grid), 4, g, inner));
    assert_eq!(codes(default_schedule(&p, &Target::default())), ["E0206"]);
}

#[test]
fn exploding_index_arithmetic_is_refused_not_built() {
    use texpr_ir::IndexMap;
    use texpr_ir::TermOp;
    // 20 nested maps `{k -> (k + k) / 2}`: k twice per level, so 2^20 copies
    let mut p = program();
    let x = input(&mut p, "x", ElemTy::F32, 1);
    let mut e = read(&p, x, tc(0));
    for _ in 0..20 {
        let m = e.ty.len as i64;
        let (i, k) = (index(&mut p, "i", 2), index(&mut p, "k", 2 * m as u64));
        let term = tb(TermOp::Div, tb(TermOp::Add, tv(k), tv(k)), tc(2));
        e = compute_map(
            None,
            2,
            i,
            IndexMap {
                var: k,
                len: 2 * m as u64,
                kind: texpr_ir::MapKind::Term(term),
            },
            e,
        );
    }
    output(&mut p, "y", e);
    assert_eq!(codes(default_schedule(&p, &Target::default())), ["E0207"]);
}
