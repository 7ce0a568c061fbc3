//! Expressions: `compute`, `reduce`, `let`, literals and operators (reads are in `reads`).

use super::lits::{literal_elem, natural};
use super::{CResult, Checker, Reported, codes};
use crate::ast::{self, ElemTy, ExprKind, Ident, IndexMapAst, Level, Literal, MemLevel, ReduceOp};
use texpr_ir::Span;
use texpr_ir::diag::{Diagnostic, count, count_as};
use texpr_ir::show_range;
use texpr_ir::{self as ir, Ty};

/// A typed node.
pub(crate) fn node(kind: ir::ExprKind, ty: Ty, span: Span) -> ir::Expr {
    ir::Expr { kind, ty, span }
}

/// The first `len` bytes of `span`: the keyword an expression starts with.
fn head(span: Span, len: u32) -> Span {
    Span {
        start: span.start,
        end: (span.start + len).min(span.end),
    }
}

impl Checker {
    /// A value: any expression but a condition.
    pub(crate) fn value(&mut self, e: &ast::Expr, hint: Option<ElemTy>) -> CResult<ir::Expr> {
        let x = self.expr(e, hint)?;
        if x.ty.elem == ElemTy::Bool {
            return Err(self.err(
                Diagnostic::error(codes::BOOL_VALUE, "condition used as a value")
                    .with_primary(e.span, "this is a condition")
                    .with_note(
                        "conditions (comparisons, `&&`, `||`, `!`) may only be `select`'s \
                         condition: `select(a < b && b < c, x, y)`",
                    ),
            ));
        }
        Ok(x)
    }

    /// A condition: a comparison, or `&&`, `||`, `!` of conditions.
    fn condition(&mut self, e: &ast::Expr, op: &str) -> CResult<ir::Expr> {
        let x = self.expr(e, None)?;
        if x.ty.elem != ElemTy::Bool {
            return Err(self.err(
                Diagnostic::error(
                    codes::NOT_A_CONDITION,
                    format!("`{op}` of a value that is not a condition"),
                )
                .with_primary(e.span, format!("this is {}", x.ty.elem.name()))
                .with_note(format!(
                    "`{op}` combines conditions: comparisons such as `i > 0`, or `&&`, `||`, `!` of them"
                )),
            ));
        }
        Ok(x)
    }

    /// `a && b`, `a || b`: conditions of equal lengths (or 1, broadcast).
    fn logical(
        &mut self,
        span: Span,
        op: ast::BinOp,
        lhs: &ast::Expr,
        rhs: &ast::Expr,
    ) -> CResult<ir::Expr> {
        let (l, r) = (
            self.condition(lhs, op.symbol()),
            self.condition(rhs, op.symbol()),
        );
        let mut xs = self.broadcast_all(vec![l?, r?])?;
        let (r, l) = (xs.pop().ok_or(Reported)?, xs.pop().ok_or(Reported)?);
        let ty = Ty::new(ElemTy::Bool, l.ty.len);
        let kind = ir::ExprKind::Binary(op, Box::new(l), Box::new(r));
        Ok(node(kind, ty, span))
    }

    /// `!c` of a condition.
    fn not(&mut self, span: Span, arg: &ast::Expr) -> CResult<ir::Expr> {
        let x = self.condition(arg, "!")?;
        let ty = x.ty;
        Ok(node(
            ir::ExprKind::Unary(ir::UnaryOp::Not, Box::new(x)),
            ty,
            span,
        ))
    }

    /// Any expression, comparisons included.
    pub(crate) fn expr(&mut self, e: &ast::Expr, hint: Option<ElemTy>) -> CResult<ir::Expr> {
        self.nested(e.span, |c| c.expr_inner(e, hint))
    }

