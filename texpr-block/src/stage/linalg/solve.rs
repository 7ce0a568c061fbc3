//! Solves as IR: a tile against a factor (`trsm`), the substitution of a
//! solve's tile (`trsv`), and the dense reference's solve by blocks of rows
//! (`blocked_solve`), each block's diagonal inverted as [`super::factor`]
//! inverts it.

use super::blocks::{Columns, tile_blocks};
use super::factor::{At, inverse_row};
use crate::stage::build::{
    Bind, Body, add, and, at, bin, cm, int, mul, read, read_else, select, sub, tadd, tc, tdiv,
    tmul, trem, tsub, tv, zeros,
};
use texpr_ir::{BinOp, Expr, ReduceOp, Term, VarId, VecRef};

/// `X = B L^-T` for the `m x n` matrix `b` and the lower triangular
/// `n x n` factor `l` (`X L^T = B`), by the diagonal tile's blocks
/// ([`tile_blocks`]), as [`potrf`] finds the rows below a diagonal block:
/// each block of `X` is `U Zᵀ`, `Z` the inverse of `l`'s diagonal block
/// (all of one width formed in one loop) and `U` what is left of `b`'s
/// block once the blocks of `X` before it are subtracted. The blocks are found by
/// halves (the left half, the right half's remainder as one product, then
/// the right half), so every product has a fixed size. Makes the `let`s
/// before the result, and returns the result.
pub fn trsm(s: &mut Body, m: u64, n: u64, b: At, l: At) -> Expr {
    let mut blocks = Vec::new();
    // The inverses of the diagonal blocks, one loop for each width.
    for (k, c) in tile_blocks(n).into_iter().enumerate() {
        let (w, ww) = (c.w, c.w * c.w);
        let wt = tc(w as i64);
        let name = format!("inv{k}");
        let inverse = s.iterate(Bind::Let(&name), w, zeros(c.cols * w), "t", |s, inv, t| {
            s.compute(c.cols, "bc", |s, bc| {
                s.compute(w, "row", |s, row| {
                    let base = || {
                        tadd(
                            tc(c.first as i64),
                            tmul(tdiv(tv(bc), wt.clone()), wt.clone()),
                        )
                    };
                    let f = |r: Term, col: Term| l(tadd(base(), r), tadd(base(), col));
                    let z = |r: Term, col: Term| {
                        let at = tmul(tdiv(tv(bc), wt.clone()), tc(ww as i64));
                        read(inv, tadd(tadd(at, r), tmul(col, wt.clone())))
                    };
                    let colv = bin(BinOp::Rem, at(bc), int(w));
                    let colt = trem(tv(bc), wt.clone());
                    let d = f(tv(t), tv(t));
                    let value = inverse_row(s, (w, t), &f, d, &z, (colv.clone(), colt));
                    let cond = and(bin(BinOp::Eq, at(row), at(t)), bin(BinOp::Le, colv, at(t)));
                    select(
                        cond,
                        value,
                        read(inv, tadd(tmul(tv(bc), wt.clone()), tv(row))),
                    )
                })
            })
        });
        for k in 0..c.cols / w {
            blocks.push(Block {
                first: c.first + k * w,
                w,
                inverse,
                at: k * ww,
            });
        }
    }
    let mut t = Trsm {
        m,
        b,
        l,
        lets: 0,
        blocks,
    };
    let end = t.blocks.len();
    t.solve(s, 0, end, None)
}

/// A diagonal block of [`trsm`]'s factor: its columns and its inverse
/// (`w x w` from element `at` of the state `inverse`).
struct Block {
    first: u64,
    w: u64,
    inverse: VecRef,
    at: u64,
}

/// [`trsm`]'s solve as it grows: the `let`s so far.
struct Trsm<'a> {
    m: u64,
    b: At<'a>,
    l: At<'a>,
    lets: usize,
    blocks: Vec<Block>,
}

impl Trsm<'_> {
    /// Element `(i, col + rel)` of what is left of the right-hand side:
    /// `b`'s (`src` None) or the `let` `src.0` whose column 0 is column `src.1`.
    fn read(&self, src: Option<(VecRef, u64)>, i: VarId, col: u64, rel: Term) -> Expr {
        match src {
            None => (self.b)(tv(i), tadd(tc(col as i64), rel)),
            Some((v, first)) => read(v, cm(tv(i), tadd(tc((col - first) as i64), rel), self.m)),
        }
    }

    fn define(&mut self, s: &mut Body, prefix: &str, value: Expr) -> VecRef {
        self.lets += 1;
        s.global(&format!("{prefix}{}", self.lets), value)
    }

    /// The columns of blocks `b0..b1` of `X` from what is left of the
    /// right-hand side (`src`): the value (named by the caller).
    fn solve(&mut self, s: &mut Body, b0: usize, b1: usize, src: Option<(VecRef, u64)>) -> Expr {
        let m = self.m;
        let c0 = self.blocks[b0].first;
        if b1 - b0 == 1 {
            let blk = &self.blocks[b0];
            let (w, inverse, first) = (blk.w, blk.inverse, blk.at);
            return s.compute(w, "jj", |s, jj| {
                s.compute(m, "i", |s, i| {
                    s.reduce(ReduceOp::Add, w, "t", |_, t| {
                        let z = tadd(tadd(tc(first as i64), tv(jj)), tmul(tv(t), tc(w as i64)));
                        mul(self.read(src, i, c0, tv(t)), read(inverse, z))
                    })
                })
            });
        }
        let b_mid = b0 + (b1 - b0).div_ceil(2);
        let mid = self.blocks[b_mid].first;
        let end = self.blocks[b1 - 1].first + self.blocks[b1 - 1].w;
        let half = mid - c0;
        let left = self.solve(s, b0, b_mid, src);
        let left = self.define(s, "x", left);
        let rest = s.compute(end - mid, "jj", |s, jj| {
            s.compute(m, "i", |s, i| {
                let sum = s.reduce(ReduceOp::Add, half, "p", |_, p| {
                    let l = (self.l)(tadd(tc(mid as i64), tv(jj)), tadd(tc(c0 as i64), tv(p)));
                    mul(read(left, cm(tv(i), tv(p), m)), l)
                });
                sub(self.read(src, i, mid, tv(jj)), sum)
            })
        });
        let rest = self.define(s, "r", rest);
        let right = self.solve(s, b_mid, b1, Some((rest, mid)));
        let right = self.define(s, "x", right);
        s.tile((m, end - c0), |_, i, j| {
            select(
                bin(BinOp::Lt, at(j), int(half)),
                read_else(left, cm(tv(i), tv(j), m)),
                read_else(right, cm(tv(i), tsub(tv(j), tc(half as i64)), m)),
            )
        })
    }
}

