//! The tile kernels' TExpr text: the factor of a diagonal tile (`potrf`),
//! a tile solved against a factor (`trsm`), and the substitution of a
//! solve (`trsv`).
//!
//! `potrf` and `trsm` run one algorithm, blocked Cholesky with inverted
//! diagonal blocks (as GPU libraries such as MAGMA run it): columns go by
//! blocks of `w` ([`factor_width`]). A block's `w x w` diagonal part is
//! factored column by column (`D`) while its inverse is formed row by row
//! (`Z`), and every row below the diagonal part is a product, `U Zᵀ`, of
//! what is left of the row once the columns before the block are
//! subtracted (`U`). The dense reference runs the same algorithm ([`potrf`]
//! over the whole matrix with the same `w`), so every element a tile task
//! makes is the reference's sum of the same terms, in another order.

/// Reads element `(row, col)` of an operand, given TExpr index texts.
pub type At<'a> = &'a dyn Fn(&str, &str) -> String;

/// The widest block of columns (or rows) the tile kernels factor or
/// invert in one loop.
const BLOCK: u64 = 32;

/// Columns `first..first + cols` of a factor, found by blocks of `w`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Columns {
    pub first: u64,
    pub cols: u64,
    pub w: u64,
}

impl Columns {
    /// The first column of step `g`'s block, as TExpr text.
    fn block_start(&self) -> String {
        if self.first == 0 {
            format!("g * {}", self.w)
        } else {
            format!("{} + g * {}", self.first, self.w)
        }
    }

    /// Whether some block has columns before it (to subtract).
    fn has_before(&self) -> bool {
        self.first > 0 || self.cols > self.w
    }
}

/// The blocks of a diagonal tile of order `n`: of [`BLOCK`] columns, the
/// last one ragged (all of them when `n` is at most [`BLOCK`]).
pub fn tile_blocks(n: u64) -> Vec<Columns> {
    let full = n / BLOCK * BLOCK;
    let mut out = Vec::new();
    if full > 0 {
        out.push(Columns {
            first: 0,
            cols: full,
            w: BLOCK,
        });
    }
    if n > full {
        out.push(Columns {
            first: full,
            cols: n - full,
            w: n - full,
        });
    }
    out
}

/// The blocks of tiles of orders `tiles`, one after another (each tile's
/// [`tile_blocks`]), runs of blocks of one width as one.
fn blocks_of(tiles: impl Iterator<Item = u64>) -> Vec<Columns> {
    let mut out: Vec<Columns> = Vec::new();
    let mut first = 0;
    for n in tiles {
        for c in tile_blocks(n) {
            let c = Columns {
                first: first + c.first,
                ..c
            };
            match out.last_mut() {
                Some(last) if last.w == c.w => last.cols += c.cols,
                _ => out.push(c),
            }
        }
        first += n;
    }
    out
}

/// The order of each tile of a matrix of order `n` in tiles of `t`.
fn tile_orders(n: u64, t: u64) -> Vec<u64> {
    (0..n.div_ceil(t.max(1)))
        .map(|k| t.min(n - k * t))
        .collect()
}

/// How the dense reference finds the factor of order `n` in tiles of `t`:
/// by the blocks the tile tasks use ([`tile_blocks`] of each column tile).
pub fn factor_columns(n: u64, t: u64) -> Vec<Columns> {
    blocks_of(tile_orders(n, t).into_iter())
}

/// `parts` found in turn, each `step(part, the value so far)`, the first
/// from zeros of `len` elements; each but the last is a `let` named
/// `{prefix}{k}`. Returns the `let`s and the last part's value.
pub fn chain(
    prefix: &str,
    len: u64,
    parts: &[Columns],
    step: impl Fn(Columns, &str) -> String,
) -> (String, String) {
    let mut from = format!("fill(0.0, {len})");
    let mut lets = String::new();
    for (at, c) in parts.iter().enumerate() {
        let value = step(*c, &from);
        if at + 1 == parts.len() {
            return (lets, value);
        }
        from = format!("{prefix}{at}");
        lets.push_str(&format!("let {from}: f32[{len}] = {value}\n"));
    }
    (lets, from)
}

/// A diagonal tile's factor ([`potrf`] by its [`tile_blocks`]): the `let`s
/// before the result, and the result.
pub fn potrf_tile(n: u64, a: At) -> (String, String) {
    chain("part", n * n, &tile_blocks(n), |c, from| {
        potrf(n, c, a, from)
    })
}

/// Element `(t, col)` of the inverse of a lower triangular block `f`, found
/// at step `t` from the rows before it (`z`): `(δ - Σ_q f(t, q) z(q, col)) / d`,
/// where `d` is `f(t, t)`.
fn inverse_row(w: u64, f: At, d: &str, z: At, col: &str) -> String {
    format!(
        "(select({col} == t, 1.0, 0.0){}) / {d}",
        minus_sum(w, &f("t", "q"), &z("q", col))
    )
}

