//! Wide folds: eight elements of a row a load in an unrolled fold.
//!
//! On a device that loads wide ([`texpr_target::Target::wide_loads`]), a
//! thread-level fold `reduce N |j| E` (`N` a multiple of 8) unrolled by a
//! multiple of 8 whose body reads `v[X + j]` (`v` an `f32` input or global
//! of a length divisible by 8, `X` a multiple of 8 made of variables bound
//! outside the fold, the read unguarded, so in bounds for every `j`) loads
//! the eight elements `X + j .. X + j + 8` at each eighth step as one
//! `vec4<u64>` and splits it; the eight steps read their element by name.
//! The fold's order is unchanged, so its value is bit for bit the scalar
//! one. [`Ctx::mark_wide_folds`] declares such buffers `array<vec4<u64>>`
//! (`Ctx::octo`) before the kernel is written; every other read of them
//! takes its half of a `u64` (`locals.rs`). This is the row strategies'
//! case: softmax's, layernorm's and matvec's folds along a row.
//!
//! An invocation's own elements written by a loop unrolled by 8
//! (`Ctx::own_elements`: a row's output) read such a row the same way, and
//! store eight elements of a plain `f32` output a `vec4<u64>`
//! ([`Ctx::wide_output`], [`Ctx::wide_store`]).

use super::aligned::unit_stride;
use super::ctx::{Ctx, Ix, WideRead};
use super::kernel::Destination;
use super::lit;
use crate::plan::BufferId;
use texpr_syntax::Diagnostic;
use texpr_syntax::ast::{ElemTy, Level};
use texpr_syntax::ir::{Expr, ExprKind, Term, VarId, VecRef};

