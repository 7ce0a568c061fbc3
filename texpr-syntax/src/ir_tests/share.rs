//! How often a `select` picks each operand (`texpr_ir::share`), on checked programs.

use texpr_ir::share::{Extents, read_share, share};
use texpr_ir::{BinOp, Expr, ExprKind, Func, Program};

fn program(src: &str) -> Program {
    crate::frontend(src, &[]).unwrap_or_else(|d| panic!("{d:?}"))
}

/// The condition of the first `select` in the output's value.
fn first_select(e: &Expr) -> Option<&Expr> {
    match &e.kind {
        ExprKind::Call(Func::Select, args) => Some(&args[0]),
        _ => e.children().find_map(first_select),
    }
}

fn share_of(src: &str) -> Option<f64> {
    let p = program(src);
    let cond = first_select(&p.outputs[0].value).expect("a select");
    share(cond, &Extents::of(&p))
}

#[test]
fn index_conditions_hold_at_their_counted_share() {
    let diag = "input x: f32[64]\noutput y = compute 8 |i| compute 8 |j| \
                select(i == j, x[i * 8 + j], 0.0)";
    assert_eq!(share_of(diag), Some(8.0 / 64.0));
    let lower = "input x: f32[64]\noutput y = compute 8 |i| compute 8 |j| \
                 select(j < i, x[i * 8 + j], 0.0)";
    assert_eq!(share_of(lower), Some(28.0 / 64.0));
    let data = "input x: f32[64]\noutput y = compute 64 |i| select(x[i] > 0.0, x[i], 0.0)";
    assert_eq!(share_of(data), None, "a condition on data has no share");
}

#[test]
fn large_conjunctions_combine_their_parts() {
    // 512^3 points: too many to count, so `j == k` (1/512) times `i > k`.
    let src = "input x: f32[262144]\noutput y = iterate 512 from x |s, k| \
               compute 512 |i| compute 512 |j| \
               select(j == k && i > k, s[i * 512 + j] * 2.0, s[i * 512 + j])";
    let p = program(src);
    let step = &p.globals.last().expect("the loop's step").value;
    let s = share(first_select(step).unwrap(), &Extents::of(&p)).unwrap();
    let exact = 511.0 / 2.0 / 512.0 / 512.0;
    assert!((s - exact).abs() < 1e-9, "{s} vs {exact}");
}

#[test]
fn counting_stops_at_the_programs_budget() {
    // 40 selects over 1024 x 1024 points: 16 fit the budget of 2^24.
    let mut src =
        "input x: f32[1024]\noutput y = compute 1024 |i| compute 1024 |j| 0.0".to_string();
    for k in 0..40 {
        src += &format!(" + select(i + j > {k}, x[i], x[j])");
    }
    let p = program(&src);
    let ex = Extents::of(&p);
    let mut shares = Vec::new();
    let mut e = &p.outputs[0].value;
    while let ExprKind::Compute { body, .. } = &e.kind {
        e = body;
    }
    while let ExprKind::Binary(BinOp::Add, a, b) = &e.kind {
        shares.push(share(first_select(b).unwrap(), &ex));
        e = a;
    }
    assert_eq!(shares.len(), 40);
    assert_eq!(shares.iter().filter(|s| s.is_some()).count(), 16);
}

#[test]
fn a_let_read_under_one_operand_is_read_at_its_share() {
    let src = "input x: f32[64]\noutput y = compute 8 |i| compute 8 |j| \
               let v = x[i * 8 + j] * 3.0 in select(i == j, v, 0.0) + select(i == 0, v, 1.0)";
    let p = program(src);
    let ExprKind::Compute { body, .. } = &p.outputs[0].value.kind else {
        panic!("a compute")
    };
    let ExprKind::Compute { body, .. } = &body.kind else {
        panic!("a compute")
    };
    let ExprKind::Let { var, body, .. } = &body.kind else {
        panic!("a let: {body:?}")
    };
    let r = read_share(*var, body, &Extents::of(&p));
    assert_eq!(r, 1.0 / 8.0 + 1.0 / 8.0);
}
