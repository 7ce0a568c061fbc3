//! `--check` with teeth: a run that loses (or repeats) one tile's part of a
//! sum or mean fails the check of its partials, for every tile, even where
//! the whole result stays within its bound; max and min lose only the tile
//! holding their extreme; a graph that skips a tile fails its cover.

use crate::air::{Agg, Op, Reg};
use crate::codes;
use crate::driver::run::{Backend, check, check_run, full_inputs, job, run_in_process};
use crate::driver::{BlockOptions, Planned, plan};
use crate::exec::device::heuristic;
use crate::exec::partials::{Fault, check as check_partials};
use crate::exec::reference::{dense_parts, dense_reference};
use crate::exec::{Gathered, Matrix, RandomSource};
use crate::graph::node::Work;
use crate::graph::{NodeId, NodeKind};
use std::collections::BTreeMap;
use texpr_interp::accuracy::{Reference, tolerance};

const BACKEND: Backend<'static> = Backend {
    gpu: None,
    pick: &heuristic,
};

/// The issue's example: a sum over 512x512 values in `[-1, 1)`, tiles of 64.
const SUM: &str = "func s {\n  %a = input : f32[512x512, 64x64]\n  %s = sum %a\n  ret %s\n}\n";

/// A program planned for `--check` on `grid`, its inputs, its sums' parts
/// and an honest run.
struct Case {
    args: BlockOptions,
    planned: Planned,
    inputs: Vec<Matrix>,
    parts: Vec<(Reg, Reference)>,
    honest: Gathered,
}

impl Case {
    fn new(src: &str, grid: (usize, usize)) -> Case {
        let mut args = BlockOptions::new("t", src);
        args.grid = grid;
        args.check = true;
        let planned = plan(&args).unwrap();
        let inputs = full_inputs(&planned.p, &source_of(&args)).unwrap();
        let parts = dense_parts(&planned.q, &inputs).unwrap();
        let honest = run(&args, &planned, None);
        Case {
            args,
            planned,
            inputs,
            parts,
            honest,
        }
    }

    /// A run whose step of `op` reading `src_tile` adds nothing.
    fn lose(&self, op: Reg, src_tile: (u64, u64)) -> Gathered {
        run(
            &self.args,
            &self.planned,
            Some(Fault::DropTile { op, src_tile }),
        )
    }

    fn reg(&self, name: &str) -> Reg {
        self.planned.q.find(name).unwrap()
    }

    fn check_partials(
        &self,
        values: &BTreeMap<NodeId, Vec<f32>>,
    ) -> Result<String, texpr_ir::Diagnostic> {
        let q = &self.planned.q;
        check_partials(q, &self.planned.g, &self.parts, values).map(|c| c.text)
    }

    /// Every step of sum `op`: the node it makes and the operand tile it reads.
    fn steps(&self, op: Reg) -> Vec<(NodeId, (u64, u64))> {
        let g = &self.planned.g;
        let succs = g.succs();
        g.ids()
            .filter_map(|n| match g.kind(n) {
                NodeKind::BlockShard {
                    op: o,
                    work: Work::Reduce(part),
                    ..
                } if *o == op => {
                    let made = succs[n.0 as usize]
                        .iter()
                        .copied()
                        .find(|&s| g.kind(s).is_data())?;
                    Some((made, part.src_tile))
                }
                _ => None,
            })
            .collect()
    }

    /// The honest partials with `delta` added to the partial `made` and to
    /// every partial of the same sum made from it (what the ranks would
    /// record had that step added `delta` more).
    fn shifted(&self, made: NodeId, delta: &[f64]) -> BTreeMap<NodeId, Vec<f32>> {
        let g = &self.planned.g;
        let succs = g.succs();
        let NodeKind::Partial { tensor, .. } = g.kind(made) else {
            panic!("a step makes a partial")
        };
        let mut values = self.honest.partials.clone();
        let mut stack = vec![made];
        while let Some(n) = stack.pop() {
            if let Some(v) = values.get_mut(&n) {
                for (x, d) in v.iter_mut().zip(delta) {
                    *x = (f64::from(*x) + d) as f32;
                }
            }
            for &t in &succs[n.0 as usize] {
                let later = match g.kind(t) {
                    NodeKind::BlockShard {
                        op,
                        work: Work::Reduce(_),
                        ..
                    } => op == tensor,
                    NodeKind::TensorReduce { tensor: r, .. } => r == tensor,
                    _ => false,
                };
                if later {
                    stack.extend(succs[t.0 as usize].iter().filter(|&&d| g.kind(d).is_data()));
                }
            }
        }
        values
    }

