//! Which 2D items are contractions worth tiling: the rule behind
//! [`super::shape::Shape::Contraction`].
//!
//! A register tile computes an `RI x RJ` block of a `Tiled` item
//! ([`super::shape::Tiled`]) in one invocation, and pays when the block's
//! elements share their work: each step of the fold loads `RI` values that
//! depend on the row (and not the column) and `RJ` that depend on the
//! column (and not the row), and combines them in `RI * RJ` products. So an item is a contraction only
//! when *every* element folds a *long* reduction over such operands (an
//! outer product each step, as `a[i, k] * b[k, j]`):
//!
//! - `S` holds exactly one outermost scalar `reduce` ([`single_reduce`]),
//!   and not in a `select`'s branch picked on a line of the result only (its
//!   condition pins the row or the column: `j == k`, `i == k && j > k`).
//!   Code generation computes a branch that folds only where the condition
//!   picks it ([`Shape`]'s elementwise form keeps that), while a tile folds
//!   for every element of its block: a matrix-wide update `select(j == k,
//!   ... reduce ..., A[i, j])` that folds in one column of `N` would fold
//!   `N` times as often (Cholesky's and LU's steps). A branch picked on a
//!   share of the result (`select(j <= i, ...)`, a triangle) keeps a
//!   constant share of the folds, which a tile's speed repays;
//! - its count is a constant (a count over an enclosing index, `reduce k
//!   |p|`, is a loop of one invocation's own, which tiles do not take) of at
//!   least [`MIN_STEPS`];
//! - its body reads some input or global at an index that moves with the
//!   fold and the row `i` but not the column `j`, and another that moves
//!   with the fold and `j` but not `i`. A fold whose operands all depend on
//!   both (a stencil written as a `reduce`), or on one of them only (a row
//!   of `L` against a fixed row `L[k, p]`), shares nothing across a block.
//!
//! [`Shape`]: super::shape::Shape

use texpr_ir::{BinOp, Expr, ExprKind, Func, UnaryOp, VarId, VecRef};

/// The fewest steps of a contraction worth tiling: on llvmpipe a tile of
/// 2 steps ran slower than the default and coarsening, one of 3 faster
/// (docs/benchmark-history.md, *The preference tables*).
pub const MIN_STEPS: u64 = 3;

/// The single outermost `reduce` of `s`, when there is exactly one and it is
/// scalar: `s` is then that reduction's epilogue (a contraction that
/// register tiles accumulate).
pub fn single_reduce(s: &Expr) -> Option<&Expr> {
    let found = s.find_outermost(|e| matches!(e.kind, ExprKind::Reduce { .. }));
    match found.as_slice() {
        [r] if r.ty.len == 1 => Some(*r),
        _ => None,
    }
}

/// The number of steps of the fold of `s`, the element `(i, j)` of a
/// [`Tiled`] item, when the item is a contraction worth tiling (see the
/// module docs), else `None`.
///
/// [`Tiled`]: super::shape::Tiled
pub fn contraction(s: &Expr, i: VarId, j: VarId) -> Option<u64> {
    let fold = single_reduce(s)?;
    let ExprKind::Reduce {
        n,
        var,
        body,
        steps: None,
        ..
    } = &fold.kind
    else {
        return None;
    };
    if *n < MIN_STEPS || on_a_line(s, fold, i, j) {
        return None;
    }
    // Reads hold no reads: the outermost ones are all of them. A `let`'s
    // vector inside `S` is not an operand a block could share.
    let reads = body.find_outermost(|e| {
        matches!(&e.kind, ExprKind::Index { vec, index, .. }
            if !matches!(vec, VecRef::Local(_)) && index.mentions(*var))
    });
    let along = |v, not| {
        reads.iter().any(|r| match &r.kind {
            ExprKind::Index { index, .. } => index.mentions(v) && !index.mentions(not),
            _ => false,
        })
    };
    (along(i, j) && along(j, i)).then_some(*n)
}

/// Whether `node` (a node of `s`) stands in a branch of some `select` of
/// `s` that is picked on a line of the result at most: the first operand
/// of `select(c, a, b)` where `c` pins `i` or `j` ([`pins`]), the second
/// where `!c` does.
fn on_a_line(s: &Expr, node: &Expr, i: VarId, j: VarId) -> bool {
    let holds = |e: &Expr| e.any(|x| std::ptr::eq(x, node));
    s.any(|e| match &e.kind {
        ExprKind::Call(Func::Select, args) => {
            (holds(&args[1]) && pins(&args[0], false, i, j))
                || (holds(&args[2]) && pins(&args[0], true, i, j))
        }
        _ => false,
    })
}

/// Whether condition `c` (negated when `negated`) holds on a line of the
/// `(i, j)` plane at most: it requires an equation of index values (no
/// read) that mentions `i` or `j`. `&&` pins when either side does, `||`
/// when both do, `!` swaps `==` and `!=`; an inequality pins nothing (a
/// half plane), nor does a comparison of values read from memory (its share
/// is the data's).
fn pins(c: &Expr, negated: bool, i: VarId, j: VarId) -> bool {
    // A condition's own recursion: its depth is bounded like every tree's
    // (`parse::MAX_NESTING`), and the walks of `visit` carry no polarity.
    match &c.kind {
        ExprKind::Unary(UnaryOp::Not, a) => pins(a, !negated, i, j),
        ExprKind::Binary(op @ (BinOp::And | BinOp::Or), a, b) => {
            let both = (*op == BinOp::And) == negated;
            let (pa, pb) = (pins(a, negated, i, j), pins(b, negated, i, j));
            if both { pa && pb } else { pa || pb }
        }
        ExprKind::Binary(op @ (BinOp::Eq | BinOp::Ne), a, b) => {
            let equation = (*op == BinOp::Eq) != negated;
            let index_values = |e: &Expr| !e.any(|x| matches!(x.kind, ExprKind::Index { .. }));
            let moves = |e: &Expr| e.mentions(i) || e.mentions(j);
            equation && index_values(a) && index_values(b) && (moves(a) || moves(b))
        }
        _ => false,
    }
}
