//! Stage tests: contexts, orderings, block bodies, and tiled runs through the TExpr interpreter against the dense reference.

use super::*;
use crate::air::{Program, parse};
use crate::exec::{InterpRunner, KernelRunner, eval_dense, max_rel_diff, random_inputs, run_tiled};
use crate::passes::{Env, optimize};

fn prog(src: &str) -> Program {
    parse(src, &[]).unwrap_or_else(|d| panic!("{}", texpr_ir::diag::render("t", src, &d)))
}

const ALL_OPS: &str = "func all {
  %a = input : f32[7x5, 3x2]
  %w = input : f32[5x6, 2x4]
  %r = input : f32[1x6, 1x4]
  %m = matmul %a, %w
  %e = add %m, %r
  %f = map relu, %e
  %t = transpose %f
  %s = slice %t, 4..6, 3..7
  %g = matmul %t, %a
  %rs = sum_rows %g
  %cs = sum_cols %g
  %x = sum %g
  %n = div %g, %rs
  %o = sub %n, %cs
  %q = mul %o, %x
  %z = scale %q, 0.25
  %sl = slice %z, 4..6, 2..5
  %st = transpose %s
  %y = matmul %st, %sl
  %u = map sigmoid, %y
  ret %u
}";

fn check_tiled(p: &Program) {
    let inputs = random_inputs(p, 3);
    let want = eval_dense(p, &inputs).unwrap();
    let mut runner = InterpRunner::default();
    let got = run_tiled(p, &inputs, &mut runner)
        .unwrap_or_else(|d| panic!("{d}\n{}", d.notes.join("\n")));
    let d = max_rel_diff(&want, &got).unwrap();
    assert!(d < 1e-5, "diff {d}");
}

#[test]
fn every_op_runs_tiled_with_ragged_edges() {
    let p = prog(ALL_OPS);
    check_tiled(&p);
    let q = optimize(&p, &mut Env::new()).unwrap();
    check_tiled(&q);
}

#[test]
fn context_is_the_tile_index_and_size() {
    let p = prog(ALL_OPS);
    let st = BlockMatrixStage::new(&p, p.find("m").unwrap());
    let ctx = st.block_context(2, 1);
    assert_eq!((ctx.i, ctx.j, ctx.dims.rows, ctx.dims.cols), (2, 1, 1, 2));
    assert_eq!(
        st.ctx_type.to_string(),
        "{ i: u64, j: u64, rows: u64, cols: u64 }"
    );
    let names: Vec<&str> = st.global_vals.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, vec!["a", "w"]);
}

#[test]
fn to_ir_follows_the_ordering() {
    let p = prog(ALL_OPS);
    let st = BlockMatrixStage::new(&p, p.find("m").unwrap());
    let all = st.to_ir(|c, _| (c.i, c.j), None);
    assert_eq!(all.len(), 6);
    assert_eq!(all[0].value, (0, 0));
    assert_eq!(all[1].value, (1, 0));
    let order = [(2, 1), (0, 0), (9, 9)];
    let some = st.to_ir(|c, b| (c.i, c.j, b.out_len), Some(&order));
    assert_eq!(
        some.iter().map(|t| t.value).collect::<Vec<_>>(),
        vec![(2, 1, 2), (0, 0, 12)]
    );
}

#[test]
fn matmul_body_with_epilogue_is_one_kernel() {
    let src = "func f {
  %a = input : f32[4x6, 2x3]
  %b = input : f32[6x4, 3x2]
  %r = input : f32[1x4, 1x2]
  %m = matmul %a, %b epilogue %r.row { relu(add($acc, $0)) }
  ret %m
}";
    let p = prog(src);
    let st = BlockMatrixStage::new(&p, p.find("m").unwrap());
    let body = st.block_body(&st.block_context(1, 1));
    let want = "input a: f32[12]\ninput b: f32[12]\ninput x0: f32[2]\n\
output out: f32[4] = compute 2 |j| compute 2 |i| max(((reduce 6 |k| a[i + k * 2] * b[k + j * 6]) + x0[j]), 0.0)\n";
    // The body is the program the front end makes of the kernel's text.
    let checked = texpr_syntax::frontend(want, &[]).expect("the kernel checks");
    assert_eq!(*body.kernel, texpr_syntax::check::canonicalize(&checked));
    type Named<'a> = (&'a str, (u64, u64), (u64, u64));
    let names: Vec<Named<'_>> = body
        .inputs
        .iter()
        .map(|pn| (pn.name.as_str(), pn.rows, pn.cols))
        .collect();
    assert_eq!(
        names,
        vec![
            ("a", (1, 2), (0, 2)),
            ("b", (0, 2), (1, 2)),
            ("x0", (0, 1), (1, 2))
        ]
    );
    let mut runner = InterpRunner::default();
    check_tiled(&p);
    run_tiled(&p, &random_inputs(&p, 1), &mut runner).unwrap();
    assert_eq!(
        runner.compiled(),
        1,
        "every block has the same shape, so one kernel"
    );
}

#[test]
fn printed_stages_list_blocks_and_distinct_kernels() {
    let p = prog(ALL_OPS);
    let text = print_stages(&p, &lower(&p));
    assert!(
        text.contains(
            "stage %m = matmul : f32[7x6, 3x4]\n  global a = matrix %a : f32[7x5, 3x2]\n"
        ),
        "{text}"
    );
    assert!(
        text.contains("  block (2, 1) 1x2: kernel k3 reads a=%a[2..3, 0..3] b=%w[0..3, 1..2]\n"),
        "{text}"
    );
    assert_eq!(text.matches("stage ").count(), 17);
}
