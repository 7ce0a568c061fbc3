//! WGSL spellings of types, constants and reduction identities.
//!
//! Constants are exact: finite `f32`s print as the shortest decimal that
//! round-trips (naga parses `...f` literals as `f32` directly), with a `f`
//! suffix; `-0.0` prints as `bitcast<f32>(0x80000000u)`; `i32::MIN` prints
//! as a bitcast, so no literal ever overflows. Negative values are
//! parenthesised so they can stand as any operand.
//!
//! Infinities and NaNs are never constant expressions: Tint (Chromium's
//! WGSL compiler) rejects a module in which any constant expression
//! evaluates to one (`value -inf cannot be represented as 'f32'`), also
//! inside a `select` or a `var` initializer. So [`f32_lit`] spells them
//! `bitcast<f32>(0x...u | runtime_zero)`: the bits or'ed with the kernel's
//! [`RUNTIME_ZERO`], a `u32` zero computed from the workgroup id, which
//! makes the value a run-time one on every target (and keeps it uniform).
//! `module.rs` declares it at the top of every kernel that spells one.

use texpr_syntax::ast::{ElemTy, ReduceOp};
use texpr_syntax::ir::Scalar;

pub fn ty(e: ElemTy) -> &'static str {
    e.name()
}

/// The name of a kernel's run-time zero (a `u32`, see the module docs):
/// not a fresh name (those end in `_N`), so nothing else is called so.
pub const RUNTIME_ZERO: &str = "runtime_zero";

/// The declaration of [`RUNTIME_ZERO`] at the top of an entry point:
/// `wid.x & 0u`, a zero no compiler may evaluate as a constant expression,
/// uniform across the workgroup (so it may stand anywhere a barrier or a
/// subgroup operation needs uniform values).
pub fn runtime_zero_decl() -> String {
    format!("let {RUNTIME_ZERO}: u32 = wid.x & 0u;")
}

/// `x` as WGSL: a literal when finite, a run-time value when infinite or
/// NaN (see the module docs). Needs [`RUNTIME_ZERO`] in scope for those.
pub fn f32_lit(x: f32) -> String {
    if !x.is_finite() {
        return format!("bitcast<f32>(0x{:08x}u | {RUNTIME_ZERO})", x.to_bits());
    }
    if x == 0.0 && x.is_sign_negative() {
        return format!("bitcast<f32>(0x{:08x}u)", x.to_bits());
    }
    let s = format!("{:?}", x.abs());
    debug_assert_eq!(s.parse::<f32>().ok(), Some(x.abs()));
    if x < 0.0 {
        format!("(-{s}f)")
    } else {
        format!("{s}f")
    }
}

pub fn i32_lit(x: i32) -> String {
    if x == i32::MIN {
        "bitcast<i32>(0x80000000u)".to_string()
    } else if x < 0 {
        format!("(-{}i)", -(x as i64))
    } else {
        format!("{x}i")
    }
}

pub fn scalar(s: Scalar) -> String {
    match s {
        Scalar::F32(x) => f32_lit(x),
        Scalar::I32(x) => i32_lit(x),
        Scalar::U32(x) => format!("{x}u"),
    }
}

/// The identity of `op` on `elem` for a sum or a product (`0`, `1`).
///
/// `max` and `min` have none here: a fold starts from its first element
/// (see [`fold_step`]), never from the type's extreme value. NVIDIA's Vulkan
/// driver (580.159) miscompiles `max(acc, -x)` on `i32` when `acc` starts at
/// `i32::MIN` (it computes `-min(-acc, x)`, and `-i32::MIN` overflows), and
/// no identity constant can meet a negation this way.
pub fn identity(op: ReduceOp, elem: ElemTy) -> Option<String> {
    let s = match (op, elem) {
        (ReduceOp::Add, ElemTy::F32) => Scalar::F32(0.0),
        (ReduceOp::Mul, ElemTy::F32) => Scalar::F32(1.0),
        (ReduceOp::Add, ElemTy::U32) => Scalar::U32(0),
        (ReduceOp::Mul, ElemTy::U32) => Scalar::U32(1),
        (ReduceOp::Add, _) => Scalar::I32(0),
        (ReduceOp::Mul, _) => Scalar::I32(1),
        (ReduceOp::Max | ReduceOp::Min, _) => return None,
        // An invocation folds `lse` as an online pair (`online.rs`).
        (ReduceOp::Lse, _) => return None,
    };
    Some(scalar(s))
}

