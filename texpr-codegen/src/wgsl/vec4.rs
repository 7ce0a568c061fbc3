//! Four elements at a time: `vec4` loads, arithmetic and stores for
//! coarsened elementwise kernels.
//!
//! When a workgroup's value is `compute@group W |l| compute@thread M |t| S`
//! (the `coarsen` strategy) with `M` a multiple of 4 (at most 16), `S` an
//! `f32` expression of reads, `+ - * /`, unary builtins and `max`/`min`/
//! `pow`/`fma`, and every read that depends on `t` is `v[X + t]` with `X`
//! provably a multiple of 4, each group of four consecutive elements is
//! computed as one `vec4<f32>`: one load per read, one operation per
//! operation, one store. Subexpressions that do not depend on `t` are
//! computed once as scalars and splatted. The buffers read this way and the
//! output are declared `array<vec4<f32>>` (their lengths are multiples of
//! 4); any other read of them in the kernel takes component `i % 4` of entry
//! `i / 4`. The values are exactly the scalar ones: WGSL's vector operations
//! are componentwise.
//!
//! On llvmpipe every load and store instruction costs per lane, so this
//! halves the time of memory-bound elementwise kernels (measured against the
//! hand-written `shaders/baselines/axpb_vec4.wgsl`).
//!
//! Register tiles load the same way: a `let@reg` value
//! `compute@thread R |r| v[X + r]` (`R` a multiple of 4, `X` a multiple of
//! 4, `v` an `f32` input or global of a length divisible by 4, not the
//! kernel's output) is `R / 4` `vec4` loads, and one of `Q` such runs,
//! `compute@thread Q |q| compute@thread R |r| v[X(q) + r]` (`kstep` tiles),
//! `Q * R / 4` ([`Ctx::mark_quad_tiles`] finds
//! them before the kernel is written, since every read of such a buffer
//! must then take a component).
//!
//! Eight at a time where the device loads that way
//! ([`texpr_target::Target::wide_loads`]: CPU devices with 64-bit
//! integers): a single run (`R = 1`) of `N` a multiple of 8 at `X` a
//! multiple of 8, from an `f32` buffer of a length divisible by 8, is `N / 8`
//! loads of one `vec4<u64>` each, every `u64` split into its low and high
//! `f32` (`bitcast<f32>(u32(v))`, `bitcast<f32>(u32(v >> 32u))`: element
//! `2k` is the low half on the little-endian machines such devices are).
//! A buffer every tile of the kernel loads this way is declared
//! `array<vec4<u64>>` ([`Ctx::octo`]); one some other tile loads four at a
//! time stays `array<vec4<f32>>` and the eight are two `vec4` loads. On
//! llvmpipe a load costs per lane and per component, so the same four
//! components carry twice the bytes: `gridstride width=8` sums 2^24 `f32`s
//! about 1.5x faster than four at a time. Coarsened elementwise kernels
//! likewise, where `M`, the workgroup's share of the output, the output's
//! length and every read's are multiples of 8 and every read's offset is
//! ([`Quad::octo`]): each eight of a read is one `vec4<u64>` load whose
//! halves are two `vec4<f32>`s, and each eight of the output one
//! `vec4<u64>` store of the two results' bits (`2x + 1` over 2^24 `f32`s,
//! hand-written, one process, while a build ran: 32.0 ms against 46.3 ms
//! with `vec4<f32>`s).

use std::collections::BTreeMap;

use super::aligned::unit_stride;
use super::ctx::{Ctx, Ix};
use super::kernel::Destination;
use super::lit;
use super::ops;
use crate::plan::BufferId;
use texpr_syntax::Diagnostic;
use texpr_syntax::ast::{BinOp, ElemTy, Level};
use texpr_syntax::ir::{Expr, ExprKind, Func, Term, VarId, VecRef};

/// The parts of a vectorizable group body: `(M, t, S)`.
#[derive(Debug)]
pub struct Quad<'e> {
    pub m: u64,
    pub t: VarId,
    pub s: &'e Expr,
    /// Buffers read four at a time.
    pub reads: Vec<BufferId>,
    /// Eight at a time instead, as `vec4<u64>`s: the device loads wide and
    /// every read, the output and `M` are whole, aligned eights.
    pub octo: bool,
}

