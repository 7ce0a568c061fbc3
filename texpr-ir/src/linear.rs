//! Index arithmetic's one home (with `term.rs`'s constructors, folding and
//! exact symbolic division): interval analysis of index terms, a linear
//! normal form, then interval arithmetic.
//!
//! A term is normalised to `c0 + sum(coef * atom)` where an atom is an index
//! variable, a floor division or remainder by a positive constant, or a
//! product of two non-constant forms. Equal atoms merge, so `(i + 1) - i` is
//! exactly `1` and `i*K + k` ranges over exactly `0..=n*K-1`. Divisions split
//! off the part whose coefficients the divisor divides:
//! `(i*256 + l) / 256` is `i` when `l < 256`. The range of a form is the sum
//! of its atoms' ranges (independent atoms), computed in `i128`.
//!
//! A variable bound by a `reduce` whose steps depend on enclosing indices
//! (`reduce i |k|`) also has an *upper term*: `k <= i - 1`. Where such a
//! variable appears in a form only as a summand `c * k`, the form is
//! smallest at one end of `0 <= k <= upper` and largest at the other (which
//! by the sign of `c`), each end ranged again over the other variables, so
//! `i - 1 - k` is proved non-negative although `k` alone ranges over
//! `0..n-1`. (Only values `k` takes count: a step that runs has
//! `upper >= 0`.)
//!
//! The checker uses this to prove indices in bounds; the optimizer and code
//! generation range terms with it through [`super::term::range`]. Every intermediate value of a term must
//! fit in an `i32` (the GPU computes in 32 bits); a violation is reported at
//! the sub-term.

use super::basic::TermOp;
use super::{Term, TermKind, VarId};
use crate::span::Span;
use std::collections::BTreeMap;

/// An inclusive range `lo..=hi`.
pub type Range = (i128, i128);

/// `constant + sum(coef * atom)`.
#[derive(Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
pub struct Linear {
    pub terms: BTreeMap<Atom, i128>,
    pub constant: i128,
}

/// A non-linear leaf of a [`Linear`] form.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Atom {
    Var(VarId),
    /// Floor division by a positive constant.
    Div(Box<Linear>, i128),
    /// Remainder of floor division by a positive constant.
    Rem(Box<Linear>, i128),
    /// Product of two non-constant forms (ordered).
    Mul(Box<Linear>, Box<Linear>),
}

/// Why a term cannot be analysed or breaks a rule.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BoundsError {
    /// A variable the extent function does not know.
    UnboundVar { var: VarId, span: Span },
    /// The divisor of `/` or `%` depends on an index variable.
    DivisorNotConstant { span: Span },
    /// The divisor of `/` or `%` is a constant `<= 0`.
    DivisorNotPositive { span: Span, value: i128 },
    /// The dividend of `/` or `%` may be negative.
    DividendMaybeNegative { span: Span, range: Range },
    /// A sub-term's value may not fit in an `i32`.
    Overflow { span: Span, range: Range },
}

impl Linear {
    pub fn constant(c: i128) -> Linear {
        Linear {
            terms: BTreeMap::new(),
            constant: c,
        }
    }

    pub fn atom(a: Atom) -> Linear {
        let mut terms = BTreeMap::new();
        terms.insert(a, 1);
        Linear { terms, constant: 0 }
    }

    /// The constant value, when the form has no atoms.
    pub(crate) fn as_constant(&self) -> Option<i128> {
        self.terms.is_empty().then_some(self.constant)
    }

    pub fn add(mut self, other: Linear, sign: i128) -> Option<Linear> {
        self.constant = self
            .constant
            .checked_add(other.constant.checked_mul(sign)?)?;
        for (atom, coef) in other.terms {
            let c = self.terms.entry(atom.clone()).or_insert(0);
            *c = c.checked_add(coef.checked_mul(sign)?)?;
            if *c == 0 {
                self.terms.remove(&atom);
            }
        }
        Some(self)
    }

    pub fn scale(mut self, k: i128) -> Option<Linear> {
        if k == 0 {
            return Some(Linear::constant(0));
        }
        self.constant = self.constant.checked_mul(k)?;
        for c in self.terms.values_mut() {
            *c = c.checked_mul(k)?;
        }
        Some(self)
    }

    pub fn times(self, other: Linear) -> Option<Linear> {
        match (self.as_constant(), other.as_constant()) {
            (Some(k), _) => other.scale(k),
            (_, Some(k)) => self.scale(k),
            _ => {
                let (a, b) = if self <= other {
                    (self, other)
                } else {
                    (other, self)
                };
                Some(Linear::atom(Atom::Mul(Box::new(a), Box::new(b))))
            }
        }
    }