/// ` - Σ_{q < t} a b` at step `t` of a loop of `w` steps (nothing when
/// `w` is 1: the only step has no terms).
fn minus_sum(w: u64, a: &str, b: &str) -> String {
    if w == 1 {
        String::new()
    } else {
        format!(" - (reduce t |q| {a} * {b})")
    }
}

/// The lower Cholesky factor of the `n x n` matrix `a` (its lower triangle
/// used), column-major, zero above the diagonal: columns `c.first..` of it
/// (the ones before them already in `from`), by blocks of `c.w` columns
/// (`c.w` divides `c.cols`). Each step subtracts the columns found so far
/// from the block's columns of `a` (one product, `U`), factors the block's
/// diagonal part and inverts it in one loop of `w` steps over a `w x 2w`
/// state (`D` beside `Z`), then writes the rows below it as `U Zᵀ`.
pub fn potrf(n: u64, c: Columns, a: At, from: &str) -> String {
    let w = c.w;
    let b0 = c.block_start();
    let k = format!("({b0} + jj)");
    let before = if !c.has_before() {
        a("i", &k)
    } else {
        format!(
            "{} - (reduce ({b0}) |p| L[i + p * {n}] * L[{k} + p * {n}])",
            a("i", &k)
        )
    };
    let ww = w * w;
    // `D` and `Z` side by side in one state, so each step is one kernel.
    let dd = |r: &str, c: &str| format!("DZ[{r} + ({c}) * {w}]");
    let zz = |r: &str, c: &str| format!("DZ[{ww} + {r} + ({c}) * {w}]");
    let d = format!(
        "sqrt(U[({b0} + t) + t * {n}]{})",
        minus_sum(w, &dd("t", "q"), &dd("t", "q"))
    );
    let column = format!(
        "select(col == t && row >= t, (let d = {d} in select(row == t, d, (U[({b0} + row) + t * {n}]{}) / d)), {})",
        minus_sum(w, &dd("row", "q"), &dd("t", "q")),
        dd("row", "col"),
    );
    // Column `col - w` of `Z`, which is `col % w` there.
    let zc = format!("(col % {w})");
    let row = format!(
        "select(row == t && {zc} <= t, {}, {})",
        inverse_row(w, &dd, &d, &zz, &zc),
        zz("row", &zc),
    );
    let block = format!("j >= {b0} && j < {b0} + {w}");
    // Column `j`'s place in its block (blocks start at `c.first`).
    let shift = (w - c.first % w) % w;
    let jw = if shift == 0 {
        format!("j % {w}")
    } else {
        format!("(j + {shift}) % {w}")
    };
    format!(
        "iterate {steps} from {from} |L, g| {{\n    let U = compute {w} |jj| compute {n} |i| {before}\n    let DZ = iterate {w} from fill(0.0, {dz}) |DZ, t| compute {w2} |col| compute {w} |row| select(col < {w}, {column}, {row})\n    yield compute {n} |j| compute {n} |i| select({block}, select(i >= {b0} + {w}, (reduce {w} |t| U[i + t * {n}] * {zt}), select(i >= {b0}, DZ[(i - ({b0})) + ({jw}) * {w}] else 0.0, L[i + j * {n}])), L[i + j * {n}])\n}}",
        steps = c.cols / w,
        dz = 2 * ww,
        w2 = 2 * w,
        zt = zz(&jw, "t"),
    )
}

/// `X = B L^-T` for the `m x n` matrix `b` and the lower triangular
/// `n x n` factor `l` (`X L^T = B`), by the diagonal tile's blocks
/// ([`tile_blocks`]), as [`potrf`] finds the rows below a diagonal block:
/// each block of `X` is `U Zᵀ`, `Z` the inverse of `l`'s diagonal block
/// (all of one width formed in one loop) and `U` what is left of `b`'s
/// block once the blocks of `X` before it are subtracted. The blocks are found by
/// halves (the left half, the right half's remainder as one product, then
/// the right half), so every product has a fixed size. Returns the `let`s
/// before the result and the result.
pub fn trsm(m: u64, n: u64, b: At, l: At) -> (String, String) {
    let mut t = Trsm {
        m,
        b,
        l,
        items: String::new(),
        lets: 0,
        blocks: Vec::new(),
    };
    // The inverses of the diagonal blocks, one loop for each width.
    for (s, c) in tile_blocks(n).into_iter().enumerate() {
        let w = c.w;
        let ww = w * w;
        let base = format!("({} + bc / {w} * {w})", c.first);
        let f = |r: &str, col: &str| l(&format!("({base} + {r})"), &format!("({base} + {col})"));
        let z = |r: &str, col: &str| format!("inv{s}[bc / {w} * {ww} + {r} + ({col}) * {w}]");
        t.items.push_str(&format!(
            "let inv{s} = iterate {w} from fill(0.0, {len}) |inv{s}, t| compute {cols} |bc| compute {w} |row| select(row == t && bc % {w} <= t, {}, inv{s}[bc * {w} + row])\n",
            inverse_row(w, &f, &f("t", "t"), &z, &format!("(bc % {w})")),
            len = c.cols * w,
            cols = c.cols,
        ));
        for k in 0..c.cols / w {
            t.blocks.push(Block {
                first: c.first + k * w,
                w,
                inverse: format!("inv{s}"),
                at: k * ww,
            });
        }
    }
    let value = t.solve(0, t.blocks.len(), None);
    (t.items, value)
}

