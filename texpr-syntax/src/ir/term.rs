//! Index terms: constructors, substitution, constant folding and interval
//! bounds, for every stage that builds or reads them.
//!
//! Terms are evaluated with `i64` arithmetic; `/` and `%` are floor division
//! and its remainder. [`range`] is the quick interval the optimizer plans
//! with (each variable over `0..extent`, no correlation between operands);
//! the checker's proof of bounds is the finer analysis in `check::bounds`.

use super::basic::TermOp;
use super::{Program, Term, TermKind, VarId, VarKind};
use crate::span::Span;

pub fn constant(c: i64) -> Term {
    Term {
        kind: TermKind::Const(c),
        span: Span::DUMMY,
    }
}

pub fn var(v: VarId) -> Term {
    Term {
        kind: TermKind::Var(v),
        span: Span::DUMMY,
    }
}

pub fn bin(op: TermOp, a: Term, b: Term) -> Term {
    let span = a.span.to(b.span);
    Term {
        kind: TermKind::Binary(op, Box::new(a), Box::new(b)),
        span,
    }
}

/// `a + b`
pub fn add(a: Term, b: Term) -> Term {
    bin(TermOp::Add, a, b)
}

/// `a - b`
pub fn sub(a: Term, b: Term) -> Term {
    bin(TermOp::Sub, a, b)
}

/// `a * c` for a constant `c`.
pub fn mul(a: Term, c: u64) -> Term {
    bin(TermOp::Mul, a, constant(c as i64))
}

/// `a / c` for a constant `c`.
pub fn div(a: Term, c: u64) -> Term {
    bin(TermOp::Div, a, constant(c as i64))
}

/// `a % c` for a constant `c`.
pub fn rem(a: Term, c: u64) -> Term {
    bin(TermOp::Rem, a, constant(c as i64))
}

/// `a * m + b`: the linear index of digit `a` of radix `m` above `b`.
pub fn linear(a: Term, m: u64, b: Term) -> Term {
    add(mul(a, m), b)
}

/// The constant value of `t`, if it is a literal.
pub fn as_const(t: &Term) -> Option<i64> {
    match t.kind {
        TermKind::Const(c) => Some(c),
        _ => None,
    }
}

/// `t` with every occurrence of `v` replaced by `by`.
pub fn subst(t: &Term, v: VarId, by: &Term) -> Term {
    match &t.kind {
        TermKind::Var(x) if *x == v => by.clone(),
        TermKind::Binary(op, a, b) => Term {
            kind: TermKind::Binary(*op, Box::new(subst(a, v, by)), Box::new(subst(b, v, by))),
            span: t.span,
        },
        _ => t.clone(),
    }
}

/// `t` with every variable renamed by `f`.
pub fn rename(t: &Term, f: &impl Fn(VarId) -> VarId) -> Term {
    let kind = match &t.kind {
        TermKind::Var(v) => TermKind::Var(f(*v)),
        TermKind::Const(c) => TermKind::Const(*c),
        TermKind::Binary(op, a, b) => {
            TermKind::Binary(*op, Box::new(rename(a, f)), Box::new(rename(b, f)))
        }
    };
    Term { kind, span: t.span }
}

/// The number of nodes in `t`.
pub fn size(t: &Term) -> usize {
    match &t.kind {
        TermKind::Binary(_, a, b) => 1 + size(a) + size(b),
        _ => 1,
    }
}

/// An inclusive interval `lo..=hi` containing every value `t` takes while
/// each index variable ranges over `0..extent`; `None` when unknown or when
/// an intermediate value could leave `i64`.
pub fn range(p: &Program, t: &Term) -> Option<(i64, i64)> {
    match &t.kind {
        TermKind::Const(c) => Some((*c, *c)),
        TermKind::Var(v) => match p.var(*v).kind {
            VarKind::Index { extent } if extent >= 1 => Some((0, extent as i64 - 1)),
            _ => None,
        },
        TermKind::Binary(op, a, b) => binary_range(*op, range(p, a)?, range(p, b)?),
    }
}

