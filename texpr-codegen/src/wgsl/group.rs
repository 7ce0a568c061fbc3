//! Reductions across a workgroup: `reduce@group W` as a tree in workgroup
//! memory, `reduce@subgroup W` with subgroup operations and a fold of the
//! subgroups' partials. Both start from the invocations' own elements,
//! never from an identity value.

use super::ctx::{Ctx, Ix};
use super::kernel::Destination;
use super::lit;
use texpr_syntax::ast::ReduceOp;
use texpr_syntax::ir::Expr;
use texpr_syntax::{Diagnostic, Span};

impl Ctx<'_> {
    /// `reduce@group W |l| body`: partials in workgroup memory, then a tree.
    pub(super) fn tree_reduce(
        &mut self,
        op: ReduceOp,
        body: &Expr,
        w: u64,
        span: Span,
        out: &Destination<'_>,
    ) -> Result<(), Diagnostic> {
        let m = body.ty.len as i64;
        let red = self.tree_into(op, body, w, span)?;
        let j = self.open_loop("e", &Ix::Name("l".into()), m, w as i64, false);
        let v = self.w.let_(lit::ty(body.ty.elem), format!("{red}[{j}]"));
        self.write(out, &Ix::Name(j), &v)?;
        self.w.close();
        Ok(())
    }

    /// The tree of `reduce@group W |l| body` in a workgroup array, whose
    /// first `m` elements hold the result (every invocation may read them:
    /// the tree ends with a barrier).
    pub(super) fn tree_into(
        &mut self,
        op: ReduceOp,
        body: &Expr,
        w: u64,
        span: Span,
    ) -> Result<String, Diagnostic> {
        let m = body.ty.len as i64;
        let red = self.declare_shared("red", body.ty.elem, w * m as u64, span);
        let slot = |cx: &mut Ctx<'_>, lane: &str, j: &Ix| -> String {
            match j {
                Ix::Const(0) if m == 1 => lane.to_string(),
                _ => {
                    cx.w.let_("i32", format!("{lane} * {} + {j}", lit::i32_lit(m as i32)))
                }
            }
        };
        let store = |cx: &mut Ctx<'_>, at: Ix, v: &str| {
            cx.w.line(format!("{red}[{at}] = {v};"));
            Ok(())
        };
        self.own_elements(body, &store, 1, None)?;
        self.w.barrier()?;
        let top = w.next_power_of_two() as i64 / 2;
        let s = self.w.fresh("s");
        self.w.open_loop(
            format!(
                "for (var {s}: i32 = {}; {s} > 0i; {s} = {s} / 2i)",
                lit::i32_lit(top as i32)
            ),
            true,
            u64::from(top.max(1).ilog2()) + 1,
        );
        self.w.open(
            format!("if (l < {s} && l + {s} < {})", lit::i32_lit(w as i32)),
            false,
        );
        let partner = self.w.let_("i32", format!("l + {s}"));
        let j = if m == 1 {
            Ix::Const(0)
        } else {
            Ix::Name(self.open_loop("j", &Ix::Const(0), m, 1, false))
        };
        let (a, b) = (slot(self, "l", &j), slot(self, &partner, &j));
        let (x, y) = (format!("{red}[{a}]"), format!("{red}[{b}]"));
        let (x, y) = (
            self.operand(op, body.ty.elem, x),
            self.operand(op, body.ty.elem, y),
        );
        self.w
            .line(format!("{red}[{a}] = {};", lit::combine(op, &x, &y)));
        if m != 1 {
            self.w.close();
        }
        self.w.close();
        self.w.barrier()?;
        self.w.close();
        Ok(red)
    }

    /// `reduce@subgroup W |l| body` (length `m`): invocation `l` computes
    /// its `m` elements; each is combined across the subgroup
    /// (`subgroupAdd`, ...) in uniform control flow; lane 0 of subgroup `s`
    /// writes its partials to `part[s*m + j]` (sized for subgroups of one
    /// invocation, the worst case); a barrier; then invocation `l` folds
    /// element `l, l+W, ...` over the subgroups' partials, in subgroup
    /// order, and writes it. That loop's bound is known only at run time, so
    /// it counts as `W` iterations towards the loop budget.
    pub(super) fn subgroup_reduce(
        &mut self,
        op: ReduceOp,
        body: &Expr,
        w: u64,
        span: Span,
        out: &Destination<'_>,
    ) -> Result<(), Diagnostic> {
        self.subgroup_fold(op, body, (w, span), Some(out))?;
        Ok(())
    }

    /// [`Self::subgroup_reduce`] into workgroup memory: the name of an
    /// array whose first `m` elements hold the result once every
    /// invocation is past the barrier that ends it (element `j` folded
    /// over `part[s*m + j]` is stored back at `part[j]`, which only that
    /// fold reads).
    pub(super) fn subgroup_into(
        &mut self,
        op: ReduceOp,
        body: &Expr,
        w: u64,
        span: Span,
    ) -> Result<String, Diagnostic> {
        let part = self.subgroup_fold(op, body, (w, span), None)?;
        self.w.barrier()?;
        Ok(part)
    }

    /// The subgroup combine and the fold over the subgroups' partials of
    /// [`Self::subgroup_reduce`], each folded element written to `out`, or
    /// without one stored back into the partials' array. Returns that
    /// array.
    fn subgroup_fold(
        &mut self,
        op: ReduceOp,
        body: &Expr,
        (w, span): (u64, Span),
        out: Option<&Destination<'_>>,
    ) -> Result<String, Diagnostic> {
        self.subgroups = true;
        let m = body.ty.len as i64;
        let ty = lit::ty(body.ty.elem);
        let part = self.declare_shared("part", body.ty.elem, w * m as u64, span);
        let f = match op {
            ReduceOp::Add => "subgroupAdd",
            ReduceOp::Mul => "subgroupMul",
            ReduceOp::Max => "subgroupMax",
            ReduceOp::Min => "subgroupMin",
            ReduceOp::Lse => "",
        };
        let sg = self.w.let_("i32", "i32(sgid)");
        let combine = |cx: &mut Ctx<'_>, at: Ix, v: &str| {
            let r = match op {
                // No `subgroupLse`: a subgroup max, then a subgroup sum.
                ReduceOp::Lse => cx.subgroup_lse(v)?,
                _ => cx.w.subgroup_let(ty, format!("{f}({v})"))?,
            };
            // `at` is `l*m + j`: the slot is `sg*m + j`.
            let slot = match m {
                1 => sg.clone(),
                _ => cx.w.let_(
                    "i32",
                    format!("{at} + ({sg} - l) * {}", lit::i32_lit(m as i32)),
                ),
            };
            cx.w.open("if (sgl == 0u)", false);
            cx.w.line(format!("{part}[{slot}] = {r};"));
            cx.w.close();
            Ok(())
        };
        self.own_elements(body, &combine, 5, None)?;
        self.w.barrier()?;
        // The subgroup count: lavapipe (Mesa 22.3) reports `num_subgroups`
        // as W / size rounded down, missing a last partial subgroup
        // (measured: W = 20 summed 16 terms). No subgroup holds more than
        // `subgroup_size` invocations, so the larger of the two is right on
        // every device.
        let count = self
            .w
            .let_("i32", format!("i32(max(nsg, ({w}u + sgs - 1u) / sgs))"));
        let j = self.open_loop("e", &Ix::Name("l".into()), m, w as i64, false);
        let acc = self.w.fresh("acc");
        self.w.line(format!("var {acc}: {ty} = {part}[{j}];"));
        let s = self.w.fresh("s");
        self.w.open_loop(
            format!("for (var {s}: i32 = 1i; {s} < {count}; {s} = {s} + 1i)"),
            false,
            w,
        );
        let at = self
            .w
            .let_("i32", format!("{s} * {} + {j}", lit::i32_lit(m as i32)));
        let y = self.operand(op, body.ty.elem, format!("{part}[{at}]"));
        self.w
            .line(format!("{acc} = {};", lit::combine(op, &acc, &y)));
        self.w.close();
        match out {
            Some(out) => self.write(out, &Ix::Name(j), &acc)?,
            None => self.w.line(format!("{part}[{j}] = {acc};")),
        }
        self.w.close();
        Ok(part)
    }

    /// A combine's operand read from workgroup memory: as it is, or, for an
    /// `lse` (whose combine names each operand several times), loaded once
    /// into a `let`.
    fn operand(&mut self, op: ReduceOp, elem: texpr_syntax::ast::ElemTy, read: String) -> String {
        match op {
            ReduceOp::Lse => self.w.let_(lit::ty(elem), read),
            _ => read,
        }
    }
}
