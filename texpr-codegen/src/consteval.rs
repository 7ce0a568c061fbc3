//! A small evaluator of naga's constant expressions, for [`crate::finite`]:
//! the value of an expression whose operands' values are known, for
//! literals, zero values, composes, splats, swizzles, accesses, unary and
//! binary operators, `select`, conversions, bitcasts and the common float
//! builtins; `None` for anything else (run-time values: arguments, loads,
//! calls, overrides; and the operations it does not know). Floats are
//! computed in `f64` and rounded to their width, so an `f32` past its range
//! is an infinity, as WGSL's constant evaluation finds it.

use naga::{
    BinaryOperator as B, Expression as E, Literal, MathFunction as M, ScalarKind as K,
    UnaryOperator,
};

/// One component of a constant value.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum S {
    F32(f32),
    /// `f64` and abstract floats.
    F64(f64),
    I32(i32),
    U32(u32),
    /// `i64` and abstract integers.
    I64(i64),
    U64(u64),
    Bool(bool),
}

/// A constant value: its components, and whether it is a scalar or a
/// vector (componentwise operations apply) rather than a composite.
#[derive(Clone, Debug)]
pub struct Val {
    comps: Vec<S>,
    vector: bool,
}

impl Val {
    fn scalar(s: S) -> Val {
        Val {
            comps: vec![s],
            vector: true,
        }
    }

    /// A component that is an infinity or a NaN, as an `f64`.
    pub fn non_finite(&self) -> Option<f64> {
        self.comps.iter().find_map(|c| match *c {
            S::F32(x) if !x.is_finite() => Some(x as f64),
            S::F64(x) if !x.is_finite() => Some(x),
            _ => None,
        })
    }
}

/// The constant value of `e` from its operands' (`at`), where it has one.
pub fn eval(
    module: &naga::Module,
    e: &naga::Expression,
    at: &dyn Fn(naga::Handle<naga::Expression>) -> Option<Val>,
) -> Option<Val> {
    match e {
        E::Literal(l) => literal(*l).map(Val::scalar),
        E::ZeroValue(ty) => zero(&module.types[*ty].inner),
        E::Compose { ty, components } => {
            let parts: Option<Vec<Val>> = components.iter().map(|c| at(*c)).collect();
            let vector = matches!(module.types[*ty].inner, naga::TypeInner::Vector { .. });
            Some(Val {
                comps: parts?.into_iter().flat_map(|p| p.comps).collect(),
                vector,
            })
        }
        E::Splat { size, value } => {
            let v = at(*value)?;
            Some(Val {
                comps: vec![*v.comps.first()?; *size as usize],
                vector: true,
            })
        }
        E::Swizzle {
            size,
            vector,
            pattern,
        } => {
            let v = at(*vector)?;
            let comps = pattern[..*size as usize]
                .iter()
                .map(|c| v.comps.get(*c as usize).copied())
                .collect::<Option<Vec<S>>>()?;
            Some(Val {
                comps,
                vector: true,
            })
        }
        E::AccessIndex { base, index } => component(at(*base)?, *index as usize),
        E::Access { base, index } => {
            let i = match at(*index)?.comps.first()? {
                S::I32(i) => usize::try_from(*i).ok()?,
                S::U32(u) => *u as usize,
                S::I64(i) => usize::try_from(*i).ok()?,
                S::U64(u) => usize::try_from(*u).ok()?,
                _ => return None,
            };
            component(at(*base)?, i)
        }
        E::Unary { op, expr } => map1(at(*expr)?, |s| unary(*op, s)),
        E::Binary { op, left, right } => map2(at(*left)?, at(*right)?, |a, b| binary(*op, a, b)),
        E::Select {
            condition,
            accept,
            reject,
        } => {
            let (c, a, r) = (at(*condition)?, at(*accept)?, at(*reject)?);
            let pick = |i: usize| match c.comps.get(i).or(c.comps.first())? {
                S::Bool(true) => a.comps.get(i).copied(),
                S::Bool(false) => r.comps.get(i).copied(),
                _ => None,
            };
            let comps = (0..a.comps.len()).map(pick).collect::<Option<Vec<S>>>()?;
            Some(Val {
                comps,
                vector: true,
            })
        }
        E::As {
            expr,
            kind,
            convert,
        } => map1(at(*expr)?, |s| cast(s, *kind, *convert)),
        E::Math {
            fun,
            arg,
            arg1,
            arg2,
            ..
        } => {
            let args = [Some(*arg), *arg1, *arg2];
            let vals: Option<Vec<Val>> = args.iter().flatten().map(|a| at(*a)).collect();
            math(*fun, &vals?)
        }
        // Run-time values (arguments, loads, calls, overrides) and whatever
        // is computed from them.
        _ => None,
    }
}

fn literal(l: Literal) -> Option<S> {
    Some(match l {
        Literal::F32(x) => S::F32(x),
        Literal::F64(x) | Literal::AbstractFloat(x) => S::F64(x),
        Literal::I32(x) => S::I32(x),
        Literal::U32(x) => S::U32(x),
        Literal::I64(x) | Literal::AbstractInt(x) => S::I64(x),
        Literal::U64(x) => S::U64(x),
        Literal::Bool(x) => S::Bool(x),
        _ => return None,
    })
}

