//! Four (or eight) elements a load, as the item's `loads=` lets
//! ([`texpr_ir::Loads`]: none of this under `loads=scalar`, the
//! eights only under `loads=wide`).
//!
//! - A coarsened elementwise body `compute@group W |l| compute@thread M |t|
//!   S` (`M` a multiple of 4, at most 16; `S` an `f32` expression of
//!   unit-stride reads at offsets that are multiples of 4, `+ - * /`, unary
//!   builtins and `max`/`min`/`pow`/`fma`) is computed four elements at a
//!   time as `vec4<f32>`s: one load per read, one operation per operation,
//!   one store; under `loads=wide`, where everything is whole aligned
//!   eights, eight at a time, as a `vec4<u64>` load split into two
//!   `vec4<f32>`s and one `vec4<u64>` store ([`Quad::octo`]).
//! - A register tile `compute@thread R |r| v[X + r]`, or `Q` such runs, is
//!   `R / 4` `vec4` loads a run (one `vec4<u64>` per eight for one run
//!   under `loads=wide`).
//!
//! The buffers so read are viewed as `array<vec4<f32>>` (or
//! `array<vec4<u64>>`) in the kernel, set before any load of them; any
//! other read takes its component (`read.rs`). WGSL's vector operations
//! are componentwise: the values are exactly the scalar ones.

use super::spine::Out;
use super::{Ix, Lower, R};
use crate::kir::{BinOp as K, Init, Mem, Scalar as S, Ty, V};
use crate::plan::BufferId;
use std::collections::BTreeMap;
use texpr_ir::term;
use texpr_ir::term::{divide, unit_stride_aligned as unit_stride};
use texpr_ir::{BinOp, ElemTy, Level, MemLevel};
use texpr_ir::{Expr, ExprKind, Func, Term, TermKind, VarId, VecRef};

pub const VEC4: Ty = Ty::vec(S::F32, 4);

/// Four elements of `elem` (`vec4<f32>`, `vec4<f16>`): what a buffer of
/// them is viewed as four an entry.
pub fn vec4_of(elem: ElemTy) -> Ty {
    Ty::vec(super::ty(elem).scalar, 4)
}

/// The element types read and written four at a time (`loads=vec4`);
/// eight at a time (`loads=wide`, two `f32`s a `u64`) only `f32`.
fn quads(elem: ElemTy) -> bool {
    matches!(elem, ElemTy::F32 | ElemTy::F16)
}
pub const OCTO: Ty = Ty::vec(S::U64, 4);

/// The parts of a vectorizable group body: `(M, t, S)`.
#[derive(Debug)]
pub struct Quad<'e> {
    pub m: u64,
    pub t: VarId,
    pub s: &'e Expr,
    /// Buffers read four at a time.
    pub reads: Vec<BufferId>,
    /// Eight at a time instead, as `vec4<u64>`s.
    pub octo: bool,
}

/// A register tile read four at a time: `R` runs (`outer`: the run
/// variable and `R`) of `n` elements `index` over `var`.
#[derive(Debug)]
pub struct QuadTile<'e> {
    pub id: BufferId,
    pub outer: Option<(VarId, u64)>,
    pub n: u64,
    pub var: VarId,
    pub index: &'e Term,
    /// 4, or 8 under `loads=wide` where the tile is one run of
    /// whole, aligned eights.
    pub width: u64,
}

