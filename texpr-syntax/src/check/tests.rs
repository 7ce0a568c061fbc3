//! Checker unit tests on hand-built trees the parser never produces (too deep, empty vector).

use super::{MAX_NESTING, check, codes};
use crate::ast::*;
use texpr_ir::Span;

fn ident(name: &str) -> Ident {
    Ident {
        name: name.to_string(),
        span: Span::new(0, 1),
    }
}

fn expr(kind: ExprKind) -> Expr {
    Expr {
        kind,
        span: Span::new(0, 1),
    }
}

fn output(value: Expr) -> File {
    let kind = ItemKind::Output {
        name: ident("y"),
        loads: None,
        ty: None,
        value,
    };
    File {
        items: vec![Item {
            kind,
            span: Span::new(0, 1),
        }],
    }
}

fn codes_of(file: &File) -> Vec<&'static str> {
    check(file, &[])
        .err()
        .unwrap_or_default()
        .iter()
        .map(|d| d.code)
        .collect()
}

fn negations(depth: usize) -> Expr {
    let lit = Literal {
        value: LitValue::Float(1.0),
        span: Span::new(0, 1),
    };
    let mut e = expr(ExprKind::Lit(lit));
    for _ in 1..depth {
        e = expr(ExprKind::Unary {
            op: UnOp::Neg,
            arg: Box::new(e),
        });
    }
    e
}

#[test]
fn nesting_up_to_the_limit_checks() {
    let p = check(&output(negations(MAX_NESTING)), &[]).expect("checks");
    assert!(texpr_ir::verify(&p).is_ok());
}

#[test]
fn nesting_past_the_limit_is_reported_once() {
    assert_eq!(
        codes_of(&output(negations(MAX_NESTING + 50))),
        vec![codes::TOO_DEEP]
    );
}

#[test]
fn empty_vector_literal_is_reported() {
    assert_eq!(
        codes_of(&output(expr(ExprKind::VecLit(Vec::new())))),
        vec![codes::EMPTY_VECTOR]
    );
}
