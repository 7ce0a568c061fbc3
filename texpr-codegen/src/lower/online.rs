//! The online log-sum-exp pair an invocation folds `reduce lse` with
//! (Milakov and Gimelshein's online softmax normaliser): the largest term
//! so far `m` and the sum `s` of `exp(x - m)`, one `exp` per term:
//!
//! ```text
//! hi = max(m, x); lo = min(m, x); t = exp(lo - hi)   (1 where lo == hi)
//! s  = x > m ? s * t + 1 : s + t;  m = hi
//! ```
//!
//! the first term sets `(x, 1)`, and the fold's value is `m + log(s)`.

use super::Lower;
use crate::kir::{BinOp as K, Fun, Init, Ty, V, VarId};

impl Lower<'_> {
    /// Declares a pair; returns its `m` (the pair is known by it).
    pub fn online_open(&mut self) -> VarId {
        let m = self.b.var("acc_m", Ty::F32, None, Init::None);
        let s = self.b.var("acc_s", Ty::F32, None, Init::None);
        self.regs.pairs.insert(m, s);
        m
    }

    /// Folds term `x` into the pair `m`; `first` holds when `x` is the
    /// fold's first term.
    pub fn online_step(&mut self, m: VarId, x: V, first: Option<V>) {
        let s = self.regs.pairs[&m];
        let (mv, sv) = (self.b.read_var(m), self.b.read_var(s));
        let one = self.b.f32(1.0);
        let hi = self.b.call(Fun::Max, vec![mv, x]);
        let lo = self.b.call(Fun::Min, vec![mv, x]);
        let d = self.b.binary(K::Sub, lo, hi);
        let e = self.b.call(Fun::Exp, vec![d]);
        let same = self.b.binary(K::Eq, lo, hi);
        let t = self.b.select(same, one, e);
        let grew = self.b.binary(K::Gt, x, mv);
        let scaled = self.b.binary(K::Mul, sv, t);
        let scaled = self.b.binary(K::Add, scaled, one);
        let added = self.b.binary(K::Add, sv, t);
        let up = self.b.select(grew, scaled, added);
        let (s_next, m_next) = match first {
            Some(f) => (self.b.select(f, one, up), self.b.select(f, x, hi)),
            None => (up, hi),
        };
        self.b.assign(s, None, s_next);
        self.b.assign(m, None, m_next);
    }

    /// The pair's value, `m + log(s)`.
    pub fn online_close(&mut self, m: VarId) -> V {
        let s = self.regs.pairs[&m];
        let (mv, sv) = (self.b.read_var(m), self.b.read_var(s));
        let l = self.b.call(Fun::Log, vec![sv]);
        self.b.binary(K::Add, mv, l)
    }
}