impl Lower<'_> {
    /// Views buffer `id` four (`vec4<f32>`) or eight (`vec4<u64>`) elements
    /// an entry from here on.
    pub fn view_wide(&mut self, id: BufferId, width: u64) {
        let elem = self.bufs.plan_of(id).elem;
        let (set, ty) = match width {
            8 => (&mut self.reads.octo, OCTO),
            _ => (&mut self.reads.vec4, vec4_of(elem)),
        };
        set.insert(id);
        if let Some(&b) = self.binds.bound.get(&id) {
            self.b.set_view(b, ty);
        }
    }

    /// `body` in the form the module docs name, writing into `out`.
    pub fn quad<'e>(&self, body: &'e Expr, out: &Out<'_>, out_id: BufferId) -> Option<Quad<'e>> {
        if !self.reads.loads.vec4() {
            return None;
        }
        let (m, t, s) = thread_compute(body)?;
        let elem_of = |id: BufferId| self.bufs.plan_of(id).elem;
        let len_of = |id: BufferId| self.bufs.plan_of(id).len;
        let elem = s.ty.elem;
        let fits = m.is_multiple_of(4)
            && m <= 16
            && s.ty.len == 1
            && quads(elem)
            && out.perm.is_none()
            && out.base.is_none()
            && out.per_group.is_multiple_of(4)
            && out.len.is_multiple_of(4)
            && elem_of(out_id) == elem;
        let mut reads = Vec::new();
        if !fits || !self.vectorizable(s, t, 4, &mut reads) {
            return None;
        }
        reads.sort();
        reads.dedup();
        let all_quads = (reads.iter()).all(|id| {
            len_of(*id).is_multiple_of(4) && *id != out_id && !self.reads.octo.contains(id)
        });
        let octo = self.reads.loads.wide()
            && elem == ElemTy::F32
            && m.is_multiple_of(8)
            && out.per_group.is_multiple_of(8)
            && out.len.is_multiple_of(8)
            && reads.iter().all(|id| len_of(*id).is_multiple_of(8))
            && self.vectorizable(s, t, 8, &mut Vec::new());
        all_quads.then_some(Quad {
            m,
            t,
            s,
            reads,
            octo,
        })
    }

    /// Whether `e` is computed `d` elements at a time: every read over `t`
    /// unit-stride at an offset that is a multiple of `d`, every value of
    /// one float type (`f32` or `f16`).
    fn vectorizable(&self, e: &Expr, t: VarId, d: i64, reads: &mut Vec<BufferId>) -> bool {
        if !quads(e.ty.elem) || e.ty.len != 1 {
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
            } => match (
                unit_stride(index, t, d),
                self.bufs.of(*vec, self.p, self.binds.within),
            ) {
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

    /// Views every buffer some register tile of `e` loads four at a time
    /// as `vec4`s, or eight at a time in every tile that loads it as
    /// `vec4<u64>`s; `out` is the kernel's output.
    pub fn mark_quad_tiles(&mut self, e: &Expr, out: BufferId) {
        let mut widths: BTreeMap<BufferId, u64> = BTreeMap::new();
        e.walk(|x| {
            if let ExprKind::Let {
                level: Some(MemLevel::Reg | MemLevel::Prefetch | MemLevel::Lanes),
                value,
                ..
            } = &x.kind
                && let Some(q) = self.quad_tile(value)
                && q.id != out
            {
                let w = widths.entry(q.id).or_insert(q.width);
                *w = (*w).min(q.width);
            }
        });
        for (id, width) in widths {
            self.view_wide(id, width);
        }
    }

    /// Register tile `value` when it loads four at a time.
    pub fn quad_tile<'e>(&self, value: &'e Expr) -> Option<QuadTile<'e>> {
        if !self.reads.loads.vec4() {
            return None;
        }
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
        let id = self.bufs.of(*vec, self.p, self.binds.within)?;
        let plan = self.bufs.plan_of(id);
        let runs = outer.map_or(1, |(_, r)| r);
        let octo = self.reads.loads.wide()
            && plan.elem == ElemTy::F32
            && outer.is_none()
            && n.is_multiple_of(8)
            && plan.len.is_multiple_of(8)
            && unit_stride(index, var, 8);
        (n.is_multiple_of(4)
            && runs.saturating_mul(n) <= self.unroll.cost.register_vector
            && quads(plan.elem)
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

    /// The elements of register tile `value` loaded four (or eight) at a
    /// time, when it is one [`Lower::mark_quad_tiles`] marked.
    pub fn quad_tile_elements(&mut self, value: &Expr) -> R<Option<Vec<V>>> {
        let Some(q) = (self.quad_tile(value))
            .filter(|q| self.reads.vec4.contains(&q.id) || self.reads.octo.contains(&q.id))
        else {
            return Ok(None);
        };
        let mem = self.buffer(q.id);
        if self.reads.octo.contains(&q.id) {
            let mut out = Vec::with_capacity(q.n as usize);
            for k in 0..q.n / 8 {
                let copy = self.b.enter_copy(k);
                let at = self.part_index(q.index, q.var, 8 * k as i64, 8)?;
                let v = self.b.load(mem, at);
                out.extend(self.halves(v));
                self.b.leave_copy(copy);
            }
            return Ok(Some(out));
        }
        if let Some(out) = self.shared_tile_elements(&q)? {
            return Ok(Some(out));
        }
        let runs = q.outer.map_or(1, |(_, r)| r);
        let mut out = Vec::with_capacity((runs * q.n) as usize);
        for run in 0..runs {
            if let Some((r, _)) = q.outer {
                self.idx.insert(r, Ix::Const(run as i64));
            }
            for k in 0..q.n as i64 / 4 {
                let copy = self.b.enter_copy(run * q.n / 4 + k as u64);
                let at = self.part_index(q.index, q.var, 4 * k, 4)?;
                let v = self.b.load(mem, at);
                out.extend(self.components(v));
                self.b.leave_copy(copy);
            }
        }
        Ok(Some(out))
    }

    /// The four components of a `vec4<f32>`.
    pub fn components(&mut self, v: V) -> Vec<V> {
        (0..4).map(|c| self.b.extract(v, c)).collect()
    }

    /// The eight `f32`s of a `vec4<u64>` in memory order (element `2k` the
    /// low half of component `k`, as on the little-endian machines that
    /// load wide).
    pub fn halves(&mut self, v: V) -> Vec<V> {
        let mut out = Vec::with_capacity(8);
        for c in 0..4 {
            let x = self.b.extract(v, c);
            for high in [false, true] {
                out.push(self.half(x, high));
            }
        }
        out
    }

    /// The low or high `f32` of a `u64`.
    pub fn half(&mut self, x: V, high: bool) -> V {
        let x = match high {
            true => {
                let s = self.b.u32(32);
                self.b.binary(K::Shr, x, s)
            }
            false => x,
        };
        let bits = self.b.convert(Ty::U32, x);
        self.b.bitcast(Ty::F32, bits)
    }

    /// A `vec4<u64>` of the bits of two `vec4<f32>`s, each `u64` two
    /// consecutive `f32`s, the first low.
    pub fn pack(&mut self, lo: V, hi: V) -> V {
        let [a, b] = [lo, hi].map(|h| {
            let bits = self.b.bitcast(Ty::vec(S::U32, 4), h);
            self.b.convert(OCTO, bits)
        });
        let s = self.b.u32(32);
        let mut parts = Vec::with_capacity(4);
        for v in [a, b] {
            for c in [0, 2] {
                let x = self.b.extract(v, c);
                let y = self.b.extract(v, c + 1);
                let y = self.b.binary(K::Shl, y, s);
                parts.push(self.b.binary(K::BitOr, x, y));
            }
        }
        self.b.construct(OCTO, parts)
    }

    /// The four-at-a-time body (see the module docs): one `vec4` a four, or
    /// for [`Quad::octo`] two `vec4`s an eight stored as one `vec4<u64>`.
    pub fn quad_elements(&mut self, q: &Quad<'_>, out: &Out<'_>, out_id: BufferId, g: V) -> R<()> {
        let width = if q.octo { 8 } else { 4 };
        self.view_wide(out_id, width);
        for id in &q.reads {
            self.view_wide(*id, width);
        }
        let l = self.local();
        for k in 0..q.m / width {
            let copy = self.b.enter_copy(k);
            let t0 = (width * k) as i64;
            let mut loads = Vec::new();
            let v = self.elem4(q.s, q.t, t0, &mut loads)?;
            let value = match q.octo {
                false => v,
                true => {
                    let hi = self.elem4(q.s, q.t, t0 + 4, &mut loads)?;
                    self.pack(v, hi)
                }
            };
            let a = self.arith(K::Mul, Ix::Val(g), Ix::Const(out.per_group as i64));
            let b = self.arith(K::Mul, Ix::Val(l), Ix::Const(q.m as i64));
            let lin = self.arith(K::Add, a, b);
            let lin = self.arith(K::Add, lin, Ix::Const(t0));
            let lin_v = self.ix(lin);
            let at = self.arith(K::Div, lin, Ix::Const(width as i64));
            let at = self.ix(at);
            super::spine::guarded(self, out, lin_v, |cx| cx.b.store(out.mem, at, value));
            self.b.leave_copy(copy);
        }
        Ok(())
    }

    /// Elements `t0 .. t0 + 4` of scalar `e` (over `t`) as a `vec4<f32>`; a
    /// read of a buffer viewed eight an entry takes its half of an entry,
    /// loaded once for both halves (`loads`, by buffer and entry: two
    /// buffers read at the same entry are two loads).
    fn elem4(&mut self, e: &Expr, t: VarId, t0: i64, loads: &mut Vec<((Mem, V), V)>) -> R<V> {
        if !e.mentions(t) {
            let s = self.elem(e, Ix::Const(0))?;
            let quad = vec4_of(e.ty.elem);
            let splat = self.b.construct(quad, vec![s]);
            let var = self.b.var("q", quad, None, Init::Value(splat));
            return Ok(self.b.read_var(var));
        }
        match &e.kind {
            ExprKind::Index { vec, index, .. } => {
                let id =
                    (self.bufs.of(*vec, self.p, self.binds.within)).expect("an input or global");
                let mem = self.buffer(id);
                if !self.reads.octo.contains(&id) {
                    let at = self.part_index(index, t, t0, 4)?;
                    return Ok(self.b.load(mem, at));
                }
                let at = self.part_index(index, t, t0 - t0 % 8, 8)?;
                let v = match loads.iter().find(|(a, _)| *a == (mem, at)) {
                    Some((_, v)) => *v,
                    None => {
                        let v = self.b.load(mem, at);
                        loads.push(((mem, at), v));
                        v
                    }
                };
                let [a, b] = if t0 % 8 == 0 { [0, 1] } else { [2, 3] };
                let mut four = Vec::with_capacity(4);
                for c in [a, b] {
                    let x = self.b.extract(v, c);
                    four.push(self.half(x, false));
                    four.push(self.half(x, true));
                }
                Ok(self.b.construct(VEC4, four))
            }
            ExprKind::Unary(op, x) => {
                let x = self.elem4(x, t, t0, loads)?;
                Ok(self.unary(*op, x))
            }
            ExprKind::Binary(op, a, b) => {
                let (a, b) = (self.elem4(a, t, t0, loads)?, self.elem4(b, t, t0, loads)?);
                Ok(self.binary(*op, a, b))
            }
            ExprKind::Call(f, args) => {
                let vals = (args.iter())
                    .map(|a| self.elem4(a, t, t0, loads))
                    .collect::<R<Vec<_>>>()?;
                Ok(self.call(*f, &vals))
            }
            _ => unreachable!("checked by `vectorizable`"),
        }
    }

    /// The entry of `d` elements holding element `index` at `t = t0` (a
    /// multiple of `d`) of a unit-stride read: the other summands each
    /// divided by `d` symbolically, plus `t0 / d`; else `index / d`.
    pub fn part_index(&mut self, index: &Term, t: VarId, t0: i64, d: i64) -> R<V> {
        self.idx.insert(t, Ix::Const(t0));
        let parts = term::summands(index);
        let others = parts.iter().filter(|x| x.kind != TermKind::Var(t));
        let divided: Option<Vec<Term>> = others.map(|x| divide(x, d)).collect();
        let Some(divided) = divided else {
            let at = self.term(index)?;
            let q = self.arith(K::Div, at, Ix::Const(d));
            return Ok(self.ix(q));
        };
        let sum =
            (divided.into_iter().reduce(term::add)).map_or(term::constant(t0 / d), |x| match t0 {
                0 => x,
                _ => term::add(x, term::constant(t0 / d)),
            });
        let at = self.term(&sum)?;
        Ok(self.ix(at))
    }
}

/// `(n, var, body)` of `compute@thread n |var| body` without an index map.
pub fn thread_compute(e: &Expr) -> Option<(u64, VarId, &Expr)> {
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