/// The next value of accumulator `acc` after element `x`. `first` is the
/// condition under which `x` is the fold's first element (`None`: it never
/// is): a `max`/`min` accumulator, declared without a value, takes that
/// element as it is (`select(max(acc, x), x, first)`).
pub fn fold_step(op: ReduceOp, acc: &str, x: &str, first: Option<&str>) -> String {
    let step = combine(op, acc, x);
    match (op, first) {
        (ReduceOp::Max | ReduceOp::Min | ReduceOp::Lse, Some(first)) => {
            format!("select({step}, {x}, {first})")
        }
        _ => step,
    }
}

/// `acc op x` as a WGSL expression.
pub fn combine(op: ReduceOp, acc: &str, x: &str) -> String {
    match op {
        ReduceOp::Add => format!("{acc} + {x}"),
        ReduceOp::Mul => format!("{acc} * {x}"),
        ReduceOp::Max => format!("max({acc}, {x})"),
        ReduceOp::Min => format!("min({acc}, {x})"),
        // `max + log(1 + exp(min - max))`; equal operands give `a + log 2`,
        // which keeps two infinities of one sign from making NaN.
        ReduceOp::Lse => {
            let (hi, lo) = (format!("max({acc}, {x})"), format!("min({acc}, {x})"));
            let (one, ln2) = (f32_lit(1.0), f32_lit(std::f32::consts::LN_2));
            format!("{hi} + select(log({one} + exp({lo} - {hi})), {ln2}, {acc} == {x})")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floats_print_exactly() {
        assert_eq!(f32_lit(1.5), "1.5f");
        assert_eq!(f32_lit(-0.1), "(-0.1f)");
        assert_eq!(
            f32_lit(f32::NEG_INFINITY),
            "bitcast<f32>(0xff800000u | runtime_zero)"
        );
        assert_eq!(
            f32_lit(f32::from_bits(0x7fc0_1234)),
            "bitcast<f32>(0x7fc01234u | runtime_zero)"
        );
        assert_eq!(f32_lit(-0.0), "bitcast<f32>(0x80000000u)");
        for x in [
            f32::MAX,
            f32::MIN_POSITIVE,
            1e-45,
            16777217.0,
            0.3,
            1.0 / 3.0,
        ] {
            let s = f32_lit(x);
            let digits = s.trim_end_matches('f');
            assert_eq!(digits.parse::<f32>().unwrap().to_bits(), x.to_bits(), "{s}");
        }
    }

    #[test]
    fn integers_never_overflow_a_literal() {
        assert_eq!(i32_lit(i32::MIN), "bitcast<i32>(0x80000000u)");
        assert_eq!(i32_lit(-5), "(-5i)");
        assert_eq!(identity(ReduceOp::Mul, ElemTy::I32).as_deref(), Some("1i"));
        for elem in [ElemTy::F32, ElemTy::I32, ElemTy::U32] {
            assert_eq!(identity(ReduceOp::Max, elem), None);
            assert_eq!(identity(ReduceOp::Min, elem), None);
        }
    }

    /// An lse has no identity written (an invocation folds an online pair);
    /// its combine is `max + log(1 + exp(min - max))`, `a + log 2` for
    /// equal operands (no NaN from two infinities of one sign).
    #[test]
    fn lse_combines_without_an_identity() {
        assert_eq!(identity(ReduceOp::Lse, ElemTy::F32), None);
        assert_eq!(
            combine(ReduceOp::Lse, "a", "b"),
            "max(a, b) + select(log(1.0f + exp(min(a, b) - max(a, b))), 0.6931472f, a == b)"
        );
    }
}