fn zero(t: &naga::TypeInner) -> Option<Val> {
    let (scalar, n) = match *t {
        naga::TypeInner::Scalar(s) => (s, 1),
        naga::TypeInner::Vector { size, scalar } => (scalar, size as usize),
        _ => return None,
    };
    let z = cast(S::I32(0), scalar.kind, Some(scalar.width))?;
    Some(Val {
        comps: vec![z; n],
        vector: true,
    })
}

/// Component `i` of a vector (a composite's parts are checked as a whole).
fn component(v: Val, i: usize) -> Option<Val> {
    match v.vector {
        true => v.comps.get(i).copied().map(Val::scalar),
        false => None,
    }
}

fn map1(v: Val, f: impl Fn(S) -> Option<S>) -> Option<Val> {
    if !v.vector {
        return None;
    }
    let comps = v.comps.into_iter().map(f).collect::<Option<Vec<S>>>()?;
    Some(Val {
        comps,
        vector: true,
    })
}

/// Componentwise, a scalar operand standing for every component.
fn map2(a: Val, b: Val, f: impl Fn(S, S) -> Option<S>) -> Option<Val> {
    if !(a.vector && b.vector) {
        return None;
    }
    let n = a.comps.len().max(b.comps.len());
    let get = |v: &Val, i: usize| match v.comps.len() {
        1 => v.comps.first().copied(),
        _ => v.comps.get(i).copied(),
    };
    let comps = (0..n)
        .map(|i| f(get(&a, i)?, get(&b, i)?))
        .collect::<Option<Vec<S>>>()?;
    Some(Val {
        comps,
        vector: true,
    })
}

fn as_f64(s: S) -> Option<f64> {
    match s {
        S::F32(x) => Some(x as f64),
        S::F64(x) => Some(x),
        _ => None,
    }
}

/// A float of `like`'s width from `x` (an `f32` rounds, infinity past its range).
fn float_like(like: S, x: f64) -> S {
    match like {
        S::F32(_) => S::F32(x as f32),
        _ => S::F64(x),
    }
}

fn unary(op: UnaryOperator, s: S) -> Option<S> {
    Some(match (op, s) {
        (UnaryOperator::Negate, S::F32(x)) => S::F32(-x),
        (UnaryOperator::Negate, S::F64(x)) => S::F64(-x),
        (UnaryOperator::Negate, S::I32(x)) => S::I32(x.wrapping_neg()),
        (UnaryOperator::Negate, S::I64(x)) => S::I64(x.wrapping_neg()),
        (UnaryOperator::LogicalNot, S::Bool(b)) => S::Bool(!b),
        (UnaryOperator::BitwiseNot, S::I32(x)) => S::I32(!x),
        (UnaryOperator::BitwiseNot, S::U32(x)) => S::U32(!x),
        (UnaryOperator::BitwiseNot, S::I64(x)) => S::I64(!x),
        (UnaryOperator::BitwiseNot, S::U64(x)) => S::U64(!x),
        _ => return None,
    })
}

fn binary(op: B, a: S, b: S) -> Option<S> {
    if let (Some(x), Some(y)) = (as_f64(a), as_f64(b)) {
        let r = match op {
            B::Add => x + y,
            B::Subtract => x - y,
            B::Multiply => x * y,
            B::Divide => x / y,
            B::Modulo => x % y,
            B::Equal => return Some(S::Bool(x == y)),
            B::NotEqual => return Some(S::Bool(x != y)),
            B::Less => return Some(S::Bool(x < y)),
            B::LessEqual => return Some(S::Bool(x <= y)),
            B::Greater => return Some(S::Bool(x > y)),
            B::GreaterEqual => return Some(S::Bool(x >= y)),
            _ => return None,
        };
        return Some(float_like(a, r));
    }
    let int = |x: i128, y: i128| -> Option<i128> {
        Some(match op {
            B::Add => x.wrapping_add(y),
            B::Subtract => x.wrapping_sub(y),
            B::Multiply => x.wrapping_mul(y),
            B::Divide => x.checked_div(y)?,
            B::Modulo => x.checked_rem(y)?,
            B::And => x & y,
            B::InclusiveOr => x | y,
            B::ExclusiveOr => x ^ y,
            B::ShiftLeft => x.wrapping_shl(u32::try_from(y).ok()?),
            B::ShiftRight => x.wrapping_shr(u32::try_from(y).ok()?),
            _ => return None,
        })
    };
    let cmp = |x: i128, y: i128| -> Option<bool> {
        Some(match op {
            B::Equal => x == y,
            B::NotEqual => x != y,
            B::Less => x < y,
            B::LessEqual => x <= y,
            B::Greater => x > y,
            B::GreaterEqual => x >= y,
            _ => return None,
        })
    };
    let (x, y) = (integer(a)?, integer(b)?);
    if let Some(c) = cmp(x, y) {
        return Some(S::Bool(c));
    }
    // The left operand's type (a shift's right one is a `u32`), wrapping.
    let r = int(x, y)?;
    Some(match a {
        S::I32(_) => S::I32(r as i32),
        S::U32(_) => S::U32(r as u32),
        S::I64(_) => S::I64(r as i64),
        S::U64(_) => S::U64(r as u64),
        S::Bool(_) => S::Bool(r != 0),
        S::F32(_) | S::F64(_) => return None,
    })
}