/// Index `x` of `n`, counted from the end when `upper`.
pub fn flip(n: u64, upper: bool, x: Term) -> Term {
    if upper { tsub(tc(n as i64 - 1), x) } else { x }
}

/// Reads `at` with rows and columns reversed in an `n x n` matrix when
/// `upper` (an upper triangle read so is a lower one).
pub fn reversed<'a>(n: u64, upper: bool, at: At<'a>) -> impl Fn(Term, Term) -> Expr + 'a {
    move |i: Term, j: Term| at(flip(n, upper, i), flip(n, upper, j))
}

/// `X = T^-1 B` for the triangular `n x n` tile `t` (read below and on its
/// diagonal, or above and on it when `upper`) and the `n x r` matrix `b`,
/// by blocks of rows with inverted diagonal blocks: `Xᵀ = Bᵀ T^-T` is
/// [`trsm`] of `Bᵀ` against `T` (for an upper `T`, rows and columns
/// reversed, which makes it lower), whose result is read back transposed.
/// Makes the `let`s before the result, and returns the result.
pub fn trsv(s: &mut Body, n: u64, r: u64, t: At, b: At, upper: bool) -> Expr {
    let tri = reversed(n, upper, t);
    let bt = |i: Term, c: Term| b(flip(n, upper, c), i);
    let value = trsm(s, r, n, &bt, &tri);
    let xt = s.global("xt", value);
    s.tile((n, r), |_, i, j| {
        read(xt, tadd(tv(j), tmul(flip(n, upper, tv(i)), tc(r as i64))))
    })
}

/// Rows `c.first..` of `X = T^-1 B` (the rows before them already in
/// `from`), bound as `bind` says, for a lower triangular `n x n` matrix `t`
/// (an upper one read [`reversed`]) and the `n x r` matrix `b`, by blocks of
/// `c.w` rows: each block is `Z U`, `U` what is left of `b`'s block once
/// the rows before are subtracted, `Z` the inverse of `t`'s diagonal block
/// (found as [`trsm`] finds it), so each element is a sum of the same terms
/// as [`trsv`]'s. Returns the loop's state.
pub fn blocked_solve(
    s: &mut Body,
    (n, r): (u64, u64),
    c: Columns,
    t: At,
    b: At,
    from: Expr,
    bind: Bind,
) -> VecRef {
    let w = c.w;
    let wt = tc(w as i64);
    s.iterate(bind, c.cols / w, from, "g", |s, x, g| {
        let b0 = c.start(g);
        let u = s.compute(r, "j", |s, j| {
            s.compute(w, "ii", |s, ii| {
                let row = tadd(b0.clone(), tv(ii));
                if !c.has_before() {
                    return b(row, tv(j));
                }
                let sum = s.reduce_steps(c.first + c.cols, b0.clone(), "p", |_, p| {
                    mul(t(row.clone(), tv(p)), read(x, cm(tv(p), tv(j), n)))
                });
                sub(b(row.clone(), tv(j)), sum)
            })
        });
        let u = s.global("U", u);
        let f = |i: Term, j: Term| t(tadd(b0.clone(), i), tadd(b0.clone(), j));
        let z = s.iterate(Bind::Let("Z"), w, zeros(w * w), "t", |s, z, step| {
            let zr = move |i: Term, j: Term| read(z, cm(i, j, w));
            s.compute(w, "col", |s, col| {
                s.compute(w, "row", |s, row| {
                    let d = f(tv(step), tv(step));
                    let inv = inverse_row(s, (w, step), &f, d, &zr, (at(col), tv(col)));
                    let cond = and(
                        bin(BinOp::Eq, at(row), at(step)),
                        bin(BinOp::Le, at(col), at(step)),
                    );
                    select(cond, inv, zr(tv(row), tv(col)))
                })
            })
        });
        let b0v = c.start_value(g);
        s.tile((n, r), |s, i, j| {
            let iv = at(i);
            let cond = and(
                bin(BinOp::Ge, iv.clone(), b0v.clone()),
                bin(BinOp::Lt, iv, add(b0v.clone(), int(w))),
            );
            let block = s.reduce(ReduceOp::Add, w, "q", |_, q| {
                let zq = read_else(z, tadd(tsub(tv(i), b0.clone()), tmul(tv(q), wt.clone())));
                mul(zq, read(u, cm(tv(q), tv(j), w)))
            });
            select(cond, block, read(x, cm(tv(i), tv(j), n)))
        })
    })
}