    /// What step `made` added: its partial less the one before it.
    fn added(&self, made: NodeId) -> Vec<f64> {
        let g = &self.planned.g;
        let preds = g.preds();
        let before = preds[made.0 as usize]
            .iter()
            .flat_map(|&task| preds[task.0 as usize].iter().copied())
            .find(|&b| matches!(g.kind(b), NodeKind::Partial { .. }));
        let after = &self.honest.partials[&made];
        let zero = vec![0.0; after.len()];
        let before = before.map_or(&zero, |b| &self.honest.partials[&b]);
        after
            .iter()
            .zip(before)
            .map(|(a, b)| f64::from(*a) - f64::from(*b))
            .collect()
    }
}

fn source_of(args: &BlockOptions) -> RandomSource {
    RandomSource { seed: args.seed }
}

/// A run of `planned` in this process on the interpreter, with `fault`.
fn run(args: &BlockOptions, planned: &Planned, fault: Option<Fault>) -> Gathered {
    let mut j = job(args, planned).unwrap();
    j.fault = fault;
    run_in_process(&j, &source_of(args), BACKEND)
        .unwrap()
        .gathered
}

/// E0544 at reduction `op`'s line, naming the step that read `tile`.
fn assert_names(case: &Case, err: &texpr_ir::Diagnostic, op: Reg, tile: (u64, u64)) {
    assert_eq!(err.code, codes::CHECK_FAILED, "{err:?}");
    let at = format!("after adding tile ({}, {})", tile.0, tile.1);
    assert!(err.message.contains(&at), "{at}: {}", err.message);
    assert_eq!(err.primary_span(), Some(case.planned.q.inst(op).span));
}

#[test]
fn every_tile_lost_from_a_512_square_sum_fails_its_check() {
    let case = Case::new(SUM, (2, 2));
    let (s, q) = (case.reg("s"), &case.planned.q);
    let honest = check_run(&case.planned, &case.inputs, &case.honest, false).unwrap();
    assert!(
        honest.contains("check of the partials: 64 steps and 3 reduces of sums"),
        "{honest}"
    );
    assert!(
        honest.contains("so a step that loses or repeats its tile fails: ok"),
        "{honest}"
    );
    // The whole sum's tolerance, and the tile sums under it.
    let whole = dense_reference(&case.planned.p, &case.inputs).unwrap();
    let whole_tol = tolerance(whole.bounds[0], true).unwrap();
    let part = &case.parts[0].1;
    let sums = part.value.as_f32().unwrap();
    let tol = |k: usize| tolerance(part.bounds[k], true).unwrap();
    let n = q.ty(q.find("a").unwrap()).n_tiles().rows as usize;
    let tile_of = |k: usize| ((k % n) as u64, (k / n) as u64);
    let mut small: Vec<usize> = (0..sums.len())
        .filter(|&k| f64::from(sums[k].abs()) < whole_tol)
        .collect();
    small.sort_by(|&a, &b| sums[a].abs().total_cmp(&sums[b].abs()));
    eprintln!(
        "sum {:.3}, its tolerance {whole_tol:.3}; tile sums under it: {}; tile tolerances {:.4} to {:.4}",
        whole.value.as_f32().unwrap()[0],
        small
            .iter()
            .map(|&k| format!("{:?} {:.4} (tolerance {:.4})", tile_of(k), sums[k], tol(k)))
            .collect::<Vec<_>>()
            .join(", "),
        (0..sums.len()).map(tol).fold(f64::INFINITY, f64::min),
        (0..sums.len()).map(tol).fold(0.0, f64::max),
    );
    eprintln!("{honest}");
    assert_eq!(
        small.len(),
        2,
        "the issue's two tiles under the whole bound"
    );
    for (_, src) in case.steps(s) {
        let lost = case.lose(s, src);
        let err = case.check_partials(&lost.partials).unwrap_err();
        assert_names(&case, &err, s, src);
        if small.iter().any(|&k| tile_of(k) == src) {
            // The result alone passes: the lost tile is within the whole bound.
            let got = lost.result.as_ref().unwrap();
            let alone = check(&case.planned.p, &case.inputs, got, false).unwrap();
            assert!(alone.ends_with(": ok\n"), "{alone}");
        }
    }
}

