//! The evaluator: a tree walk with a scalar path and a lane path.
//!
//! [`Interp::vector`] evaluates any expression to a whole vector;
//! [`Interp::scalar`] evaluates a length-1 expression to one element without
//! allocating. The length-1 body of `compute n |i| <scalar>` (the inner
//! loops of matmul, softmax, a factorization's update) is evaluated for all
//! `n` values of `i` at once, node by node (`eval_lanes.rs`), giving what
//! the scalar path gives each element. Reads are in `eval_read.rs`.
//! Levels are ignored: a scheduled program means the same as an unscheduled one.
//!
//! The evaluator is generic over a [`Shadow`] carried beside every element:
//! `()` for [`eval`], an error bound for `accuracy::reference`. The vector
//! path is in `eval_vector.rs`.

use crate::error::{EvalError, malformed};
use crate::index::eval_term;
use crate::scalar::{self, Sc};
use crate::shadow::{El, Shadow, Shadowed, given};
use crate::value::Value;
use texpr_ir::ReduceOp;
use texpr_ir::{Expr, ExprKind, Func, LoopId, Program, Term, VarId, VecRef};

/// Evaluates `p` on `inputs` (in `Program::inputs` order): the globals first,
/// in order, then the outputs, returned in `Program::outputs` order.
pub fn eval(p: &Program, inputs: &[Value]) -> Result<Vec<Value>, EvalError> {
    Ok(values(run::<()>(p, inputs)?))
}

/// Elements `picks[k]` of output `k` (in `Program::outputs` order), each a
/// value of `picks[k].len()` elements: what [`eval`] gives at those
/// positions, without computing the rest of the outputs (the globals are
/// computed whole). For checking a large result by sampling it.
pub fn eval_elements(
    p: &Program,
    inputs: &[Value],
    picks: &[Vec<u64>],
) -> Result<Vec<Value>, EvalError> {
    Ok(values(run_elements::<()>(p, inputs, picks)?))
}

/// [`eval`] by the scalar path alone, one element at a time: what the
/// lane path (`eval_lanes.rs`) must give, bit for bit. For tests.
#[doc(hidden)]
pub fn eval_by_element(p: &Program, inputs: &[Value]) -> Result<Vec<Value>, EvalError> {
    Ok(values(run_by::<()>(p, inputs, false)?))
}

/// Outputs without their shadows.
fn values(outs: Vec<Shadowed<()>>) -> Vec<Value> {
    outs.into_iter().map(|v| Value::new(v.data)).collect()
}

/// [`eval`] with a shadow beside every element.
pub(crate) fn run<S: Shadow>(p: &Program, inputs: &[Value]) -> Result<Vec<Shadowed<S>>, EvalError> {
    run_by(p, inputs, true)
}

/// [`run`], with the lane path or without it.
pub(crate) fn run_by<S: Shadow>(
    p: &Program,
    inputs: &[Value],
    lanes: bool,
) -> Result<Vec<Shadowed<S>>, EvalError> {
    let mut it = Interp::with_globals(p, inputs, lanes)?;
    p.outputs.iter().map(|o| it.vector(&o.value)).collect()
}

/// [`eval_elements`] with a shadow beside every element.
pub(crate) fn run_elements<S: Shadow>(
    p: &Program,
    inputs: &[Value],
    picks: &[Vec<u64>],
) -> Result<Vec<Shadowed<S>>, EvalError> {
    let mut it = Interp::with_globals(p, inputs, true)?;
    p.outputs
        .iter()
        .zip(picks)
        .map(|(o, ks)| {
            let mut out = Shadowed::with_capacity(o.value.ty.elem, ks.len());
            for &k in ks {
                if k >= o.value.ty.len {
                    return malformed(format!(
                        "element {k} of `{}` (length {})",
                        o.name, o.value.ty.len
                    ));
                }
                out.push(it.element_of(&o.value, k)?)?;
            }
            Ok(out)
        })
        .collect()
}