    fn expr_inner(&mut self, e: &ast::Expr, hint: Option<ElemTy>) -> CResult<ir::Expr> {
        let span = e.span;
        match &e.kind {
            ExprKind::Compute {
                level,
                n,
                map,
                var,
                body,
            } => self.compute(span, *level, n, map.as_ref(), var, body, hint),
            ExprKind::Reduce {
                level,
                op,
                n,
                var,
                body,
            } => {
                let op = op.map_or(ReduceOp::Add, |o| o.0);
                let hint = if op == ReduceOp::Lse {
                    Some(ElemTy::F32)
                } else {
                    hint
                };
                self.reduce(span, *level, op, n, var, body, hint)
            }
            ExprKind::Let {
                level,
                name,
                value,
                body,
            } => self.let_in(span, *level, name, value, body, hint),
            ExprKind::Iterate(it) => self.iterate_expr(span, it, hint),
            ExprKind::With { state, .. } => Err(self.err(super::update::misplaced(span, state))),
            ExprKind::Index { vec, index, guard } => self.index(span, vec, index, guard.as_ref()),
            ExprKind::Name(id) => self.name_value(id),
            ExprKind::Lit(l) => {
                let elem = literal_elem(natural(l), hint);
                let s = self.scalar(l, elem)?;
                Ok(node(ir::ExprKind::Const(s), Ty::scalar(elem), span))
            }
            ExprKind::Fill { value, n } => self.fill(span, value, n, hint),
            ExprKind::VecLit(lits) => self.vec_lit(span, lits, hint),
            ExprKind::Broadcast { arg, n } => self.broadcast(span, arg, n, hint),
            ExprKind::Unary {
                op: ast::UnOp::Neg,
                arg,
            } => self.neg(span, arg, hint),
            ExprKind::Unary {
                op: ast::UnOp::Not,
                arg,
            } => self.not(span, arg),
            ExprKind::Binary { op, lhs, rhs } if op.is_logical() => {
                self.logical(span, *op, lhs, rhs)
            }
            ExprKind::Binary { op, lhs, rhs } => self.binary(span, *op, lhs, rhs, hint),
            ExprKind::Call { func, args } => self.call(span, func, args, hint),
        }
    }

    #[inline(never)]
    fn binary(
        &mut self,
        span: Span,
        op: ast::BinOp,
        lhs: &ast::Expr,
        rhs: &ast::Expr,
        hint: Option<ElemTy>,
    ) -> CResult<ir::Expr> {
        let hint = if op.is_comparison() { None } else { hint };
        let mut xs = self.operands(&[lhs, rhs], hint)?;
        let (r, l) = (xs.pop().ok_or(Reported)?, xs.pop().ok_or(Reported)?);
        let elem = if op.is_comparison() {
            ElemTy::Bool
        } else {
            l.ty.elem
        };
        let ty = Ty::new(elem, l.ty.len);
        Ok(node(
            ir::ExprKind::Binary(op, Box::new(l), Box::new(r)),
            ty,
            span,
        ))
    }

    /// What `compute` and `reduce` share: the size, entering the level (the
    /// keyword is `keyword.0` bytes long; `keyword.1` is whether it is a
    /// reduce), the index variable in scope, and the checked body.
    #[allow(clippy::too_many_arguments)]
    fn indexed_body(
        &mut self,
        span: Span,
        level: Option<(Level, Span)>,
        keyword: (u32, bool),
        n: u64,
        steps: Option<&ir::Term>,
        var: &Ident,
        body: &ast::Expr,
        hint: Option<ElemTy>,
    ) -> CResult<(ir::VarId, ir::Expr)> {
        let (inner, err) = self.levels.enter(
            level.map(|l| l.0),
            level.map_or(head(span, keyword.0), |l| l.1),
            keyword.1,
        );
        self.report(err);
        let id = self.push_index(var, n);
        if let Some(t) = steps {
            let one = ir::term::constant(1);
            self.uppers.insert(id, ir::term::sub(t.clone(), one));
        }
        let mut inner = inner;
        if matches!(level, Some((Level::Group, _))) && !keyword.1 && inner.group_var.is_none() {
            inner.group_var = Some(id);
        }
        let saved = std::mem::replace(&mut self.levels, inner);
        let body = self.value(body, hint);
        self.levels = saved;
        self.uppers.remove(&id);
        self.pop_local();
        Ok((id, body?))
    }

