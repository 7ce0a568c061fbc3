//! The online log-sum-exp normaliser: how an invocation folds `reduce lse`
//! in its own loop (Milakov & Gimelshein's online softmax). Instead of a
//! scalar accumulator it keeps a running pair `(m, s)` in registers, the
//! largest term so far and the sum of `exp(x - m)` over the terms so far;
//! per term `x`, one `exp`:
//!
//! ```text
//! hi = max(m, x); lo = min(m, x); t = exp(lo - hi)   (1 where lo == hi)
//! s  = x > m ? s * t + 1 : s + t;  m = hi
//! ```
//!
//! and the fold's value is `m + log(s)`. The first term sets `(x, 1)` (the
//! pair needs no identity, so no infinity is ever written), and `t` is 1
//! where `lo == hi` so two infinities of one sign give no NaN. Partials
//! across invocations are `lse` scalars, combined by [`super::lit::combine`]
//! (a workgroup tree) or by a subgroup's max and sum ([`subgroup_lse`]).

use super::ctx::Ctx;
use super::lit;
use texpr_syntax::Diagnostic;

/// An online pair's two `var`s.
#[derive(Debug)]
pub struct Online {
    m: String,
    s: String,
}

impl Ctx<'_> {
    /// Declares a pair for an accumulator named after `acc`.
    pub(super) fn online_open(&mut self, acc: &str) -> Online {
        let (m, s) = (format!("{acc}_m"), format!("{acc}_s"));
        self.w.line(format!("var {m}: f32;"));
        self.w.line(format!("var {s}: f32;"));
        Online { m, s }
    }

    /// Folds term `x` into the pair; `first` is the condition under which
    /// `x` is the fold's first term (`None`: it never is).
    pub(super) fn online_step(&mut self, o: &Online, x: &str, first: Option<&str>) {
        let Online { m, s } = o;
        let one = lit::f32_lit(1.0);
        let hi = self.w.let_("f32", format!("max({m}, {x})"));
        let lo = self.w.let_("f32", format!("min({m}, {x})"));
        let d = self.w.let_("f32", format!("{lo} - {hi}"));
        let e = self.w.let_("f32", format!("exp({d})"));
        let t = self
            .w
            .let_("f32", format!("select({e}, {one}, {lo} == {hi})"));
        let up = self.w.let_(
            "f32",
            format!("select({s} + {t}, {s} * {t} + {one}, {x} > {m})"),
        );
        match first {
            Some(f) => {
                self.w.line(format!("{s} = select({up}, {one}, {f});"));
                self.w.line(format!("{m} = select({hi}, {x}, {f});"));
            }
            None => {
                self.w.line(format!("{s} = {up};"));
                self.w.line(format!("{m} = {hi};"));
            }
        }
    }

    /// The pair's value, `m + log(s)` (`s >= 1`), as a `let`.
    pub(super) fn online_close(&mut self, o: &Online) -> String {
        let l = self.w.let_("f32", format!("log({})", o.s));
        self.w.let_("f32", format!("{} + {l}", o.m))
    }

    /// The `lse` of `v` over a subgroup: its max `M` (`subgroupMax`), then
    /// `M + log(subgroupAdd(exp(v - M)))`, 1 for the lanes holding `M` (so
    /// that a subgroup of `-inf`s gives `-inf`, not NaN). In uniform control
    /// flow, as every subgroup operation.
    pub(super) fn subgroup_lse(&mut self, v: &str) -> Result<String, Diagnostic> {
        let mx = self.w.subgroup_let("f32", format!("subgroupMax({v})"))?;
        let d = self.w.let_("f32", format!("{v} - {mx}"));
        let e = self.w.let_("f32", format!("exp({d})"));
        let one = lit::f32_lit(1.0);
        let t = self
            .w
            .let_("f32", format!("select({e}, {one}, {v} == {mx})"));
        let sum = self.w.subgroup_let("f32", format!("subgroupAdd({t})"))?;
        let l = self.w.let_("f32", format!("log({sum})"));
        Ok(self.w.let_("f32", format!("{mx} + {l}")))
    }
}
