//! Which 2D items are contractions worth tiling
//! ([`crate::schedule::contraction`]): every element folds a long outer
//! product; a fold picked on one line of the result, a short fold, a fold
//! over an enclosing index and a fold without an outer product are not,
//! and the heuristic schedules such items elementwise.

use super::{cpu, heuristic};
use crate::schedule::Strategy;
use crate::schedule::shape::{Shape, classify};
use texpr_target::Target;

/// The class of the output `y` of an 8 x 16 item whose element is `s` (over
/// `i`, `j`), reading `a: f32[8 * K]`, `b: f32[K * 16]`, `c: f32[128]`,
/// `x: f32[32 * 16]`.
fn class_of(k: u64, s: &str) -> String {
    let src = format!(
        "param K = {k}\ninput a: f32[8 * K]\ninput b: f32[K * 16]\ninput c: f32[128]\n\
         input x: f32[512]\noutput y = compute 8 |i| compute 16 |j| {s}\n"
    );
    let p = texpr_syntax::frontend(&src, &[]).unwrap_or_else(|d| {
        panic!("{}", texpr_ir::diag::render("t.te", &src, &d));
    });
    match classify(&p.outputs[0].value) {
        Shape::Contraction { k, .. } => format!("contraction {k}"),
        Shape::Elementwise { .. } => "elementwise".into(),
        other => format!("{other:?}"),
    }
}

const AB: &str = "(reduce K |p| a[i * K + p] * b[p * 16 + j])";

#[test]
fn contractions_fold_a_long_outer_product_at_every_element() {
    let c = "contraction 16";
    assert_eq!(class_of(16, AB), c);
    assert_eq!(class_of(16, &format!("max({AB} + c[j], 0.0)")), c);
    // `B` read transposed is an outer product too.
    let abt = "reduce K |p| a[i * K + p] * x[j * K + p]";
    assert_eq!(class_of(16, abt), c);
    // A branch picked on a share of the result: a triangle, a half plane,
    // a value's sign, the complement of a column.
    assert_eq!(class_of(16, &format!("select(j <= i, {AB}, 0.0)")), c);
    assert_eq!(
        class_of(16, &format!("select(i > 3 && j > 3, {AB}, c[j])")),
        c
    );
    assert_eq!(class_of(16, &format!("select(c[j] == 0.0, {AB}, 0.0)")), c);
    assert_eq!(class_of(16, &format!("select(j == 3, c[j], {AB})")), c);
    assert_eq!(class_of(16, &format!("select(j != 3, {AB}, c[j])")), c);
    assert_eq!(class_of(3, AB), "contraction 3");
}

#[test]
fn folds_on_a_line_short_dependent_or_unshared_are_elementwise() {
    let e = "elementwise";
    // Picked in one column, one row, or on their cross only.
    assert_eq!(class_of(16, &format!("select(j == 3, {AB}, c[j])")), e);
    assert_eq!(
        class_of(16, &format!("select(i == 3 && j > 3, {AB}, c[j])")),
        e
    );
    assert_eq!(
        class_of(16, &format!("select(i == 2 || j == 2, {AB}, 0.0)")),
        e
    );
    assert_eq!(class_of(16, &format!("select(!(j != 3), {AB}, 0.0)")), e);
    assert_eq!(class_of(16, &format!("select(j != 3, c[j], {AB})")), e);
    assert_eq!(
        class_of(
            16,
            &format!("select(i > 2, select(i + j == 9, {AB}, 0.0), c[i])")
        ),
        e
    );
    // A few steps (the fewest worth a tile are 3).
    assert_eq!(class_of(2, AB), e);
    // A count over an enclosing index (a triangular fold).
    assert_eq!(class_of(16, "reduce i |p| a[i * K + p] * b[p * 16 + j]"), e);
    // No outer product: a row against a fixed vector, a stencil as a fold.
    assert_eq!(class_of(16, "reduce K |p| a[i * K + p] * b[p * 16]"), e);
    assert_eq!(class_of(16, "reduce 16 |p| x[(i + p) * 16 + j] * b[p]"), e);
    // Two folds.
    assert_eq!(
        class_of(16, &format!("{AB} + (reduce K |p| b[p * 16 + j])")),
        e
    );
}

/// A Cholesky step (a matrix-wide select folding in column `k`) and a
/// ludcmp step (folding in row `k`) take `coarsen` one element per
/// invocation on a CPU and on a GPU, not a tile, and a right-looking LU
/// step (no fold) longer runs; the masked product `M M^T` that Cholesky
/// starts from keeps its tile.
#[test]
fn factorization_steps_are_scheduled_elementwise() {
    let src = "param N = 64\ninput P: f32[N * N]\ninput A: f32[N * N]\ninput d: f32[1]\n\
        output L = compute N |i| compute N |j| select(j == 40 && i > 40, \
        (A[i * N + 40] - (reduce 40 |p| P[i * N + p] * P[40 * N + p])) / d[0], \
        select(j == 40 && i == 40, d[0], P[i * N + j]))\n\
        output U = compute N |i| compute N |j| select(i == 20 && j >= 20, \
        P[20 * N + j] - (reduce 20 |p| P[20 * N + p] * P[p * N + j]), A[i * N + j])\n\
        output S = compute N |i| compute N |j| \
        select(j <= i, (reduce N |p| A[i * N + p] * A[j * N + p]) / f32(N), 0.0)\n\
        output R = compute N |i| compute N |j| select(i > 9 && j > 9, \
        P[i * N + j] - P[i * N + 9] * P[9 * N + j] / P[9 * N + 9], P[i * N + j])\n";
    let p = texpr_syntax::frontend(src, &[]).unwrap();
    for target in [cpu(true), Target::default()] {
        let s = heuristic(&p, &target);
        let per = |item: &str| match s.get(item) {
            Strategy::Coarsen { per_thread, .. } => per_thread,
            other => panic!("{item}: {other}"),
        };
        assert_eq!((per("L"), per("U")), (1, 1));
        assert!(per("R") > 1);
        assert!(
            matches!(s.get("S"), Strategy::Tile { .. }),
            "S: {}",
            s.get("S")
        );
    }
}
