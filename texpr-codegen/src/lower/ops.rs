//! TExpr's elementwise operations, casts, constants and fold steps as kir
//! values.
//!
//! Float-to-integer casts give what the language promises on every device:
//! NaN gives 0 and an infinity saturates, by tests of the bits (drivers may
//! assume no NaN exists), then a clamp.

use super::Lower;
use crate::kir::{BinOp as K, Fun, Lit, Ty, UnOp, V};
use texpr_ir::{BinOp, ElemTy, ReduceOp};
use texpr_ir::{Func, Scalar, UnaryOp};

/// A constant as a kir literal.
pub fn lit(s: Scalar) -> Lit {
    match s {
        Scalar::F32(x) => Lit::F32(x),
        Scalar::F16(x) => Lit::F16(x),
        Scalar::I32(x) => Lit::I32(x),
        Scalar::U32(x) => Lit::U32(x),
    }
}

/// The identity a sum or product starts from; `max`, `min` (which start
/// from their first element: NVIDIA's driver miscompiles `max(i32::MIN,
/// -x)`) and `lse` have none.
pub fn identity(op: ReduceOp, elem: ElemTy) -> Option<Lit> {
    Some(match (op, elem) {
        (ReduceOp::Add, ElemTy::F32) => Lit::F32(0.0),
        (ReduceOp::Mul, ElemTy::F32) => Lit::F32(1.0),
        (ReduceOp::Add, ElemTy::F16) => Lit::F16(half::f16::ZERO),
        (ReduceOp::Mul, ElemTy::F16) => Lit::F16(half::f16::ONE),
        (ReduceOp::Add, ElemTy::U32) => Lit::U32(0),
        (ReduceOp::Mul, ElemTy::U32) => Lit::U32(1),
        (ReduceOp::Add, _) => Lit::I32(0),
        (ReduceOp::Mul, _) => Lit::I32(1),
        (ReduceOp::Max | ReduceOp::Min | ReduceOp::Lse, _) => return None,
    })
}

/// What a fold of no steps gives, as the interpreter starts from it.
pub fn empty_fold(op: ReduceOp, elem: ElemTy) -> Lit {
    match (op, elem) {
        (ReduceOp::Max | ReduceOp::Lse, ElemTy::F32) => Lit::F32(f32::NEG_INFINITY),
        (ReduceOp::Max, ElemTy::F16) => Lit::F16(half::f16::NEG_INFINITY),
        (ReduceOp::Min, ElemTy::F16) => Lit::F16(half::f16::INFINITY),
        (ReduceOp::Max, ElemTy::I32) => Lit::I32(i32::MIN),
        (ReduceOp::Max, _) => Lit::U32(0),
        (ReduceOp::Min, ElemTy::F32) => Lit::F32(f32::INFINITY),
        (ReduceOp::Min, ElemTy::I32) => Lit::I32(i32::MAX),
        (ReduceOp::Min, _) => Lit::U32(u32::MAX),
        (op, elem) => identity(op, elem).unwrap_or(Lit::I32(0)),
    }
}

/// Where `tanh` saturates in `f32`: `tanh(x)` rounds to `1.0` for every
/// `x` at least this (from about 9.01 on; in `f16` from about 4.5).
const TANH_SATURATES: f32 = 10.0;

