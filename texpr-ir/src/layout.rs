//! Layouts: the index maps scheduling writes on a grid root, as data.
//!
//! A schedule may compute a result in an order other than its layout: a 2D
//! tile decomposition runs `[block row][block col][thread row][thread col][reg row][reg col]`
//! while the layout is row-major. The map `{k -> f(k)}` (`out[k] = raw[f(k)]`)
//! that puts each element in place is one of three [`Layout`]s, held by the
//! IR as such ([`super::MapKind::Layout`]) so that code generation reads it
//! instead of recognising a term:
//! - [`Layout::Truncate`], `{k < L -> k}`: the first `L` elements (padding
//!   past them is computed and not written);
//! - [`Layout::Digits`], a [`DigitPerm`]: both orders are mixed-radix
//!   numbers over the same digits; each digit has a radix, a stride in the
//!   layout (`out_stride`) and a stride in the computed order (`raw_stride`).
//!   Written `digits(r:o:w, ...)`, least significant layout digit first;
//! - [`Layout::Padded`]: a tile padded to whole blocks computes an
//!   `Mp x Np` result of which the layout keeps the `M x N` top-left corner:
//!   the digit permutation of the padded matrix seen through
//!   `k -> (k / N) * Np + k % N`. Written `padded(N, Np, digits(...))`;
//! - [`Layout::Strided`]: the other way round, rows of `C` raw elements
//!   laid out `S >= C` apart (a workgroup array padded against bank
//!   conflicts): `k -> (k / S) * C + (k % S) % C`, the `S - C` padding
//!   positions after each row repeating its first elements (code generation
//!   never writes them). Written `strided(C, S)`.
//!
//! Each layout has a term form ([`Layout::term`], what the interpreter and
//! element extraction read) and an inverse ([`Layout::inverse_term`], where
//! code generation writes raw element `raw`; padding goes to `len` or past it).

use super::basic::TermOp;
use super::term::{bin, constant, sum, var};
use super::{Term, VarId};
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

    /// Evaluates `f(k)`: the padded position `(k / N) * Np + k % N`, permuted.
    pub fn apply(&self, k: u64) -> u64 {
        self.perm
            .apply(k / self.cols * self.padded_cols + k % self.cols)
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
}

/// Rows of `cols` raw elements laid out `stride >= cols` apart.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Strided {
    pub cols: u64,
    pub stride: u64,
}

impl Strided {
    /// `f(k) = (k / S) * C + (k % S) % C`.
    pub fn term(&self, k: VarId) -> Term {
        let c = |x: u64| constant(x as i64);
        let row = bin(TermOp::Div, var(k), c(self.stride));
        let col = bin(TermOp::Rem, var(k), c(self.stride));
        bin(
            TermOp::Add,
            bin(TermOp::Mul, row, c(self.cols)),
            bin(TermOp::Rem, col, c(self.cols)),
        )
    }

    pub fn apply(&self, k: u64) -> u64 {
        k / self.stride * self.cols + k % self.stride % self.cols
    }

    /// `f^-1(raw) = (raw / C) * S + raw % C`.
    pub fn inverse_term(&self, raw: Term) -> Term {
        let c = |x: u64| constant(x as i64);
        bin(
            TermOp::Add,
            bin(
                TermOp::Mul,
                bin(TermOp::Div, raw.clone(), c(self.cols)),
                c(self.stride),
            ),
            bin(TermOp::Rem, raw, c(self.cols)),
        )
    }

    /// Why rows of `cols` laid out `stride` apart do not map `raw` raw
    /// elements onto `len`, if they do not.
    fn misfit(&self, len: u64, raw: u64) -> Option<String> {
        let (c, s) = (self.cols, self.stride);
        let fits = c >= 1 && s >= c && raw.is_multiple_of(c) && len == raw / c * s;
        (!fits).then(|| {
            format!("rows of {c} laid out {s} apart need a stride of at least {c} and {raw} raw elements in whole rows of {c} ({} laid out), not {len}", raw / c.max(1) * s)
        })
    }
}

/// How a grid's raw result is laid out (see the module docs).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Layout {
    /// `{k < L -> k}`: the first `L` raw elements.
    Truncate,
    /// A digit permutation of the whole raw result.
    Digits(DigitPerm),
    /// The `M x N` corner of a padded, digit-permuted raw result.
    Padded(Padded),
    /// Rows of the raw result laid out further apart.
    Strided(Strided),
}

impl Layout {
    /// `f(k)` as a term over `k`: the raw position of layout position `k`.
    pub fn term(&self, k: VarId) -> Term {
        match self {
            Layout::Truncate => var(k),
            Layout::Digits(p) => p.term(k),
            Layout::Padded(p) => p.term(k),
            Layout::Strided(p) => p.term(k),
        }
    }

    /// Evaluates `f(k)`.
    pub fn apply(&self, k: u64) -> u64 {
        match self {
            Layout::Truncate => k,
            Layout::Digits(p) => p.apply(k),
            Layout::Padded(p) => p.apply(k),
            Layout::Strided(p) => p.apply(k),
        }
    }

    /// The layout position of raw position `raw` (a term); padding goes to
    /// positions at or past the layout's length.
    pub fn inverse_term(&self, raw: Term) -> Term {
        match self {
            Layout::Truncate => raw,
            Layout::Digits(p) => p.inverse_term(raw),
            Layout::Padded(p) => p.inverse_term(raw),
            Layout::Strided(p) => p.inverse_term(raw),
        }
    }

    /// Why this layout cannot map a raw result of `raw` elements onto `len`
    /// elements, if it cannot: a truncation keeps at most `raw` elements, a
    /// digit permutation covers exactly `raw == len`, a padded layout keeps
    /// `len = M * N` of its `raw` elements, rows laid out further apart
    /// `len = raw / C * S`.
    pub fn misfit(&self, len: u64, raw: u64) -> Option<String> {
        let (covers, keeps) = match self {
            Layout::Strided(s) => return s.misfit(len, raw),
            Layout::Truncate if len <= raw => return None,
            Layout::Truncate => {
                return Some(format!(
                    "a truncation keeps at most the {raw} raw elements, not {len}"
                ));
            }
            Layout::Digits(p) => (p.len, p.len),
            Layout::Padded(p) => (p.perm.len, p.rows * p.cols),
        };
        if DigitPerm::new(&self.digits_of().unwrap_or_default()).as_ref() != self.perm() {
            return Some("the digits do not form a permutation".into());
        }
        if let Layout::Padded(p) = self
            && Padded::new(p.rows, p.cols, p.padded_cols, p.perm.clone()).as_ref() != Some(p)
        {
            return Some(format!(
                "a {} x {} corner does not fit rows of {} whose digits do not straddle a row",
                p.rows, p.cols, p.padded_cols
            ));
        }
        (covers != raw || keeps != len).then(|| {
            format!("the layout covers {covers} elements and keeps {keeps}; the raw result has {raw} and the map {len}")
        })
    }

    /// The digit permutation inside, if any.
    pub fn perm(&self) -> Option<&DigitPerm> {
        match self {
            Layout::Truncate | Layout::Strided(_) => None,
            Layout::Digits(p) => Some(p),
            Layout::Padded(p) => Some(&p.perm),
        }
    }

    /// The digits `(radix, out_stride, raw_stride)` of the permutation inside.
    pub(crate) fn digits_of(&self) -> Option<Vec<(u64, u64, u64)>> {
        let p = self.perm()?;
        Some(
            p.digits
                .iter()
                .map(|d| (d.radix, d.out_stride, d.raw_stride))
                .collect(),
        )
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

#[cfg(test)]
mod tests;