/// A diagonal block of [`trsm`]'s factor: its columns and its inverse
/// (`w x w` from element `at` of the `let` `inverse`).
struct Block {
    first: u64,
    w: u64,
    inverse: String,
    at: u64,
}

/// [`trsm`]'s text as it grows: the `let`s so far.
struct Trsm<'a> {
    m: u64,
    b: At<'a>,
    l: At<'a>,
    items: String,
    lets: usize,
    blocks: Vec<Block>,
}

impl Trsm<'_> {
    /// Element `(i, col)` of what is left of the right-hand side: `b`'s
    /// (`src` None) or the `let` `src` whose column 0 is column `src.1`.
    fn read(&self, src: Option<(&str, u64)>, col: u64, rel: &str) -> String {
        match src {
            None => (self.b)("i", &format!("({col} + {rel})")),
            Some((name, first)) => {
                format!("{name}[i + ({} + {rel}) * {}]", col - first, self.m)
            }
        }
    }

    fn define(&mut self, prefix: &str, value: String) -> String {
        self.lets += 1;
        let name = format!("{prefix}{}", self.lets);
        self.items.push_str(&format!("let {name} = {value}\n"));
        name
    }

    /// The columns of blocks `b0..b1` of `X` from what is left of the
    /// right-hand side (`src`): the value text (named by the caller).
    fn solve(&mut self, b0: usize, b1: usize, src: Option<(&str, u64)>) -> String {
        let m = self.m;
        let c0 = self.blocks[b0].first;
        if b1 - b0 == 1 {
            let blk = &self.blocks[b0];
            let w = blk.w;
            return format!(
                "compute {w} |jj| compute {m} |i| reduce {w} |t| {} * {}[{} + jj + t * {w}]",
                self.read(src, c0, "t"),
                blk.inverse,
                blk.at,
            );
        }
        let b_mid = b0 + (b1 - b0).div_ceil(2);
        let mid = self.blocks[b_mid].first;
        let end = self.blocks[b1 - 1].first + self.blocks[b1 - 1].w;
        let half = mid - c0;
        let left = self.solve(b0, b_mid, src);
        let left = self.define("x", left);
        let rest = format!(
            "compute {} |jj| compute {m} |i| {} - (reduce {half} |p| {left}[i + p * {m}] * {})",
            end - mid,
            self.read(src, mid, "jj"),
            (self.l)(&format!("({mid} + jj)"), &format!("({c0} + p)")),
        );
        let rest = self.define("r", rest);
        let right = self.solve(b_mid, b1, Some((&rest, mid)));
        let right = self.define("x", right);
        format!(
            "compute {} |j| compute {m} |i| select(j < {half}, {left}[i + j * {m}] else 0.0, {right}[i + (j - {half}) * {m}] else 0.0)",
            end - c0
        )
    }
}

/// Index `x` of `n`, counted from the end when `upper`.
pub fn flip(n: u64, upper: bool, x: &str) -> String {
    if upper {
        format!("({} - {x})", n - 1)
    } else {
        x.to_string()
    }
}

/// Reads `at` with rows and columns reversed in an `n x n` matrix when
/// `upper` (an upper triangle read so is a lower one).
pub fn reversed<'a>(n: u64, upper: bool, at: At<'a>) -> impl Fn(&str, &str) -> String + 'a {
    move |i: &str, j: &str| at(&flip(n, upper, i), &flip(n, upper, j))
}

