//! The builder makes what the checker makes of the same program's text.

use crate::check::canonicalize;
use texpr_ir::build::*;
use texpr_ir::{BinOp, ElemTy, ReduceOp, TermOp, VarKind, verify};

/// `input x: f32[4]`, a loop whose state starts at `x` and adds the step's
/// sum of `x` each step, and its final value as the output.
#[test]
fn a_built_loop_is_the_checked_one() {
    let mut p = program();
    let x = input(&mut p, "x", ElemTy::F32, 4);
    let t = named_var(&mut p, "t", VarKind::Index { extent: 3 });
    let l = iterate(&mut p, 3, t, None);
    let s = state(&mut p, "s", l, x);
    let i = named_var(&mut p, "i", VarKind::Index { extent: 4 });
    let k = named_var(&mut p, "k", VarKind::Index { extent: 4 });
    let sum = reduce_steps(
        None,
        ReduceOp::Add,
        4,
        tb(TermOp::Add, tv(t), tc(1)),
        k,
        read(&p, x, tv(k)),
    );
    let next = compute(None, 4, i, binary(BinOp::Add, read(&p, s, tv(i)), sum));
    let next = global_within(&mut p, "s_next", next, Some(l));
    yield_(&mut p, s, next);
    let w = whole(&p, s);
    output(&mut p, "y", w);
    verify(&p).expect("a valid program");
    let src = "input x: f32[4]\nlet s: f32[4] = iterate 3 from x |s, t| compute 4 |i| s[i] + (reduce t + 1 |k| x[k])\noutput y: f32[4] = s\n";
    let checked = crate::frontend(src, &[]).expect("checks");
    assert_eq!(canonicalize(&p), canonicalize(&checked));
}
