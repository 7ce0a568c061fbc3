//! Wide folds: eight elements of a row a load in an unrolled fold.
//!
//! Under `loads=wide` (the item's schedule), a thread-level fold `reduce N |j| E` (`N`
//! a multiple of 8) unrolled by a multiple of 8 whose body reads `v[X + j]`
//! (`v` an `f32` input or global of a length divisible by 8, `X` a multiple
//! of 8 bound outside the fold, the read unguarded) loads `X + j .. X + j +
//! 8` at each eighth step as one `vec4<u64>`; the eight steps read their
//! element from it. The fold's order is unchanged. [`Lower::mark_wide_folds`]
//! views such buffers `array<vec4<u64>>` before the kernel is built, where
//! such reads are most of the kernel's reads of them. An invocation's own
//! elements written by a loop unrolled by 8 read rows the same way and
//! store eight elements of a plain `f32` output as one `vec4<u64>`.

use super::spine::Out;
use super::{Ix, Lower, R};
use crate::kir::{BinOp as K, Scalar as S, Ty, V};
use crate::plan::BufferId;
use texpr_ir::term::unit_stride_aligned as unit_stride;
use texpr_ir::{ElemTy, Level};
use texpr_ir::{Expr, ExprKind, Term, VarId, VecRef};

/// A read of a wide fold: the eight elements of this eighth of the trip,
/// and which of them the current step reads.
#[derive(Clone, Debug)]
pub struct WideRead {
    pub vec: VecRef,
    pub index: Term,
    pub var: VarId,
    pub vals: Vec<V>,
    pub at: usize,
}