    /// The range over all values of the variables, or `None` for an unknown
    /// variable, using each dependent variable's upper term (`upper`, see
    /// the module doc) where it appears only as a summand.
    pub(crate) fn range_within(
        &self,
        extent: &dyn Fn(VarId) -> Option<u64>,
        upper: &dyn Fn(VarId) -> Option<Linear>,
    ) -> Option<Range> {
        let pick = self.terms.iter().find_map(|(atom, &c)| match atom {
            Atom::Var(v) if !self.inside_atoms(*v) => upper(*v).map(|u| (*v, c, u)),
            _ => None,
        });
        let Some((v, c, up)) = pick else {
            return self.range(extent);
        };
        let mut low = self.clone();
        low.terms.remove(&Atom::Var(v));
        let high = low.clone().add(up.scale(c)?, 1)?;
        let (at0, atu) = (
            low.range_within(extent, upper)?,
            high.range_within(extent, upper)?,
        );
        // `c * k` is smallest at one end and largest at the other.
        let (lo, hi) = match c > 0 {
            true => (at0.0, atu.1),
            false => (atu.0, at0.1),
        };
        // Within the variable's own range too.
        let plain = self.range(extent)?;
        Some((lo.max(plain.0), hi.min(plain.1)))
    }

    /// Whether `v` occurs inside a division, remainder or product atom.
    fn inside_atoms(&self, v: VarId) -> bool {
        self.terms.keys().any(|a| match a {
            Atom::Var(_) => false,
            Atom::Div(l, _) | Atom::Rem(l, _) => l.mentions(v),
            Atom::Mul(x, y) => x.mentions(v) || y.mentions(v),
        })
    }

    /// Whether `v` occurs anywhere in the form.
    fn mentions(&self, v: VarId) -> bool {
        self.terms.keys().any(|a| match a {
            Atom::Var(x) => *x == v,
            Atom::Div(l, _) | Atom::Rem(l, _) => l.mentions(v),
            Atom::Mul(x, y) => x.mentions(v) || y.mentions(v),
        })
    }

    /// The range over all values of the variables, or `None` for an unknown variable.
    pub fn range(&self, extent: &dyn Fn(VarId) -> Option<u64>) -> Option<Range> {
        let (mut lo, mut hi) = (self.constant, self.constant);
        for (atom, &coef) in &self.terms {
            let (alo, ahi) = atom.range(extent)?;
            let (a, b) = (alo.saturating_mul(coef), ahi.saturating_mul(coef));
            lo = lo.saturating_add(a.min(b));
            hi = hi.saturating_add(a.max(b));
        }
        Some((lo, hi))
    }
}

impl Atom {
    pub fn range(&self, extent: &dyn Fn(VarId) -> Option<u64>) -> Option<Range> {
        match self {
            Atom::Var(v) => {
                let n = extent(*v)? as i128;
                Some((0, (n - 1).max(0)))
            }
            Atom::Div(l, c) => {
                let (lo, hi) = l.range(extent)?;
                Some((lo.div_euclid(*c), hi.div_euclid(*c)))
            }
            Atom::Rem(l, c) => {
                let (lo, hi) = l.range(extent)?;
                let (rlo, rhi) = (lo.rem_euclid(*c), hi.rem_euclid(*c));
                if hi - lo < *c && rlo <= rhi {
                    Some((rlo, rhi))
                } else {
                    Some((0, c - 1))
                }
            }
            Atom::Mul(a, b) => {
                let (alo, ahi) = a.range(extent)?;
                let (blo, bhi) = b.range(extent)?;
                let corners = [
                    alo.saturating_mul(blo),
                    alo.saturating_mul(bhi),
                    ahi.saturating_mul(blo),
                    ahi.saturating_mul(bhi),
                ];
                Some((
                    *corners.iter().min().unwrap_or(&0),
                    *corners.iter().max().unwrap_or(&0),
                ))
            }
        }
    }
}

/// The range of `term` over the index variables' ranges `0..extent(v)`,
/// checking the rules of index terms on the way (divisors positive constants,
/// dividends non-negative, every sub-term within `i32`).
pub fn term_range(
    term: &Term,
    extent: impl Fn(VarId) -> Option<u64>,
) -> Result<(i64, i64), BoundsError> {
    term_range_within(term, &extent, &|_| None)
}

/// [`term_range`] where some variables also have an upper term (`upper(k)`:
/// `k <= t`, the variable of a `reduce` of dependent steps; module doc).
pub fn term_range_within(
    term: &Term,
    extent: &dyn Fn(VarId) -> Option<u64>,
    upper: &dyn Fn(VarId) -> Option<Term>,
) -> Result<(i64, i64), BoundsError> {
    let env = Env { extent, upper };
    let lin = env.linearize(term)?;
    let (lo, hi) = env.range_of(&lin, term)?;
    Ok((lo as i64, hi as i64))
}

