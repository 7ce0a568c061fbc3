//! One element and every elementwise operation on it, exactly as WGSL defines them.
//!
//! `f32` operations are computed in `f32`; `f16` ones are rounded to
//! binary16 (nearest even) after each operation, computed in `f32` (exact
//! before that one rounding for `+ - * /` and `sqrt`: `f32` carries more than
//! twice `f16`'s precision); `i32`/`u32` wrap on overflow;
//! integer `x / 0 = x`, `x % 0 = 0`, `i32::MIN / -1 = i32::MIN`,
//! `i32::MIN % -1 = 0`; casts follow WGSL (see [`cast`]).

use crate::error::{EvalError, malformed};
use half::f16;
use texpr_ir::{BinOp, Func, Scalar, UnaryOp};
use texpr_ir::{ElemTy, ReduceOp};

/// One element of a vector of any element type (including the comparison-only `bool`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Sc {
    F(f32),
    H(f16),
    I(i32),
    U(u32),
    B(bool),
}

impl Sc {
    pub fn elem(self) -> ElemTy {
        match self {
            Sc::F(_) => ElemTy::F32,
            Sc::H(_) => ElemTy::F16,
            Sc::I(_) => ElemTy::I32,
            Sc::U(_) => ElemTy::U32,
            Sc::B(_) => ElemTy::Bool,
        }
    }
}

impl From<Scalar> for Sc {
    fn from(s: Scalar) -> Sc {
        match s {
            Scalar::F32(x) => Sc::F(x),
            Scalar::F16(x) => Sc::H(x),
            Scalar::I32(x) => Sc::I(x),
            Scalar::U32(x) => Sc::U(x),
        }
    }
}

fn mismatch<T>(what: &str, a: Sc, b: Sc) -> Result<T, EvalError> {
    malformed(format!(
        "`{what}` on {} and {}",
        a.elem().name(),
        b.elem().name()
    ))
}

/// `a op b` for two elements of the same type.
pub fn binary(op: BinOp, a: Sc, b: Sc) -> Result<Sc, EvalError> {
    Ok(match (a, b) {
        (Sc::F(x), Sc::F(y)) => f32_binary(op, x, y),
        (Sc::H(x), Sc::H(y)) => f16_binary(op, x, y),
        (Sc::I(x), Sc::I(y)) => i32_binary(op, x, y),
        (Sc::U(x), Sc::U(y)) => u32_binary(op, x, y),
        (Sc::B(x), Sc::B(y)) if op == BinOp::And => Sc::B(x && y),
        (Sc::B(x), Sc::B(y)) if op == BinOp::Or => Sc::B(x || y),
        _ => return mismatch(op.symbol(), a, b),
    })
}

fn compare<T: PartialOrd>(op: BinOp, x: T, y: T) -> Sc {
    Sc::B(match op {
        BinOp::Lt => x < y,
        BinOp::Le => x <= y,
        BinOp::Gt => x > y,
        BinOp::Ge => x >= y,
        BinOp::Eq => x == y,
        _ => x != y,
    })
}

fn f32_binary(op: BinOp, x: f32, y: f32) -> Sc {
    match op {
        BinOp::Add => Sc::F(x + y),
        BinOp::Sub => Sc::F(x - y),
        BinOp::Mul => Sc::F(x * y),
        BinOp::Div => Sc::F(x / y),
        // WGSL: x - y * trunc(x / y), each step in f32.
        BinOp::Rem => Sc::F(x - y * (x / y).trunc()),
        _ => compare(op, x, y),
    }
}