fn binary_range(op: TermOp, (alo, ahi): (i64, i64), (blo, bhi): (i64, i64)) -> Option<(i64, i64)> {
    match op {
        TermOp::Add => Some((alo.checked_add(blo)?, ahi.checked_add(bhi)?)),
        TermOp::Sub => Some((alo.checked_sub(bhi)?, ahi.checked_sub(blo)?)),
        TermOp::Mul => {
            let c = [
                alo.checked_mul(blo)?,
                alo.checked_mul(bhi)?,
                ahi.checked_mul(blo)?,
                ahi.checked_mul(bhi)?,
            ];
            Some((*c.iter().min()?, *c.iter().max()?))
        }
        TermOp::Div if blo > 0 => {
            let c = [
                alo.div_euclid(blo),
                alo.div_euclid(bhi),
                ahi.div_euclid(blo),
                ahi.div_euclid(bhi),
            ];
            Some((*c.iter().min()?, *c.iter().max()?))
        }
        TermOp::Rem if blo > 0 && alo >= 0 => Some((0, ahi.min(bhi - 1))),
        _ => None,
    }
}

/// Folds one binary operation on constants; `None` on overflow of `i32`
/// or a non-positive divisor (such terms are left as written).
pub fn fold(op: TermOp, a: i64, b: i64) -> Option<i64> {
    let r = match op {
        TermOp::Add => a.checked_add(b)?,
        TermOp::Sub => a.checked_sub(b)?,
        TermOp::Mul => a.checked_mul(b)?,
        TermOp::Div if b > 0 => a.div_euclid(b),
        TermOp::Rem if b > 0 => a.rem_euclid(b),
        _ => return None,
    };
    i32::try_from(r).ok().map(i64::from)
}

/// The summands of `t`, flattening nested `+` (left to right).
pub fn summands(t: &Term) -> Vec<&Term> {
    fn walk<'t>(t: &'t Term, out: &mut Vec<&'t Term>) {
        match &t.kind {
            TermKind::Binary(TermOp::Add, a, b) => {
                walk(a, out);
                walk(b, out);
            }
            _ => out.push(t),
        }
    }
    let mut out = Vec::new();
    walk(t, &mut out);
    out
}

/// The other summands of `t` when `t` is `v` plus terms that do not
/// mention `v` (its index moves by one as `v` does); `None` otherwise.
pub fn unit_stride(t: &Term, v: VarId) -> Option<Vec<&Term>> {
    let parts = summands(t);
    let is_v = |x: &Term| x.kind == TermKind::Var(v);
    let rest: Vec<&Term> = parts.iter().copied().filter(|x| !is_v(x)).collect();
    (parts.len() == rest.len() + 1 && rest.iter().all(|x| !x.mentions(v))).then_some(rest)
}

/// The sum of `ts` (`0` when empty), left to right.
pub fn sum(mut ts: impl Iterator<Item = Term>) -> Term {
    let first = ts.next().unwrap_or_else(|| constant(0));
    ts.fold(first, add)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unit_strides_name_the_other_summands() {
        let (i, k) = (VarId(0), VarId(1));
        // i * 8 + (k + 4): k moves the index by one.
        let t = add(mul(var(i), 8), add(var(k), constant(4)));
        let rest = unit_stride(&t, k).unwrap();
        assert_eq!(rest.len(), 2);
        assert!(rest.iter().all(|x| !x.mentions(k)));
        // i moves it by 8; k twice, or k inside another summand, is no unit stride.
        assert!(unit_stride(&t, i).is_none());
        assert!(unit_stride(&add(var(k), var(k)), k).is_none());
        assert!(unit_stride(&add(var(k), mul(var(k), 2)), k).is_none());
    }
}
