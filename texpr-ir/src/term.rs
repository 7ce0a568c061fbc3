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
/// each index variable ranges over `0..extent`, by the linear normal form
/// ([`super::linear`]: equal atoms merge, so `(i + 1) - i` is exactly `1`);
/// `None` when a variable is not an index of `p`, or when `t` breaks a rule
/// of index terms (a dividend that may be negative, a value past `i32`).
pub fn range(p: &Program, t: &Term) -> Option<(i64, i64)> {
    let extent = |v: VarId| match p.vars.get(v.0 as usize)?.kind {
        VarKind::Index { extent } if extent >= 1 => Some(extent),
        _ => None,
    };
    super::linear::term_range(t, extent).ok()
}

/// `x / d` as a term, when `x` is visibly a multiple of `d` (`d > 0`): a
/// constant `d` divides, a product one of whose factors is, a sum or
/// difference of such. Exact for any sign of `x`, so floor division by `d`
/// gives the same value.
pub fn divide(x: &Term, d: i64) -> Option<Term> {
    match &x.kind {
        TermKind::Const(c) => (c % d == 0).then(|| constant(c / d)),
        TermKind::Binary(TermOp::Mul, a, b) => match (divide(a, d), divide(b, d)) {
            (_, Some(qb)) if as_const(&qb) == Some(1) => Some((**a).clone()),
            (Some(qa), _) if as_const(&qa) == Some(1) => Some((**b).clone()),
            (_, Some(qb)) => Some(bin(TermOp::Mul, (**a).clone(), qb)),
            (Some(qa), None) => Some(bin(TermOp::Mul, qa, (**b).clone())),
            (None, None) => None,
        },
        TermKind::Binary(op @ (TermOp::Add | TermOp::Sub), a, b) => {
            Some(bin(*op, divide(a, d)?, divide(b, d)?))
        }
        _ => None,
    }
}

/// Whether `x` is visibly a multiple of `d` for every value of its
/// variables ([`divide`] succeeds).
pub(crate) fn multiple_of(x: &Term, d: i64) -> bool {
    divide(x, d).is_some()
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

/// What `a op b` is without computing it: [`Folded::Const`] when both
/// operands are constants that [`fold`], or by the identities `x+0`, `0+x`,
/// `x-0`, `x*1`, `1*x`, `x/1` (an operand) and `x*0`, `0*x`, `x%1` (zero).
/// `a` and `b` are the operands' values when they are constants. The one set
/// of rules for index arithmetic: the optimizer's term simplification and
/// code generation's index values both apply it.
pub fn fold_identity(op: TermOp, a: Option<i64>, b: Option<i64>) -> Option<Folded> {
    if let (Some(x), Some(y)) = (a, b)
        && let Some(r) = fold(op, x, y)
    {
        return Some(Folded::Const(r));
    }
    match (op, a, b) {
        (TermOp::Add, Some(0), _) | (TermOp::Mul, Some(1), _) => Some(Folded::Right),
        (TermOp::Add | TermOp::Sub, _, Some(0)) | (TermOp::Mul | TermOp::Div, _, Some(1)) => {
            Some(Folded::Left)
        }
        (TermOp::Mul, Some(0), _) | (TermOp::Mul, _, Some(0)) | (TermOp::Rem, _, Some(1)) => {
            Some(Folded::Const(0))
        }
        _ => None,
    }
}

/// The value of `a op b` that [`fold_identity`] finds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Folded {
    Const(i64),
    /// The left operand, `a`.
    Left,
    /// The right operand, `b`.
    Right,
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

/// Whether `t` is `v` plus terms that do not mention `v`, each visibly a
/// multiple of `d`: as `v` runs over a multiple of `d` and on, `t` runs
/// over aligned groups of `d` (a `vec4`, or eight in a `vec4<u64>`).
pub fn unit_stride_aligned(t: &Term, v: VarId, d: i64) -> bool {
    unit_stride(t, v).is_some_and(|rest| rest.iter().all(|x| multiple_of(x, d)))
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

    #[test]
    fn exact_division_divides_every_summand_or_gives_up() {
        let (i, k) = (VarId(0), VarId(1));
        // i * 8 + 16 - k * 4, by 4: i * 2 + 4 - k.
        let t = bin(
            TermOp::Sub,
            add(mul(var(i), 8), constant(16)),
            mul(var(k), 4),
        );
        let q = divide(&t, 4).unwrap();
        let expect = bin(TermOp::Sub, add(mul(var(i), 2), constant(4)), var(k));
        assert_eq!(q.kind, expect.kind);
        assert!(multiple_of(&t, 4) && multiple_of(&t, 2));
        // By 8, k * 4 is not visibly a multiple; nor is a bare variable.
        assert!(divide(&t, 8).is_none() && !multiple_of(&t, 8));
        assert!(!multiple_of(&var(i), 2));
        // A factor that is the divisor leaves the other factor.
        assert_eq!(
            divide(&mul(var(i), 4), 4).map(|q| q.kind),
            Some(var(i).kind)
        );
    }
}
