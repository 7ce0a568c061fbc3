//! Loops over lanes (`eval_lanes.rs`): a `reduce` or an `iterate` inside
//! a `compute`'s body, each lane running its own number of steps where the
//! count depends on the lane.

use crate::columns;
use crate::error::{EvalError, malformed};
use crate::eval::{Interp, LaneSlot, Slot};
use crate::eval_lanes::Lanes;
use crate::scalar::{self, Sc};
use crate::shadow::{El, Shadow, Shadowed};
use texpr_ir::{Expr, ReduceOp, Term, VarId};

impl<'a, S: Shadow> Interp<'a, S> {
    /// `reduce op n |rv| body` (a scalar body) over lanes: each lane's fold
    /// in the scalar path's order.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn reduce_lanes(
        &mut self,
        op: ReduceOp,
        n: u64,
        rv: VarId,
        steps: Option<&Term>,
        body: &'a Expr,
        var: VarId,
        ls: &[u64],
    ) -> Result<Lanes<S>, EvalError> {
        let counts = self.counts(n, steps, var, ls)?;
        let identity = (scalar::identity(op, body.ty.elem)?, S::exact());
        let mut acc = Shadowed::splat(identity, ls.len());
        self.run_lanes(&counts, ls, rv, |it, t, on, at| {
            let xs = it.lanes(body, var, on)?;
            if S::TRIVIAL {
                return columns::fold_at(op, &mut acc.data, at, &xs.column(on.len()).data);
            }
            for (k, &j) in at.iter().enumerate() {
                let (a, x) = (acc.get(j).expect("j < n"), xs.at(k));
                let r = scalar::fold(op, a.0, x.0)?;
                acc.set(j, (r, S::fold(op, counts.at(j), a, x, r, t == 0)))?;
            }
            Ok(())
        })?;
        Ok(Lanes::Each(acc))
    }

    /// The steps of a `reduce` or `iterate` in each lane: its `n`, or its
    /// dependent `steps` clamped to `0..=n`.
    fn counts(
        &mut self,
        n: u64,
        steps: Option<&Term>,
        var: VarId,
        ls: &[u64],
    ) -> Result<Counts, EvalError> {
        match steps {
            Some(t) if t.mentions(var) => {
                let mut each = Vec::with_capacity(ls.len());
                for &l in ls {
                    self.set_idx(var, l)?;
                    each.push(self.steps(n, Some(t))?);
                }
                Ok(Counts::Each(each))
            }
            _ => Ok(Counts::Same(self.steps(n, steps)?)),
        }
    }

    /// Runs `step(self, t, on, at)` for each step `t` of the longest lane,
    /// with loop variable `tv` at `t`: `on` the lanes still running (lane
    /// values) and `at` their positions in `ls`.
    fn run_lanes(
        &mut self,
        counts: &Counts,
        ls: &[u64],
        tv: VarId,
        mut step: impl FnMut(&mut Self, u64, &[u64], &[usize]) -> Result<(), EvalError>,
    ) -> Result<(), EvalError> {
        let mut at: Vec<usize> = (0..ls.len()).collect();
        let mut on: Vec<u64> = ls.to_vec();
        for t in 0..counts.max() {
            if let Counts::Each(c) = counts {
                at.retain(|&j| c[j] > t);
                on.clear();
                on.extend(at.iter().map(|&j| ls[j]));
            }
            self.set_idx(tv, t)?;
            step(self, t, &on, &at)?;
        }
        Ok(())
    }

    /// `iterate` over lanes: each state held per lane (`Slot::Lanes`).
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn iterate_lanes(
        &mut self,
        n: u64,
        tv: VarId,
        steps: Option<&Term>,
        states: &[VarId],
        parts: &'a [Expr],
        var: VarId,
        ls: &[u64],
    ) -> Result<Lanes<S>, EvalError> {
        let (inits, nexts) = parts.split_at(states.len());
        if states.is_empty() {
            return malformed("an `iterate` without states");
        }
        let counts = self.counts(n, steps, var, ls)?;
        let filler = (Sc::B(false), S::exact());
        let put = |slot: &mut LaneSlot<'a, S>, l: u64, x: El<S>| match slot.at(l as i64) {
            Some(k) => {
                slot.vals[k] = x;
                Ok(())
            }
            None => malformed(format!("lane {l} outside its loop's lanes")),
        };
        let mut vals: Vec<LaneSlot<'a, S>> = Vec::with_capacity(states.len());
        for x in inits {
            let x = self.lanes(x, var, ls)?;
            let mut slot = LaneSlot::over(var, ls, filler, None);
            for (k, &l) in ls.iter().enumerate() {
                put(&mut slot, l, x.at(k))?;
            }
            vals.push(slot);
        }
        let saved: Vec<Slot<'a, S>> = (states.iter())
            .map(|s| self.bind_value(*s, Slot::Empty))
            .collect::<Result<_, _>>()?;
        let mut next: Vec<Lanes<S>> = Vec::with_capacity(states.len());
        let ran = self.run_lanes(&counts, ls, tv, |it, _, on, _| {
            for (s, v) in states.iter().zip(&mut vals) {
                let slot = LaneSlot::over(var, &[], filler, None);
                it.bind_value(*s, Slot::Lanes(std::mem::replace(v, slot)))?;
            }
            next.clear();
            let mut r = Ok(());
            for x in nexts {
                match it.lanes(x, var, on) {
                    Ok(x) => next.push(x),
                    Err(e) => {
                        r = Err(e);
                        break;
                    }
                }
            }
            for (s, v) in states.iter().zip(&mut vals) {
                if let Slot::Lanes(slot) = it.bind_value(*s, Slot::Empty)? {
                    *v = slot;
                }
            }
            r?;
            for (v, x) in vals.iter_mut().zip(&next) {
                for (k, &l) in on.iter().enumerate() {
                    put(v, l, x.at(k))?;
                }
            }
            Ok(())
        });
        for (s, old) in states.iter().zip(saved) {
            self.bind_value(*s, old)?;
        }
        ran?;
        let mut out = Shadowed::with_capacity(parts[0].ty.elem, ls.len());
        for &l in ls {
            out.push(vals[0].of(l as i64)?)?;
        }
        Ok(Lanes::Each(out))
    }
}

/// The steps of a loop in each lane.
enum Counts {
    Same(u64),
    Each(Vec<u64>),
}

impl Counts {
    fn at(&self, j: usize) -> u64 {
        match self {
            Counts::Same(n) => *n,
            Counts::Each(c) => c[j],
        }
    }

    fn max(&self) -> u64 {
        match self {
            Counts::Same(n) => *n,
            Counts::Each(c) => c.iter().copied().max().unwrap_or(0),
        }
    }
}