impl Lower<'_> {
    pub fn constant(&mut self, s: Scalar) -> V {
        self.b.lit(lit(s))
    }

    /// Whether `v` is a literal (which a compiler would evaluate with any
    /// other literal operand as a constant expression): not an infinity or
    /// a NaN, which `kir::passes::spell_nonfinite` makes a run-time value.
    fn is_lit(&self, v: V) -> bool {
        matches!(self.b.kernel().value(v).op, crate::kir::Op::Const(l) if !crate::kir::passes::needs_runtime(l))
    }

    /// The operands of one operation with up to `n` literals held in
    /// constant variables: the first when all are literals (`n` 1), or up
    /// to `n` whatever the others are (an integer `/` or `%`: naga rejects
    /// a literal zero divisor). By induction no operation the lowering
    /// builds is a constant expression.
    pub fn runtime(&mut self, vals: &[V], n: usize) -> Vec<V> {
        let mut vals = vals.to_vec();
        if vals.iter().any(|v| !self.is_lit(*v)) && n == 1 {
            return vals;
        }
        let lits: Vec<usize> = (0..vals.len())
            .filter(|&i| self.is_lit(vals[i]))
            .take(n)
            .collect();
        for i in lits {
            let l = match &self.b.kernel().value(vals[i]).op {
                crate::kir::Op::Const(l) => *l,
                _ => unreachable!("a literal"),
            };
            vals[i] = self.b.const_var(l);
        }
        vals
    }

    pub fn unary(&mut self, op: UnaryOp, x: V) -> V {
        let f = match op {
            UnaryOp::Neg => return self.b.unary(UnOp::Neg, x),
            UnaryOp::Not => return self.b.unary(UnOp::Not, x),
            UnaryOp::Exp => Fun::Exp,
            UnaryOp::Log => Fun::Log,
            UnaryOp::Sqrt => Fun::Sqrt,
            UnaryOp::Rsqrt => Fun::InverseSqrt,
            UnaryOp::Tanh => return self.tanh(x),
            UnaryOp::Abs => Fun::Abs,
            UnaryOp::Sin => Fun::Sin,
            UnaryOp::Cos => Fun::Cos,
        };
        self.b.call(f, vec![x])
    }

    /// `tanh(x)` of `x` clamped to `±TANH_SATURATES` first, which changes
    /// no `f32` result (past it `tanh` rounds to `±1`) and keeps every WGSL
    /// implementation finite: SwiftShader's (Chromium's software adapter)
    /// gives NaN for large arguments (seen at 257: by its look a quotient
    /// of exponentials that overflow, `inf / inf`). `x` may be a vector.
    fn tanh(&mut self, x: V) -> V {
        let ty = self.b.ty(x);
        let mut bound = |v: f32| {
            // In x's own float type (an `f16` saturates sooner).
            let l = match ty.scalar {
                crate::kir::Scalar::F16 => self.b.lit(Lit::F16(half::f16::from_f32(v))),
                _ => self.b.f32(v),
            };
            match ty.width {
                1 => l,
                _ => self.b.construct(ty, vec![l]),
            }
        };
        let (lo, hi) = (bound(-TANH_SATURATES), bound(TANH_SATURATES));
        let above = self.b.call(Fun::Max, vec![x, lo]);
        let within = self.b.call(Fun::Min, vec![above, hi]);
        self.b.call(Fun::Tanh, vec![within])
    }

    pub fn binary(&mut self, op: BinOp, a: V, b: V) -> V {
        let op = match op {
            BinOp::Add => K::Add,
            BinOp::Sub => K::Sub,
            BinOp::Mul => K::Mul,
            BinOp::Div => K::Div,
            BinOp::Rem => K::Rem,
            BinOp::Lt => K::Lt,
            BinOp::Le => K::Le,
            BinOp::Gt => K::Gt,
            BinOp::Ge => K::Ge,
            BinOp::Eq => K::Eq,
            BinOp::Ne => K::Ne,
            BinOp::And => K::And,
            BinOp::Or => K::Or,
        };
        self.b.binary(op, a, b)
    }

    /// `f(args)`; `select(c, a, b)` is `c ? a : b`.
    pub fn call(&mut self, f: Func, args: &[V]) -> V {
        let fun = match f {
            Func::Select => return self.b.select(args[0], args[1], args[2]),
            Func::Max => Fun::Max,
            Func::Min => Fun::Min,
            Func::Pow => Fun::Pow,
            Func::Fma => Fun::Fma,
        };
        self.b.call(fun, args.to_vec())
    }

    /// `x` with a NaN replaced by 0.0 and an infinity by the largest finite
    /// `f32` of its sign, by tests of its bits.
    fn finite(&mut self, x: V) -> V {
        let bits = self.b.bitcast(Ty::U32, x);
        let abs_mask = self.b.u32(0x7fff_ffff);
        let magnitude = self.b.binary(K::BitAnd, bits, abs_mask);
        let sign_mask = self.b.u32(0x8000_0000);
        let sign = self.b.binary(K::BitAnd, bits, sign_mask);
        let max_bits = self.b.u32(0x7f7f_ffff);
        let largest_bits = self.b.binary(K::BitOr, sign, max_bits);
        let largest = self.b.bitcast(Ty::F32, largest_bits);
        let inf = self.b.u32(0x7f80_0000);
        let is_inf = self.b.binary(K::Eq, magnitude, inf);
        let is_nan = self.b.binary(K::Gt, magnitude, inf);
        let capped = self.b.select(is_inf, largest, x);
        let zero = self.b.f32(0.0);
        self.b.select(is_nan, zero, capped)
    }

    pub fn cast(&mut self, from: ElemTy, to: ElemTy, x: V) -> V {
        let clamped = |cx: &mut Self, lo: f32, hi: f32, t: Ty| {
            let f = cx.finite(x);
            let (lo, hi) = (cx.b.f32(lo), cx.b.f32(hi));
            let c = cx.b.call(Fun::Clamp, vec![f, lo, hi]);
            cx.b.convert(t, c)
        };
        match (from, to) {
            (a, b) if a == b => x,
            // Through `f32`, exactly, then as an `f32` is.
            (ElemTy::F16, ElemTy::I32 | ElemTy::U32) => {
                let wide = self.b.convert(Ty::F32, x);
                self.cast(ElemTy::F32, to, wide)
            }
            (ElemTy::F32, ElemTy::I32) => clamped(self, -2147483648.0, 2147483520.0, Ty::I32),
            (ElemTy::F32, ElemTy::U32) => clamped(self, 0.0, 4294967040.0, Ty::U32),
            (ElemTy::I32, ElemTy::U32) | (ElemTy::U32, ElemTy::I32) => {
                self.b.bitcast(super::ty(to), x)
            }
            (_, to) => self.b.convert(super::ty(to), x),
        }
    }

    /// `acc op x`.
    pub fn combine(&mut self, op: ReduceOp, acc: V, x: V) -> V {
        match op {
            ReduceOp::Add => self.b.binary(K::Add, acc, x),
            ReduceOp::Mul => self.b.binary(K::Mul, acc, x),
            ReduceOp::Max => self.b.call(Fun::Max, vec![acc, x]),
            ReduceOp::Min => self.b.call(Fun::Min, vec![acc, x]),
            // `max + log(1 + exp(min - max))`, `a + log 2` for equal
            // operands (two infinities of one sign make no NaN).
            ReduceOp::Lse => {
                let hi = self.b.call(Fun::Max, vec![acc, x]);
                let lo = self.b.call(Fun::Min, vec![acc, x]);
                let d = self.b.binary(K::Sub, lo, hi);
                let e = self.b.call(Fun::Exp, vec![d]);
                let one = self.b.f32(1.0);
                let s = self.b.binary(K::Add, one, e);
                let l = self.b.call(Fun::Log, vec![s]);
                let ln2 = self.b.f32(std::f32::consts::LN_2);
                let same = self.b.binary(K::Eq, acc, x);
                let t = self.b.select(same, ln2, l);
                self.b.binary(K::Add, hi, t)
            }
        }
    }

    /// The next value of an accumulator after element `x`; `first` holds
    /// when `x` is the fold's first element, which a `max`/`min`
    /// accumulator (declared without a value) takes as it is.
    pub fn fold_step(&mut self, op: ReduceOp, acc: V, x: V, first: Option<V>) -> V {
        let step = self.combine(op, acc, x);
        match (op, first) {
            (ReduceOp::Max | ReduceOp::Min | ReduceOp::Lse, Some(first)) => {
                self.b.select(first, x, step)
            }
            _ => step,
        }
    }
}
