//! `let`-bound vectors and reads (as `wgsl/locals.rs` writes them).
//!
//! - A `let@reg` of one element is a value ([`Loc::Scalar`]); a longer one
//!   a function-variable array filled by a loop ([`Loc::Array`]), unless the
//!   text writer's rule makes it a register vector (not ported: [`Fail`]).
//! - A vector literal is read where it lives, never copied per read: a
//!   module-scope private array, or a constant buffer when it is long.
//! - A guarded read clamps its index and selects the guard's value when the
//!   index is out of bounds.

use super::{Ix, Loc, Lower, R, ops, unbound};
use crate::kir::{BinOp as K, Fun, Init, Mem, V};
use texpr_syntax::ir::{Expr, ExprKind, Scalar, VarId, VecRef};

impl Lower<'_> {
    /// A `let@reg` value: a scalar, or an array filled by a loop.
    pub fn local_vector(&mut self, var: VarId, value: &Expr) -> R<Loc> {
        let len = value.ty.len;
        if len == 1 {
            return Ok(Loc::Scalar(self.elem(value, Ix::Const(0))?));
        }
        if let ExprKind::VecLit(vals) = &value.kind {
            return self.literal_array(value.ty.elem, vals).map(Loc::Array);
        }
        let shares = matches!(&value.kind, ExprKind::Reduce { body, .. } if matches!(body.kind, ExprKind::Let { .. }));
        if len <= self.cost.register_vector
            && (self.may_unroll(len, self.cost.vector(value).div_ceil(len)) || shares)
        {
            return Ok(Loc::Regs(self.vector(value)?));
        }
        let name = self.p.var(var).name.clone();
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
    pub fn literal_array(&mut self, elem: texpr_syntax::ast::ElemTy, vals: &[Scalar]) -> R<Mem> {
        if let Some(id) = self.bufs.constant(elem, vals) {
            return self.buffer(id);
        }
        let lits = vals.iter().map(|v| ops::lit(*v)).collect();
        let base = format!("{}_lit", self.k);
        Ok(self.b.private_array(&base, super::ty(elem), lits))
    }

    /// `vec[ix]`, or with a guard the guard's value when `ix` is out of bounds.
    pub fn read(&mut self, vec: VecRef, ix: Ix, guard: Option<Scalar>, e: &Expr) -> R<V> {
        let len = self.p.vec_ty(vec).len as i64;
        let mem = match vec {
            VecRef::Local(v) => match self.vecs.get(&v).cloned() {
                Some(Loc::Array(m)) => m,
                Some(Loc::Scalar(s)) => return Ok(self.guarded_scalar(s, ix, guard)),
                Some(Loc::Regs(vals)) => match ix {
                    Ix::Const(c) => return self.regs_elem(&vals, c, guard, e),
                    Ix::Val(_) => self.regs_array(v, &vals),
                },
                None => return Err(unbound(e.span)),
            },
            _ => self.vec_buffer(vec).ok_or_else(|| unbound(e.span))??,
        };
        let Some(g) = guard else {
            let at = self.ix(ix);
            return Ok(self.b.load(mem, at));
        };
        if let Ix::Const(c) = ix {
            return Ok(match (0..len).contains(&c) {
                true => {
                    let at = self.ix(ix);
                    self.b.load(mem, at)
                }
                false => self.constant(g),
            });
        }
        let at = self.ix(ix);
        let (zero, n, last) = (
            self.b.i32(0),
            self.b.i32(len as i32),
            self.b.i32(len as i32 - 1),
        );
        let lo = self.b.binary(K::Ge, at, zero);
        let hi = self.b.binary(K::Lt, at, n);
        let ok = self.b.binary(K::And, lo, hi);
        let clamped = self.b.call(Fun::Clamp, vec![at, zero, last]);
        let value = self.b.load(mem, clamped);
        let g = self.constant(g);
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
        let arr = self.literal_array(e.ty.elem, vals)?;
        let at = self.ix(idx);
        Ok(self.b.load(arr, at))
    }
}