/// `x op y` rounded to `f16` (`%`: each of its steps rounded).
fn f16_binary(op: BinOp, x: f16, y: f16) -> Sc {
    let h = |v: f32| f16::from_f32(v);
    let (a, b) = (x.to_f32(), y.to_f32());
    match op {
        BinOp::Add => Sc::H(h(a + b)),
        BinOp::Sub => Sc::H(h(a - b)),
        BinOp::Mul => Sc::H(h(a * b)),
        BinOp::Div => Sc::H(h(a / b)),
        BinOp::Rem => {
            let q = h(a / b).to_f32().trunc();
            Sc::H(h(a - h(b * q).to_f32()))
        }
        _ => compare(op, x, y),
    }
}

fn i32_binary(op: BinOp, x: i32, y: i32) -> Sc {
    match op {
        BinOp::Add => Sc::I(x.wrapping_add(y)),
        BinOp::Sub => Sc::I(x.wrapping_sub(y)),
        BinOp::Mul => Sc::I(x.wrapping_mul(y)),
        // wrapping_div gives MIN for MIN / -1; wrapping_rem gives 0 for MIN % -1.
        BinOp::Div => Sc::I(if y == 0 { x } else { x.wrapping_div(y) }),
        BinOp::Rem => Sc::I(if y == 0 { 0 } else { x.wrapping_rem(y) }),
        _ => compare(op, x, y),
    }
}

fn u32_binary(op: BinOp, x: u32, y: u32) -> Sc {
    match op {
        BinOp::Add => Sc::U(x.wrapping_add(y)),
        BinOp::Sub => Sc::U(x.wrapping_sub(y)),
        BinOp::Mul => Sc::U(x.wrapping_mul(y)),
        BinOp::Div => Sc::U(x.checked_div(y).unwrap_or(x)),
        BinOp::Rem => Sc::U(x.checked_rem(y).unwrap_or(0)),
        _ => compare(op, x, y),
    }
}

/// A unary operator or one-argument builtin.
pub fn unary(op: UnaryOp, a: Sc) -> Result<Sc, EvalError> {
    Ok(match (op, a) {
        (UnaryOp::Neg, Sc::F(x)) => Sc::F(-x),
        (UnaryOp::Neg, Sc::H(x)) => Sc::H(-x),
        (UnaryOp::Abs, Sc::H(x)) => Sc::H(f16::from_bits(x.to_bits() & 0x7fff)),
        (op, Sc::H(x)) if !matches!(op, UnaryOp::Neg | UnaryOp::Not) => {
            Sc::H(f16::from_f32(f32_unary(op, x.to_f32())))
        }
        (UnaryOp::Neg, Sc::I(x)) => Sc::I(x.wrapping_neg()),
        (UnaryOp::Abs, Sc::F(x)) => Sc::F(x.abs()),
        // WGSL: abs(i32::MIN) is i32::MIN.
        (UnaryOp::Abs, Sc::I(x)) => Sc::I(x.wrapping_abs()),
        (UnaryOp::Abs, Sc::U(x)) => Sc::U(x),
        (UnaryOp::Not, Sc::B(x)) => Sc::B(!x),
        (op, Sc::F(x)) if !matches!(op, UnaryOp::Neg | UnaryOp::Not) => Sc::F(f32_unary(op, x)),
        _ => return malformed(format!("`{}` on {}", op.name(), a.elem().name())),
    })
}

fn f32_unary(op: UnaryOp, x: f32) -> f32 {
    match op {
        UnaryOp::Exp => x.exp(),
        UnaryOp::Log => x.ln(),
        UnaryOp::Sqrt => x.sqrt(),
        UnaryOp::Rsqrt => 1.0 / x.sqrt(),
        UnaryOp::Tanh => x.tanh(),
        UnaryOp::Sin => x.sin(),
        UnaryOp::Cos => x.cos(),
        UnaryOp::Abs => x.abs(),
        UnaryOp::Neg | UnaryOp::Not => -x,
    }
}