#[test]
fn a_tile_added_twice_or_a_partial_off_by_its_tolerance_fails() {
    let case = Case::new(SUM, (2, 2));
    let s = case.reg("s");
    let steps = case.steps(s);
    // The shift agrees with a run that really lost a tile.
    let (made, src) = steps[5];
    let minus: Vec<f64> = case.added(made).iter().map(|d| -d).collect();
    let lost = case.lose(s, src);
    for (n, v) in case.shifted(made, &minus) {
        let real = &lost.partials[&n];
        for (a, b) in v.iter().zip(real) {
            assert!(
                (a - b).abs() <= 1e-5 * a.abs().max(1.0),
                "{n:?}: {a} vs {b}"
            );
        }
    }
    let part = &case.parts[0].1;
    let n = case.planned.q.ty(case.reg("a")).n_tiles().rows;
    for (made, src) in steps {
        let twice = case.shifted(made, &case.added(made));
        let err = case.check_partials(&twice).unwrap_err();
        assert_names(&case, &err, s, src);
        let tol = tolerance(part.bounds[(src.0 + src.1 * n) as usize], true).unwrap();
        let off = case.shifted(made, &[1.5 * tol]);
        assert_names(&case, &case.check_partials(&off).unwrap_err(), s, src);
        let within = case.shifted(made, &[0.5 * tol]);
        assert!(case.check_partials(&within).is_ok(), "{src:?}");
    }
}

/// Row, column and whole sums and means, on ragged tiles (a variance and a
/// standard deviation are each a second mean, of the squares off the first).
const SUMS: &str = "func m {
  %a = input : f32[9x7, 2x3]
  %r = sum_rows %a
  %c = mean_cols %a
  %t = mean %a
  %v = var_cols %a
  %d = std %a
  %x = add %r, %t
  %y = add %x, %c
  %z = add %y, %v
  %w = add %z, %d
  ret %w
}";

#[test]
fn every_tile_lost_from_each_sum_and_mean_fails_on_every_grid() {
    for grid in [(1, 1), (2, 2), (3, 2)] {
        let case = Case::new(SUMS, grid);
        let q = &case.planned.q;
        let out = check_run(&case.planned, &case.inputs, &case.honest, false).unwrap();
        assert!(out.contains("its tile fails: ok"), "{grid:?}: {out}");
        let sums: Vec<Reg> = q
            .regs()
            .filter(|&r| matches!(q.inst(r).op, Op::Reduce(Agg::Sum | Agg::Mean, ..)))
            .collect();
        assert_eq!(sums.len(), 5, "{q:?}");
        for &op in &sums {
            let steps = case.steps(op);
            assert_eq!(
                steps.len(),
                15,
                "%{}: every tile of 9x7 in 2x3",
                q.inst(op).name
            );
            for (_, src) in steps {
                let lost = case.lose(op, src);
                let err = case.check_partials(&lost.partials).unwrap_err();
                let name = &q.inst(op).name;
                assert_eq!(err.code, codes::CHECK_FAILED, "%{name} {src:?} {grid:?}");
                // A lost tile of `c` or `t` also moves the parts of the
                // variance's or deviation's mean; the others name the lost step.
                if ["r", "v"].contains(&name.as_str()) || name.parse::<u32>().is_ok() {
                    assert_names(&case, &err, op, src);
                }
            }
        }
    }
}

