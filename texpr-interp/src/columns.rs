//! Elementwise operations on whole columns of elements (`Data`), for the
//! lane path (`eval_lanes.rs`): the `f32` arithmetic, comparisons, reads
//! and folds of a kernel's inner loop as loops over typed slices. Every
//! element gets what `scalar` gives it; the types and operations without
//! a typed loop here go through `scalar`, element by element.

use crate::error::{EvalError, malformed};
use crate::scalar::{self, Sc};
use crate::value::Data;
use texpr_ir::{BinOp, ReduceOp};

/// `a op b`, element by element, for columns of the same type and length.
pub(crate) fn binary(op: BinOp, a: &Data, b: &Data) -> Result<Data, EvalError> {
    if a.len() != b.len() {
        return malformed(format!(
            "elementwise operands of lengths {}, {}",
            a.len(),
            b.len()
        ));
    }
    if let (Data::F32(x), Data::F32(y)) = (a, b) {
        let f =
            |g: fn(f32, f32) -> f32| Data::F32(x.iter().zip(y).map(|(&x, &y)| g(x, y)).collect());
        let c =
            |g: fn(&f32, &f32) -> bool| Data::Bool(x.iter().zip(y).map(|(x, y)| g(x, y)).collect());
        match op {
            BinOp::Add => return Ok(f(|x, y| x + y)),
            BinOp::Sub => return Ok(f(|x, y| x - y)),
            BinOp::Mul => return Ok(f(|x, y| x * y)),
            BinOp::Div => return Ok(f(|x, y| x / y)),
            BinOp::Lt => return Ok(c(f32::lt)),
            BinOp::Le => return Ok(c(f32::le)),
            BinOp::Gt => return Ok(c(f32::gt)),
            BinOp::Ge => return Ok(c(f32::ge)),
            BinOp::Eq => return Ok(c(f32::eq)),
            BinOp::Ne => return Ok(c(f32::ne)),
            _ => {}
        }
    }
    match (a, b) {
        (Data::I32(x), Data::I32(y)) => {
            if let Some(d) = ints(
                op,
                x,
                y,
                i32::wrapping_add,
                i32::wrapping_sub,
                i32::wrapping_mul,
            ) {
                return Ok(d.map_or_else(Data::I32, Data::Bool));
            }
        }
        (Data::U32(x), Data::U32(y)) => {
            if let Some(d) = ints(
                op,
                x,
                y,
                u32::wrapping_add,
                u32::wrapping_sub,
                u32::wrapping_mul,
            ) {
                return Ok(d.map_or_else(Data::U32, Data::Bool));
            }
        }
        _ => {}
    }
    if let (Data::Bool(x), Data::Bool(y)) = (a, b) {
        match op {
            BinOp::And => return Ok(Data::Bool(x.iter().zip(y).map(|(&x, &y)| x && y).collect())),
            BinOp::Or => return Ok(Data::Bool(x.iter().zip(y).map(|(&x, &y)| x || y).collect())),
            _ => {}
        }
    }
    let elem = match (a.get(0), b.get(0)) {
        (Some(x), Some(y)) => scalar::binary(op, x, y)?.elem(),
        _ => return Ok(a.clone()),
    };
    let mut out = Data::with_capacity(elem, a.len());
    for k in 0..a.len() {
        if let (Some(x), Some(y)) = (a.get(k), b.get(k)) {
            out.push(scalar::binary(op, x, y)?)?;
        }
    }
    Ok(out)
}

/// `x op y` for integer columns: `Err` of the values for `+ - *` (which
/// wrap), `Ok` of the truth values for a comparison; `None` for `/` and
/// `%`, whose cases `scalar` spells out.
#[allow(clippy::type_complexity)]
fn ints<T: Copy + PartialOrd>(
    op: BinOp,
    x: &[T],
    y: &[T],
    add: fn(T, T) -> T,
    sub: fn(T, T) -> T,
    mul: fn(T, T) -> T,
) -> Option<Result<Vec<bool>, Vec<T>>> {
    let f = |g: fn(T, T) -> T| Some(Err(x.iter().zip(y).map(|(&x, &y)| g(x, y)).collect()));
    let c = |g: fn(&T, &T) -> bool| Some(Ok(x.iter().zip(y).map(|(x, y)| g(x, y)).collect()));
    match op {
        BinOp::Add => f(add),
        BinOp::Sub => f(sub),
        BinOp::Mul => f(mul),
        BinOp::Lt => c(T::lt),
        BinOp::Le => c(T::le),
        BinOp::Gt => c(T::gt),
        BinOp::Ge => c(T::ge),
        BinOp::Eq => c(T::eq),
        BinOp::Ne => c(T::ne),
        _ => None,
    }
}