/// A builtin of two or three arguments (`select`'s first argument is the condition).
pub fn call(f: Func, args: &[Sc]) -> Result<Sc, EvalError> {
    match (f, args) {
        (Func::Max, &[a, b]) => max(a, b),
        (Func::Min, &[a, b]) => min(a, b),
        (Func::Pow, &[Sc::F(a), Sc::F(b)]) => Ok(Sc::F(a.powf(b))),
        (Func::Fma, &[Sc::F(a), Sc::F(b), Sc::F(c)]) => Ok(Sc::F(a * b + c)),
        (Func::Pow, &[Sc::H(a), Sc::H(b)]) => Ok(Sc::H(f16::from_f32(a.to_f32().powf(b.to_f32())))),
        // `a * b` is exact in `f32`: one rounding, as a fused multiply-add.
        (Func::Fma, &[Sc::H(a), Sc::H(b), Sc::H(c)]) => {
            let exact = f64::from(a) * f64::from(b) + f64::from(c);
            Ok(Sc::H(f16::from_f64(exact)))
        }
        (Func::Select, &[Sc::B(c), a, b]) if a.elem() == b.elem() => Ok(if c { a } else { b }),
        _ => malformed(format!(
            "`{}` on ({})",
            f.name(),
            args.iter()
                .map(|a| a.elem().name())
                .collect::<Vec<_>>()
                .join(", ")
        )),
    }
}

pub fn max(a: Sc, b: Sc) -> Result<Sc, EvalError> {
    Ok(match (a, b) {
        (Sc::F(x), Sc::F(y)) => Sc::F(x.max(y)),
        (Sc::H(x), Sc::H(y)) => Sc::H(x.max(y)),
        (Sc::I(x), Sc::I(y)) => Sc::I(x.max(y)),
        (Sc::U(x), Sc::U(y)) => Sc::U(x.max(y)),
        _ => return mismatch("max", a, b),
    })
}

pub fn min(a: Sc, b: Sc) -> Result<Sc, EvalError> {
    Ok(match (a, b) {
        (Sc::F(x), Sc::F(y)) => Sc::F(x.min(y)),
        (Sc::H(x), Sc::H(y)) => Sc::H(x.min(y)),
        (Sc::I(x), Sc::I(y)) => Sc::I(x.min(y)),
        (Sc::U(x), Sc::U(y)) => Sc::U(x.min(y)),
        _ => return mismatch("min", a, b),
    })
}

/// The largest `f32` values exactly representable in `i32` / `u32`: WGSL
/// (and naga's lowering) clamp to these before truncating.
const I32_MAX_F: f32 = 2147483520.0;
const I32_MIN_F: f32 = -2147483648.0;
const U32_MAX_F: f32 = 4294967040.0;

/// WGSL's conversion `to(a)`: float to int truncates toward zero and saturates
/// (NaN gives 0); `i32 <-> u32` reinterpret the bits; int to float rounds to nearest.
pub fn cast(to: ElemTy, a: Sc) -> Result<Sc, EvalError> {
    Ok(match (to, a) {
        (ElemTy::F32, Sc::F(x)) => Sc::F(x),
        (ElemTy::F32, Sc::I(x)) => Sc::F(x as f32),
        (ElemTy::F32, Sc::U(x)) => Sc::F(x as f32),
        (ElemTy::F32, Sc::H(x)) => Sc::F(x.to_f32()),
        (ElemTy::F16, Sc::H(x)) => Sc::H(x),
        (ElemTy::F16, Sc::F(x)) => Sc::H(f16::from_f32(x)),
        (ElemTy::F16, Sc::I(x)) => Sc::H(f16::from_f64(f64::from(x))),
        (ElemTy::F16, Sc::U(x)) => Sc::H(f16::from_f64(f64::from(x))),
        (ElemTy::I32 | ElemTy::U32, Sc::H(x)) => return cast(to, Sc::F(x.to_f32())),
        (ElemTy::I32, Sc::F(x)) if x.is_nan() => Sc::I(0),
        (ElemTy::I32, Sc::F(x)) => Sc::I(x.clamp(I32_MIN_F, I32_MAX_F) as i32),
        (ElemTy::I32, Sc::I(x)) => Sc::I(x),
        (ElemTy::I32, Sc::U(x)) => Sc::I(x as i32),
        (ElemTy::U32, Sc::F(x)) if x.is_nan() => Sc::U(0),
        (ElemTy::U32, Sc::F(x)) => Sc::U(x.clamp(0.0, U32_MAX_F) as u32),
        (ElemTy::U32, Sc::I(x)) => Sc::U(x as u32),
        (ElemTy::U32, Sc::U(x)) => Sc::U(x),
        _ => return malformed(format!("cast of {} to {}", a.elem().name(), to.name())),
    })
}