/// `X = T^-1 B` for the triangular `n x n` tile `t` (read below and on its
/// diagonal, or above and on it when `upper`) and the `n x r` matrix `b`,
/// by blocks of rows with inverted diagonal blocks: `Xᵀ = Bᵀ T^-T` is
/// [`trsm`] of `Bᵀ` against `T` (for an upper `T`, rows and columns
/// reversed, which makes it lower), whose result is read back transposed.
/// Returns the `let`s before the result and the result.
pub fn trsv(n: u64, r: u64, t: At, b: At, upper: bool) -> (String, String) {
    let tri = reversed(n, upper, t);
    let rev = |x: &str| flip(n, upper, x);
    let bt = |i: &str, c: &str| b(&rev(c), i);
    let (mut lets, value) = trsm(r, n, &bt, &tri);
    lets.push_str(&format!("let xt = {value}\n"));
    let value = format!("compute {r} |j| compute {n} |i| xt[j + {} * {r}]", rev("i"));
    (lets, value)
}

/// How the dense reference solves against a triangular matrix of order `n`
/// in tiles of `t`: by the blocks of rows the tile tasks use, in the order
/// they visit them (from the last row for an upper one, rows reversed).
pub fn solve_rows(n: u64, t: u64, upper: bool) -> Vec<Columns> {
    let mut tiles = tile_orders(n, t);
    if upper {
        tiles.reverse();
    }
    blocks_of(tiles.into_iter())
}

/// Rows `c.first..` of `X = T^-1 B` (the rows before them already in
/// `from`) for a lower triangular `n x n` matrix `t` (an upper one read
/// [`reversed`]) and the `n x r` matrix `b`, by blocks of `c.w` rows: each
/// block is `Z U`, `U` what is left of `b`'s block once the rows before are
/// subtracted, `Z` the inverse of `t`'s diagonal block (found as [`trsm`]
/// finds it), so each element is a sum of the same terms as [`trsv`]'s.
pub fn blocked_solve(n: u64, r: u64, c: Columns, t: At, b: At, from: &str) -> String {
    let w = c.w;
    let b0 = c.block_start();
    let row = format!("({b0} + ii)");
    let before = if !c.has_before() {
        b(&row, "j")
    } else {
        format!(
            "{} - (reduce ({b0}) |p| {} * X[p + j * {n}])",
            b(&row, "j"),
            t(&row, "p")
        )
    };
    let f = |i: &str, j: &str| t(&format!("({b0} + {i})"), &format!("({b0} + {j})"));
    let z = |i: &str, j: &str| format!("Z[{i} + ({j}) * {w}]");
    format!(
        "iterate {steps} from {from} |X, g| {{\n    let U = compute {r} |j| compute {w} |ii| {before}\n    let Z = iterate {w} from fill(0.0, {ww}) |Z, t| compute {w} |col| compute {w} |row| select(row == t && col <= t, {inv}, {zrc})\n    yield compute {r} |j| compute {n} |i| select(i >= {b0} && i < {b0} + {w}, (reduce {w} |q| (Z[(i - ({b0})) + q * {w}] else 0.0) * U[q + j * {w}]), X[i + j * {n}])\n}}",
        steps = c.cols / w,
        ww = w * w,
        inv = inverse_row(w, &f, &f("t", "t"), &z, "col"),
        zrc = z("row", "col"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cols(parts: &[(u64, u64, u64)]) -> Vec<Columns> {
        parts
            .iter()
            .map(|&(first, cols, w)| Columns { first, cols, w })
            .collect()
    }

    #[test]
    fn the_reference_goes_by_the_tile_kernels_blocks() {
        // Tiles of 256: one run of blocks of 32.
        assert_eq!(factor_columns(4096, 256), cols(&[(0, 4096, 32)]));
        // Tiles of 72 (blocks 32, 32, 8) and a last tile of 6.
        let tiles = cols(&[
            (0, 64, 32),
            (64, 8, 8),
            (72, 64, 32),
            (136, 8, 8),
            (144, 6, 6),
        ]);
        assert_eq!(factor_columns(150, 72), tiles);
        assert_eq!(solve_rows(150, 72, false), tiles);
        // An upper solve visits the tiles from the last, rows reversed.
        assert_eq!(
            solve_rows(150, 72, true),
            cols(&[
                (0, 6, 6),
                (6, 64, 32),
                (70, 8, 8),
                (78, 64, 32),
                (142, 8, 8)
            ])
        );
        // Tiles of at most 32: one block each.
        assert_eq!(factor_columns(24, 5), cols(&[(0, 20, 5), (20, 4, 4)]));
    }

    #[test]
    fn a_ragged_block_is_placed_from_its_parts_first_column() {
        // Blocks of 31 from column 224: column 224 is the block's first.
        let at = |i: &str, j: &str| format!("a[{i} + ({j}) * 255]");
        let text = potrf(
            255,
            Columns {
                first: 224,
                cols: 31,
                w: 31,
            },
            &at,
            "l0",
        );
        assert!(text.contains("(j + 24) % 31"), "{text}");
        assert!(text.contains("reduce (224 + g * 31) |p|"), "{text}");
    }
}