    #[allow(clippy::too_many_arguments)]
    #[inline(never)]
    fn compute(
        &mut self,
        span: Span,
        level: Option<(Level, Span)>,
        n: &ast::Term,
        map: Option<&IndexMapAst>,
        var: &Ident,
        body: &ast::Expr,
        hint: Option<ElemTy>,
    ) -> CResult<ir::Expr> {
        let n = self.size(n)?;
        let (id, body) = self.indexed_body(span, level, (7, false), n, None, var, body, hint)?;
        let raw = self.length(n, body.ty.len, span)?;
        let map = match map {
            Some(m) => Some(self.index_map(m, raw)?),
            None => None,
        };
        let ty = Ty::new(body.ty.elem, map.as_ref().map_or(raw, |m| m.len));
        let level = level.map(|l| l.0);
        let kind = ir::ExprKind::Compute {
            level,
            n,
            var: id,
            map,
            body: Box::new(body),
        };
        Ok(node(kind, ty, span))
    }

    /// `n * m` as a length, at most `i32::MAX`.
    fn length(&mut self, n: u64, m: u64, span: Span) -> CResult<u64> {
        match n.checked_mul(m).filter(|&l| l <= i32::MAX as u64) {
            Some(l) => Ok(l),
            None => Err(self.err(
                Diagnostic::error(codes::INT_OVERFLOW, "length overflows an i32")
                    .with_primary(
                        head(span, 7),
                        format!(
                            "{} of {} each",
                            count_as(n, "body", "bodies"),
                            count(m, "element")
                        ),
                    )
                    .with_note("a vector has at most 2147483647 elements"),
            )),
        }
    }

    fn index_map(&mut self, m: &IndexMapAst, raw: u64) -> CResult<ir::IndexMap> {
        let len = match &m.len {
            Some(t) => self.size(t)?,
            None => raw,
        };
        let var = self.push_index(&m.var, len);
        let kind = match &m.body {
            ast::MapBody::Term(t) => self.term_root(|c| c.index_term(t)).map(ir::MapKind::Term),
            ast::MapBody::Layout(l) => self.layout(l, len, raw).map(ir::MapKind::Layout),
        };
        self.pop_local();
        let kind = match kind? {
            // `{k < L -> k}` is a truncation.
            ir::MapKind::Term(t) if t.kind == ir::TermKind::Var(var) && len <= raw => {
                ir::MapKind::Layout(ir::Layout::Truncate)
            }
            ir::MapKind::Term(term) => {
                self.map_in_range(&term, &m.var, len, raw)?;
                ir::MapKind::Term(term)
            }
            layout => layout,
        };
        Ok(ir::IndexMap { var, len, kind })
    }

    /// E0112 unless `term` stays within `0..raw` for `k` in `0..len`.
    fn map_in_range(&mut self, term: &ir::Term, k: &Ident, len: u64, raw: u64) -> CResult<()> {
        let (lo, hi) = self.term_range(term)?;
        if lo < 0 || hi as u64 >= raw {
            return Err(self.err(
                Diagnostic::error(codes::MAP_OUT_OF_RANGE, "index map out of range")
                    .with_primary(term.span, format!("this ranges over {}", show_range((lo as i128, hi as i128))))
                    .with_note(format!(
                        "for `{}` in 0..{len} the map must stay within 0..{raw}, the raw result's length",
                        k.name
                    )),
            ));
        }
        Ok(())
    }

    #[allow(clippy::too_many_arguments)]
    #[inline(never)]
    fn reduce(
        &mut self,
        span: Span,
        level: Option<(Level, Span)>,
        op: ReduceOp,
        n: &ast::Term,
        var: &Ident,
        body: &ast::Expr,
        hint: Option<ElemTy>,
    ) -> CResult<ir::Expr> {
        let (n, steps) = self.steps(n)?;
        let (id, body) =
            self.indexed_body(span, level, (6, true), n, steps.as_ref(), var, body, hint)?;
        if op == ReduceOp::Lse && body.ty.elem != ElemTy::F32 {
            return Err(self.err(
                Diagnostic::error(codes::LSE_NOT_F32, "`reduce lse` is defined for f32 only")
                    .with_primary(body.span, format!("this is {}", body.ty.elem.name()))
                    .with_note("log-sum-exp folds reals: convert first, `f32(...)`"),
            ));
        }
        let (ty, level) = (body.ty, level.map(|l| l.0));
        let kind = ir::ExprKind::Reduce {
            level,
            op,
            n,
            var: id,
            body: Box::new(body),
            steps,
        };
        Ok(node(kind, ty, span))
    }