impl Ctx<'_> {
    /// Marks (in [`Ctx::octo`]) every buffer that thread-level folds of `e`,
    /// or, in a kernel with such folds, its thread-level elementwise loops
    /// (an invocation's own elements, unrolled by 8: `Ctx::own_elements`),
    /// read eight at a time in most of the places `e` reads it (see the
    /// module docs): a row operation's rows and the vectors its output
    /// loop reads along them (layernorm's `gamma` and `beta`); `out` is the
    /// kernel's output. The other reads take
    /// half a `u64` each, a little dearer than an `f32`. Softmax (a fold and
    /// the output loop over each row) and layernorm (two folds and the
    /// output loop) ran 2.7x and 3x faster on llvmpipe with their rows and
    /// outputs wide; matvec (one fold) 2.8x.
    pub fn mark_wide_folds(&mut self, e: &Expr, out: BufferId) {
        if !self.wide_loads {
            return;
        }
        // The reads thread-level folds (and, of the same rows, elementwise
        // loops) could load eight at a time, once per place.
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
        // Loops count in a kernel with folds (a row operation); a kernel of
        // elementwise loops alone is the coarsened path's (`vec4.rs`).
        if !has_folds {
            loops.clear();
        }
        let mut vecs: Vec<VecRef> = folds.iter().chain(&loops).copied().collect();
        vecs.sort();
        vecs.dedup();
        for vec in vecs {
            let wide = folds.iter().chain(&loops).filter(|v| **v == vec).count();
            if let Some(id) = self.buf_of(vec)
                && id != out
                && !self.vec4.contains(&id)
                && 2 * wide > reads(vec)
            {
                self.octo.insert(id);
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
                && let Some(id) = self.buf_of(*vec)
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
    /// buffer was marked.
    pub(super) fn wide_fold_reads(
        &self,
        body: &Expr,
        var: VarId,
        n: u64,
        u: u64,
    ) -> Vec<(VecRef, Term)> {
        if !(self.wide_loads && n.is_multiple_of(8) && u.is_multiple_of(8)) {
            return Vec::new();
        }
        let bound = |t: &Term| {
            t.vars()
                .iter()
                .all(|v| *v == var || self.idx.contains_key(v))
        };
        let mut reads = self.wide_reads(body, var, &bound);
        reads.retain(|(vec, _)| self.buf_of(*vec).is_some_and(|id| self.octo.contains(&id)));
        reads
    }

    /// Step `k` of a wide fold over `var` (its index already bound): at each
    /// eighth step loads every read's eight elements, at every step points
    /// them at the step's element.
    pub(super) fn wide_step(
        &mut self,
        reads: &[(VecRef, Term)],
        var: VarId,
        k: u64,
    ) -> Result<(), Diagnostic> {
        if reads.is_empty() {
            return Ok(());
        }
        if k.is_multiple_of(8) {
            self.wide.retain(|w| w.var != var);
            for (vec, index) in reads {
                let at = crate::wgsl::index::term(self, index)?;
                let entry = match at {
                    Ix::Const(c) => format!("{}i", c / 8),
                    Ix::Name(n) => format!("({n}) >> 3u"),
                };
                let base = self.vec_buffer(*vec).expect("an input or global buffer");
                let v = self.w.let_("vec4<u64>", format!("{base}[{entry}]"));
                let mut names = Vec::with_capacity(8);
                self.halves(&v, &mut names);
                self.wide.push(WideRead {
                    vec: *vec,
                    index: index.clone(),
                    var,
                    names,
                    at: 0,
                });
            }
        }
        for w in self.wide.iter_mut().filter(|w| w.var == var) {
            w.at = (k % 8) as usize;
        }
        Ok(())
    }

    /// The name of `vec[index]` when a wide fold loaded it.
    pub(super) fn wide_read(&self, vec: VecRef, index: &Term) -> Option<String> {
        (self.wide.iter())
            .find(|w| w.vec == vec && w.index.same(index))
            .map(|w| w.names[w.at].clone())
    }

    /// Whether an invocation's `m` elements of the kernel's output `out`,
    /// written by a loop unrolled `u` times, go out eight a store: the
    /// device loads wide, the output is a plain `f32` vector of whole
    /// eights (no tiled layout, no guard) and each invocation's share and
    /// the loop's steps are whole eights. Marks the output `array<vec4<u64>>`.
    pub(super) fn wide_output(&mut self, out: &Destination<'_>, m: u64, u: u64) -> bool {
        let plan = &self.bufs.plan_of(out.id);
        let wide = self.wide_loads
            && out.perm.is_none()
            && !out.guard_group
            && !out.guard_len
            && plan.elem == ElemTy::F32
            && plan.len.is_multiple_of(8)
            && out.per_group.is_multiple_of(8)
            && m.is_multiple_of(8)
            && u.is_multiple_of(8)
            && !self.vec4.contains(&out.id);
        if wide {
            self.octo.insert(out.id);
        }
        wide
    }

    /// Stores `vals`, eight consecutive elements of an invocation's `m`
    /// from the `first`th, as one `vec4<u64>` of `out` (each `u64` the bits
    /// of two `f32`s, the first low).
    pub(super) fn wide_store(
        &mut self,
        out: &Destination<'_>,
        m: u64,
        first: &Ix,
        vals: &[String],
    ) -> Result<(), Diagnostic> {
        let [lo, hi] = [0, 1].map(|h| {
            let v: Vec<&str> = vals.iter().skip(h).step_by(2).map(|s| s.as_str()).collect();
            let bits = format!("vec4<u64>(bitcast<vec4<u32>>(vec4<f32>({})))", v.join(", "));
            self.w.let_("vec4<u64>", bits)
        });
        let at = self.w.let_(
            "i32",
            format!(
                "g * {} + l * {} + {first}",
                lit::i32_lit(out.per_group as i32),
                lit::i32_lit(m as i32)
            ),
        );
        self.w.line(format!(
            "{}[{at} >> 3u] = {lo} | ({hi} << vec4<u32>(32u));",
            out.buffer
        ));
        Ok(())
    }

    /// Ends the wide fold over `var`.
    pub(super) fn wide_done(&mut self, var: VarId) {
        self.wide.retain(|w| w.var != var);
    }
}

/// The variables `e` binds (its computes', reductions' and lets').
fn binders(e: &Expr) -> Vec<VarId> {
    let mut out = Vec::new();
    e.walk(|x| match &x.kind {
        ExprKind::Compute { var, .. }
        | ExprKind::Reduce { var, .. }
        | ExprKind::Let { var, .. } => out.push(*var),
        _ => {}
    });
    out
}