#[test]
fn max_and_min_lose_only_the_tile_holding_their_extreme() {
    for agg in ["max", "min"] {
        let src =
            format!("func e {{\n  %a = input : f32[96x80, 16x16]\n  %e = {agg} %a\n  ret %e\n}}\n");
        let case = Case::new(&src, (2, 2));
        let (e, a) = (case.reg("e"), &case.inputs[0]);
        let pick = |x: f32, y: f32| if agg == "max" { x.max(y) } else { x.min(y) };
        let extreme = |t: (u64, u64)| {
            let (i0, j0) = (t.0 as usize * 16, t.1 as usize * 16);
            (j0..j0 + 16)
                .flat_map(|j| (i0..i0 + 16).map(move |i| (i, j)))
                .map(|(i, j)| a.at(i, j))
                .reduce(pick)
                .unwrap()
        };
        let honest = case.honest.result.as_ref().unwrap().data[0];
        let steps = case.steps(e);
        let holding: Vec<_> = steps
            .iter()
            .filter(|(_, t)| extreme(*t) == honest)
            .collect();
        assert_eq!(holding.len(), 1, "{agg}: one tile holds the extreme");
        for &(_, t) in &steps {
            let lost = case.lose(e, t);
            let checked = check_run(&case.planned, &case.inputs, &lost, false);
            if t == holding[0].1 {
                let err = checked.unwrap_err();
                assert_eq!(err.code, codes::CHECK_FAILED, "{agg} {t:?}: {err:?}");
                assert_eq!(err.primary_span(), Some(case.planned.p.ret_span));
            } else {
                // Nothing of the result is lost: it is the same value.
                assert_eq!(lost.result.as_ref().unwrap().data[0], honest, "{agg} {t:?}");
                assert!(checked.is_ok(), "{agg} {t:?}: {checked:?}");
            }
        }
    }
}

#[test]
fn a_graph_whose_steps_skip_or_repeat_a_tile_fails_its_cover() {
    let case = Case::new(SUM, (2, 2));
    let s = case.reg("s");
    let mut g = case.planned.g.clone();
    let step = g.ids().find(|&n| {
        matches!(g.kind(n), NodeKind::BlockShard { work: Work::Reduce(p), .. } if p.src_tile == (0, 0))
    });
    if let NodeKind::BlockShard {
        work: Work::Reduce(part),
        ..
    } = &mut g.nodes[step.unwrap().0 as usize].kind
    {
        part.src_tile = (1, 0);
    }
    let q = &case.planned.q;
    let err = check_partials(q, &g, &case.parts, &case.honest.partials).unwrap_err();
    assert_eq!(err.code, codes::CHECK_FAILED, "{err:?}");
    assert!(
        err.message
            .contains("the steps behind %s (0, 0) never add its operand's tile (0, 0)"),
        "{}",
        err.message
    );
    assert_eq!(err.primary_span(), Some(q.inst(s).span));
    // The honest graph covers its one output tile.
    assert_eq!(crate::exec::partials::cover(q, &case.planned.g).unwrap(), 1);
}

#[test]
fn a_partial_not_gathered_leaves_the_check_incomplete() {
    let case = Case::new(SUM, (2, 2));
    let mut gathered = case.honest.clone();
    let first = *gathered.partials.keys().next().unwrap();
    gathered.partials.remove(&first);
    let err = check_run(&case.planned, &case.inputs, &gathered, false).unwrap_err();
    assert_eq!(err.code, codes::CHECK_INCOMPLETE, "{err:?}");
    assert!(
        err.message.contains("1 partials not gathered"),
        "{}",
        err.message
    );
    let out = check_run(&case.planned, &case.inputs, &gathered, true).unwrap();
    assert!(
        out.contains("(--allow-unchecked; 1 partials not gathered"),
        "{out}"
    );
}