/// What a `let`-bound variable holds while its body is evaluated: its
/// value once read, and until then the expression that computes it
/// (`eval_lazy.rs`).
#[derive(Debug)]
pub(crate) enum Slot<'a, S> {
    Empty,
    Lazy(&'a Expr),
    Scalar(El<S>),
    Vector(Shadowed<S>),
    /// A scalar with one value per lane (`eval_lanes.rs`): an `iterate`'s
    /// state, or a `let`'s value that depends on the lane; the lane
    /// variable's current value's.
    Lanes(LaneSlot<'a, S>),
}

/// A scalar held per lane, by the lane variable's value (`Slot::Lanes`).
#[derive(Debug)]
pub(crate) struct LaneSlot<'a, S> {
    /// The lane variable.
    pub(crate) var: VarId,
    /// The lowest lane: `vals[k]` is lane `base + k`'s.
    pub(crate) base: u64,
    pub(crate) vals: Vec<El<S>>,
    /// For a `let`'s value: its expression, and the lanes that have
    /// computed it (each at its first read, as `Slot::Lazy`).
    pub(crate) lazy: Option<(&'a Expr, Vec<bool>)>,
}

impl<'a, S: Shadow> LaneSlot<'a, S> {
    /// The element of lane `l` (the lane variable's value `l`).
    pub(crate) fn of(&self, l: i64) -> Result<El<S>, EvalError> {
        let l = self.at(l);
        let ready = |l: usize| self.lazy.as_ref().is_none_or(|(_, done)| done[l]);
        match l {
            Some(l) if ready(l) => Ok(self.vals[l]),
            _ => malformed("a value per lane read in a lane that does not have it"),
        }
    }

    /// The position of lane `l` in `vals`, if it has one.
    pub(crate) fn at(&self, l: i64) -> Option<usize> {
        let k = usize::try_from(l.checked_sub(self.base as i64)?).ok()?;
        (k < self.vals.len()).then_some(k)
    }

    /// A slot for the lanes `ls` (any order), each holding `fill`.
    pub(crate) fn over(var: VarId, ls: &[u64], fill: El<S>, lazy: Option<&'a Expr>) -> Self {
        let base = ls.iter().copied().min().unwrap_or(0);
        let width = ls.iter().max().map_or(0, |&l| (l - base) as usize + 1);
        LaneSlot {
            var,
            base,
            vals: vec![fill; width],
            lazy: lazy.map(|e| (e, vec![false; width])),
        }
    }
}

#[derive(Debug)]
pub(crate) struct Interp<'a, S> {
    pub(crate) prog: &'a Program,
    pub(crate) inputs: &'a [Value],
    /// Each global's value once computed (a loop's, its latest step's).
    pub(crate) globals: Vec<Option<Shadowed<S>>>,
    /// Each loop state's current value once its loop started.
    pub(crate) states: Vec<Option<Shadowed<S>>>,
    /// The current value of each index variable, by `VarId`.
    pub(crate) idx: Vec<i64>,
    /// The index variables' values saved while a `let`'s value is computed
    /// late (`eval_lazy.rs`), one copy per forced value in progress.
    pub(crate) saved_idx: Vec<i64>,
    /// The current value of each `let`-bound variable, by `VarId`.
    pub(crate) locals: Vec<Slot<'a, S>>,
    /// Whether a `compute`'s elements are evaluated together
    /// (`eval_lanes.rs`) rather than one by one.
    pub(crate) lanes: bool,
}

