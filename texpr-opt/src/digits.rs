//! Digit permutations: the index maps tiling writes on a grid root.
//!
//! Tiling computes a result in an order other than its layout: a 2D tile
//! decomposition runs `[block row][block col][thread row][thread col][reg row][reg col]`
//! while the layout is row-major. Both orders are mixed-radix numbers over the
//! same digits; a [`DigitPerm`] lists each digit's radix and its stride in the
//! layout (`out_stride`) and in the computed order (`raw_stride`).
//!
//! As a TExpr index map `{k -> f(k)}` (`out[k] = raw[f(k)]`) the permutation
//! is written in one canonical form, `sum of ((k / out_stride) % radix) * raw_stride`
//! (`/ 1`, `% radix` of the top digit and `* 1` left out), which [`DigitPerm::recognize`]
//! reads back. Code generation needs the inverse, `raw -> out`, to know where
//! a computed element goes: [`DigitPerm::inverse_term`].
//!
//! A tile padded to whole blocks computes an `Mp x Np` result of which the
//! layout keeps the `M x N` top-left corner: a [`Padded`] layout, the digit
//! permutation of the padded matrix seen through `k -> (k / N) * Np + k % N`.
//! Its map writes column digits over `k % N` and row digits over `k` (see
//! [`Padded::term`]); its inverse sends a padding element past the end, so a
//! `< M*N` guard drops it. [`Layout`] is either kind.

use texpr_syntax::ast::TermOp;
use texpr_syntax::ir::term::{bin, constant, var};
use texpr_syntax::ir::{Term, TermKind, VarId};

/// One digit of both mixed-radix numbers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Digit {
    pub radix: u64,
    /// Weight in the layout (output) order.
    pub out_stride: u64,
    /// Weight in the computed (raw) order.
    pub raw_stride: u64,
}

/// A bijection of `0..len` given as digits (see the module docs).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DigitPerm {
    pub len: u64,
    /// In layout order, least significant first.
    pub digits: Vec<Digit>,
}

impl DigitPerm {
    /// Digits from `(radix, out_stride, raw_stride)`; `None` unless both
    /// orders are mixed-radix numbers over these radices covering `0..len`.
    pub fn new(digits: &[(u64, u64, u64)]) -> Option<DigitPerm> {
        let mut ds: Vec<Digit> = digits
            .iter()
            .filter(|d| d.0 > 1)
            .map(|&(radix, out_stride, raw_stride)| Digit {
                radix,
                out_stride,
                raw_stride,
            })
            .collect();
        let len = ds.iter().try_fold(1u64, |a, d| a.checked_mul(d.radix))?;
        for key in [|d: &Digit| d.raw_stride, |d: &Digit| d.out_stride] {
            ds.sort_by_key(key);
            let mut w = 1u64;
            for d in &ds {
                if key(d) != w {
                    return None;
                }
                w *= d.radix;
            }
        }
        Some(DigitPerm { len, digits: ds })
    }

    /// Whether the permutation is the identity.
    pub fn is_identity(&self) -> bool {
        self.digits.iter().all(|d| d.out_stride == d.raw_stride)
    }

    /// `f(k)`: the raw position of layout position `k`.
    pub fn term(&self, k: VarId) -> Term {
        sum(self.digits.iter().map(|d| {
            digit(
                var(k),
                d.out_stride,
                d.radix,
                d.out_stride * d.radix == self.len,
                d.raw_stride,
            )
        }))
    }

    /// `f^-1(raw)`: the layout position of raw position `raw` (a term).
    pub fn inverse_term(&self, raw: Term) -> Term {
        sum(self.digits.iter().map(|d| {
            digit(
                raw.clone(),
                d.raw_stride,
                d.radix,
                d.raw_stride * d.radix == self.len,
                d.out_stride,
            )
        }))
    }

    /// Evaluates `f(k)` (tests and the interpreter's view).
    pub fn apply(&self, k: u64) -> u64 {
        self.digits
            .iter()
            .map(|d| (k / d.out_stride) % d.radix * d.raw_stride)
            .sum()
    }