fn integer(s: S) -> Option<i128> {
    Some(match s {
        S::I32(x) => x as i128,
        S::U32(x) => x as i128,
        S::I64(x) => x as i128,
        S::U64(x) => x as i128,
        S::Bool(b) => b as i128,
        S::F32(_) | S::F64(_) => return None,
    })
}

/// A conversion to `kind` of `width` bytes, or a bitcast (`width` `None`).
fn cast(s: S, kind: K, width: Option<u8>) -> Option<S> {
    let Some(width) = width else {
        return Some(match (s, kind) {
            (S::U32(x), K::Float) => S::F32(f32::from_bits(x)),
            (S::I32(x), K::Float) => S::F32(f32::from_bits(x as u32)),
            (S::F32(x), K::Uint) => S::U32(x.to_bits()),
            (S::F32(x), K::Sint) => S::I32(x.to_bits() as i32),
            (S::I32(x), K::Uint) => S::U32(x as u32),
            (S::U32(x), K::Sint) => S::I32(x as i32),
            (S::U64(x), K::Float) => S::F64(f64::from_bits(x)),
            (S::I64(x), K::Float) => S::F64(f64::from_bits(x as u64)),
            (S::F64(x), K::Uint) => S::U64(x.to_bits()),
            (S::F64(x), K::Sint) => S::I64(x.to_bits() as i64),
            (S::I64(x), K::Uint) => S::U64(x as u64),
            (S::U64(x), K::Sint) => S::I64(x as i64),
            (s, _) => s,
        });
    };
    let f = as_f64(s).or_else(|| integer(s).map(|i| i as f64))?;
    // `as` saturates float-to-int conversions, as WGSL does.
    Some(match (kind, width) {
        (K::Float, 4) => S::F32(f as f32),
        (K::Float | K::AbstractFloat, _) => S::F64(f),
        (K::Sint, 4) => S::I32(integer(s).map_or(f as i32, |i| i as i32)),
        (K::Uint, 4) => S::U32(integer(s).map_or(f as u32, |i| i as u32)),
        (K::Sint | K::AbstractInt, _) => S::I64(integer(s).map_or(f as i64, |i| i as i64)),
        (K::Uint, _) => S::U64(integer(s).map_or(f as u64, |i| i as u64)),
        (K::Bool, _) => S::Bool(f != 0.0),
    })
}

/// The common float builtins, componentwise; `None` for the rest.
fn math(fun: M, args: &[Val]) -> Option<Val> {
    let one: Option<fn(f64) -> f64> = match fun {
        M::Abs => Some(f64::abs),
        M::Exp => Some(f64::exp),
        M::Exp2 => Some(f64::exp2),
        M::Log => Some(f64::ln),
        M::Log2 => Some(f64::log2),
        M::Sqrt => Some(f64::sqrt),
        M::InverseSqrt => Some(|x| 1.0 / x.sqrt()),
        M::Sin => Some(f64::sin),
        M::Cos => Some(f64::cos),
        M::Tan => Some(f64::tan),
        M::Sinh => Some(f64::sinh),
        M::Cosh => Some(f64::cosh),
        M::Tanh => Some(f64::tanh),
        M::Floor => Some(f64::floor),
        M::Ceil => Some(f64::ceil),
        M::Trunc => Some(f64::trunc),
        M::Round => Some(f64::round_ties_even),
        _ => None,
    };
    let two: Option<fn(f64, f64) -> f64> = match fun {
        M::Min => Some(f64::min),
        M::Max => Some(f64::max),
        M::Pow => Some(f64::powf),
        _ => None,
    };
    let float = |v: &Val, f: &dyn Fn(S) -> Option<S>| map1(v.clone(), f);
    match (args, one, two, fun) {
        ([a], Some(f), _, _) => float(a, &|s| Some(float_like(s, f(as_f64(s)?)))),
        ([a, b], _, Some(f), _) => map2(a.clone(), b.clone(), |x, y| {
            Some(float_like(x, f(as_f64(x)?, as_f64(y)?)))
        }),
        ([a, b, c], _, _, M::Fma) => {
            let ab = map2(a.clone(), b.clone(), |x, y| binary(B::Multiply, x, y))?;
            map2(ab, c.clone(), |x, y| binary(B::Add, x, y))
        }
        ([a, lo, hi], _, _, M::Clamp) => {
            let low = map2(a.clone(), lo.clone(), |x, y| {
                Some(float_like(x, as_f64(x)?.max(as_f64(y)?)))
            })?;
            map2(low, hi.clone(), |x, y| {
                Some(float_like(x, as_f64(x)?.min(as_f64(y)?)))
            })
        }
        _ => None,
    }
}
