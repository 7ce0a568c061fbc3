//! Index-term utilities: constructors, substitution, interval bounds and simplification.
//!
//! Terms are evaluated with `i64` arithmetic; `/` and `%` are floor division
//! and its remainder. [`simplify`] rewrites a term into an equal one (for
//! every value of its variables within their extents) and never widens the
//! interval [`range`] finds, so whatever the checker proved of the original
//! term it can still prove of the simplified one.

use texpr_syntax::Span;
use texpr_syntax::ast::TermOp;
use texpr_syntax::ir::{Program, Term, TermKind, VarId, VarKind};

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

/// The number of nodes in `t`.
pub fn size(t: &Term) -> usize {
    match &t.kind {
        TermKind::Binary(_, a, b) => 1 + size(a) + size(b),
        _ => 1,
    }
}

/// Whether `v` occurs in `t`.
pub fn mentions(t: &Term, v: VarId) -> bool {
    match &t.kind {
        TermKind::Var(x) => *x == v,
        TermKind::Binary(_, a, b) => mentions(a, v) || mentions(b, v),
        TermKind::Const(_) => false,
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

/// Folds one binary operation on constants; `None` on overflow or a
/// non-positive divisor (such terms are left as written).
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
