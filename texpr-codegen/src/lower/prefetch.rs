//! Registers loaded one trip ahead: a
//! `let@prefetch` inside a thread-level loop holds its value in variables
//! declared at the top of the kernel; the first trip loads them before use,
//! and after each staged fill's barrier the value for the next trip is
//! loaded, so the loads overlap the trip's arithmetic. Outside such a loop
//! it is an ordinary `let@reg`.

use super::lanes::Trip;
use super::{Ix, Loc, Lower, R};
use crate::kir::{BinOp as K, VarId as KVar};
use texpr_ir::{Expr, VarId};

/// A prefetched register tile waiting for the next trip's load.
#[derive(Clone, Debug)]
pub struct Pending {
    pub trip: Trip,
    pub value: Expr,
    pub vars: Vec<KVar>,
}

impl Lower<'_> {
    /// The registers of `let@prefetch var = value`.
    pub fn prefetched(&mut self, var: VarId, value: &Expr) -> R<Loc> {
        let trip = (self.reads.trips.iter().rev())
            .find(|t| value.mentions(t.var))
            .cloned();
        let Some(trip) = trip else {
            return self.local_vector(var, value);
        };
        let name = self.p.var(var).name.clone();
        self.note_private(
            format!("prefetched registers `{name}`"),
            value.ty.len,
            value.span,
        );
        let ty = super::ty(value.ty.elem);
        let top = self.b.top();
        let vars: Vec<KVar> = (0..value.ty.len)
            .map(|_| self.b.var_at(top, &name, ty, None))
            .collect();
        let at = self.ix(trip.at);
        let zero = self.b.i32(0);
        let first = self.b.binary(K::Eq, at, zero);
        self.b.open_if(first, true);
        self.load_into(value, &vars)?;
        self.b.close();
        self.reads.pending.push(Pending {
            trip,
            value: value.clone(),
            vars: vars.clone(),
        });
        Ok(Loc::Vars(vars))
    }

    /// After a fill's barrier: each pending prefetch loads its value for
    /// the next trip.
    pub fn prefetch_next(&mut self) -> R<()> {
        for p in std::mem::take(&mut self.reads.pending) {
            let next = self.arith(K::Add, p.trip.at, Ix::Const(1));
            let next_v = self.ix(next);
            let n = self.b.i32(p.trip.n as i32);
            let more = self.b.binary(K::Lt, next_v, n);
            self.b.open_if(more, true);
            let saved = self.idx.insert(p.trip.var, next);
            self.load_into(&p.value, &p.vars)?;
            if let Some(at) = saved {
                self.idx.insert(p.trip.var, at);
            }
            self.b.close();
        }
        Ok(())
    }

    /// `vars[i] = value[i]` for every element.
    fn load_into(&mut self, value: &Expr, vars: &[KVar]) -> R<()> {
        let vals = match self.quad_tile_elements(value)? {
            Some(vals) => vals,
            None => self.vector(value)?,
        };
        for (var, v) in vars.iter().zip(vals) {
            self.b.assign(*var, None, v);
        }
        Ok(())
    }
}
