//! `let`-bound vectors and reads.
//!
//! - A `let@reg` of one element is a value ([`Loc::Scalar`]); of at most
//!   the target's `max_unrolled_elements` a register vector when unrolling
//!   it fits the kernel's budget (or its fold's steps share work:
//!   `vector.rs`); otherwise a function-variable array filled by a loop
//!   ([`Loc::Array`]), or past the memory budget a scratch buffer
//!   (`spill.rs`).
//! - Every array and register vector is recorded for the per-invocation
//!   memory budget (E0318, `checks.rs`).
//! - A vector literal is read where it lives, never copied per read: a
//!   module-scope private array, or a constant buffer when it is long.
//! - A guarded read clamps its index and selects the guard's value when the
//!   index is out of bounds.

use super::{Ix, Loc, Lower, R, ops, unbound};
use crate::kir::{BinOp as K, Fun, Init, Mem, V};
use texpr_ir::{Expr, ExprKind, Scalar, VarId, VecRef};

impl Lower<'_> {
    /// A `let@reg` value: a scalar, or an array filled by a loop.
    pub fn local_vector(&mut self, var: VarId, value: &Expr) -> R<Loc> {
        let len = value.ty.len;
        if len == 1 {
            return Ok(Loc::Scalar(self.elem(value, Ix::Const(0))?));
        }
        if let ExprKind::VecLit(vals) = &value.kind {
            return Ok(Loc::Array(self.literal_array(
                value.ty.elem,
                vals,
                value.span,
            )));
        }
        let shares = matches!(&value.kind, ExprKind::Reduce { body, .. } if matches!(body.kind, ExprKind::Let { .. }));
        if len <= self.unroll.cost.register_vector
            && (self.may_unroll(len, self.unroll.cost.vector(value).div_ceil(len)) || shares)
        {
            let name = &self.p.var(var).name;
            self.note_private(format!("register vector `{name}`"), len, value.span);
            if let Some(vals) = self.quad_tile_elements(value)? {
                return Ok(Loc::Regs(vals));
            }
            return Ok(Loc::Regs(self.vector(value)?));
        }
        if self.must_spill(value) {
            return self.spilled(var, value);
        }
        let name = self.p.var(var).name.clone();
        self.note_private(format!("array `{name}`"), len, value.span);
        let ty = super::ty(value.ty.elem);
        let arr = self.b.var(&name, ty, Some(len as u32), Init::None);
        let (start, end) = (self.b.i32(0), self.b.i32(len as i32));
        let e = self
            .b
            .open_loop("e", (start, end, crate::kir::LoopStep::Up(1)), true, len);
        let v = self.elem(value, Ix::Val(e))?;
        self.b.assign(arr, Some(e), v);
        self.b.close();
        Ok(Loc::Array(Mem::Var(arr)))
    }

    /// The array holding literal `vals`: its constant buffer when it has
    /// one, else a module-scope private array (one per distinct literal).
    pub fn literal_array(
        &mut self,
        elem: texpr_ir::ElemTy,
        vals: &[Scalar],
        span: texpr_ir::Span,
    ) -> Mem {
        if let Some(id) = self.bufs.constant(elem, vals) {
            return self.buffer(id);
        }
        let lits = vals.iter().map(|v| ops::lit(*v)).collect();
        let base = format!("{}_lit", self.k);
        let mem = self.b.private_array(&base, super::ty(elem), lits);
        if self.accounts.literals.insert(mem) {
            self.note_private("literal vector".into(), vals.len() as u64, span);
        }
        mem
    }

    /// `vec[ix]`, or with a guard the guard's value when `ix` is out of bounds.
    pub fn read(&mut self, vec: VecRef, ix: Ix, guard: Option<Scalar>, e: &Expr) -> R<V> {
        let len = self.p.vec_ty(vec).len as i64;
        let mut ix = ix;
        let mem = match vec {
            VecRef::Local(v) => match self.vecs.get(&v).cloned() {
                Some(Loc::Array(m)) => m,
                Some(Loc::Spilled(m)) => {
                    if guard.is_some() {
                        // Clamped below; the slot is computed from the clamped index.
                        return self.guarded_spill(m, ix, guard, len);
                    }
                    ix = self.spill_index(ix);
                    m
                }
                Some(Loc::Vars(vars)) => match ix {
                    Ix::Const(c) => {
                        match (usize::try_from(c).ok().and_then(|c| vars.get(c)), guard) {
                            (Some(x), _) => return Ok(self.b.read_var(*x)),
                            (None, Some(g)) => return Ok(self.constant(g)),
                            (None, None) => return Err(unbound(e.span)),
                        }
                    }
                    Ix::Val(_) => {
                        let vals: Vec<V> = vars.iter().map(|x| self.b.read_var(*x)).collect();
                        let ty = self.b.ty(vals[0]);
                        let arr =
                            self.b
                                .var("tile", ty, Some(vals.len() as u32), Init::Elements(vals));
                        self.note_private(
                            "prefetched registers copied for run-time indexing".into(),
                            vars.len() as u64,
                            e.span,
                        );
                        Mem::Var(arr)
                    }
                },
                Some(Loc::Scalar(s)) => return Ok(self.guarded_scalar(s, ix, guard)),
                Some(Loc::Regs(vals)) => match ix {
                    Ix::Const(c) => return self.regs_elem(&vals, c, guard, e),
                    Ix::Val(_) => self.regs_array(v, &vals, e.span),
                },
                None => return Err(unbound(e.span)),
            },
            _ => self.vec_buffer(vec).ok_or_else(|| unbound(e.span))?,
        };
        let id = self.bufs.of(vec, self.p, self.binds.within);
        let width = match id {
            Some(id) if self.reads.vec4.contains(&id) => 4,
            Some(id) if self.reads.octo.contains(&id) => 8,
            _ => 1,
        };
        let Some(g) = guard else {
            return Ok(self.element(mem, ix, width));
        };
        if let Ix::Const(c) = ix {
            return Ok(match (0..len).contains(&c) {
                true => self.element(mem, ix, width),
                false => self.constant(g),
            });
        }
        let (ok, clamped) = self.in_bounds(ix, len);
        let value = self.element(mem, Ix::Val(clamped), width);
        let g = self.constant(g);
        Ok(self.b.select(ok, value, g))
    }

    /// Element `ix` of `mem` viewed `width` elements an entry: component
    /// `ix % 4` of entry `ix / 4`, or the low or high half of component
    /// `(ix % 8) / 2` of entry `ix / 8` (an index is never negative: shifts
    /// and masks divide).
    fn element(&mut self, mem: Mem, ix: Ix, width: i64) -> V {
        match width {
            4 => {
                let entry = self.arith(K::Div, ix, Ix::Const(4));
                let entry = self.ix(entry);
                let v = self.b.load(mem, entry);
                match self.rem(ix, 4) {
                    Ix::Const(c) => self.b.extract(v, c as u8),
                    Ix::Val(c) => self.b.component(v, c),
                }
            }
            8 => {
                if let Ix::Const(c) = ix {
                    let entry = self.b.i32((c / 8) as i32);
                    let v = self.b.load(mem, entry);
                    let x = self.b.extract(v, ((c % 8) / 2) as u8);
                    return self.half(x, c % 2 == 1);
                }
                let at = self.ix(ix);
                let (three, seven, one) = (self.b.u32(3), self.b.i32(7), self.b.i32(1));
                let entry = self.b.binary(K::Shr, at, three);
                let v = self.b.load(mem, entry);
                let low3 = self.b.binary(K::BitAnd, at, seven);
                let one_u = self.b.u32(1);
                let c = self.b.binary(K::Shr, low3, one_u);
                let x = self.b.component(v, c);
                let odd = self.b.binary(K::BitAnd, at, one);
                let odd = self.b.convert(crate::kir::Ty::U32, odd);
                let s32 = self.b.u32(32);
                let shift = self.b.binary(K::Mul, odd, s32);
                let x = self.b.binary(K::Shr, x, shift);
                let bits = self.b.convert(crate::kir::Ty::U32, x);
                self.b.bitcast(crate::kir::Ty::F32, bits)
            }
            _ => {
                let at = self.ix(ix);
                self.b.load(mem, at)
            }
        }
    }

    /// A guarded read of a spilled array: the guard's value out of bounds,
    /// else the element at the clamped index's slot.
    /// Whether index `ix` is in `0..len`, and the index clamped into it.
    fn in_bounds(&mut self, ix: Ix, len: i64) -> (V, V) {
        let at = self.ix(ix);
        let (zero, n, last) = (
            self.b.i32(0),
            self.b.i32(len as i32),
            self.b.i32(len as i32 - 1),
        );
        let lo = self.b.binary(K::Ge, at, zero);
        let hi = self.b.binary(K::Lt, at, n);
        let ok = self.b.binary(K::And, lo, hi);
        (ok, self.b.call(Fun::Clamp, vec![at, zero, last]))
    }

    fn guarded_spill(&mut self, mem: Mem, ix: Ix, guard: Option<Scalar>, len: i64) -> R<V> {
        let g = self.constant(guard.expect("a guard"));
        if let Ix::Const(c) = ix {
            if !(0..len).contains(&c) {
                return Ok(g);
            }
            let at = self.spill_index(ix);
            let at = self.ix(at);
            return Ok(self.b.load(mem, at));
        }
        let (ok, clamped) = self.in_bounds(ix, len);
        let slot = self.spill_index(Ix::Val(clamped));
        let slot = self.ix(slot);
        let value = self.b.load(mem, slot);
        Ok(self.b.select(ok, value, g))
    }

    fn guarded_scalar(&mut self, s: V, ix: Ix, guard: Option<Scalar>) -> V {
        match (guard, ix) {
            (None, _) | (Some(_), Ix::Const(0)) => s,
            (Some(g), Ix::Const(_)) => self.constant(g),
            (Some(g), Ix::Val(n)) => {
                let zero = self.b.i32(0);
                let first = self.b.binary(K::Eq, n, zero);
                let g = self.constant(g);
                self.b.select(first, s, g)
            }
        }
    }

    /// Element `idx` of a vector literal.
    pub fn veclit(&mut self, vals: &[Scalar], idx: Ix, e: &Expr) -> R<V> {
        if let Ix::Const(c) = idx {
            let v = usize::try_from(c).ok().and_then(|c| vals.get(c));
            return v.map(|v| self.constant(*v)).ok_or_else(|| unbound(e.span));
        }
        let arr = self.literal_array(e.ty.elem, vals, e.span);
        let at = self.ix(idx);
        Ok(self.b.load(arr, at))
    }
}
