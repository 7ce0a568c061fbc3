//! The evaluator's reads: an element of a stored vector (an input, a
//! global, a loop state, a local) by index, with its shadow as read, and
//! whole vectors.

use crate::error::{EvalError, malformed};
use crate::eval::{Interp, Slot};
use crate::index::eval_term;
use crate::shadow::{El, Shadow, Shadowed, given};
use crate::value::Value;
use texpr_ir::{Scalar, Term, VecRef};

impl<'a, S: Shadow> Interp<'a, S> {
    /// `vec[index]`, or the guard's value out of bounds.
    pub(crate) fn index(
        &mut self,
        vec: VecRef,
        index: &Term,
        guard: Option<Scalar>,
    ) -> Result<El<S>, EvalError> {
        let i = eval_term(index, &self.idx)?;
        if let VecRef::Local(v) = vec {
            self.force(v)?;
        }
        self.index_at(vec, i, guard)
    }

    /// `vec[i]` of a vector that has its value, or the guard's value out
    /// of bounds.
    pub(crate) fn index_at(
        &self,
        vec: VecRef,
        i: i64,
        guard: Option<Scalar>,
    ) -> Result<El<S>, EvalError> {
        match (self.lookup(vec, i)?, guard) {
            (Some(s), _) => Ok(s),
            (None, Some(g)) => Ok(given(g.into())),
            (None, None) => Err(self.out_of_bounds(vec, i)),
        }
    }

    pub(crate) fn out_of_bounds(&self, vec: VecRef, i: i64) -> EvalError {
        EvalError::OutOfBounds {
            vec: self.prog.vec_name(vec).to_string(),
            index: i,
            len: self.prog.vec_ty(vec).len,
        }
    }

    /// The elements of a vector that has its value, as stored: an input's,
    /// a global's, a state's or a local vector's (`None` for a scalar local).
    pub(crate) fn stored(&self, vec: VecRef) -> Result<Option<&crate::Data>, EvalError> {
        Ok(match vec {
            VecRef::Input(k) => Some(&self.input(k)?.data),
            VecRef::Global(k) => Some(&self.global(k)?.data),
            VecRef::State(k) => Some(&self.state(k)?.data),
            VecRef::Local(v) => match self.locals.get(v.0 as usize) {
                Some(Slot::Vector(val)) => Some(&val.data),
                _ => None,
            },
        })
    }

    /// Element `i` of a vector that must be in bounds.
    pub(crate) fn element(&mut self, vec: VecRef, i: i64) -> Result<El<S>, EvalError> {
        let t = Term {
            kind: texpr_ir::TermKind::Const(i),
            span: texpr_ir::Span::DUMMY,
        };
        self.index(vec, &t, None)
    }

    /// Element `i` of a vector, `None` when out of bounds; an input's or a
    /// global's as read (`Shadow::read`).
    fn lookup(&self, vec: VecRef, i: i64) -> Result<Option<El<S>>, EvalError> {
        let at = |v: &Shadowed<S>| if i < 0 { None } else { v.get(i as usize) };
        let read = |e: El<S>| (e.0, S::read(e, vec, i as u64));
        match vec {
            VecRef::Input(k) => {
                let x = (i >= 0).then(|| self.input(k).ok()?.data.get(i as usize));
                Ok(x.flatten().map(given).map(read))
            }
            VecRef::Global(k) => Ok(at(self.global(k)?).map(read)),
            VecRef::State(k) => Ok(at(self.state(k)?).map(read)),
            VecRef::Local(v) => match self.locals.get(v.0 as usize) {
                Some(Slot::Scalar(s)) => Ok((i == 0).then_some(*s)),
                Some(Slot::Lanes(l)) if i == 0 => Ok(Some(l.of(self.idx[l.var.0 as usize])?)),
                Some(Slot::Lanes(_)) => Ok(None),
                Some(Slot::Vector(val)) => Ok(at(val)),
                Some(Slot::Lazy(_)) => malformed(format!("local vector {} read unevaluated", v.0)),
                _ => malformed(format!("local vector {} read outside its `let`", v.0)),
            },
        }
    }

    fn state(&self, k: u32) -> Result<&Shadowed<S>, EvalError> {
        match self.states.get(k as usize) {
            Some(Some(v)) => Ok(v),
            _ => malformed(format!("state {k} read before its loop starts")),
        }
    }

    fn input(&self, k: u32) -> Result<&'a Value, EvalError> {
        match self.inputs.get(k as usize) {
            Some(v) => Ok(v),
            None => malformed(format!("input {k} does not exist")),
        }
    }

    fn global(&self, k: u32) -> Result<&Shadowed<S>, EvalError> {
        match self.globals.get(k as usize) {
            Some(Some(v)) => Ok(v),
            _ => malformed(format!("global {k} read before it is computed")),
        }
    }

    /// A whole vector as a value (an input's or a global's as read).
    pub(crate) fn whole(&self, vec: VecRef) -> Result<Shadowed<S>, EvalError> {
        match vec {
            VecRef::Input(k) => Ok(Shadowed::given(self.input(k)?.data.clone()).read_from(vec)),
            VecRef::Global(k) => Ok(self.global(k)?.clone().read_from(vec)),
            VecRef::State(k) => Ok(self.state(k)?.clone().read_from(vec)),
            VecRef::Local(v) => match self.locals.get(v.0 as usize) {
                Some(Slot::Scalar(s)) => Ok(Shadowed::splat(*s, 1)),
                Some(Slot::Lanes(l)) => Ok(Shadowed::splat(l.of(self.idx[l.var.0 as usize])?, 1)),
                Some(Slot::Vector(val)) => Ok(val.clone()),
                Some(Slot::Lazy(_)) => malformed(format!("local vector {} read unevaluated", v.0)),
                _ => malformed(format!("local vector {} read outside its `let`", v.0)),
            },
        }
    }
}