    /// Reads the canonical form back: `t` as a term over `k` on `0..len`.
    pub fn recognize(t: &Term, k: VarId, len: u64) -> Option<DigitPerm> {
        let summands = texpr_syntax::ir::term::summands(t);
        let mut digits = Vec::new();
        for s in summands {
            let (x, raw_stride) = match &s.kind {
                TermKind::Binary(TermOp::Mul, x, c) => (&**x, const_of(c)?),
                _ => (s, 1),
            };
            let (x, radix) = match &x.kind {
                TermKind::Binary(TermOp::Rem, x, b) => (&**x, Some(const_of(b)?)),
                _ => (x, None),
            };
            let (x, out_stride) = match &x.kind {
                TermKind::Binary(TermOp::Div, x, a) => (&**x, const_of(a)?),
                _ => (x, 1),
            };
            if x.kind != TermKind::Var(k) || out_stride == 0 {
                return None;
            }
            let radix = radix.unwrap_or(len.div_ceil(out_stride));
            digits.push((radix, out_stride, raw_stride));
        }
        let perm = DigitPerm::new(&digits)?;
        (perm.len == len).then_some(perm)
    }
}

/// `M x N` row-major, computed as the top-left corner of an `Mp x Np`
/// matrix in the order `perm` gives (a digit permutation of `Mp * Np`,
/// row-major in the padded layout).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Padded {
    pub rows: u64,
    pub cols: u64,
    pub padded_cols: u64,
    pub perm: DigitPerm,
}

impl Padded {
    /// `None` unless `perm` covers a padded matrix at least `rows x cols`
    /// with rows of `padded_cols >= cols` whose digits do not straddle rows.
    pub fn new(rows: u64, cols: u64, padded_cols: u64, perm: DigitPerm) -> Option<Padded> {
        let straddles = perm.digits.iter().any(|d| {
            d.out_stride < padded_cols && d.out_stride * d.radix > padded_cols
                || d.out_stride >= padded_cols && !d.out_stride.is_multiple_of(padded_cols)
        });
        let ok = cols <= padded_cols
            && perm.len.is_multiple_of(padded_cols)
            && rows <= perm.len / padded_cols
            && !straddles;
        ok.then_some(Padded {
            rows,
            cols,
            padded_cols,
            perm,
        })
    }

    /// `f(k)`: the raw position of layout position `k` (`k < rows * cols`),
    /// every digit written in full (no operation left out, so the form reads
    /// back unambiguously): column digits `((k % N) / s) % r * w`, row digits
    /// `((k / (N * s/Np)) / 1) % r * w`.
    pub fn term(&self, k: VarId) -> Term {
        let (n, np) = (self.cols, self.padded_cols);
        let c = |x: u64| constant(x as i64);
        sum(self.perm.digits.iter().map(|d| {
            let (x, div) = if d.out_stride < np {
                (bin(TermOp::Rem, var(k), c(n)), d.out_stride)
            } else {
                (bin(TermOp::Div, var(k), c(n * (d.out_stride / np))), 1)
            };
            let t = bin(TermOp::Div, x, c(div));
            bin(
                TermOp::Mul,
                bin(TermOp::Rem, t, c(d.radix)),
                c(d.raw_stride),
            )
        }))
    }

    /// `f^-1(raw)`: `i * N + j` for the padded position `(i, j)` of `raw`,
    /// plus `M * N` for every `N` columns `j` is past the edge, so padding
    /// lands at or past `M * N` (as does a row `i >= M`).
    pub fn inverse_term(&self, raw: Term) -> Term {
        let q = self.perm.inverse_term(raw);
        let np = constant(self.padded_cols as i64);
        let n = constant(self.cols as i64);
        let i = bin(TermOp::Div, q.clone(), np.clone());
        let j = bin(TermOp::Rem, q, np);
        let past = bin(
            TermOp::Mul,
            bin(TermOp::Div, j.clone(), n.clone()),
            constant((self.rows * self.cols) as i64),
        );
        bin(
            TermOp::Add,
            bin(TermOp::Add, bin(TermOp::Mul, i, n), j),
            past,
        )
    }