impl Ctx<'_> {
    /// `body` (a `compute@group` body) in the form the module docs name, for
    /// writing into `out`; `None` when it is not.
    pub fn quad<'e>(
        &self,
        body: &'e Expr,
        out: &Destination<'_>,
        out_id: BufferId,
    ) -> Option<Quad<'e>> {
        let ExprKind::Compute {
            level: Some(Level::Thread),
            n: m,
            var: t,
            map: None,
            body: s,
        } = &body.kind
        else {
            return None;
        };
        let fits = m.is_multiple_of(4)
            && *m <= 16
            && s.ty.len == 1
            && s.ty.elem == ElemTy::F32
            && out.perm.is_none()
            && out.per_group.is_multiple_of(4)
            && out.len.is_multiple_of(4)
            && self.bufs.plan_of(out_id).elem == ElemTy::F32;
        if !fits {
            return None;
        }
        let mut reads = Vec::new();
        if !self.vectorizable(s, *t, 4, &mut reads) {
            return None;
        }
        reads.sort();
        reads.dedup();
        let all_quads = reads.iter().all(|id| {
            self.bufs.plan_of(*id).len.is_multiple_of(4) && *id != out_id && !self.octo.contains(id)
        });
        let eights = |len: u64| len.is_multiple_of(8);
        let octo = self.wide_loads
            && m.is_multiple_of(8)
            && out.per_group.is_multiple_of(8)
            && eights(out.len)
            && reads.iter().all(|id| eights(self.bufs.plan_of(*id).len))
            && self.vectorizable(s, *t, 8, &mut Vec::new());
        all_quads.then_some(Quad {
            m: *m,
            t: *t,
            s,
            reads,
            octo,
        })
    }

    /// Whether `e` is computed `d` elements at a time (see the module docs):
    /// every read over `t` unit-stride at an offset that is a multiple of `d`.
    fn vectorizable(&self, e: &Expr, t: VarId, d: i64, reads: &mut Vec<BufferId>) -> bool {
        if e.ty.elem != ElemTy::F32 || e.ty.len != 1 {
            return false;
        }
        if !e.mentions(t) {
            return true;
        }
        match &e.kind {
            ExprKind::Index {
                vec: vec @ (VecRef::Input(_) | VecRef::Global(_)),
                index,
                guard: None,
            } => match (unit_stride(index, t, d), self.buf_of(*vec)) {
                (true, Some(id)) => {
                    reads.push(id);
                    true
                }
                _ => false,
            },
            ExprKind::Unary(_, x) => self.vectorizable(x, t, d, reads),
            ExprKind::Binary(BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::Div, a, b) => {
                self.vectorizable(a, t, d, reads) && self.vectorizable(b, t, d, reads)
            }
            ExprKind::Call(Func::Max | Func::Min | Func::Pow | Func::Fma, args) => {
                args.iter().all(|a| self.vectorizable(a, t, d, reads))
            }
            _ => false,
        }
    }

    /// Marks every buffer some register tile of `e` loads four at a time
    /// (in [`Ctx::vec4`]), or eight at a time in every tile that loads it (in
    /// [`Ctx::octo`]; see the module docs); `out` is the kernel's output.
    pub fn mark_quad_tiles(&mut self, e: &Expr, out: BufferId) {
        let mut widths: BTreeMap<BufferId, u64> = BTreeMap::new();
        e.walk(|x| {
            if let ExprKind::Let {
                level:
                    Some(texpr_syntax::ast::MemLevel::Reg | texpr_syntax::ast::MemLevel::Prefetch),
                value,
                ..
            } = &x.kind
                && let Some(QuadTile { id, width, .. }) = self.quad_tile(value)
                && id != out
            {
                let w = widths.entry(id).or_insert(width);
                *w = (*w).min(width);
            }
        });
        for (id, width) in widths {
            match width {
                8 => self.octo.insert(id),
                _ => self.vec4.insert(id),
            };
        }
    }

    /// Register tile `value` when it loads four at a time:
    /// `compute@thread N |t| v[X + t]`, or `R` such runs
    /// `compute@thread R |r| compute@thread N |t| v[X(r) + t]`.
    fn quad_tile<'e>(&self, value: &'e Expr) -> Option<QuadTile<'e>> {
        let (outer, run) = match thread_compute(value)? {
            (r, rv, inner) if thread_compute(inner).is_some() => (Some((rv, r)), inner),
            _ => (None, value),
        };
        let (n, var, body) = thread_compute(run)?;
        let ExprKind::Index {
            vec: vec @ (VecRef::Input(_) | VecRef::Global(_)),
            index,
            guard: None,
        } = &body.kind
        else {
            return None;
        };
        let id = self.buf_of(*vec)?;
        let plan = &self.bufs.plan_of(id);
        let runs = outer.map_or(1, |(_, r)| r);
        let octo = self.wide_loads
            && outer.is_none()
            && n.is_multiple_of(8)
            && plan.len.is_multiple_of(8)
            && unit_stride(index, var, 8);
        (n.is_multiple_of(4)
            && runs.saturating_mul(n) <= self.budget.register_vector
            && plan.elem == ElemTy::F32
            && plan.len.is_multiple_of(4)
            && unit_stride(index, var, 4))
        .then_some(QuadTile {
            id,
            outer,
            n,
            var,
            index,
            width: if octo { 8 } else { 4 },
        })
    }

    /// The elements of register tile `value`, loaded four at a time, when it
    /// is one [`Ctx::mark_quad_tiles`] marked.
    pub fn quad_tile_elements(&mut self, value: &Expr) -> Result<Option<Vec<String>>, Diagnostic> {
        let Some(q) = self
            .quad_tile(value)
            .filter(|q| self.vec4.contains(&q.id) || self.octo.contains(&q.id))
        else {
            return Ok(None);
        };
        if self.octo.contains(&q.id) {
            return self.octo_tile_elements(&q).map(Some);
        }
        if let Some(out) = self.shared_tile_elements(&q)? {
            return Ok(Some(out));
        }
        let buf = self.buffer(q.id);
        let runs = q.outer.map_or(1, |(_, r)| r);
        let mut out = Vec::with_capacity((runs * q.n) as usize);
        for run in 0..runs {
            if let Some((r, _)) = q.outer {
                self.idx.insert(r, Ix::Const(run as i64));
            }
            for k in 0..q.n as i64 / 4 {
                let copy = self.w.enter_copy(run * q.n / 4 + k as u64);
                let at = self.part_index(q.index, q.var, 4 * k, 4)?;
                let v = self.w.let_("vec4<f32>", format!("{buf}[{at}]"));
                self.components(&v, &mut out);
                self.w.leave_copy(copy);
            }
        }
        Ok(Some(out))
    }

    /// The elements of a one-run register tile of a buffer declared
    /// `array<vec4<u64>>`: one load per eight, each `u64` split in two.
    fn octo_tile_elements(&mut self, q: &QuadTile<'_>) -> Result<Vec<String>, Diagnostic> {
        let buf = self.buffer(q.id);
        let mut out = Vec::with_capacity(q.n as usize);
        for k in 0..q.n / 8 {
            let copy = self.w.enter_copy(k);
            let at = self.part_index(q.index, q.var, 8 * k as i64, 8)?;
            let v = self.w.let_("vec4<u64>", format!("{buf}[{at}]"));
            self.halves(&v, &mut out);
            self.w.leave_copy(copy);
        }
        Ok(out)
    }

    /// The four components of `vec4<f32>` `v`, appended to `out`.
    pub(super) fn components(&mut self, v: &str, out: &mut Vec<String>) {
        for c in ["x", "y", "z", "w"] {
            out.push(self.w.let_("f32", format!("{v}.{c}")));
        }
    }

    /// The eight `f32`s of `vec4<u64>` `v` in memory order, appended to `out`.
    pub(super) fn halves(&mut self, v: &str, out: &mut Vec<String>) {
        for c in ["x", "y", "z", "w"] {
            for high in [false, true] {
                out.push(self.w.let_("f32", half(v, c, high)));
            }
        }
    }

    /// Writes the four-at-a-time body (see the module docs): one `vec4` a
    /// four, or for [`Quad::octo`] two `vec4`s an eight, stored as one
    /// `vec4<u64>` (each `u64` the bits of two `f32`s, the first low).
    pub fn quad_elements(&mut self, q: &Quad<'_>, out: &Destination<'_>) -> Result<(), Diagnostic> {
        let (width, views) = match q.octo {
            true => (8, &mut self.octo),
            false => (4, &mut self.vec4),
        };
        views.extend(q.reads.iter().copied());
        for k in 0..q.m / width {
            let copy = self.w.enter_copy(k);
            let t0 = (width * k) as i64;
            let mut loads = Vec::new();
            let v = self.elem4(q.s, q.t, t0, &mut loads)?;
            let value = match q.octo {
                false => v,
                true => {
                    let hi = self.elem4(q.s, q.t, t0 + 4, &mut loads)?;
                    let [a, c] = [&v, &hi].map(|h| {
                        (self.w).let_("vec4<u64>", format!("vec4<u64>(bitcast<vec4<u32>>({h}))"))
                    });
                    format!(
                        "vec4<u64>({a}.x | ({a}.y << 32u), {a}.z | ({a}.w << 32u), \
                         {c}.x | ({c}.y << 32u), {c}.z | ({c}.w << 32u))"
                    )
                }
            };
            let lin = self.w.let_(
                "i32",
                format!(
                    "g * {} + l * {} + {}",
                    lit::i32_lit(out.per_group as i32),
                    lit::i32_lit(q.m as i32),
                    lit::i32_lit(t0 as i32)
                ),
            );
            let mut conds = Vec::new();
            if out.guard_group {
                conds.push("in_grid".to_string());
            }
            if out.guard_len {
                conds.push(format!("{lin} < {}", lit::i32_lit(out.len as i32)));
            }
            let store = format!(
                "{}[{lin} / {}] = {value};",
                out.buffer,
                lit::i32_lit(width as i32)
            );
            if conds.is_empty() {
                self.w.line(store);
            } else {
                self.w.open(format!("if ({})", conds.join(" && ")), false);
                self.w.line(store);
                self.w.close();
            }
            self.w.leave_copy(copy);
        }
        Ok(())
    }

    /// Elements `t0 .. t0 + 4` of scalar `e` (over `t`) as a `vec4<f32>`. A
    /// read of a buffer declared `array<vec4<u64>>` takes its half of an
    /// entry, loaded once for both halves (`loads`: `(entry, name)`).
    fn elem4(
        &mut self,
        e: &Expr,
        t: VarId,
        t0: i64,
        loads: &mut Vec<(String, String)>,
    ) -> Result<String, Diagnostic> {
        if !e.mentions(t) {
            let s = self.elem(e, &Ix::Const(0))?;
            let v = self.w.fresh("q");
            self.w.line(format!("var {v}: vec4<f32> = vec4<f32>({s});"));
            return Ok(v);
        }
        let ty = "vec4<f32>";
        match &e.kind {
            ExprKind::Index { vec, index, .. } => {
                let base = self.vec_buffer(*vec).expect("an input or global buffer");
                if !self.buf_of(*vec).is_some_and(|id| self.octo.contains(&id)) {
                    let at = self.part_index(index, t, t0, 4)?;
                    return Ok(self.w.let_(ty, format!("{base}[{at}]")));
                }
                let at = self.part_index(index, t, t0 - t0 % 8, 8)?;
                let entry = format!("{base}[{at}]");
                let v = match loads.iter().find(|(e, _)| *e == entry) {
                    Some((_, v)) => v.clone(),
                    None => {
                        let v = self.w.let_("vec4<u64>", entry.clone());
                        loads.push((entry, v.clone()));
                        v
                    }
                };
                let [a, b] = if t0 % 8 == 0 { ["x", "y"] } else { ["z", "w"] };
                let four =
                    [(a, false), (a, true), (b, false), (b, true)].map(|(c, h)| half(&v, c, h));
                Ok(self.w.let_(ty, format!("vec4<f32>({})", four.join(", "))))
            }
            ExprKind::Unary(op, x) => {
                let x = self.elem4(x, t, t0, loads)?;
                Ok(self.w.let_(ty, ops::unary(*op, &x)))
            }
            ExprKind::Binary(op, a, b) => {
                let (a, b) = (self.elem4(a, t, t0, loads)?, self.elem4(b, t, t0, loads)?);
                Ok(self.w.let_(ty, format!("{a} {} {b}", op.symbol())))
            }
            ExprKind::Call(f, args) => {
                let vals = args
                    .iter()
                    .map(|a| self.elem4(a, t, t0, loads))
                    .collect::<Result<Vec<_>, _>>()?;
                Ok(self.w.let_(ty, ops::call(*f, &vals)))
            }
            _ => unreachable!("checked by `vectorizable`"),
        }
    }
}

