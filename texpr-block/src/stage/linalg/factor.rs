//! The factor of a diagonal tile (`potrf`), as IR.
//!
//! `potrf` and `trsm` ([`super::solve`]) run one algorithm, blocked
//! Cholesky with inverted diagonal blocks (as GPU libraries such as MAGMA
//! run it): columns go by blocks of `w` ([`super::blocks`]). A block's
//! `w x w` diagonal part is factored column by column (`D`) while its
//! inverse is formed row by row (`Z`), and every row below the diagonal
//! part is a product, `U Zᵀ`, of what is left of the row once the columns
//! before the block are subtracted (`U`). The dense reference runs the same
//! algorithm ([`potrf`] over the whole matrix with the same `w`), so every
//! element a tile task makes is the reference's sum of the same terms, in
//! another order.

use super::blocks::{Columns, tile_blocks};
use crate::stage::build::{
    Bind, Body, add, and, at, bin, cm, div, int, lit, mul, read, read_else, select, sub, tadd, tc,
    tmul, trem, tsub, tv, unary, zeros,
};
use texpr_ir::{BinOp, Expr, ReduceOp, Term, UnaryOp, VarId, VecRef};

/// Reads element `(row, col)` of an operand.
pub type At<'a> = &'a dyn Fn(Term, Term) -> Expr;

/// `parts` found in turn, each `step(s, part, the value so far, bind)`
/// (which binds its value as told and returns its vector), the first from
/// zeros of `len` elements; each but the last is a `let` named
/// `{prefix}{k}`, the last is bound as `bind` says. Returns the last
/// part's vector (none without parts).
pub fn chain(
    s: &mut Body,
    prefix: &str,
    len: u64,
    parts: &[Columns],
    bind: Bind,
    step: impl Fn(&mut Body, Columns, Expr, Bind) -> VecRef,
) -> Option<VecRef> {
    let mut from = zeros(len);
    for (at, c) in parts.iter().enumerate() {
        if at + 1 == parts.len() {
            return Some(step(s, *c, from, bind));
        }
        let name = format!("{prefix}{at}");
        let made = step(s, *c, from, Bind::Let(&name));
        from = s.whole(made);
    }
    s.bind(bind, from);
    None
}

/// A diagonal tile's factor ([`potrf`] by its [`tile_blocks`]), bound as `bind` says.
pub fn potrf_tile(s: &mut Body, n: u64, a: At, bind: Bind) {
    chain(
        s,
        "part",
        n * n,
        &tile_blocks(n),
        bind,
        |s, c, from, bind| potrf(s, n, c, a, from, bind),
    );
}

/// `x - Σ_{q < t} a(q) b(q)` at step `t` of a loop of `w` steps (`x` when
/// `w` is 1: the only step has no terms).
pub(super) fn minus_sum(
    s: &mut Body,
    w: u64,
    t: VarId,
    x: Expr,
    ab: impl Fn(VarId) -> (Expr, Expr),
) -> Expr {
    if w == 1 {
        return x;
    }
    let sum = s.reduce_steps(w, tv(t), "q", |_, q| {
        let (a, b) = ab(q);
        mul(a, b)
    });
    sub(x, sum)
}

/// Element `(t, col)` of the inverse of a lower triangular block `f`, found
/// at step `t` from the rows before it (`z`): `(δ - Σ_q f(t, q) z(q, col)) / d`,
/// where `d` is `f(t, t)`; `col` as a value and as an index term.
pub(super) fn inverse_row(
    s: &mut Body,
    (w, t): (u64, VarId),
    f: At,
    d: Expr,
    z: At,
    col: (Expr, Term),
) -> Expr {
    let delta = select(bin(BinOp::Eq, col.0, at(t)), lit(1.0), lit(0.0));
    let x = minus_sum(s, w, t, delta, |q| {
        (f(tv(t), tv(q)), z(tv(q), col.1.clone()))
    });
    div(x, d)
}