    /// Reads [`Padded::term`]'s form back (`len` = `rows * cols`).
    pub fn recognize(t: &Term, k: VarId, len: u64) -> Option<Padded> {
        let summands = texpr_syntax::ir::term::summands(t);
        let mut n = None;
        // (column digit, radix, stride in its index, raw stride)
        let mut parts = Vec::new();
        for s in summands {
            let TermKind::Binary(TermOp::Mul, x, w) = &s.kind else {
                return None;
            };
            let TermKind::Binary(TermOp::Rem, x, r) = &x.kind else {
                return None;
            };
            let TermKind::Binary(TermOp::Div, x, div) = &x.kind else {
                return None;
            };
            let (w, r, div) = (const_of(w)?, const_of(r)?, const_of(div)?);
            match &x.kind {
                TermKind::Binary(TermOp::Rem, v, m) if v.kind == TermKind::Var(k) => {
                    let m = const_of(m)?;
                    if n.is_some_and(|n| n != m) {
                        return None;
                    }
                    n = Some(m);
                    parts.push((true, r, div, w));
                }
                TermKind::Binary(TermOp::Div, v, d) if v.kind == TermKind::Var(k) && div == 1 => {
                    parts.push((false, r, const_of(d)?, w));
                }
                _ => return None,
            }
        }
        let n = n?;
        if !len.is_multiple_of(n) {
            return None;
        }
        let np: u64 = parts.iter().filter(|p| p.0).map(|p| p.1).product();
        let mut digits = Vec::new();
        for (col, radix, stride, raw_stride) in parts {
            if col {
                digits.push((radix, stride, raw_stride));
            } else {
                if !stride.is_multiple_of(n) {
                    return None;
                }
                digits.push((radix, stride / n * np, raw_stride));
            }
        }
        Padded::new(len / n, n, np, DigitPerm::new(&digits)?)
    }
}

/// Where a tiled grid writes: a digit permutation of the whole result, or a
/// padded one that keeps a corner of it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Layout {
    Perm(DigitPerm),
    Padded(Padded),
}

impl Layout {
    /// The layout position of raw position `raw`; a padded layout sends
    /// padding to positions `>= len`.
    pub fn inverse_term(&self, raw: Term) -> Term {
        match self {
            Layout::Perm(p) => p.inverse_term(raw),
            Layout::Padded(p) => p.inverse_term(raw),
        }
    }

    /// An index map term `t` over `k` (`0..len`) on a raw result of `raw`
    /// elements, as a layout; `None` for anything else (or the identity).
    pub fn recognize(t: &Term, k: VarId, len: u64, raw: u64) -> Option<Layout> {
        if len == raw {
            return DigitPerm::recognize(t, k, len)
                .filter(|p| !p.is_identity())
                .map(Layout::Perm);
        }
        Padded::recognize(t, k, len)
            .filter(|p| p.perm.len == raw)
            .map(Layout::Padded)
    }
}

fn const_of(t: &Term) -> Option<u64> {
    match t.kind {
        TermKind::Const(c) if c > 0 => Some(c as u64),
        _ => None,
    }
}

/// `((x / div) % radix) * mul` with the trivial operations left out.
fn digit(x: Term, div: u64, radix: u64, top: bool, mul: u64) -> Term {
    let mut t = x;
    if div != 1 {
        t = bin(TermOp::Div, t, constant(div as i64));
    }
    if !top {
        t = bin(TermOp::Rem, t, constant(radix as i64));
    }
    if mul != 1 {
        t = bin(TermOp::Mul, t, constant(mul as i64));
    }
    t
}

fn sum(mut ts: impl Iterator<Item = Term>) -> Term {
    let first = ts.next().unwrap_or_else(|| constant(0));
    ts.fold(first, |a, b| bin(TermOp::Add, a, b))
}

#[cfg(test)]
mod tests {
    use super::*;
    use texpr_syntax::ir::VarId;

    fn eval(t: &Term, k: i64) -> i64 {
        match &t.kind {
            TermKind::Const(c) => *c,
            TermKind::Var(_) => k,
            TermKind::Binary(op, a, b) => {
                let (a, b) = (eval(a, k), eval(b, k));
                match op {
                    TermOp::Add => a + b,
                    TermOp::Sub => a - b,
                    TermOp::Mul => a * b,
                    TermOp::Div => a.div_euclid(b),
                    TermOp::Rem => a.rem_euclid(b),
                }
            }
        }
    }

