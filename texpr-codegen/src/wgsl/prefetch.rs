//! `let@prefetch v = V in ...`: registers loaded one trip ahead (software
//! pipelining of a shared-staged tile's fills).
//!
//! Inside the value of a `let@shared` that stands in a thread-level loop
//! (`reduce@thread n |kb|`), where `V` depends on `kb`: `v`'s elements are
//! `var`s at the top of the function; the loop's first trip loads them
//! itself (`if (kb == 0)`), every trip stores them into the workgroup array
//! (the fill), and after the fill's barrier loads the next trip's value
//! (`if (kb + 1 < n)`, `V` at `kb + 1`), so that those global loads are in
//! flight while the trip computes from the array. The values are exactly
//! the `let@reg`'s. Elsewhere (no enclosing loop `V` depends on) it is a
//! `let@reg`.

use super::ctx::{Ctx, Ix, Loc, Pending};
use super::lit;
use texpr_syntax::Diagnostic;
use texpr_syntax::ir::{Expr, VarId};

impl Ctx<'_> {
    /// The registers of `let@prefetch var = value` (see the module docs).
    pub fn prefetched(&mut self, var: VarId, value: &Expr) -> Result<Loc, Diagnostic> {
        let trip = self
            .trips
            .iter()
            .rev()
            .find(|t| value.mentions(t.var))
            .cloned();
        let (Some(trip), Some(top)) = (trip, self.inv_at) else {
            return self.local_vector(var, value);
        };
        let name = self.p.var(var).name.clone();
        self.note_private(
            format!("prefetched registers `{name}`"),
            value.ty.len,
            value.span,
        );
        let ty = lit::ty(value.ty.elem);
        let names: Vec<String> = (0..value.ty.len)
            .map(|_| {
                let v = self.w.fresh(&name);
                self.w.insert_at(top, format!("var {v}: {ty};"));
                v
            })
            .collect();
        self.w.open(format!("if ({} == 0i)", trip.at), true);
        self.load_into(value, &names)?;
        self.w.close();
        self.pending.push(Pending {
            trip,
            value: value.clone(),
            names: names.clone(),
        });
        Ok(Loc::Regs(names))
    }

    /// After a fill's barrier: each pending prefetch loads its value for the
    /// next trip.
    pub fn prefetch_next(&mut self) -> Result<(), Diagnostic> {
        for p in std::mem::take(&mut self.pending) {
            let next = self.w.let_("i32", format!("{} + 1i", p.trip.at));
            let n = lit::i32_lit(p.trip.n as i32);
            self.w.open(format!("if ({next} < {n})"), true);
            let saved = self.idx.insert(p.trip.var, Ix::Name(next));
            self.load_into(&p.value, &p.names)?;
            if let Some(at) = saved {
                self.idx.insert(p.trip.var, at);
            }
            self.w.close();
        }
        Ok(())
    }

    /// `names[i] = value[i]` for every element (`vec4` loads where the value
    /// is a register tile marked for them).
    fn load_into(&mut self, value: &Expr, names: &[String]) -> Result<(), Diagnostic> {
        let vals = match self.quad_tile_elements(value)? {
            Some(vals) => vals,
            None => self.vector(value)?,
        };
        for (n, v) in names.iter().zip(vals) {
            self.w.line(format!("{n} = {v};"));
        }
        Ok(())
    }
}
