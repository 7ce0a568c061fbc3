//! Register vectors: a
//! `let@reg` of at most the target's `max_unrolled_elements` whose copies
//! fit the kernel's budget (or a vector fold whose steps share work) is
//! every element computed unrolled, one value each; a read at a constant
//! index is that value, a read at a run-time index reads one array copy of
//! the vector, made once where the vector was computed.

use super::{Ix, Loc, Lower, R, unbound};
use crate::kir::{Init, Mem, Stmt, V};
use texpr_ir::{Expr, ExprKind, Scalar, VarId};
use texpr_ir::{MemLevel, ReduceOp};

impl Lower<'_> {
    /// Every element of a short vector, unrolled. A `reduce` of `+` or `*`
    /// whose body ends, after `let`s, in a `reduce` of the same fold folds
    /// that one into its own accumulators (see `fold.rs`).
    pub fn vector(&mut self, e: &Expr) -> R<Vec<V>> {
        // An offered fold target reaches this expression's tail only.
        let into = self.regs.fold_into.take();
        match &e.kind {
            ExprKind::Let {
                level: level @ (None | Some(MemLevel::Reg | MemLevel::Prefetch | MemLevel::Lanes)),
                var,
                value,
                body,
            } => {
                let live = self.accounts.live_private;
                let loc = match level {
                    Some(MemLevel::Lanes) => self.lane_shared_vector(*var, value)?,
                    _ => self.local_vector(*var, value)?,
                };
                self.bind_local(*var, loc);
                self.regs.fold_into = into;
                let vals = self.vector(body);
                self.accounts.live_private = live;
                vals
            }
            ExprKind::Let {
                level: Some(MemLevel::Shared),
                ..
            } => {
                let body = self.staged_shared(e)?;
                self.regs.fold_into = into;
                self.vector(body)
            }
            ExprKind::Reduce { op, body, .. } => {
                let into = into.filter(|t| {
                    t.op == *op && t.elem == e.ty.elem && t.accs.len() as u64 == e.ty.len
                });
                let offer = matches!(op, ReduceOp::Add | ReduceOp::Mul);
                self.fold(e, e.ty.len, into, offer, |cx| cx.vector(body))
            }
            ExprKind::Compute {
                n,
                var,
                map: None,
                body,
                ..
            } => {
                let mut out = Vec::with_capacity(e.ty.len as usize);
                let least = self.least(|c| c.vector(body));
                for i in 0..*n {
                    self.idx.insert(*var, Ix::Const(i as i64));
                    let copy = self.b.enter_copy(i);
                    out.extend(self.within_share(i, *n, least, |cx| cx.vector(body))?);
                    self.b.leave_copy(copy);
                }
                Ok(out)
            }
            _ => {
                let least = self.least(|c| c.elem(e));
                (0..e.ty.len)
                    .map(|i| {
                        let copy = self.b.enter_copy(i);
                        let v = self
                            .within_share(i, e.ty.len, least, |cx| cx.elem(e, Ix::Const(i as i64)));
                        self.b.leave_copy(copy);
                        v
                    })
                    .collect()
            }
        }
    }

    /// Binds local vector `var` to `loc`; a register vector's place is
    /// marked for its array copy.
    pub fn bind_local(&mut self, var: VarId, loc: Loc) {
        match loc {
            Loc::Regs(_) => {
                let at = self.b.mark();
                self.regs.regs_at.insert(var, (at, None));
            }
            _ => {
                self.regs.regs_at.remove(&var);
            }
        }
        self.vecs.insert(var, loc);
    }

    /// Register vector `var` (`vals`) as an array to index at run time: one
    /// copy, made where the vector was computed, for every such read.
    pub fn regs_array(&mut self, var: VarId, vals: &[V], span: texpr_ir::Span) -> Mem {
        if let Some((_, Some(arr))) = self.regs.regs_at.get(&var) {
            return *arr;
        }
        let ty = self.b.ty(vals[0]);
        let init = Init::Elements(vals.to_vec());
        let arr = match self.regs.regs_at.get(&var).map(|e| e.0) {
            Some(at) => {
                let id = self.b.new_var("tile", ty, Some(vals.len() as u32));
                self.b.insert_at(at, Stmt::Var(id, init));
                id
            }
            None => self.b.var("tile", ty, Some(vals.len() as u32), init),
        };
        let mem = Mem::Var(arr);
        let what = format!(
            "register vector `{}` copied for run-time indexing",
            self.p.var(var).name
        );
        self.note_private(what, vals.len() as u64, span);
        if let Some(entry) = self.regs.regs_at.get_mut(&var) {
            entry.1 = Some(mem);
        }
        mem
    }

    /// Element `c` of a register vector (the guard's value past its end).
    pub fn regs_elem(&mut self, vals: &[V], c: i64, guard: Option<Scalar>, e: &Expr) -> R<V> {
        match (usize::try_from(c).ok().and_then(|c| vals.get(c)), guard) {
            (Some(v), _) => Ok(*v),
            (None, Some(g)) => Ok(self.constant(g)),
            (None, None) => Err(unbound(e.span)),
        }
    }
}