impl<'a, S: Shadow> Interp<'a, S> {
    /// An evaluator of `prog` on `inputs` with every global computed.
    /// (`lanes`: whether with the lane path.)
    fn with_globals(
        prog: &'a Program,
        inputs: &'a [Value],
        lanes: bool,
    ) -> Result<Interp<'a, S>, EvalError> {
        check_inputs(prog, inputs)?;
        let n = prog.vars.len();
        let mut it = Interp {
            prog,
            inputs,
            globals: (0..prog.globals.len()).map(|_| None).collect(),
            states: (0..prog.states.len()).map(|_| None).collect(),
            idx: vec![0; n],
            saved_idx: Vec::new(),
            locals: (0..n).map(|_| Slot::Empty).collect(),
            lanes,
        };
        it.run_globals(0..prog.globals.len(), None)?;
        Ok(it)
    }

    /// Computes the globals in `range`, all within loop `within` (or at the
    /// top level), in order; an inner loop runs whole where it stands.
    fn run_globals(
        &mut self,
        range: std::ops::Range<usize>,
        within: Option<LoopId>,
    ) -> Result<(), EvalError> {
        let p = self.prog;
        let mut g = range.start;
        while g < range.end {
            if p.globals[g].within == within {
                let v = self.vector(&p.globals[g].value)?;
                self.globals[g] = Some(v);
                g += 1;
                continue;
            }
            let Some(mut l) = p.globals[g].within else {
                return malformed(format!("global {g} outside the loop it is listed in"));
            };
            while p.loops[l as usize].within != within {
                match p.loops[l as usize].within {
                    Some(outer) => l = outer,
                    None => return malformed(format!("loop {l} outside its enclosing loop")),
                }
            }
            let body = p.loop_body(l);
            self.run_loop(l, body.clone())?;
            g = body.end.max(g + 1);
        }
        Ok(())
    }

    /// Runs loop `l`: its states from their initial values, then `count`
    /// steps of its globals, each followed by every state taking its next
    /// value (all at once).
    fn run_loop(&mut self, l: LoopId, body: std::ops::Range<usize>) -> Result<(), EvalError> {
        let p = self.prog;
        let lp = &p.loops[l as usize];
        let states: Vec<usize> = (0..p.states.len())
            .filter(|&s| p.states[s].of == l)
            .collect();
        for &s in &states {
            let v = self.whole(p.states[s].init)?;
            self.states[s] = Some(v);
        }
        for t in 0..lp.count {
            self.set_idx(lp.var, t)?;
            self.run_globals(body.clone(), Some(l))?;
            for &s in &states {
                let VecRef::Global(next) = p.states[s].next else {
                    return malformed(format!("state {s}'s next value is not a global"));
                };
                let v = self.globals[next as usize].take();
                match &p.states[s].at {
                    None => self.states[s] = v,
                    Some(at) => self.update(s, at, v)?,
                }
            }
        }
        Ok(())
    }

    /// State `s` with `v`'s elements from `at` on (an update in place).
    fn update(
        &mut self,
        s: usize,
        at: &texpr_ir::Term,
        v: Option<Shadowed<S>>,
    ) -> Result<(), EvalError> {
        let first = crate::index::eval_term(at, &self.idx)?;
        let (Some(v), Some(Some(state))) = (v, self.states.get_mut(s)) else {
            return malformed(format!("state {s} updated before it has a value"));
        };
        for i in 0..v.len() {
            let at = usize::try_from(first + i as i64).ok();
            match (at.filter(|&a| a < state.len()), v.get(i)) {
                (Some(a), Some(el)) => state.set(a, el)?,
                _ => return malformed(format!("state {s} updated outside its elements")),
            }
        }
        Ok(())
    }

    pub(crate) fn set_idx(&mut self, v: VarId, i: u64) -> Result<(), EvalError> {
        match self.idx.get_mut(v.0 as usize) {
            Some(slot) => {
                *slot = i as i64;
                Ok(())
            }
            None => malformed(format!("variable {} does not exist", v.0)),
        }
    }

    /// Evaluates a length-1 expression to its one element.
    pub(crate) fn scalar(&mut self, e: &'a Expr) -> Result<El<S>, EvalError> {
        if e.ty.len != 1 {
            return malformed(format!("a vector of length {} used as a scalar", e.ty.len));
        }
        match &e.kind {
            ExprKind::Index { vec, index, guard } => self.index(*vec, index, *guard),
            ExprKind::IndexVar(v) => Ok((self.index_var(*v)?, S::exact())),
            ExprKind::Const(s) | ExprKind::Fill(s) => Ok(given((*s).into())),
            ExprKind::VecLit(xs) if xs.len() == 1 => Ok(given(xs[0].into())),
            ExprKind::Whole(v) => self.element(*v, 0),
            ExprKind::Broadcast(a) => self.scalar(a),
            ExprKind::Cast(a) => {
                let a = self.scalar(a)?;
                let r = scalar::cast(e.ty.elem, a.0)?;
                Ok((r, S::cast(a, r)))
            }
            ExprKind::Unary(op, a) => {
                let a = self.scalar(a)?;
                let r = scalar::unary(*op, a.0)?;
                Ok((r, S::unary(*op, a, r)))
            }
            ExprKind::Binary(op, a, b) => {
                let a = self.scalar(a)?;
                let b = self.scalar(b)?;
                let r = scalar::binary(*op, a.0, b.0)?;
                Ok((r, S::binary(*op, a, b, r)))
            }
            ExprKind::Call(Func::Select, args) => self.select_scalar(args),
            ExprKind::Call(f, args) => self.call_scalar(*f, args),
            ExprKind::Reduce {
                op,
                n,
                var,
                body,
                steps,
                ..
            } if body.ty.len == 1 => {
                let n = self.steps(*n, steps.as_ref())?;
                self.reduce_scalar(*op, n, *var, body)
            }
            ExprKind::Iterate {
                n,
                var,
                steps,
                states,
                parts,
            } => {
                let n = self.steps(*n, steps.as_ref())?;
                self.iterate(n, *var, states, parts)
            }
            ExprKind::Let {
                var, value, body, ..
            } => {
                let old = self.bind(*var, value)?;
                let r = self.scalar(body)?;
                self.locals[var.0 as usize] = old;
                Ok(r)
            }
            ExprKind::Compute {
                n: 1,
                var,
                map: None,
                body,
                ..
            } => {
                self.set_idx(*var, 0)?;
                self.scalar(body)
            }
            _ => match self.vector(e)?.get(0) {
                Some(s) => Ok(s),
                None => malformed("an empty vector"),
            },
        }
    }

    /// Element `k` of `e`: through `compute`s (and their index maps) to
    /// the one body instance that holds it; anything else whole.
    fn element_of(&mut self, e: &'a Expr, k: u64) -> Result<El<S>, EvalError> {
        match &e.kind {
            _ if e.ty.len == 1 => self.scalar(e),
            ExprKind::Compute { var, map, body, .. } => {
                let raw = match map {
                    Some(m) => self.map_at(m, k)? as u64,
                    None => k,
                };
                let m = body.ty.len;
                self.set_idx(*var, raw / m)?;
                self.element_of(body, raw % m)
            }
            _ => match self.vector(e)?.get(k as usize) {
                Some(s) => Ok(s),
                None => malformed(format!("element {k} of a vector of {}", e.ty.len)),
            },
        }
    }

    pub(crate) fn index_var(&self, v: VarId) -> Result<Sc, EvalError> {
        match self.idx.get(v.0 as usize) {
            Some(&i) => Ok(Sc::I(i as i32)),
            None => malformed(format!("variable {} does not exist", v.0)),
        }
    }

    fn call_scalar(&mut self, f: Func, args: &'a [Expr]) -> Result<El<S>, EvalError> {
        let mut buf = [(Sc::B(false), S::exact()); 3];
        if args.len() > buf.len() {
            return malformed(format!("`{}` with {} arguments", f.name(), args.len()));
        }
        for (slot, a) in buf.iter_mut().zip(args) {
            *slot = self.scalar(a)?;
        }
        let args = &buf[..args.len()];
        let mut vals = [Sc::B(false); 3];
        for (v, a) in vals.iter_mut().zip(args) {
            *v = a.0;
        }
        let r = scalar::call(f, &vals[..args.len()])?;
        Ok((r, S::call(f, args, r)))
    }

    /// The steps a `reduce` runs: its `n`, or its dependent `steps`
    /// clamped to `0..=n`.
    pub(crate) fn steps(&self, n: u64, steps: Option<&Term>) -> Result<u64, EvalError> {
        match steps {
            None => Ok(n),
            Some(t) => Ok(eval_term(t, &self.idx)?.clamp(0, n as i64) as u64),
        }
    }

    fn reduce_scalar(
        &mut self,
        op: ReduceOp,
        n: u64,
        var: VarId,
        body: &'a Expr,
    ) -> Result<El<S>, EvalError> {
        let mut acc = (scalar::identity(op, body.ty.elem)?, S::exact());
        for i in 0..n {
            self.set_idx(var, i)?;
            let x = self.scalar(body)?;
            let r = scalar::fold(op, acc.0, x.0)?;
            acc = (r, S::fold(op, n, acc, x, r, i == 0));
        }
        Ok(acc)
    }

    /// Binds a `let`'s value to its slot, to be computed when first read
    /// (`eval_lazy.rs`); returns what the slot held before.
    pub(crate) fn bind(&mut self, var: VarId, value: &'a Expr) -> Result<Slot<'a, S>, EvalError> {
        self.bind_value(var, Slot::Lazy(value))
    }
}

fn check_inputs(p: &Program, inputs: &[Value]) -> Result<(), EvalError> {
    if inputs.len() != p.inputs.len() {
        return Err(EvalError::InputCount {
            expected: p.inputs.len(),
            got: inputs.len(),
        });
    }
    for (decl, v) in p.inputs.iter().zip(inputs) {
        if v.elem() != decl.ty.elem {
            return Err(EvalError::InputType {
                name: decl.name.clone(),
                expected: decl.ty.elem.name(),
                got: v.elem().name(),
            });
        }
        if v.len() as u64 != decl.ty.len {
            return Err(EvalError::InputLength {
                name: decl.name.clone(),
                expected: decl.ty.len,
                got: v.len(),
            });
        }
    }
    Ok(())
}