/// The lower Cholesky factor of the `n x n` matrix `a` (its lower triangle
/// used), column-major, zero above the diagonal, bound as `bind` says:
/// columns `c.first..` of it (the ones before them already in `from`), by
/// blocks of `c.w` columns (`c.w` divides `c.cols`). Each step subtracts the
/// columns found so far from the block's columns of `a` (one product, `U`),
/// factors the block's diagonal part and inverts it in one loop of `w`
/// steps over a `w x 2w` state (`D` beside `Z`), then writes the rows below
/// it as `U Zᵀ`. Returns the loop's state.
pub fn potrf(s: &mut Body, n: u64, c: Columns, a: At, from: Expr, bind: Bind) -> VecRef {
    let w = c.w;
    let ww = w * w;
    s.iterate(bind, c.cols / w, from, "g", |s, l, g| {
        let b0 = c.start(g);
        let u = s.compute(w, "jj", |s, jj| {
            s.compute(n, "i", |s, i| {
                let k = tadd(b0.clone(), tv(jj));
                if !c.has_before() {
                    return a(tv(i), k);
                }
                let sum = s.reduce_steps(c.first + c.cols, b0.clone(), "p", |_, p| {
                    mul(
                        read(l, cm(tv(i), tv(p), n)),
                        read(l, cm(k.clone(), tv(p), n)),
                    )
                });
                sub(a(tv(i), k.clone()), sum)
            })
        });
        let u = s.global("U", u);
        // `D` and `Z` side by side in one state, so each step is one kernel.
        let dz = s.iterate(Bind::Let("DZ"), w, zeros(2 * ww), "t", |s, dz, t| {
            let dd = move |r: Term, c: Term| read(dz, cm(r, c, w));
            let zz = move |r: Term, c: Term| {
                read(dz, tadd(tadd(tc(ww as i64), r), tmul(c, tc(w as i64))))
            };
            let pivot = read(u, cm(tadd(b0.clone(), tv(t)), tv(t), n));
            let d = minus_sum(s, w, t, pivot, |q| (dd(tv(t), tv(q)), dd(tv(t), tv(q))));
            let d = unary(UnaryOp::Sqrt, d);
            s.compute(2 * w, "col", |s, col| {
                s.compute(w, "row", |s, row| {
                    let (colv, rowv, tvv) = (at(col), at(row), at(t));
                    let below = read(u, cm(tadd(b0.clone(), tv(row)), tv(t), n));
                    let below =
                        minus_sum(s, w, t, below, |q| (dd(tv(row), tv(q)), dd(tv(t), tv(q))));
                    let factor = s.let_in("d", d.clone(), |_, dv| {
                        select(
                            bin(BinOp::Eq, rowv.clone(), tvv.clone()),
                            dv.clone(),
                            div(below, dv),
                        )
                    });
                    let column = select(
                        and(
                            bin(BinOp::Eq, colv.clone(), tvv.clone()),
                            bin(BinOp::Ge, rowv.clone(), tvv.clone()),
                        ),
                        factor,
                        dd(tv(row), tv(col)),
                    );
                    // Column `col - w` of `Z`, which is `col % w` there.
                    let zc = trem(tv(col), tc(w as i64));
                    let zcv = bin(BinOp::Rem, colv.clone(), int(w));
                    let inv =
                        inverse_row(s, (w, t), &dd, d.clone(), &zz, (zcv.clone(), zc.clone()));
                    let row_of_z = select(
                        and(
                            bin(BinOp::Eq, rowv.clone(), tvv.clone()),
                            bin(BinOp::Le, zcv, tvv),
                        ),
                        inv,
                        zz(tv(row), zc),
                    );
                    select(bin(BinOp::Lt, colv, int(w)), column, row_of_z)
                })
            })
        });
        let zz =
            move |r: Term, c: Term| read(dz, tadd(tadd(tc(ww as i64), r), tmul(c, tc(w as i64))));
        let b0v = c.start_value(g);
        // Column `j`'s place in its block (blocks start at `c.first`).
        let shift = (w - c.first % w) % w;
        s.tile((n, n), |s, i, j| {
            let jw = if shift == 0 {
                trem(tv(j), tc(w as i64))
            } else {
                trem(tadd(tv(j), tc(shift as i64)), tc(w as i64))
            };
            let (iv, jv) = (at(i), at(j));
            let block = and(
                bin(BinOp::Ge, jv.clone(), b0v.clone()),
                bin(BinOp::Lt, jv, add(b0v.clone(), int(w))),
            );
            let below = s.reduce(ReduceOp::Add, w, "t", |_, t| {
                mul(read(u, cm(tv(i), tv(t), n)), zz(jw.clone(), tv(t)))
            });
            let diag = read_else(dz, tadd(tsub(tv(i), b0.clone()), tmul(jw, tc(w as i64))));
            let before = read(l, cm(tv(i), tv(j), n));
            let inside = select(
                bin(BinOp::Ge, iv.clone(), add(b0v.clone(), int(w))),
                below,
                select(bin(BinOp::Ge, iv, b0v.clone()), diag, before.clone()),
            );
            select(block, inside, before)
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_ragged_block_is_placed_from_its_parts_first_column() {
        // Blocks of 31 from column 224: column 224 is the block's first.
        let mut s = Body::default();
        let a = s.input("a", 255 * 255);
        let l0 = s.input("l0", 255 * 255);
        let at = move |i: Term, j: Term| read(a, cm(i, j, 255));
        let c = Columns {
            first: 224,
            cols: 31,
            w: 31,
        };
        let from = s.whole(l0);
        potrf(&mut s, 255, c, &at, from, Bind::Output("out"));
        let text = texpr_ir::print::program(&s.finish());
        assert!(text.contains("(j + 24) % 31"), "{text}");
        assert!(text.contains("reduce 224 + g * 31 |p|"), "{text}");
    }
}
