//! Size terms (evaluated over params) and index terms (lowered to `ir::Term`, then bounded).

use super::scope::{LocalKind, Resolved, TopKind};
use super::{CResult, Checker, Reported, codes};
use crate::ast::{self, Ident, TermKind, TermOp};
use texpr_ir as ir;
use texpr_ir::Diagnostic;
use texpr_ir::Span;
use texpr_ir::linear::{self as bounds, BoundsError};
use texpr_ir::{bounds_diag, term};

const I32_MAX: i64 = i32::MAX as i64;
const I32_MIN: i64 = i32::MIN as i64;

impl Checker {
    /// A size: a constant term between 1 and `i32::MAX`.
    pub(crate) fn size(&mut self, t: &ast::Term) -> CResult<u64> {
        let v = self.term_root(|c| c.const_term(t))?;
        if v < 1 {
            return Err(self.err(
                Diagnostic::error(
                    codes::SIZE_NOT_POSITIVE,
                    format!("size must be at least 1, found {v}"),
                )
                .with_primary(t.span, format!("this size is {v}"))
                .with_note("every vector has between 1 and 2147483647 elements"),
            ));
        }
        Ok(v as u64)
    }

    /// Runs `f` on a term at nesting depth 0: terms nest apart from expressions
    /// (the parser limits each separately).
    pub(crate) fn term_root<T>(&mut self, f: impl FnOnce(&mut Self) -> T) -> T {
        let saved = std::mem::replace(&mut self.depth, 0);
        let r = f(self);
        self.depth = saved;
        r
    }

    /// A term over literals and params whose every intermediate value fits in `i32`.
    pub(crate) fn const_term(&mut self, t: &ast::Term) -> CResult<i64> {
        self.nested(t.span, |c| c.const_term_inner(t))
    }

    fn const_term_inner(&mut self, t: &ast::Term) -> CResult<i64> {
        let v = match &t.kind {
            TermKind::Int(v) => *v,
            TermKind::Name(id) => return self.const_name(id),
            TermKind::Neg(a) => -self.const_term(a)?,
            TermKind::Binary(op, a, b) => {
                let (x, y) = (self.const_term(a), self.const_term(b));
                let (x, y) = (x?, y?);
                self.const_binary(*op, x, y, a, b)?
            }
        };
        self.fits_i32(v as i128, t.span)?;
        Ok(v)
    }

    fn const_binary(
        &mut self,
        op: TermOp,
        x: i64,
        y: i64,
        a: &ast::Term,
        b: &ast::Term,
    ) -> CResult<i64> {
        match op {
            TermOp::Add => Ok(x + y),
            TermOp::Sub => Ok(x - y),
            TermOp::Mul => Ok(x * y),
            TermOp::Div | TermOp::Rem => {
                if y <= 0 {
                    return Err(self.err(bounds_diag(BoundsError::DivisorNotPositive {
                        span: b.span,
                        value: y as i128,
                    })));
                }
                if x < 0 {
                    let range = (x as i128, x as i128);
                    return Err(self.err(bounds_diag(BoundsError::DividendMaybeNegative {
                        span: a.span,
                        range,
                    })));
                }
                Ok(if op == TermOp::Div { x / y } else { x % y })
            }
        }
    }

    fn fits_i32(&mut self, v: i128, span: Span) -> CResult<()> {
        if v < I32_MIN as i128 || v > I32_MAX as i128 {
            return Err(self.err(bounds_diag(BoundsError::Overflow {
                span,
                range: (v, v),
            })));
        }
        Ok(())
    }

    fn const_name(&mut self, id: &Ident) -> CResult<i64> {
        match self.term_name(id)? {
            TermName::Const(v) => Ok(v),
            TermName::Var(_) => Err(self.err(
                Diagnostic::error(
                    codes::INDEX_VAR_IN_SIZE,
                    format!("index variable `{}` in a size", id.name),
                )
                .with_primary(id.span, "sizes must be known at compile time")
                .with_note("a size term may use integer literals and params only"),
            )),
        }
    }

    /// Resolves a name inside a term: a param's value or an index variable.
    fn term_name(&mut self, id: &Ident) -> CResult<TermName> {
        if id.name == "_" {
            return Err(self.err(underscore_read(id.span)));
        }
        match self.lookup(&id.name) {
            Resolved::Local(LocalKind::Index(v), _) => Ok(TermName::Var(v)),
            Resolved::Top(TopKind::Param(v), _) => Ok(TermName::Const(v)),
            Resolved::Local(LocalKind::Poisoned, _) | Resolved::Top(TopKind::Poisoned, _) => {
                Err(Reported)
            }
            Resolved::Local(
                LocalKind::Vector(_) | LocalKind::Global(_) | LocalKind::State(_),
                decl,
            )
            | Resolved::Top(_, decl) => Err(self.err(
                Diagnostic::error(
                    codes::NOT_AN_INTEGER,
                    format!("`{}` is a vector, not an integer", id.name),
                )
                .with_primary(id.span, "an integer is needed here")
                .with_secondary(decl, "declared here")
                .with_note("terms may use integer literals, params and index variables"),
            )),
            Resolved::Later(decl) => Err(self.unknown_name(id, Some(decl))),
            Resolved::Unknown => Err(self.unknown_name(id, None)),
        }
    }

