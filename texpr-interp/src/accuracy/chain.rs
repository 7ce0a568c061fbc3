//! Chains of `+ -` and of `* /`, which a device may reassociate (WGSL
//! allows it, docs/language.md, "Non-finite values"): what the running
//! analysis (`running`) keeps of the chain that ends at each element, and
//! how two chains join.
//!
//! A *chain* is a maximal tree of one kind of operation: the terms of a
//! sum (`+`, `-`, negation, the steps of a `reduce +`, the addend of an
//! `fma`) or the factors of a product (`*`, `/`, negation, the steps of a
//! `reduce *`, an `fma`'s product). Its leaves are elements that end no
//! chain of that kind: reads, literals, builtins' results, `select`s,
//! conversions, and the results of the *other* kind of chain. A device may
//! evaluate a chain in any order, but it may not reassociate *across* the
//! two kinds: `(a + b) / 3` is the product of the sum `a + b` and `1/3`;
//! no order of that product sees `a` or `b` alone (distributing a product
//! over a sum is not reassociation). So a chain enters a chain of the other
//! kind as one leaf, by its value, never by what its own intermediates may
//! reach. Carrying a sum's reach into the product around it (and that
//! product's into the next sum) instead compounds the reach step by step:
//! a chain of `k` averages `(a[i-1] + a[i] + a[i+1]) / 3` would reach
//! `3^k`, "unspecified" from 81 steps on, though every value stays below 1.
//!
//! Across `let`s: the `let`s inside an expression are values of it, which
//! the optimizer inlines freely, so chains go on through them. A top-level
//! `let`'s element is stored: its chain's *reach* goes on into what reads
//! it, since the optimizer may fuse an elementwise global into its reader
//! (`texpr-opt`'s `fuse_globals`), after which a device may compute `let a
//! = x * 1e30` read as `a[i] * 1e30` as `x * (1e30 * 1e30)`. Its *error*
//! is one value's, the same at every read (`linear::read`, `form`), and a
//! sum that reads it counts it as one term. A device that reassociates a
//! fused global's sum with its reader's rounds in an order that counts
//! more terms; `EPS`'s factor 2 covers a reader adding a few terms no
//! larger than the global's (not a long sum of small terms added to a much
//! larger one). Counting every term of every sum a stored value may join
//! instead would grow a chain of `k` steps' bound as `k^2` (heat-3d's
//! `... + a[i]` goes on adding to the previous step's sum).
//!
//! What each kind keeps, and why it bounds every order:
//! - A [`Sum`] of `n` terms `t_i`, each within `e_i` of its exact value:
//!   another evaluation's terms are within `2 e_i` of the interpreter's, so
//!   every partial sum of any order is at most `M = sum(|t_i| + 2 e_i)` in
//!   magnitude (the chain's *reach*: unspecified beyond `f32::MAX`). Each
//!   of the `n - 1` additions of any order rounds by at most `u |partial|`
//!   (`u = 2^-24`, and `EPS = 2u` leaves room for the `(1 + u)^k` growth
//!   of the partials) and may flush a subnormal (`TINY`), so the result is
//!   within `|sum(d_i)| + (n - 1)(EPS M + TINY)` of the exact sum, whatever
//!   the order, contracted multiply-adds included (they round less), where
//!   `d_i` is term `i`'s error: at most the sum of the terms' signed parts
//!   (`form`, those of one value summed) plus their unsigned rests. The
//!   bound is absolute and additive: a chain of averages grows it by a few
//!   ulps of the values per step, never by a factor.
//! - A [`Product`]'s factors (a divisor counts by its reciprocal): every
//!   partial product of any order is at most `up = prod(max(|f|, 1))` and
//!   at least `1 / down`, `down = prod(max(1 / |f|, 1))`, in magnitude. The
//!   error needs no order: relative errors compose the same in any order,
//!   so `bound_ops`' per-operation formulas (a factor's error times the
//!   other's magnitude, plus the rounding at the result) cover every order
//!   already. Only flushing depends on it: where `down` exceeds `2^126` a
//!   partial of some order may be subnormal, and flushing it costs `TINY`
//!   times the factors still to come, at most `up`.