impl Lower<'_> {
    /// Views as `vec4<u64>` every buffer that thread-level folds of `e` (and,
    /// in a kernel with such folds, its thread-level elementwise loops) read
    /// eight at a time in most of the places `e` reads it; `out` is the
    /// kernel's output.
    pub fn mark_wide_folds(&mut self, e: &Expr, out: BufferId) {
        if !self.reads.loads.wide() {
            return;
        }
        let (mut folds, mut loops) = (Vec::new(), Vec::new());
        let mut has_folds = false;
        e.walk(|x| {
            has_folds |= matches!(
                x.kind,
                ExprKind::Reduce {
                    level: Some(Level::Thread),
                    ..
                }
            );
            let (n, var, body, found) = match &x.kind {
                ExprKind::Reduce {
                    level: Some(Level::Thread),
                    n,
                    var,
                    body,
                    ..
                } => (n, var, body, &mut folds),
                ExprKind::Compute {
                    level: Some(Level::Thread),
                    n,
                    var,
                    body,
                    ..
                } => (n, var, body, &mut loops),
                _ => return,
            };
            if n.is_multiple_of(8) {
                let inner = binders(body);
                let outside = |t: &Term| !inner.iter().any(|v| t.mentions(*v));
                let cands = self.wide_reads(body, *var, &outside);
                body.walk(|r| {
                    if let ExprKind::Index { vec, index, .. } = &r.kind
                        && cands.iter().any(|(v, t)| v == vec && t.same(index))
                    {
                        found.push(*vec);
                    }
                });
            }
        });
        let reads = |vec: VecRef| {
            let mut n = 0;
            e.walk(|x| {
                n += matches!(&x.kind, ExprKind::Index { vec: v, .. } if *v == vec) as usize
            });
            n
        };
        if !has_folds {
            loops.clear();
        }
        let mut vecs: Vec<VecRef> = folds.iter().chain(&loops).copied().collect();
        vecs.sort();
        vecs.dedup();
        for vec in vecs {
            let wide = folds.iter().chain(&loops).filter(|v| **v == vec).count();
            if let Some(id) = self.bufs.of(vec, self.p, self.binds.within)
                && id != out
                && !self.reads.vec4.contains(&id)
                && 2 * wide > reads(vec)
            {
                self.view_wide(id, 8);
            }
        }
    }

    /// The distinct reads of `body` a fold over `var` may load eight at a
    /// time, their `X` passing `outside`.
    fn wide_reads(
        &self,
        body: &Expr,
        var: VarId,
        outside: &dyn Fn(&Term) -> bool,
    ) -> Vec<(VecRef, Term)> {
        let mut out: Vec<(VecRef, Term)> = Vec::new();
        body.walk(|x| {
            if let ExprKind::Index {
                vec: vec @ (VecRef::Input(_) | VecRef::Global(_)),
                index,
                guard: None,
            } = &x.kind
                && let Some(id) = self.bufs.of(*vec, self.p, self.binds.within)
                && self.bufs.plan_of(id).elem == ElemTy::F32
                && self.bufs.plan_of(id).len.is_multiple_of(8)
                && unit_stride(index, var, 8)
                && outside(index)
                && !out.iter().any(|(v, t)| v == vec && t.same(index))
            {
                out.push((*vec, index.clone()));
            }
        });
        out
    }

    /// The reads of fold `body` over `var` (`n` steps, unrolled `u` times)
    /// to load eight at a time: none unless both are multiples of 8 and the
    /// buffer is viewed so.
    pub fn wide_fold_reads(&self, body: &Expr, var: VarId, n: u64, u: u64) -> Vec<(VecRef, Term)> {
        if !(self.reads.loads.wide() && n.is_multiple_of(8) && u.is_multiple_of(8)) {
            return Vec::new();
        }
        let bound = |t: &Term| {
            t.vars()
                .iter()
                .all(|v| *v == var || self.idx.contains_key(v))
        };
        let mut reads = self.wide_reads(body, var, &bound);
        reads.retain(|(vec, _)| {
            (self.bufs.of(*vec, self.p, self.binds.within))
                .is_some_and(|id| self.reads.octo.contains(&id))
        });
        reads
    }

    /// Step `k` of a wide fold over `var` (its index bound): at each eighth
    /// step loads every read's eight elements; at every step points them at
    /// the step's element.
    pub fn wide_step(&mut self, reads: &[(VecRef, Term)], var: VarId, k: u64) -> R<()> {
        if reads.is_empty() {
            return Ok(());
        }
        if k.is_multiple_of(8) {
            self.reads.wide.retain(|w| w.var != var);
            for (vec, index) in reads {
                let at = self.term(index)?;
                let entry = match at {
                    Ix::Const(c) => self.b.i32((c / 8) as i32),
                    Ix::Val(v) => {
                        let three = self.b.u32(3);
                        self.b.binary(K::Shr, v, three)
                    }
                };
                let mem = self.vec_buffer(*vec).expect("an input or global buffer");
                let v = self.b.load(mem, entry);
                let vals = self.halves(v);
                self.reads.wide.push(WideRead {
                    vec: *vec,
                    index: index.clone(),
                    var,
                    vals,
                    at: 0,
                });
            }
        }
        for w in self.reads.wide.iter_mut().filter(|w| w.var == var) {
            w.at = (k % 8) as usize;
        }
        Ok(())
    }

    /// `vec[index]` when a wide fold loaded it.
    pub fn wide_read(&self, vec: VecRef, index: &Term) -> Option<V> {
        (self.reads.wide.iter())
            .find(|w| w.vec == vec && w.index.same(index))
            .map(|w| w.vals[w.at])
    }

    /// Ends the wide fold over `var`.
    pub fn wide_done(&mut self, var: VarId) {
        self.reads.wide.retain(|w| w.var != var);
    }

    /// Whether an invocation's `m` elements of output `out`, written by a
    /// loop unrolled `u` times, go out eight a store (a plain `f32` output
    /// of whole eights, no layout, no guard); views the output so.
    pub fn wide_output(&mut self, out: &Out<'_>, out_id: BufferId, m: u64, u: u64) -> bool {
        let plan = self.bufs.plan_of(out_id);
        let wide = self.reads.loads.wide()
            && out.perm.is_none()
            && out.base.is_none()
            && out.in_grid.is_none()
            && !out.guard_len
            && plan.elem == ElemTy::F32
            && plan.len.is_multiple_of(8)
            && out.per_group.is_multiple_of(8)
            && m.is_multiple_of(8)
            && u.is_multiple_of(8)
            && !self.reads.vec4.contains(&out_id);
        if wide {
            self.view_wide(out_id, 8);
        }
        wide
    }

    /// Stores `vals`, eight consecutive elements of an invocation's `m`
    /// from the `first`th, as one `vec4<u64>` of `out`.
    pub fn wide_store(&mut self, out: &Out<'_>, g: V, m: u64, first: Ix, vals: &[V]) {
        let f4 = Ty::vec(S::F32, 4);
        let [lo, hi] = [0, 1].map(|h| {
            let v: Vec<V> = vals.iter().skip(h).step_by(2).copied().collect();
            let v = self.b.construct(f4, v);
            let bits = self.b.bitcast(Ty::vec(S::U32, 4), v);
            self.b.convert(super::vec4::OCTO, bits)
        });
        let l = self.local();
        let a = self.arith(K::Mul, Ix::Val(g), Ix::Const(out.per_group as i64));
        let b = self.arith(K::Mul, Ix::Val(l), Ix::Const(m as i64));
        let at = self.arith(K::Add, a, b);
        let at = self.arith(K::Add, at, first);
        let at = self.ix(at);
        let three = self.b.u32(3);
        let entry = self.b.binary(K::Shr, at, three);
        let s32 = self.b.u32(32);
        let s = self.b.construct(Ty::vec(S::U32, 4), vec![s32]);
        let hi = self.b.binary(K::Shl, hi, s);
        let value = self.b.binary(K::BitOr, lo, hi);
        self.b.store(out.mem, entry, value);
    }
}

/// The variables `e` binds anywhere in it.
fn binders(e: &Expr) -> Vec<VarId> {
    let mut out = Vec::new();
    e.walk(|x| out.extend(x.binders()));
    out
}