    /// Lowers an index term, folding constant sub-terms that fit in `i32`.
    pub(crate) fn index_term(&mut self, t: &ast::Term) -> CResult<ir::Term> {
        self.nested(t.span, |c| c.index_term_inner(t))
    }

    fn index_term_inner(&mut self, t: &ast::Term) -> CResult<ir::Term> {
        let kind = match &t.kind {
            TermKind::Int(v) => ir::TermKind::Const(*v),
            TermKind::Name(id) => match self.term_name(id)? {
                TermName::Const(v) => ir::TermKind::Const(v),
                TermName::Var(v) => ir::TermKind::Var(v),
            },
            TermKind::Neg(a) => {
                let zero = ir::Term {
                    kind: ir::TermKind::Const(0),
                    span: t.span,
                };
                binary_term(TermOp::Sub, zero, self.index_term(a)?)
            }
            TermKind::Binary(op, a, b) => {
                let (x, y) = (self.index_term(a), self.index_term(b));
                binary_term(*op, x?, y?)
            }
        };
        Ok(ir::Term { kind, span: t.span })
    }

    /// Checks the rules of an index term and returns its range (each
    /// variable over its extent; a `reduce`'s variable of dependent steps
    /// also below its steps, `bounds` module doc).
    pub(crate) fn term_range(&mut self, t: &ir::Term) -> CResult<(i64, i64)> {
        let vars = &self.vars;
        let extent = |v: ir::VarId| match vars.get(v.0 as usize)?.kind {
            ir::VarKind::Index { extent } => Some(extent),
            ir::VarKind::Vector(_) => None,
        };
        let uppers = &self.uppers;
        let r = bounds::term_range_within(t, &extent, &|v| uppers.get(&v).cloned());
        r.map_err(|e| self.err(bounds_diag(e)))
    }

    /// The steps of a `reduce`: a size (`None`), or a term over enclosing
    /// index variables (`Some`), with the largest value either takes. A
    /// dependent count below 0 runs no step; one that never reaches 1 is
    /// E0107.
    pub(crate) fn steps(&mut self, t: &ast::Term) -> CResult<(u64, Option<ir::Term>)> {
        if !self.term_has_index_var(t) {
            return Ok((self.size(t)?, None));
        }
        let term = self.term_root(|c| c.index_term(t))?;
        let (_, hi) = self.term_range(&term)?;
        if hi < 1 {
            return Err(self.err(
                Diagnostic::error(
                    codes::SIZE_NOT_POSITIVE,
                    format!("this `reduce` never runs a step (its count is at most {hi})"),
                )
                .with_primary(t.span, format!("at most {hi}"))
                .with_note("a count that depends on an index runs `max(count, 0)` steps"),
            ));
        }
        Ok((hi as u64, Some(term)))
    }

    /// Whether `t` names an index variable in scope.
    pub(crate) fn term_has_index_var(&self, t: &ast::Term) -> bool {
        match &t.kind {
            TermKind::Int(_) => false,
            TermKind::Name(id) => matches!(
                self.lookup(&id.name),
                Resolved::Local(LocalKind::Index(_), _)
            ),
            TermKind::Neg(a) => self.term_has_index_var(a),
            TermKind::Binary(_, a, b) => self.term_has_index_var(a) || self.term_has_index_var(b),
        }
    }
}

enum TermName {
    Const(i64),
    Var(ir::VarId),
}

/// `a op b`, folded when both are constants and the result is a valid `i32`.
fn binary_term(op: TermOp, a: ir::Term, b: ir::Term) -> ir::TermKind {
    let folded = match (&a.kind, &b.kind) {
        (ir::TermKind::Const(x), ir::TermKind::Const(y)) => fold_const(op, *x, *y),
        _ => None,
    };
    if let Some(v) = folded {
        return ir::TermKind::Const(v);
    }
    ir::TermKind::Binary(op, Box::new(a), Box::new(b))
}

/// `x op y` when both operands and the result are valid `i32` values and a
/// division is well defined (the checker folds exactly these): the IR's
/// [`term::fold`], which also divides a negative value, for a non-negative
/// dividend only.
pub(crate) fn fold_const(op: TermOp, x: i64, y: i64) -> Option<i64> {
    let in_i32 = |v: &i64| (I32_MIN..=I32_MAX).contains(v);
    let divides = matches!(op, TermOp::Div | TermOp::Rem);
    if !in_i32(&x) || !in_i32(&y) || (divides && x < 0) {
        return None;
    }
    term::fold(op, x, y)
}

pub(crate) fn underscore_read(span: Span) -> Diagnostic {
    Diagnostic::error(codes::UNDERSCORE, "`_` cannot be read")
        .with_primary(span, "`_` names an index variable that is never used")
        .with_note("give the index variable a name to use it")
}