    /// A 2D tile order over an 8 x 12 row-major matrix: 2 x 3 blocks, 2 x 2
    /// threads per block, 2 x 2 registers per thread.
    fn tile() -> DigitPerm {
        // Layout digits (least significant first): rj, tj, bj over columns
        // (2, 2, 3), then ri, ti, bi over rows (2, 2, 2).
        // Raw order (most significant first): bi bj ti tj ri rj.
        DigitPerm::new(&[
            (2, 1, 1),   // rj
            (2, 2, 4),   // tj
            (3, 4, 16),  // bj
            (2, 12, 2),  // ri
            (2, 24, 8),  // ti
            (2, 48, 48), // bi
        ])
        .expect("a permutation")
    }

    #[test]
    fn term_and_inverse_are_inverse_bijections() {
        let p = tile();
        assert_eq!(p.len, 96);
        let k = VarId(0);
        let f = p.term(k);
        let g = p.inverse_term(var(k));
        let mut seen = [false; 96];
        for x in 0..96 {
            let y = eval(&f, x);
            assert_eq!(y as u64, p.apply(x as u64));
            assert!(!seen[y as usize], "not injective at {x}");
            seen[y as usize] = true;
            assert_eq!(eval(&g, y), x);
        }
    }

    #[test]
    fn recognize_reads_the_canonical_form_back() {
        let p = tile();
        let k = VarId(3);
        assert_eq!(DigitPerm::recognize(&p.term(k), k, 96), Some(p.clone()));
        // A length the digits do not cover, the wrong variable, and a
        // non-permutation are refused.
        assert_eq!(DigitPerm::recognize(&p.term(k), k, 100), None);
        assert_eq!(DigitPerm::recognize(&p.term(k), VarId(4), 96), None);
        let bad = bin(TermOp::Mul, var(k), constant(2));
        assert_eq!(DigitPerm::recognize(&bad, k, 96), None);
        // The identity is a one-digit permutation.
        let id = DigitPerm::recognize(&var(k), k, 10).expect("identity");
        assert!(id.is_identity());
    }

    /// A 5 x 7 matrix computed as a padded 8 x 12 tile order: every element
    /// of the layout comes from a distinct raw position, padding lands past
    /// the end, and the map reads back.
    #[test]
    fn padded_layouts_keep_the_corner_and_read_back() {
        let p = Padded::new(5, 7, 12, tile()).expect("a padded layout");
        let k = VarId(0);
        let f = p.term(k);
        let g = p.inverse_term(var(k));
        let mut hit = [false; 96];
        for x in 0..35 {
            let raw = eval(&f, x);
            assert!((0..96).contains(&raw));
            assert!(!hit[raw as usize], "not injective at {x}");
            hit[raw as usize] = true;
            assert_eq!(eval(&g, raw), x, "inverse at {x}");
            // The padded position is row-major in the padded matrix.
            let (i, j) = (x / 7, x % 7);
            assert_eq!(raw as u64, p.perm.apply((i * 12 + j) as u64));
        }
        for raw in (0..96).filter(|r| !hit[*r as usize]) {
            assert!(eval(&g, raw) >= 35, "padding {raw} lands inside");
        }
        assert_eq!(Padded::recognize(&f, k, 35), Some(p.clone()));
        assert_eq!(
            Layout::recognize(&f, k, 35, 96),
            Some(Layout::Padded(p.clone()))
        );
        assert_eq!(Layout::recognize(&f, k, 35, 100), None);
        assert_eq!(Padded::recognize(&f, VarId(1), 35), None);
        // Rows wider than the padded rows, or digits straddling a row, are refused.
        assert_eq!(Padded::new(5, 13, 12, tile()), None);
        assert_eq!(Padded::new(5, 7, 8, tile()), None);
    }

    #[test]
    fn overlapping_digits_are_refused() {
        assert_eq!(DigitPerm::new(&[(4, 1, 1), (4, 2, 4)]), None);
        assert_eq!(DigitPerm::new(&[(4, 1, 1), (4, 4, 2)]), None);
    }
}
