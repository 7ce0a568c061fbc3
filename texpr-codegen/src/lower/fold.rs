//! Folds an invocation runs in its own loop: one variable accumulator per
//! element folded, in index order, the loop unrolled by [`unroll_factor`]
//! as far as the kernel's budget allows (the order unchanged); a sum or
//! product starts from its identity, a `max` or `min` from its first
//! element (never the type's extreme value), an `lse` keeps an online pair
//! (`online.rs`); steps that depend on an index run a loop to a bound
//! computed at run time, not unrolled, and a fold without an identity then
//! gives the empty fold's value when no step ran.
//!
//! A `+`/`*` fold of a short vector offers its accumulators to a fold of
//! the same kind in its body's tail (a staged tile's blocks): that one
//! folds into them (one set of registers, the flat order the program
//! wrote), and the offering fold's step adds nothing for it.

use super::cost::{expr_size, unroll_factor};
use super::{Ix, Lower, R, ops};
use crate::kir::{BinOp as K, Fun, Init, LoopStep, V, VarId};
use texpr_ir::{ElemTy, ReduceOp};
use texpr_ir::{Expr, ExprKind, Term};

/// Accumulators a fold offers to the fold in its body's tail.
#[derive(Clone, Debug)]
pub struct FoldInto {
    pub op: ReduceOp,
    pub elem: ElemTy,
    pub accs: Vec<VarId>,
}

impl Lower<'_> {
    /// Where a loop of at most `n` steps that runs `steps` (a term over
    /// enclosing indices: a `reduce`'s or an `iterate`'s) stops: `min(steps,
    /// n)`; `None` for a loop of `n` steps.
    pub(super) fn dependent_end(&mut self, n: u64, steps: Option<&Term>) -> R<Option<V>> {
        let Some(t) = steps else {
            return Ok(None);
        };
        let t = self.term(t)?;
        let t = self.ix(t);
        let n = self.b.i32(n as i32);
        Ok(Some(self.b.call(Fun::Min, vec![t, n])))
    }

    /// The fold of `reduce n |i| body` (`e`) with `width` accumulators, one
    /// per value `step` yields: into `into`'s accumulators when given,
    /// offering its own to its tail when `offer`.
    pub fn fold(
        &mut self,
        e: &Expr,
        width: u64,
        into: Option<FoldInto>,
        offer: bool,
        mut step: impl FnMut(&mut Self) -> R<Vec<V>>,
    ) -> R<Vec<V>> {
        let ExprKind::Reduce {
            op,
            n,
            var,
            body,
            steps,
            ..
        } = &e.kind
        else {
            unreachable!("fold takes a reduce")
        };
        let each = match width {
            1 => self.unroll.cost.elem(body),
            _ => self.unroll.cost.vector(body),
        };
        let elem = e.ty.elem;
        let online = *op == ReduceOp::Lse;
        let init = ops::identity(*op, elem);
        let absorbs = into.is_some();
        let accs: Vec<VarId> = match into {
            Some(into) => into.accs,
            None if online => (0..width).map(|_| self.online_open()).collect(),
            None => (0..width)
                .map(|_| {
                    let start = match init {
                        Some(l) => Init::Value(self.b.lit(l)),
                        None => Init::None,
                    };
                    self.b.var("acc", super::ty(elem), None, start)
                })
                .collect(),
        };
        let end = self.dependent_end(*n, steps.as_ref())?;
        let (u, wide) = match end {
            Some(_) => (1, Vec::new()),
            None => {
                let u = self.fit_unroll(unroll_factor(*n, expr_size(body) as u64), each);
                (u, self.wide_fold_reads(body, *var, *n, u))
            }
        };
        let zero = self.b.i32(0);
        let name = self.p.var(*var).name.clone();
        let i = match end {
            Some(end) => self
                .b
                .open_loop(&name, (zero, end, LoopStep::Up(1)), false, *n),
            None => {
                let end = self.b.i32(*n as i32);
                self.b.open_loop(
                    &name,
                    (zero, end, LoopStep::Up(u as i32)),
                    true,
                    n.div_ceil(u),
                )
            }
        };
        for k in 0..u {
            let copy = self.b.enter_copy(k);
            let at = match k {
                0 => Ix::Val(i),
                k => self.arith(K::Add, Ix::Val(i), Ix::Const(k as i64)),
            };
            self.idx.insert(*var, at);
            self.wide_step(&wide, *var, k)?;
            if offer {
                self.regs.fold_into = Some(FoldInto {
                    op: *op,
                    elem,
                    accs: accs.clone(),
                });
            }
            self.regs.absorbed = false;
            self.reads.trips.push(super::lanes::Trip {
                var: *var,
                at,
                n: *n,
            });
            let vals = step(self);
            self.reads.trips.pop();
            self.regs.fold_into = None;
            let vals = vals?;
            if std::mem::take(&mut self.regs.absorbed) {
                self.b.leave_copy(copy);
                continue;
            }
            // Step 0 of the first trip is element 0: a `max`/`min`
            // accumulator (or an online pair) takes it as it is.
            let first = match (k, init) {
                (0, None) => Some(self.b.binary(K::Eq, i, zero)),
                _ => None,
            };
            for (a, v) in accs.iter().zip(vals) {
                if online {
                    self.online_step(*a, v, first);
                    continue;
                }
                let cur = self.b.read_var(*a);
                let next = self.fold_step(*op, cur, v, first);
                self.b.assign(*a, None, next);
            }
            self.b.leave_copy(copy);
        }
        self.b.close();
        self.wide_done(*var);
        self.regs.absorbed = absorbs;
        let results: Vec<V> = match online {
            true => accs.iter().map(|a| self.online_close(*a)).collect(),
            false => accs.iter().map(|a| self.b.read_var(*a)).collect(),
        };
        match (end, init) {
            // No step ran: a fold without an identity gives its identity.
            (Some(end), None) => Ok(results
                .into_iter()
                .map(|r| {
                    let id = self.b.lit(ops::empty_fold(*op, elem));
                    let ran = self.b.binary(K::Gt, end, zero);
                    self.b.select(ran, r, id)
                })
                .collect()),
            _ => Ok(results),
        }
    }
}