/// The linear normal form of `term`, checking every sub-term as [`term_range`] does.
pub fn linearize(
    term: &Term,
    extent: &dyn Fn(VarId) -> Option<u64>,
) -> Result<Linear, BoundsError> {
    Env {
        extent,
        upper: &|_| None,
    }
    .linearize(term)
}

/// The variables' ranges: extents, and upper terms of dependent ones.
struct Env<'a> {
    extent: &'a dyn Fn(VarId) -> Option<u64>,
    upper: &'a dyn Fn(VarId) -> Option<Term>,
}

impl Env<'_> {
    fn linearize(&self, term: &Term) -> Result<Linear, BoundsError> {
        let lin = match &term.kind {
            TermKind::Const(c) => Linear::constant(*c as i128),
            TermKind::Var(v) => Linear::atom(Atom::Var(*v)),
            TermKind::Binary(op, a, b) => self.binary(*op, a, b, term.span)?,
        };
        self.range_of(&lin, term)?;
        Ok(lin)
    }

    fn binary(&self, op: TermOp, a: &Term, b: &Term, span: Span) -> Result<Linear, BoundsError> {
        let la = self.linearize(a)?;
        let lb = self.linearize(b)?;
        let overflow = || BoundsError::Overflow {
            span,
            range: (i128::MIN, i128::MAX),
        };
        match op {
            TermOp::Add => la.add(lb, 1).ok_or_else(overflow),
            TermOp::Sub => la.add(lb, -1).ok_or_else(overflow),
            TermOp::Mul => la.times(lb).ok_or_else(overflow),
            TermOp::Div | TermOp::Rem => {
                let c = divisor(&lb, b)?;
                let range = self.range_of(&la, a)?;
                if range.0 < 0 {
                    return Err(BoundsError::DividendMaybeNegative {
                        span: a.span,
                        range,
                    });
                }
                Ok(divide(la, c, op == TermOp::Div, self.extent))
            }
        }
    }

    /// A dependent variable's upper term as a linear form (none when it
    /// has none, or it does not linearise).
    fn upper_form(&self, v: VarId) -> Option<Linear> {
        let t = (self.upper)(v)?;
        self.linearize(&t).ok()
    }

    fn range_of(&self, lin: &Linear, term: &Term) -> Result<Range, BoundsError> {
        let Some(range) = lin.range_within(self.extent, &|v| self.upper_form(v)) else {
            return Err(unbound(term, self.extent));
        };
        if range.0 < i32::MIN as i128 || range.1 > i32::MAX as i128 {
            return Err(BoundsError::Overflow {
                span: term.span,
                range,
            });
        }
        Ok(range)
    }
}

fn divisor(lb: &Linear, b: &Term) -> Result<i128, BoundsError> {
    match lb.as_constant() {
        None => Err(BoundsError::DivisorNotConstant { span: b.span }),
        Some(c) if c <= 0 => Err(BoundsError::DivisorNotPositive {
            span: b.span,
            value: c,
        }),
        Some(c) => Ok(c),
    }
}

/// `l / c` or `l % c` for `l >= 0`, `c > 0`: exact when `l` splits into a
/// multiple of `c` plus a remainder provably in `0..c`.
fn divide(l: Linear, c: i128, div: bool, extent: &dyn Fn(VarId) -> Option<u64>) -> Linear {
    if let Some(k) = l.as_constant() {
        return Linear::constant(if div {
            k.div_euclid(c)
        } else {
            k.rem_euclid(c)
        });
    }
    let mut multiple = Linear::constant(l.constant - l.constant.rem_euclid(c));
    let mut rest = Linear::constant(l.constant.rem_euclid(c));
    for (atom, coef) in &l.terms {
        let part = if coef % c == 0 {
            &mut multiple
        } else {
            &mut rest
        };
        part.terms.insert(atom.clone(), *coef);
    }
    let exact = rest.range(extent).is_some_and(|(lo, hi)| lo >= 0 && hi < c);
    match (exact, div) {
        (true, true) => {
            multiple.constant /= c;
            multiple.terms.values_mut().for_each(|v| *v /= c);
            multiple
        }
        (true, false) => rest,
        (false, true) => Linear::atom(Atom::Div(Box::new(l), c)),
        (false, false) => Linear::atom(Atom::Rem(Box::new(l), c)),
    }
}

/// The first variable of `term` that `extent` does not know.
fn unbound(term: &Term, extent: &dyn Fn(VarId) -> Option<u64>) -> BoundsError {
    match &term.kind {
        TermKind::Var(v) if extent(*v).is_none() => BoundsError::UnboundVar {
            var: *v,
            span: term.span,
        },
        TermKind::Binary(_, a, b) => match unbound(a, extent) {
            e @ BoundsError::UnboundVar { .. } => e,
            _ => unbound(b, extent),
        },
        _ => BoundsError::Overflow {
            span: term.span,
            range: (0, 0),
        },
    }
}