/// `src[i]` for each `i` of `ix`, or `guard` where `i` is out of bounds;
/// without a guard, `Err` of the first index out of bounds.
pub(crate) fn gather(
    src: &Data,
    ix: &[i64],
    guard: Option<Sc>,
) -> Result<Result<Data, i64>, EvalError> {
    let at = |i: i64| usize::try_from(i).ok().filter(|&i| i < src.len());
    macro_rules! typed {
        ($v:expr, $variant:ident, $sc:ident) => {{
            let g = match guard {
                Some(Sc::$sc(g)) => Some(g),
                Some(_) => return malformed("a guard of another type than its vector"),
                None => None,
            };
            let mut out = Vec::with_capacity(ix.len());
            for &i in ix {
                match (at(i), g) {
                    (Some(i), _) => out.push($v[i]),
                    (None, Some(g)) => out.push(g),
                    (None, None) => return Ok(Err(i)),
                }
            }
            Ok(Ok(Data::$variant(out)))
        }};
    }
    match src {
        Data::F32(v) => typed!(v, F32, F),
        Data::F16(v) => typed!(v, F16, H),
        Data::I32(v) => typed!(v, I32, I),
        Data::U32(v) => typed!(v, U32, U),
        Data::Bool(v) => typed!(v, Bool, B),
    }
}

/// The elements of `a` where `cond` holds and of `b` where it does not,
/// in order (`a` holds one element per `true`, `b` one per `false`).
pub(crate) fn merge(cond: &[bool], a: Option<&Data>, b: Option<&Data>) -> Result<Data, EvalError> {
    let elem = match a.or(b) {
        Some(d) => d.elem(),
        None => return malformed("a `select` over no lanes"),
    };
    let (mut ia, mut ib) = (0, 0);
    fn f32s(d: Option<&Data>) -> Option<&[f32]> {
        match d {
            Some(Data::F32(v)) => Some(v),
            Some(_) => None,
            None => Some(&[]),
        }
    }
    if let (Some(x), Some(y)) = (f32s(a), f32s(b)) {
        let mut out = Vec::with_capacity(cond.len());
        for &c in cond {
            let v = if c { x.get(ia) } else { y.get(ib) };
            let Some(&v) = v else {
                return malformed("a `select`'s picked operand was not evaluated");
            };
            ia += usize::from(c);
            ib += usize::from(!c);
            out.push(v);
        }
        return Ok(Data::F32(out));
    }
    let mut out = Data::with_capacity(elem, cond.len());
    for &c in cond {
        let v = if c {
            a.and_then(|a| a.get(ia))
        } else {
            b.and_then(|b| b.get(ib))
        };
        let Some(v) = v else {
            return malformed("a `select`'s picked operand was not evaluated");
        };
        ia += usize::from(c);
        ib += usize::from(!c);
        out.push(v)?;
    }
    Ok(out)
}

/// One step of a fold per lane: `acc[at[k]] = op(acc[at[k]], x[k])`.
pub(crate) fn fold_at(
    op: ReduceOp,
    acc: &mut Data,
    at: &[usize],
    x: &Data,
) -> Result<(), EvalError> {
    if at.len() != x.len() {
        return malformed("a fold's step over other lanes than its accumulators");
    }
    if let (ReduceOp::Add, Data::F32(acc), Data::F32(x)) = (op, &mut *acc, x) {
        for (&j, &x) in at.iter().zip(x) {
            acc[j] += x;
        }
        return Ok(());
    }
    for (k, &j) in at.iter().enumerate() {
        if let (Some(a), Some(x)) = (acc.get(j), x.get(k)) {
            acc.set(j, scalar::fold(op, a, x)?)?;
        }
    }
    Ok(())
}
