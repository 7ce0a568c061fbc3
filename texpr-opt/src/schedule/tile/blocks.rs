//! Block indexing of a tile: workgroup `g` owns a `TI*RI x TJ*RJ` block of
//! the (padded) result, invocation `l` a `RI x RJ` register tile of it.
//!
//! With `GI x GJ` workgroups per result (`M`, `N` padded up to `Mp`, `Np`),
//! the batch is `g / (GI*GJ)` and the block within it `gt = g % (GI*GJ)`;
//! register `(ri, rj)` of invocation `l` is row
//! `i = ((gt / GJ) * TI + l / TJ) * RI + ri` and column
//! `j = ((gt % GJ) * TJ + l % TJ) * RJ + rj`, wrapped `% M` (`% N`) when the
//! blocks overhang: padding rows and columns recompute an edge element and
//! are never written.

use super::super::fail::Fail;
use super::super::grid::{compute_at, index};
use super::super::shape::Tiled;
use texpr_ir::Level;
use texpr_ir::Span;
use texpr_ir::index::subst::subst_expr;
use texpr_ir::term::{add, constant, div, mul, rem, var};
use texpr_ir::{Expr, Program, Term, VarId};

/// The sizes, variables and index terms of one tile.
#[derive(Debug)]
pub struct Blocks {
    /// Invocations per workgroup along `i`, `j`.
    pub ti: u64,
    pub tj: u64,
    /// Registers per invocation along `i`, `j`.
    pub ri: u64,
    pub rj: u64,
    /// Workgroups per result along `i`, `j`.
    pub gi: u64,
    pub gj: u64,
    /// The result, `M x N`, and padded to whole blocks, `Mp x Np`.
    pub m: u64,
    pub n: u64,
    pub mp: u64,
    pub np: u64,
    /// Results in the batch (1 without one).
    pub batch: u64,
    /// `M` (resp. `N`) when the blocks overhang it: reads wrap around.
    pub wrap_i: Option<u64>,
    pub wrap_j: Option<u64>,
    /// The grid and invocation variables.
    pub g: VarId,
    pub l: VarId,
    /// The block within the batch, `g % (GI*GJ)` (or `g`).
    pub gt: Term,
    /// `i` and `j` of the 2D compute, and its `S` with the batch substituted.
    pub i: VarId,
    pub j: VarId,
    pub s: Expr,
    pub span: Span,
    i_base: Term,
    j_base: Term,
}

impl Blocks {
    /// The blocks of `t` for `group = [TI, TJ]`, `reg = [RI, RJ]`: E0212 when
    /// indices would overflow, or a batch does not divide into whole blocks.
    pub fn new(
        p: &mut Program,
        span: Span,
        t: &Tiled<'_>,
        [ti, tj]: [u64; 2],
        [ri, rj]: [u64; 2],
    ) -> Result<Blocks, Fail> {
        let (m, n, batch) = (t.m, t.n, t.batch_len());
        let (gi, gj) = (m.div_ceil(ti * ri), n.div_ceil(tj * rj));
        let (mp, np) = (gi * ti * ri, gj * tj * rj);
        if mp * np > i32::MAX as u64 / 3 {
            return Err(Fail::sizes(format!(
                "a {mp} x {np} padded result overflows i32 indices"
            )));
        }
        let wrap_i = (mp != m).then_some(m);
        let wrap_j = (np != n).then_some(n);
        if batch * mp * np > i32::MAX as u64 / 3 {
            return Err(Fail::sizes(format!(
                "{batch} results of {mp} x {np} overflow i32 indices"
            )));
        }
        if batch > 1 && (wrap_i.is_some() || wrap_j.is_some()) {
            return Err(Fail::sizes(format!(
                "a batch of {m} x {n} results does not divide into {}x{} blocks (batched tiles are not padded)",
                ti * ri,
                tj * rj
            )));
        }
        let g = index(p, "g", batch * gi * gj, span);
        let l = index(p, "l", ti * tj, span);
        // Batch `p = g / (GI*GJ)`, the same for the whole workgroup.
        let (s, gt) = match t.batch {
            Some((_, pv)) if batch > 1 => {
                let s = subst_expr(p, t.body, pv, &div(var(g), gi * gj));
                (s, rem(var(g), gi * gj))
            }
            Some((_, pv)) => (subst_expr(p, t.body, pv, &constant(0)), var(g)),
            None => (t.body.clone(), var(g)),
        };
        let i_base = mul(add(mul(div(gt.clone(), gj), ti), div(var(l), tj)), ri);
        let j_base = mul(add(mul(rem(gt.clone(), gj), tj), rem(var(l), tj)), rj);
        Ok(Blocks {
            ti,
            tj,
            ri,
            rj,
            gi,
            gj,
            m,
            n,
            mp,
            np,
            batch,
            wrap_i,
            wrap_j,
            g,
            l,
            gt,
            i: t.i,
            j: t.j,
            s,
            span,
            i_base,
            j_base,
        })
    }

    /// Invocations per workgroup.
    pub fn w(&self) -> u64 {
        self.ti * self.tj
    }

    /// A fresh index variable over `0..n`.
    pub fn fresh(&self, p: &mut Program, name: &str, n: u64) -> VarId {
        index(p, name, n, self.span)
    }

    /// The row (`along_i`) or column of register `r`.
    pub fn at(&self, along_i: bool, r: VarId) -> Term {
        let (base, wrap) = match along_i {
            true => (&self.i_base, self.wrap_i),
            false => (&self.j_base, self.wrap_j),
        };
        let t = add(base.clone(), var(r));
        match wrap {
            Some(n) => rem(t, n),
            None => t,
        }
    }

    /// Row (`along_i`) or column `offset` of workgroup `g`'s block, wrapped
    /// like [`Blocks::at`]: what the whole workgroup stages together.
    pub fn block_at(&self, along_i: bool, offset: Term) -> Term {
        let (base, wrap) = match along_i {
            true => (
                mul(div(self.gt.clone(), self.gj), self.ti * self.ri),
                self.wrap_i,
            ),
            false => (
                mul(rem(self.gt.clone(), self.gj), self.tj * self.rj),
                self.wrap_j,
            ),
        };
        let t = add(base, offset);
        match wrap {
            Some(n) => rem(t, n),
            None => t,
        }
    }

    /// `e` at register `(ri, rj)`: `i` and `j` replaced by its row and column.
    pub fn place(&self, p: &Program, e: &Expr, ri: VarId, rj: VarId) -> Expr {
        let e = subst_expr(p, e, self.i, &self.at(true, ri));
        subst_expr(p, &e, self.j, &self.at(false, rj))
    }

    /// `compute@thread RI |ri| compute@thread RJ |rj| e`: a register tile.
    pub fn registers(&self, ri: VarId, rj: VarId, e: &Expr) -> Expr {
        compute_at(
            Level::Thread,
            self.ri,
            ri,
            compute_at(Level::Thread, self.rj, rj, e.with_thread_levels()),
        )
    }
}