/// The identity of a fold: `acc = identity; acc = op(acc, e_i)`.
pub fn identity(op: ReduceOp, elem: ElemTy) -> Result<Sc, EvalError> {
    Ok(match (op, elem) {
        (ReduceOp::Add, ElemTy::F32) => Sc::F(0.0),
        (ReduceOp::Add, ElemTy::F16) => Sc::H(f16::ZERO),
        (ReduceOp::Mul, ElemTy::F16) => Sc::H(f16::ONE),
        (ReduceOp::Max, ElemTy::F16) => Sc::H(f16::NEG_INFINITY),
        (ReduceOp::Min, ElemTy::F16) => Sc::H(f16::INFINITY),
        (ReduceOp::Add, ElemTy::I32) => Sc::I(0),
        (ReduceOp::Add, ElemTy::U32) => Sc::U(0),
        (ReduceOp::Mul, ElemTy::F32) => Sc::F(1.0),
        (ReduceOp::Mul, ElemTy::I32) => Sc::I(1),
        (ReduceOp::Mul, ElemTy::U32) => Sc::U(1),
        (ReduceOp::Max, ElemTy::F32) => Sc::F(f32::NEG_INFINITY),
        (ReduceOp::Max, ElemTy::I32) => Sc::I(i32::MIN),
        (ReduceOp::Max, ElemTy::U32) => Sc::U(0),
        (ReduceOp::Min, ElemTy::F32) => Sc::F(f32::INFINITY),
        (ReduceOp::Min, ElemTy::I32) => Sc::I(i32::MAX),
        (ReduceOp::Min, ElemTy::U32) => Sc::U(u32::MAX),
        (ReduceOp::Lse, ElemTy::F32) => Sc::F(f32::NEG_INFINITY),
        (ReduceOp::Lse, _) => return malformed("reduce lse over a non-f32 type"),
        (_, ElemTy::Bool) => return malformed("reduce over bool"),
    })
}

/// One step of a fold: `op(acc, x)`.
pub fn fold(op: ReduceOp, acc: Sc, x: Sc) -> Result<Sc, EvalError> {
    match op {
        ReduceOp::Add => binary(BinOp::Add, acc, x),
        ReduceOp::Mul => binary(BinOp::Mul, acc, x),
        ReduceOp::Max => max(acc, x),
        ReduceOp::Min => min(acc, x),
        ReduceOp::Lse => match (acc, x) {
            (Sc::F(a), Sc::F(b)) => Ok(Sc::F(lse(a, b))),
            _ => mismatch("lse", acc, x),
        },
    }
}

/// The log-sum-exp of two values, `log(exp(a) + exp(b))`, as
/// `max(a, b) + log1p(exp(min(a, b) - max(a, b)))` in `f32`: a NaN operand
/// gives NaN; when the larger is infinite, it is the result (`-inf` for two
/// `-inf`s, the identity's case; `+inf` for any `+inf`).
pub fn lse(a: f32, b: f32) -> f32 {
    if a.is_nan() || b.is_nan() {
        return f32::NAN;
    }
    let (hi, lo) = if a >= b { (a, b) } else { (b, a) };
    if hi.is_infinite() {
        return hi;
    }
    hi + (lo - hi).exp().ln_1p()
}
