//! The degree of an expression in a scalar `m`: how the expression scales
//! when `m` is shifted, `m -> m + c`, for the `shift_lse` pass.
//!
//! `exp(t - m)` with `t` free of `m` (of degree 0) scales by `e^-c`: it has
//! degree 1. A value of degree `d` scales by `e^(-dc)`. Then:
//! - a read of a `let`-bound vector has the degree of its value; a read of
//!   `m` anywhere else than in such an `exp` is not allowed (no degree);
//! - products add degrees, quotients subtract them; sums, differences,
//!   negations and `select`s need operands of equal degrees and keep it
//!   (`fma(a, b, c)`: `deg a + deg b = deg c`); a comparison of operands of
//!   equal degrees is unchanged (scaling by a positive factor keeps order);
//! - `compute` and `reduce +` keep their body's degree, broadcasts their
//!   operand's; every other function, conversion and fold needs operands of
//!   degree 0 and gives 0; anything free of `m` has degree 0.
//!
//! An expression of degree 0 is invariant under the shift in real
//! arithmetic, whatever `c` is.

use std::collections::BTreeMap;
use texpr_ir::{BinOp, ReduceOp};
use texpr_ir::{Expr, ExprKind, Func, UnaryOp, VarId, VecRef};

/// The degree of `e` in `m` (see the module doc), or `None` when `e` uses
/// `m` some other way.
pub fn degree(e: &Expr, m: VarId) -> Option<i64> {
    Degrees {
        m,
        lets: BTreeMap::new(),
    }
    .of(e)
}

/// Whether `e` reads the scalar `m` (whole, through a broadcast, or as its
/// element 0).
pub fn reads_var(e: &Expr, m: VarId) -> bool {
    match &e.kind {
        ExprKind::Whole(VecRef::Local(v))
        | ExprKind::Index {
            vec: VecRef::Local(v),
            ..
        } => *v == m,
        ExprKind::Broadcast(x) => reads_var(x, m),
        _ => false,
    }
}

/// The `t` of `exp(t - m)`, when `e` is that.
pub fn shifted_exp(e: &Expr, m: VarId) -> Option<&Expr> {
    match &e.kind {
        ExprKind::Unary(UnaryOp::Exp, a) => match &a.kind {
            ExprKind::Binary(BinOp::Sub, t, s) if reads_var(s, m) => Some(t),
            _ => None,
        },
        _ => None,
    }
}

struct Degrees {
    m: VarId,
    /// The degrees of the `let`s in scope.
    lets: BTreeMap<VarId, i64>,
}

impl Degrees {
    fn of(&mut self, e: &Expr) -> Option<i64> {
        if let Some(t) = shifted_exp(e, self.m) {
            return (self.of(t)? == 0).then_some(1);
        }
        match &e.kind {
            ExprKind::Whole(VecRef::Local(v))
            | ExprKind::Index {
                vec: VecRef::Local(v),
                ..
            } => match *v == self.m {
                true => None,
                false => Some(self.lets.get(v).copied().unwrap_or(0)),
            },
            ExprKind::Whole(_)
            | ExprKind::Index { .. }
            | ExprKind::IndexVar(_)
            | ExprKind::Const(_)
            | ExprKind::Fill(_)
            | ExprKind::VecLit(_) => Some(0),
            ExprKind::Compute { body, .. }
            | ExprKind::Reduce {
                op: ReduceOp::Add,
                body,
                ..
            } => self.of(body),
            ExprKind::Reduce { body, .. } => self.zero(&[body]),
            ExprKind::Let {
                var, value, body, ..
            } => {
                let d = self.of(value)?;
                self.lets.insert(*var, d);
                let r = self.of(body);
                self.lets.remove(var);
                r
            }
            // The states start from the initial values: of degree 0 when
            // every part is.
            ExprKind::Iterate { parts, .. } => self.zero(&parts.iter().collect::<Vec<_>>()),
            ExprKind::Broadcast(a) | ExprKind::Unary(UnaryOp::Neg, a) => self.of(a),
            ExprKind::Unary(_, a) | ExprKind::Cast(a) => self.zero(&[a]),
            ExprKind::Binary(op, a, b) => self.binary(*op, a, b),
            ExprKind::Call(f, args) => self.call(*f, args),
        }
    }

    /// 0 when every operand has degree 0.
    fn zero(&mut self, args: &[&Expr]) -> Option<i64> {
        for a in args {
            if self.of(a)? != 0 {
                return None;
            }
        }
        Some(0)
    }

    fn binary(&mut self, op: BinOp, a: &Expr, b: &Expr) -> Option<i64> {
        let (x, y) = (self.of(a)?, self.of(b)?);
        match op {
            BinOp::Mul => Some(x + y),
            BinOp::Div => Some(x - y),
            BinOp::Add | BinOp::Sub => (x == y).then_some(x),
            _ if op.is_comparison() => (x == y).then_some(0),
            _ => (x == 0 && y == 0).then_some(0),
        }
    }

    fn call(&mut self, f: Func, args: &[Expr]) -> Option<i64> {
        match (f, args) {
            (Func::Select, [c, a, b]) => {
                let (dc, da, db) = (self.of(c)?, self.of(a)?, self.of(b)?);
                (dc == 0 && da == db).then_some(da)
            }
            (Func::Fma, [a, b, c]) => {
                let (da, db, dc) = (self.of(a)?, self.of(b)?, self.of(c)?);
                (da + db == dc).then_some(dc)
            }
            _ => self.zero(&args.iter().collect::<Vec<_>>()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::degree;
    use texpr_ir::ExprKind;

    /// The degree in `m` of `BODY` in `let m = reduce max 4 |j| x[j] in BODY`.
    fn of(body: &str) -> Option<i64> {
        let src = format!("input x: f32[4]\noutput y = let m = reduce max 4 |j| x[j] in {body}");
        let p = texpr_syntax::frontend(&src, &[]).unwrap_or_else(|d| panic!("{body}: {d:?}"));
        let ExprKind::Let { var, body, .. } = &p.outputs[0].value.kind else {
            panic!("a let")
        };
        degree(body, *var)
    }

    #[test]
    fn shifted_exponentials_scale_and_ratios_of_them_do_not() {
        assert_eq!(of("exp(x[0] - m)"), Some(1));
        assert_eq!(of("exp(x[0] - m) * exp(x[1] - m)"), Some(2));
        assert_eq!(of("exp(x[0] - m) / (reduce 4 |k| exp(x[k] - m))"), Some(0));
        assert_eq!(of("compute 4 |k| -exp(x[k] - m) * x[k]"), Some(1));
        assert_eq!(of("let q = exp(x[0] - m) in q / q"), Some(0));
        let pick = "select(exp(x[0] - m) < exp(x[1] - m), exp(x[2] - m), exp(x[3] - m))";
        assert_eq!(of(pick), Some(1));
        assert_eq!(of("x[0] * 2.0"), Some(0), "free of m");
    }

    #[test]
    fn m_elsewhere_mixed_degrees_and_functions_of_scaled_values_have_none() {
        assert_eq!(of("x[0] - m"), None);
        assert_eq!(of("exp(x[0] * m - m)"), None);
        assert_eq!(of("exp(x[0] - m) + 1.0"), None);
        assert_eq!(of("log(exp(x[0] - m))"), None);
        assert_eq!(of("reduce max 4 |k| exp(x[k] - m)"), None);
        assert_eq!(of("select(exp(x[0] - m) < 1.0, 1.0, 2.0)"), None);
    }
}