use super::est::{EPS, TINY};

/// The chain of `+ -` or `* /` that ends at an element (see the module doc).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) enum Chain {
    /// The element ends no chain: a read, a literal, a builtin's, a
    /// `select`'s or a conversion's result. It enters a chain as one leaf.
    #[default]
    Leaf,
    Sum(Sum),
    Product(Product),
}

/// A chain of sums (see the module doc).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Sum {
    /// How many terms (leaves) it adds.
    terms: f64,
    /// The sum of its terms' magnitudes, each widened by twice its bound:
    /// the most any partial sum of any order may reach.
    mags: f64,
    /// `mags`, with the terms of the sums it reads from stored values (whose
    /// terms a device may still add in another order, fused): the most any
    /// intermediate of any order may reach.
    reach: f64,
    /// The sum of its terms' own bounds but for their signed parts, which
    /// the element's form holds (`form`).
    unsigned: f64,
}

/// A chain of products (see the module doc).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Product {
    /// The product of its factors' magnitudes above 1 (divisors by their
    /// reciprocals): the most any partial product of any order may reach.
    up: f64,
    /// The product of its factors' reciprocal magnitudes above 1: no
    /// partial product of any order is below `1 / down` in magnitude.
    down: f64,
}

/// A magnitude another evaluation may see for a value `v` within `err` of
/// exact: `|v| + 2 err` (just `|v|` where `err` is not finite: such an
/// element is ill-conditioned, and stays counted as such).
fn widened(v: f64, err: f64) -> f64 {
    if err.is_finite() {
        v.abs() + 2.0 * err
    } else {
        v.abs()
    }
}

impl Sum {
    /// The element `v` (bound `err`, of which `signed` is in its form,
    /// chain `chain`) as a sum: its own terms when it ends a sum, else one
    /// term. A sum's form is kept beside it (`running`).
    pub(crate) fn of(v: f64, err: f64, signed: f64, chain: Chain) -> Sum {
        match chain {
            Chain::Sum(s) => s,
            _ => {
                let m = widened(v, err);
                Sum {
                    terms: 1.0,
                    mags: m,
                    reach: m,
                    unsigned: (err - signed).max(0.0),
                }
            }
        }
    }

    /// The sum (or difference) of two chains: their terms together, and
    /// `out`, what their forms left out, unsigned.
    pub(crate) fn join(self, o: Sum, out: f64) -> Sum {
        Sum {
            terms: self.terms + o.terms,
            mags: self.mags + o.mags,
            reach: self.reach + o.reach,
            unsigned: self.unsigned + o.unsigned + out,
        }
    }

    /// This sum negated: the same terms, and a flushed result.
    pub(crate) fn negated(self) -> Sum {
        Sum {
            unsigned: self.unsigned + TINY,
            ..self
        }
    }

    /// How far any order of the sum may be from the exact result, where
    /// its terms' signed errors add up to `signed` (its form's).
    pub(crate) fn err(self, signed: f64) -> f64 {
        signed + self.unsigned + self.rounding()
    }

    /// What the `n - 1` additions of any order may cost.
    pub(crate) fn rounding(self) -> f64 {
        self.rounding_in(EPS, TINY)
    }

    /// What the `n - 1` additions of any order may cost in a type of unit
    /// roundoff `eps / 2` that flushes below `tiny` (`f16`'s).
    pub(crate) fn rounding_in(self, eps: f64, tiny: f64) -> f64 {
        (self.terms - 1.0) * (eps * self.mags + tiny)
    }

    /// This sum, of value `v` within `err`, stored and read: one value (its
    /// error all in the reader's form, `linear::read`), one term of the
    /// sums that read it, but with its reach.
    pub(crate) fn read(self, v: f64, err: f64) -> Sum {
        Sum {
            terms: 1.0,
            mags: widened(v, err),
            reach: self.reach,
            unsigned: 0.0,
        }
    }

    /// The most any intermediate of any order may reach.
    pub(crate) fn reach(self) -> f64 {
        self.reach
    }
}

