//! `spell_nonfinite`: every infinity or NaN a kernel uses as a constant
//! becomes a run-time value, `bitcast<f32>(BITS | runtime_zero)` with
//! `runtime_zero = workgroup_id.x & 0u`, defined once at the top of the
//! body; an `f16` infinity or NaN is that `f32` value converted, and an
//! `f16` `-0.0` (which no WGSL literal spells) is `-(0.0f)` converted.
//!
//! Why: Tint (Chromium's WGSL compiler) evaluates every constant
//! expression and rejects one that is not finite; naga accepts it.
//! Lowering writes such constants as plain literals (and treats them as
//! run-time operands already, `lower/ops.rs`); `finite.rs` checks the
//! result (E0394).
//!
//! Expects nothing; guarantees no value of the kernel is a constant
//! [`needs_runtime`] names (those it replaced are left unused, as zeros). Private arrays of constants are left
//! alone (lowering gives non-finite ones a constant buffer instead).

use super::Rewritten;
use crate::kir::{BinOp, Builtin, Kernel, Lit, Op, Stmt, Ty, UnOp, V, Value};
use std::collections::BTreeMap;
use texpr_target::Target;

/// Whether constant `l` must be a run-time value in a shader.
pub fn needs_runtime(l: Lit) -> bool {
    match l {
        Lit::F32(x) => !x.is_finite(),
        Lit::F16(x) => !x.is_finite() || x.to_bits() == 0x8000,
        _ => false,
    }
}

pub fn spell_nonfinite(k: &mut Kernel, _: &Target) -> Rewritten {
    let consts: Vec<(usize, Lit)> = (k.values.iter().enumerate())
        .filter_map(|(i, v)| match v.op {
            Op::Const(l) if needs_runtime(l) => Some((i, l)),
            _ => None,
        })
        .collect();
    if consts.is_empty() {
        return Ok(false);
    }
    let mut s = Spell {
        next: next_number(k),
        k,
        lets: Vec::new(),
        zero: None,
        f32s: BTreeMap::new(),
    };
    let mut to = vec![None; s.k.values.len()];
    for (i, l) in consts {
        to[i] = Some(s.runtime(l));
    }
    let lets = std::mem::take(&mut s.lets);
    s.k.map_operands(&mut |v| to.get(v.0 as usize).copied().flatten().unwrap_or(v));
    // The constants replaced stay in the arena, unused: zeros, since every
    // constant there becomes an expression of the naga module (`to_naga`).
    for (i, v) in s.k.values.iter_mut().enumerate() {
        if to.get(i).is_some_and(Option::is_some) {
            v.op = Op::Const(match v.op {
                Op::Const(Lit::F16(_)) => Lit::F16(half::f16::ZERO),
                _ => Lit::F32(0.0),
            });
        }
    }
    k.body.stmts.splice(0..0, lets.into_iter().map(Stmt::Let));
    Ok(true)
}

struct Spell<'k> {
    k: &'k mut Kernel,
    /// The `let`s to put at the top, in order.
    lets: Vec<V>,
    next: u32,
    zero: Option<V>,
    /// Each non-finite `f32` value made, by bits.
    f32s: BTreeMap<u32, V>,
}

impl Spell<'_> {
    /// The run-time value of constant `l`.
    fn runtime(&mut self, l: Lit) -> V {
        match l {
            Lit::F16(x) if x.is_finite() => {
                let zero = self.free(Op::Const(Lit::F32(0.0)), Ty::F32);
                let neg = self.define(Op::Unary(UnOp::Neg, zero), Ty::F32, "t");
                self.define(Op::Convert(neg), Ty::F16, "t")
            }
            Lit::F16(x) => {
                let wide = self.f32(x.to_f32());
                self.define(Op::Convert(wide), Ty::F16, "t")
            }
            Lit::F32(x) => self.f32(x),
            _ => unreachable!("only non-finite floats need a run-time value"),
        }
    }

    /// `bitcast<f32>(bits | runtime_zero)`, once per bit pattern.
    fn f32(&mut self, x: f32) -> V {
        if let Some(&v) = self.f32s.get(&x.to_bits()) {
            return v;
        }
        let zero = match self.zero {
            Some(z) => z,
            None => {
                let wid = self.free(Op::Builtin(Builtin::WorkgroupId(0)), Ty::U32);
                let z = self.free(Op::Const(Lit::U32(0)), Ty::U32);
                let v = self.define(Op::Binary(BinOp::BitAnd, wid, z), Ty::U32, "runtime_zero");
                self.zero = Some(v);
                v
            }
        };
        let bits = self.free(Op::Const(Lit::U32(x.to_bits())), Ty::U32);
        let or = self.define(Op::Binary(BinOp::BitOr, bits, zero), Ty::U32, "bits");
        let v = self.define(Op::Bitcast(or), Ty::F32, "nonfinite");
        self.f32s.insert(x.to_bits(), v);
        v
    }

    /// The constant or builtin `op`, the kernel's own when it has one.
    fn free(&mut self, op: Op, ty: Ty) -> V {
        let found = (self.k.values.iter()).position(|v| v.op == op && v.ty == ty);
        match found {
            Some(i) => V(i as u32),
            None => self.push(op, ty, "c".to_string()),
        }
    }

    /// A value defined by a `let` at the top, named `base_N`.
    fn define(&mut self, op: Op, ty: Ty, base: &str) -> V {
        self.next += 1;
        let v = self.push(op, ty, format!("{base}_{}", self.next));
        self.lets.push(v);
        v
    }

    fn push(&mut self, op: Op, ty: Ty, name: String) -> V {
        self.k.values.push(Value { op, ty, name });
        V(self.k.values.len() as u32 - 1)
    }
}

/// One more than the largest `_N` any name of `k` ends in (names stay
/// unique).
fn next_number(k: &Kernel) -> u32 {
    let names = (k.values.iter().map(|v| &v.name)).chain(k.vars.iter().map(|v| &v.name));
    names
        .filter_map(|n| n.rsplit('_').next()?.parse::<u32>().ok())
        .max()
        .unwrap_or(0)
}
