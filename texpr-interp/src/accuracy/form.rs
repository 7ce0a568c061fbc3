//! First-order error forms: how an element's error depends, with its sign,
//! on the errors of the stored values it reads (the elements of top-level
//! `let`s and inputs), so that the same value's error read twice with
//! opposite signs cancels instead of adding up.
//!
//! A scalar bound propagated operation by operation adds magnitudes: in
//! heat-3d's `0.125 * (a[i+1] - 2 a[i] + a[i-1]) + ... + a[i]` the centre's
//! error enters with weights `+1` and three times `-0.25`, `1.75` in
//! magnitude where the true weight is `0.25`, and with the neighbours'
//! `0.75` every step multiplies the bound by 2.5 (`2.5^100` after 100
//! steps) though the stencil is an average. A form keeps, for up to [`K`]
//! values read, the signed part of the error due to each (`∂e/∂v * err(v)`,
//! first order), summing the parts of the same value; the rest of the
//! bound is unsigned. Then heat-3d's bound grows by its rounding per step.
//!
//! What makes this sound: a stored element is one value, whatever reads it
//! (docs/language.md: a top-level `let` is computed before what reads it),
//! so every read of it carries the same error `d` with `|d| <= err`, and the
//! error of an expression of such reads is, to first order, the sum of
//! their weights times their `d`s (second-order terms, rounding and
//! everything nonlinear stay in the unsigned rest, `running`). Reassociating
//! a chain changes no weight. Where more than [`K`] values are read, the
//! smallest parts move into the unsigned rest, which only loosens the bound.

/// The most values a form tracks.
pub(crate) const K: usize = 4;

/// Signed error parts by stored value (see the module doc).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct Form {
    len: u8,
    ids: [u64; K],
    parts: [f64; K],
}

/// The identity of element `i` of input `k` (`input`) or of global `k`.
pub(crate) fn value_id(input: bool, k: u32, i: u64) -> u64 {
    ((input as u64) << 63) | ((k as u64) << 32) | (i & 0xffff_ffff)
}

/// The id of element `i` of loop state `k` (one value within a step: a
/// read resets an element's form to its own part, so the values a state
/// holds at different steps never meet in one form).
pub(crate) fn state_id(k: u32, i: u64) -> u64 {
    (1 << 62) | ((k as u64) << 32) | (i & 0xffff_ffff)
}

impl Form {
    /// The error `part` (at least 0) of the stored value `id`, read.
    pub(crate) fn read(id: u64, part: f64) -> Form {
        let mut f = Form::default();
        if part > 0.0 && part.is_finite() {
            f.ids[0] = id;
            f.parts[0] = part;
            f.len = 1;
        }
        f
    }

    fn entries(&self) -> impl Iterator<Item = (u64, f64)> + '_ {
        (0..self.len as usize).map(|k| (self.ids[k], self.parts[k]))
    }

    /// The sum of the parts' magnitudes: what they add to the bound.
    pub(crate) fn abs(&self) -> f64 {
        self.entries().map(|(_, p)| p.abs()).sum()
    }

    /// Every part times `c` (the weight of this error in a result). Empty
    /// where `c` is 0, or not finite (the caller's bound is not either).
    pub(crate) fn scaled(self, c: f64) -> Form {
        if !c.is_finite() || c == 0.0 {
            return Form::default();
        }
        let mut f = self;
        f.parts.iter_mut().for_each(|p| *p *= c);
        f
    }

    /// The parts of both forms, those of the same value summed; past [`K`]
    /// values, the smallest are left out. Returns the form and the sum of
    /// the magnitudes left out, which the caller adds to the unsigned rest.
    pub(crate) fn plus(self, o: Form) -> (Form, f64) {
        match (self.len, o.len) {
            (_, 0) => return (self, 0.0),
            (0, _) => return (o, 0.0),
            _ => {}
        }
        let mut all: [(u64, f64); 2 * K] = [(0, 0.0); 2 * K];
        let mut n = 0;
        for (id, p) in self.entries().chain(o.entries()) {
            match all[..n].iter_mut().find(|e| e.0 == id) {
                Some(e) => e.1 += p,
                None => {
                    all[n] = (id, p);
                    n += 1;
                }
            }
        }
        let all = &mut all[..n];
        // Largest first; equal parts by identity, so the result is deterministic.
        all.sort_by(|a, b| b.1.abs().total_cmp(&a.1.abs()).then(a.0.cmp(&b.0)));
        let mut f = Form::default();
        let mut out = 0.0;
        for &(id, p) in all.iter() {
            if p == 0.0 {
                continue;
            }
            if (f.len as usize) < K {
                f.ids[f.len as usize] = id;
                f.parts[f.len as usize] = p;
                f.len += 1;
            } else {
                out += p.abs();
            }
        }
        (f, out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parts_of_the_same_value_cancel() {
        let c = Form::read(7, 1e-6);
        let (f, out) = c.plus(c.scaled(-0.25)).0.plus(c.scaled(-0.5));
        assert_eq!(out, 0.0);
        assert!((f.abs() - 0.25e-6).abs() < 1e-20, "{f:?}");
        let (none, _) = c.plus(c.scaled(-1.0));
        assert_eq!(none.abs(), 0.0);
    }

    #[test]
    fn past_k_values_the_smallest_parts_are_left_out() {
        let mut f = Form::default();
        for id in 0..6u64 {
            let (g, out) = f.plus(Form::read(id, 1.0 + id as f64));
            f = g;
            assert_eq!(out, if id >= K as u64 { id as f64 - 3.0 } else { 0.0 });
        }
        assert_eq!(f.abs(), 6.0 + 5.0 + 4.0 + 3.0);
    }

    #[test]
    fn values_are_told_apart_by_input_global_and_index() {
        let ids = [
            value_id(true, 0, 5),
            value_id(false, 0, 5),
            value_id(false, 1, 5),
        ];
        assert!(ids[0] != ids[1] && ids[1] != ids[2] && ids[0] != ids[2]);
        assert_eq!(
            Form::read(1, 0.0),
            Form::default(),
            "an exact value adds nothing"
        );
    }
}
