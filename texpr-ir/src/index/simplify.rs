//! Simplification of index terms, bottom-up, using the variables' extents
//! ([`simplify_term`]).
//!
//! Rules (each exact for floor division with a positive constant divisor):
//! constant folding; `x+0`, `x*1`, `x*0`, `x/1`, `x%1`; a variable of extent 1
//! is `0`; `x % m -> x` and `x / m -> 0` when `0 <= x < m`;
//! `(x + b) / m -> x/m + b/m` and `(x + b) % m -> b % m` when `x` is
//! visibly a multiple of `m` (`term::divide`: `a*c` with `m | c`, sums of
//! such) and `b >= 0`; `x / m -> x/m` and `x % m -> 0` for such `x`;
//! `(x / a) / b -> x / (a*b)`. The result never has a wider [`range`] than the
//! input.

use crate::TermOp;
use crate::term::{Folded, as_const, bin, constant, divide, fold_identity, multiple_of, range};
use crate::{Program, Term, TermKind, VarKind};

/// An equal, usually smaller term.
pub fn simplify_term(p: &Program, t: &Term) -> Term {
    match &t.kind {
        TermKind::Const(_) => t.clone(),
        TermKind::Var(v) => match p.var(*v).kind {
            VarKind::Index { extent: 1 } => constant(0),
            _ => t.clone(),
        },
        TermKind::Binary(op, a, b) => {
            let (a, b) = (simplify_term(p, a), simplify_term(p, b));
            let mut out = rewrite(p, *op, a, b);
            if out.span.is_dummy() {
                out.span = t.span;
            }
            out
        }
    }
}

fn rewrite(p: &Program, op: TermOp, a: Term, b: Term) -> Term {
    match fold_identity(op, as_const(&a), as_const(&b)) {
        Some(Folded::Const(c)) => constant(c),
        Some(Folded::Left) => a,
        Some(Folded::Right) => b,
        None => match (op, as_const(&b)) {
            (TermOp::Div, Some(m)) if m > 1 => div(p, a, m),
            (TermOp::Rem, Some(m)) if m > 1 => rem(p, a, m),
            _ => bin(op, a, b),
        },
    }
}

fn nonneg_below(p: &Program, t: &Term, m: i64) -> bool {
    matches!(range(p, t), Some((lo, hi)) if lo >= 0 && hi < m)
}

fn nonneg(p: &Program, t: &Term) -> bool {
    matches!(range(p, t), Some((lo, _)) if lo >= 0)
}

fn div(p: &Program, a: Term, m: i64) -> Term {
    if nonneg_below(p, &a, m) {
        return constant(0);
    }
    if let Some(q) = divide(&a, m) {
        return simplify_term(p, &q);
    }
    if let TermKind::Binary(op, x, y) = &a.kind {
        match op {
            TermOp::Add if nonneg(p, y) => {
                if let Some(q) = divide(x, m) {
                    let hi = simplify_term(p, &q);
                    let lo = div(p, (**y).clone(), m);
                    return rewrite(p, TermOp::Add, hi, lo);
                }
            }
            TermOp::Div => {
                if let Some(k) = as_const(y)
                    .filter(|k| *k > 0)
                    .and_then(|k| k.checked_mul(m))
                {
                    return div(p, (**x).clone(), k);
                }
            }
            _ => {}
        }
    }
    bin(TermOp::Div, a, constant(m))
}

fn rem(p: &Program, a: Term, m: i64) -> Term {
    if nonneg_below(p, &a, m) {
        return a;
    }
    if multiple_of(&a, m) {
        return constant(0);
    }
    if let TermKind::Binary(TermOp::Add, x, y) = &a.kind
        && nonneg(p, y)
        && multiple_of(x, m)
    {
        return rem(p, (**y).clone(), m);
    }
    bin(TermOp::Rem, a, constant(m))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Span;
    use crate::VarId;
    use crate::term::var;

    fn prog_with(extents: &[u64]) -> (Program, Vec<VarId>) {
        let mut p = Program {
            params: vec![],
            inputs: vec![],
            globals: vec![],
            outputs: vec![],
            vars: vec![],
            loops: vec![],
            states: vec![],
            names: Default::default(),
        };
        let vs = extents
            .iter()
            .map(|&e| p.fresh_var("v", VarKind::Index { extent: e }, Span::DUMMY))
            .collect();
        (p, vs)
    }

    #[test]
    fn splits_a_linear_index() {
        let (p, v) = prog_with(&[4, 256]);
        // (g*256 + l) / 4 -> g*64 + l/4 ; (g*256 + l) % 4 -> l % 4
        let idx = bin(
            TermOp::Add,
            bin(TermOp::Mul, var(v[0]), constant(256)),
            var(v[1]),
        );
        let q = simplify_term(&p, &bin(TermOp::Div, idx.clone(), constant(4)));
        let want = bin(
            TermOp::Add,
            bin(TermOp::Mul, var(v[0]), constant(64)),
            bin(TermOp::Div, var(v[1]), constant(4)),
        );
        assert_eq!(q, want);
        let r = simplify_term(&p, &bin(TermOp::Rem, idx, constant(4)));
        assert_eq!(r, bin(TermOp::Rem, var(v[1]), constant(4)));
    }

    #[test]
    fn drops_provably_small_remainders_and_unit_extents() {
        let (p, v) = prog_with(&[1, 8]);
        let t = bin(
            TermOp::Add,
            var(v[0]),
            bin(TermOp::Rem, var(v[1]), constant(8)),
        );
        assert_eq!(simplify_term(&p, &t), var(v[1]));
        let d = bin(
            TermOp::Div,
            bin(TermOp::Div, var(v[1]), constant(2)),
            constant(2),
        );
        assert_eq!(
            simplify_term(&p, &d),
            bin(TermOp::Div, var(v[1]), constant(4))
        );
        assert_eq!(
            simplify_term(&p, &bin(TermOp::Div, var(v[1]), constant(8))),
            constant(0)
        );
    }

    #[test]
    fn never_folds_overflow_or_division_by_zero() {
        let (p, _) = prog_with(&[]);
        let big = bin(TermOp::Add, constant(i32::MAX as i64), constant(1));
        assert_eq!(simplify_term(&p, &big), big);
        let z = bin(TermOp::Div, constant(3), constant(0));
        assert_eq!(simplify_term(&p, &z), z);
    }
}
