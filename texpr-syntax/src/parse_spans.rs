//! Span erasure: [`strip_spans`] sets every span of a file to `Span::DUMMY`,
//! so two trees can be compared up to where they were written.

use crate::ast::*;
use texpr_ir::Span;

/// Sets every span in `f` to [`Span::DUMMY`].
pub fn strip_spans(f: &mut File) {
    for item in &mut f.items {
        item.span = Span::DUMMY;
        strip_item(&mut item.kind);
    }
}

fn strip_item(kind: &mut ItemKind) {
    match kind {
        ItemKind::Param { name, value } => {
            ident(name);
            term(value);
        }
        ItemKind::Input { name, ty } => {
            ident(name);
            ty_ann(ty);
        }
        ItemKind::Let {
            name,
            level,
            loads,
            ty,
            value,
        } => {
            ident(name);
            level_span(level);
            level_span(loads);
            ty.iter_mut().for_each(ty_ann);
            expr(value);
        }
        ItemKind::Output {
            name,
            loads,
            ty,
            value,
        } => {
            ident(name);
            level_span(loads);
            ty.iter_mut().for_each(ty_ann);
            expr(value);
        }
        ItemKind::Iterate {
            names, ty, iter, ..
        } => {
            names.iter_mut().for_each(ident);
            ty.iter_mut().for_each(ty_ann);
            iterate(iter);
        }
    }
}

fn iterate(iter: &mut Iterate) {
    iter.span = Span::DUMMY;
    term(&mut iter.count);
    iter.inits.iter_mut().for_each(expr);
    iter.binders.iter_mut().for_each(ident);
    match &mut iter.body {
        IterBody::Results(es) => es.iter_mut().for_each(expr),
        IterBody::Block {
            items,
            results,
            yield_span,
        } => {
            *yield_span = Span::DUMMY;
            for item in items {
                item.span = Span::DUMMY;
                strip_item(&mut item.kind);
            }
            results.iter_mut().for_each(expr);
        }
    }
}

fn ident(i: &mut Ident) {
    i.span = Span::DUMMY;
}

fn level_span<L>(level: &mut Option<(L, Span)>) {
    if let Some((_, sp)) = level {
        *sp = Span::DUMMY;
    }
}

fn ty_ann(ty: &mut TyAnn) {
    ty.span = Span::DUMMY;
    ty.elem_span = Span::DUMMY;
    term(&mut ty.len);
}

fn lit(l: &mut Literal) {
    l.span = Span::DUMMY;
}

fn term(t: &mut Term) {
    t.span = Span::DUMMY;
    match &mut t.kind {
        TermKind::Int(_) => {}
        TermKind::Name(i) => ident(i),
        TermKind::Neg(x) => term(x),
        TermKind::Binary(_, x, y) => {
            term(x);
            term(y);
        }
    }
}

fn expr(e: &mut Expr) {
    e.span = Span::DUMMY;
    match &mut e.kind {
        ExprKind::Compute {
            level,
            n,
            map,
            var,
            body,
        } => {
            level_span(level);
            term(n);
            map.iter_mut().for_each(index_map);
            ident(var);
            expr(body);
        }
        ExprKind::Reduce {
            level,
            op,
            n,
            var,
            body,
        } => {
            level_span(level);
            level_span(op);
            term(n);
            ident(var);
            expr(body);
        }
        ExprKind::Let {
            level,
            name,
            value,
            body,
        } => {
            level_span(level);
            ident(name);
            expr(value);
            expr(body);
        }
        other => expr_leafish(other),
    }
}

fn expr_leafish(kind: &mut ExprKind) {
    match kind {
        ExprKind::Index { vec, index, guard } => {
            ident(vec);
            term(index);
            guard.iter_mut().for_each(lit);
        }
        ExprKind::Name(i) => ident(i),
        ExprKind::Lit(l) => lit(l),
        ExprKind::Fill { value, n } => {
            lit(value);
            term(n);
        }
        ExprKind::VecLit(ls) => ls.iter_mut().for_each(lit),
        ExprKind::Broadcast { arg, n } => {
            expr(arg);
            term(n);
        }
        ExprKind::Unary { arg, .. } => expr(arg),
        ExprKind::Binary { lhs, rhs, .. } => {
            expr(lhs);
            expr(rhs);
        }
        ExprKind::Call { func, args } => {
            ident(func);
            args.iter_mut().for_each(expr);
        }
        ExprKind::Iterate(it) => iterate(it),
        ExprKind::With { state, at, value } => {
            ident(state);
            term(at);
            expr(value);
        }
        ExprKind::Compute { .. } | ExprKind::Reduce { .. } | ExprKind::Let { .. } => {}
    }
}

fn index_map(m: &mut IndexMapAst) {
    m.span = Span::DUMMY;
    ident(&mut m.var);
    m.len.iter_mut().for_each(term);
    match &mut m.body {
        MapBody::Term(t) => term(t),
        MapBody::Layout(l) => layout(l),
    }
}

fn layout(l: &mut LayoutAst) {
    l.span = Span::DUMMY;
    ident(&mut l.name);
    for a in &mut l.args {
        match a {
            LayoutArg::Size(t) => term(t),
            LayoutArg::Digit(ts, sp) => {
                *sp = Span::DUMMY;
                ts.iter_mut().for_each(term);
            }
            LayoutArg::Layout(inner) => layout(inner),
        }
    }
}
