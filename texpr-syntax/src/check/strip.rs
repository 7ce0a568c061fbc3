//! `strip_spans`: a program with every span set to `Span::DUMMY`, to compare trees by structure.

use texpr_ir::Span;
use texpr_ir::{Expr, ExprKind, MapKind, Program, Term, TermKind};

/// A copy of `p` with every span dummied out, so that programs checked from
/// different texts compare equal when they mean the same.
pub fn strip_spans(p: &Program) -> Program {
    let mut p = p.clone();
    p.inputs.iter_mut().for_each(|i| i.span = Span::DUMMY);
    p.vars.iter_mut().for_each(|v| v.span = Span::DUMMY);
    for g in &mut p.globals {
        g.span = Span::DUMMY;
        strip_expr_spans(&mut g.value);
    }
    for o in &mut p.outputs {
        o.span = Span::DUMMY;
        strip_expr_spans(&mut o.value);
    }
    p.loops.iter_mut().for_each(|l| l.span = Span::DUMMY);
    for s in &mut p.states {
        s.span = Span::DUMMY;
        if let Some(t) = &mut s.at {
            term(t);
        }
    }
    p
}

/// `e` with every span (its nodes', its terms') dummied out.
pub fn strip_expr_spans(e: &mut Expr) {
    e.walk_mut(|e| {
        e.span = Span::DUMMY;
        match &mut e.kind {
            ExprKind::Compute { map: Some(m), .. } => {
                if let MapKind::Term(t) = &mut m.kind {
                    term(t);
                }
            }
            ExprKind::Index { index, .. } => term(index),
            ExprKind::Reduce { steps: Some(t), .. } | ExprKind::Iterate { steps: Some(t), .. } => {
                term(t)
            }
            _ => {}
        }
    });
}

fn term(t: &mut Term) {
    t.span = Span::DUMMY;
    if let TermKind::Binary(_, a, b) = &mut t.kind {
        term(a);
        term(b);
    }
}