impl Product {
    /// The element `v` as a product: its own factors when it ends a
    /// product, else one factor.
    pub(crate) fn of(v: f64, chain: Chain) -> Product {
        match chain {
            Chain::Product(p) => p,
            _ => {
                let m = v.abs();
                Product {
                    up: m.max(1.0),
                    down: (1.0 / m).max(1.0),
                }
            }
        }
    }

    /// The product of two chains.
    pub(crate) fn times(self, o: Product) -> Product {
        Product {
            up: self.up * o.up,
            down: self.down * o.down,
        }
    }

    /// The quotient of two chains: the divisor's factors by their reciprocals.
    pub(crate) fn over(self, o: Product) -> Product {
        Product {
            up: self.up * o.down,
            down: self.down * o.up,
        }
    }

    /// What flushing subnormals may cost one multiplication of the chain,
    /// in any order: `TINY` at its result, and `TINY * up` where a partial
    /// product of another order may be subnormal.
    pub(crate) fn flush(self) -> f64 {
        if self.down > 1.0 / TINY {
            TINY * self.up.max(1.0)
        } else {
            TINY
        }
    }

    /// The most any partial product of any order may reach.
    pub(crate) fn reach(self) -> f64 {
        self.up
    }
}

impl Chain {
    /// The most an intermediate of the chain ending here may reach in any
    /// order (0 for a leaf: its own value was judged where it was computed).
    pub(crate) fn reach(self) -> f64 {
        match self {
            Chain::Leaf => 0.0,
            Chain::Sum(s) => s.reach(),
            Chain::Product(p) => p.reach(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sum_counts_its_terms_across_nested_sums() {
        let a = Sum::of(1.0, 0.0, 0.0, Chain::Leaf).join(Sum::of(-2.0, 0.0, 0.0, Chain::Leaf), 0.0);
        let b =
            Sum::of(0.5, 1e-7, 0.0, Chain::Leaf).join(Sum::of(-1.0, 0.0, 0.0, Chain::Sum(a)), 0.0);
        assert_eq!(b.terms, 3.0);
        assert_eq!(b.mags, 0.5 + 2e-7 + 3.0);
        assert_eq!(b.err(0.0), 1e-7 + 2.0 * (EPS * b.mags + TINY));
        // A term's signed part is its form's, not counted twice.
        let c = Sum::of(0.5, 3e-7, 2e-7, Chain::Leaf);
        assert_eq!(c.err(2e-7), 3e-7);
    }

    #[test]
    fn a_product_enters_a_sum_by_its_value_and_a_sum_a_product_by_its_value() {
        let p = Product::of(1e30, Chain::Leaf).times(Product::of(1e-30, Chain::Leaf));
        assert_eq!(p.up, 1e30);
        // `x * 1e30 * 1e-30 + 1`: the product is one term of magnitude 1.
        let s = Sum::of(1.0, 0.0, 0.0, Chain::Product(p))
            .join(Sum::of(1.0, 0.0, 0.0, Chain::Leaf), 0.0);
        assert_eq!(s.reach(), 2.0);
        // `(that sum) / 3`: the sum is one factor of magnitude 2.
        let q = Product::of(2.0, Chain::Sum(s)).over(Product::of(3.0, Chain::Leaf));
        assert_eq!(q.reach(), 2.0);
        assert_eq!(q.down, 3.0);
    }

    #[test]
    fn a_divisor_counts_by_its_reciprocal() {
        let tiny = Product::of(1e-20, Chain::Leaf);
        let q = Product::of(1e20, Chain::Leaf).over(tiny);
        assert_eq!(q.up, 1e40, "x / 1e-20 may be computed as x * 1e20");
        assert_eq!(q.flush(), TINY);
        let under = Product::of(1e-30, Chain::Leaf)
            .times(Product::of(1e-30, Chain::Leaf))
            .times(Product::of(1e25, Chain::Leaf));
        assert!(under.down > 1.0 / TINY);
        assert_eq!(under.flush(), TINY * 1e25, "1e-30 * 1e-30 may come first");
    }
}