/// A register tile read four at a time ([`Ctx::quad_tile`]): `R` runs
/// (`outer`: the run variable and `R`) of `n` elements `index` over `var`.
pub(super) struct QuadTile<'e> {
    pub id: BufferId,
    pub outer: Option<(VarId, u64)>,
    pub n: u64,
    pub var: VarId,
    pub index: &'e Term,
    /// Elements a load: 4 (`vec4<f32>`), or 8 (`vec4<u64>`) where the
    /// device loads wide and the tile is one run of whole, aligned eights.
    pub width: u64,
}

/// The low (element `2k`) or high (`2k + 1`) `f32` of component `c` of
/// `vec4<u64>` `v`.
fn half(v: &str, c: &str, high: bool) -> String {
    match high {
        false => format!("bitcast<f32>(u32({v}.{c}))"),
        true => format!("bitcast<f32>(u32({v}.{c} >> 32u))"),
    }
}

/// `(n, var, body)` of `compute@thread n |var| body` without an index map.
fn thread_compute(e: &Expr) -> Option<(u64, VarId, &Expr)> {
    match &e.kind {
        ExprKind::Compute {
            level: Some(Level::Thread),
            n,
            var,
            map: None,
            body,
        } => Some((*n, *var, body)),
        _ => None,
    }
}