    #[inline(never)]
    fn let_in(
        &mut self,
        span: Span,
        level: Option<(MemLevel, Span)>,
        name: &Ident,
        value: &ast::Expr,
        body: &ast::Expr,
        hint: Option<ElemTy>,
    ) -> CResult<ir::Expr> {
        let err = self
            .levels
            .check_let(level.map(|l| l.0), level.map_or(head(span, 3), |l| l.1));
        self.report(err);
        let outer = self.levels;
        self.levels = outer.value_ctx(level.map(|l| l.0));
        let value = self.value(value, None);
        self.levels = outer;
        if let Ok(v) = &value {
            let err = self.levels.shared_value_error(level.map(|l| l.0), v, span);
            self.report(err);
        }
        let id = self.push_vector(name, value.as_ref().ok().map(|v| v.ty));
        let body = self.value(body, hint);
        self.pop_local();
        let (value, body, var) = (value?, body?, id.ok_or(Reported)?);
        let ty = body.ty;
        let level = level.map(|l| l.0);
        let kind = ir::ExprKind::Let {
            level,
            var,
            value: Box::new(value),
            body: Box::new(body),
        };
        Ok(node(kind, ty, span))
    }

    #[inline(never)]
    fn fill(
        &mut self,
        span: Span,
        value: &Literal,
        n: &ast::Term,
        hint: Option<ElemTy>,
    ) -> CResult<ir::Expr> {
        let elem = literal_elem(natural(value), hint);
        let (s, n) = (self.scalar(value, elem), self.size(n));
        Ok(node(ir::ExprKind::Fill(s?), Ty::new(elem, n?), span))
    }

    #[inline(never)]
    fn vec_lit(&mut self, span: Span, lits: &[Literal], hint: Option<ElemTy>) -> CResult<ir::Expr> {
        if lits.is_empty() {
            return Err(self.err(
                Diagnostic::error(codes::EMPTY_VECTOR, "empty vector literal")
                    .with_primary(span, "a vector has at least one element"),
            ));
        }
        let own = match lits.iter().any(is_float) {
            true => Some(ElemTy::F32),
            false => lits.iter().find_map(natural),
        };
        let elem = literal_elem(own, hint);
        let scalars: Vec<CResult<ir::Scalar>> = lits.iter().map(|l| self.scalar(l, elem)).collect();
        let scalars = scalars.into_iter().collect::<CResult<Vec<_>>>()?;
        let ty = Ty::new(elem, lits.len() as u64);
        Ok(node(ir::ExprKind::VecLit(scalars), ty, span))
    }

    #[inline(never)]
    fn broadcast(
        &mut self,
        span: Span,
        arg: &ast::Expr,
        n: &ast::Term,
        hint: Option<ElemTy>,
    ) -> CResult<ir::Expr> {
        let (x, n) = (self.expr(arg, hint), self.size(n));
        let (x, n) = (x?, n?);
        if x.ty.len != 1 {
            return Err(self.err(
                Diagnostic::error(
                    codes::BROADCAST_LEN,
                    "`broadcast` of a vector longer than 1",
                )
                .with_primary(x.span, format!("this has {}", count(x.ty.len, "element")))
                .with_note("`broadcast(e, n)` repeats a length-1 value `n` times"),
            ));
        }
        let ty = Ty::new(x.ty.elem, n);
        Ok(node(ir::ExprKind::Broadcast(Box::new(x)), ty, span))
    }

    #[inline(never)]
    fn neg(&mut self, span: Span, arg: &ast::Expr, hint: Option<ElemTy>) -> CResult<ir::Expr> {
        let x = self.value(arg, hint)?;
        if x.ty.elem == ElemTy::U32 {
            return Err(self.err(
                Diagnostic::error(codes::OP_ELEM_TYPE, "negation of u32")
                    .with_primary(span, "`-` is defined for f32, f16 and i32")
                    .with_note("convert first, e.g. `-i32(x)`"),
            ));
        }
        let ty = x.ty;
        Ok(node(
            ir::ExprKind::Unary(ir::UnaryOp::Neg, Box::new(x)),
            ty,
            span,
        ))
    }
}

fn is_float(l: &Literal) -> bool {
    matches!(l.value, ast::LitValue::Float(_))
}
