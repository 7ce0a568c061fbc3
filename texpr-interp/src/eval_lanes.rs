//! The evaluator's lane path: the length-1 body of a `compute` evaluated for
//! many values of its variable (the lanes) at once, one node at a time.
//!
//! The scalar path walks the body's tree once per element; here each node
//! is visited once per `compute` and does its work over all the lanes, so
//! the walk's cost is shared by them. A node that does not depend on the
//! lane variable is evaluated once ([`Lanes::Same`]): the condition
//! `i > k` of a factorization's update, a pivot, a `let` of constants.
//!
//! Every element gets the value and shadow the scalar path gives it: each
//! lane runs the same scalar operations on the same operands, a fold in the
//! same order (`tests/it/interp_lanes.rs` holds the two paths to that, bit
//! for bit). The statistical tier's random rounding (`accuracy::stochastic`)
//! draws its numbers in another order here, and once for a node that is
//! the same in every lane; its runs stay the same from run to run.
//!
//! A `select` stays lazy per lane: an operand is evaluated on the lanes
//! that pick it (and those whose shadow needs it), never on the others. A
//! `reduce` or an `iterate` whose count depends on the lane runs each lane
//! its own number of steps. A scalar `let` whose value depends on the lane
//! is held per lane (`Slot::Lanes`), computed in each lane at its first
//! read there; one that does not, once. Nodes the lane path does not know
//! (a vector `let` that depends on the lane) fall back to the scalar path,
//! lane by lane. Loops over lanes are in `eval_lanes_loops.rs`; the typed
//! loops over a column's elements in `columns.rs`.

use crate::columns;
use crate::error::{EvalError, malformed};
use crate::eval::{Interp, LaneSlot, Slot};
use crate::index::{TermLanes, eval_term_lanes};
use crate::scalar::{self, Sc};
use crate::shadow::{El, Shadow, Shadowed, given};
use texpr_ir::{Expr, ExprKind, Func, Term, VarId, VecRef};

/// An expression's elements over a set of lanes.
#[derive(Debug)]
pub(crate) enum Lanes<S> {
    /// The same element in every lane.
    Same(El<S>),
    /// One element per lane, in the lanes' order.
    Each(Shadowed<S>),
}

impl<S: Shadow> Lanes<S> {
    pub(crate) fn at(&self, k: usize) -> El<S> {
        match self {
            Lanes::Same(x) => *x,
            Lanes::Each(xs) => xs.get(k).expect("one element per lane"),
        }
    }

    /// The values of `n` lanes as a column (without their shadows).
    fn data(&self, n: usize) -> std::borrow::Cow<'_, crate::Data> {
        match self {
            Lanes::Same(x) => std::borrow::Cow::Owned(crate::Data::splat(x.0, n)),
            Lanes::Each(xs) => std::borrow::Cow::Borrowed(&xs.data),
        }
    }

    /// The elements of `n` lanes as a column.
    pub(crate) fn column(self, n: usize) -> Shadowed<S> {
        match self {
            Lanes::Same(x) => Shadowed::splat(x, n),
            Lanes::Each(xs) => xs,
        }
    }
}

/// A column of the elements `data`, each with the shadow `shadow(k, x)`
/// gives element `k` of value `x` (never called for a trivial shadow).
fn column<S: Shadow>(data: crate::Data, mut shadow: impl FnMut(usize, Sc) -> S) -> Shadowed<S> {
    let n = data.len();
    let shadow = match S::TRIVIAL {
        true => vec![S::default(); n],
        false => (0..n)
            .map(|k| shadow(k, data.get(k).expect("k < n")))
            .collect(),
    };
    Shadowed { data, shadow }
}

impl<'a, S: Shadow> Interp<'a, S> {
    /// Length-1 expression `e` with variable `var` at each value in `ls`.
    pub(crate) fn lanes(
        &mut self,
        e: &'a Expr,
        var: VarId,
        ls: &[u64],
    ) -> Result<Lanes<S>, EvalError> {
        if e.ty.len != 1 {
            return malformed(format!("a vector of length {} used as a scalar", e.ty.len));
        }
        if ls.len() == 1 {
            // One lane (an operand a `select` picks in one): the scalar
            // path walks it without allocating.
            return self.each_lane(e, var, ls);
        }
        match &e.kind {
            ExprKind::Index { vec, index, guard } => match vec {
                VecRef::Local(v) if self.varies(*vec, var) => {
                    self.read_per_lane(*v, index, *guard, var, ls)
                }
                _ => {
                    if let VecRef::Local(v) = vec {
                        self.force(*v)?;
                    }
                    self.read_lanes(*vec, index, *guard, var, ls)
                }
            },
            ExprKind::Whole(VecRef::Local(v)) if self.varies(VecRef::Local(*v), var) => {
                let zero = Term {
                    kind: texpr_ir::TermKind::Const(0),
                    span: texpr_ir::Span::DUMMY,
                };
                self.read_per_lane(*v, &zero, None, var, ls)
            }
            ExprKind::IndexVar(v) if *v == var => {
                let data = crate::Data::I32(ls.iter().map(|&l| l as i32).collect());
                Ok(Lanes::Each(column(data, |_, _| S::exact())))
            }
            ExprKind::IndexVar(_)
            | ExprKind::Const(_)
            | ExprKind::Fill(_)
            | ExprKind::VecLit(_)
            | ExprKind::Whole(_) => Ok(Lanes::Same(self.scalar(e)?)),
            ExprKind::Broadcast(a) => self.lanes(a, var, ls),
            ExprKind::Cast(a) => {
                let a = self.lanes(a, var, ls)?;
                each(a, e.ty.elem, |x| {
                    let r = scalar::cast(e.ty.elem, x.0)?;
                    Ok((r, S::cast(x, r)))
                })
            }
            ExprKind::Unary(op, a) => {
                let a = self.lanes(a, var, ls)?;
                each(a, e.ty.elem, |x| {
                    let r = scalar::unary(*op, x.0)?;
                    Ok((r, S::unary(*op, x, r)))
                })
            }
            ExprKind::Binary(op, a, b) => {
                let (a, b) = (self.lanes(a, var, ls)?, self.lanes(b, var, ls)?);
                if let (Lanes::Same(x), Lanes::Same(y)) = (&a, &b) {
                    let r = scalar::binary(*op, x.0, y.0)?;
                    return Ok(Lanes::Same((r, S::binary(*op, *x, *y, r))));
                }
                let n = ls.len();
                let data = columns::binary(*op, &a.data(n), &b.data(n))?;
                Ok(Lanes::Each(column(data, |k, r| {
                    S::binary(*op, a.at(k), b.at(k), r)
                })))
            }
            ExprKind::Call(Func::Select, args) => self.select_lanes(args, var, ls),
            ExprKind::Call(f, args) => self.call_lanes(e.ty.elem, *f, args, var, ls),
            ExprKind::Reduce {
                op,
                n,
                var: rv,
                body,
                steps,
                ..
            } if body.ty.len == 1 => self.reduce_lanes(*op, *n, *rv, steps.as_ref(), body, var, ls),
            ExprKind::Iterate {
                n,
                var: tv,
                steps,
                states,
                parts,
            } => self.iterate_lanes(*n, *tv, steps.as_ref(), states, parts, var, ls),
            ExprKind::Let {
                var: lv,
                value,
                body,
                ..
            } => {
                // A value the same in every lane is computed once, at its
                // first read; one that depends on the lane, in each lane
                // at its first read there.
                let slot = match (self.depends(value, var), value.ty.len) {
                    (false, _) => Slot::Lazy(value),
                    (true, 1) => Slot::Lanes(LaneSlot::over(
                        var,
                        ls,
                        (Sc::B(false), S::exact()),
                        Some(value),
                    )),
                    (true, _) => return self.each_lane(e, var, ls),
                };
                let old = self.bind_value(*lv, slot)?;
                let r = self.lanes(body, var, ls);
                self.locals[lv.0 as usize] = old;
                r
            }
            ExprKind::Compute {
                n: 1,
                var: cv,
                map: None,
                body,
                ..
            } => {
                self.set_idx(*cv, 0)?;
                self.lanes(body, var, ls)
            }
            _ => self.each_lane(e, var, ls),
        }
    }

    /// `e` by the scalar path, lane by lane.
    fn each_lane(&mut self, e: &'a Expr, var: VarId, ls: &[u64]) -> Result<Lanes<S>, EvalError> {
        let mut out = Shadowed::with_capacity(e.ty.elem, ls.len());
        for &l in ls {
            self.set_idx(var, l)?;
            out.push(self.scalar(e)?)?;
        }
        Ok(Lanes::Each(out))
    }

    /// `vec[index]` over lanes (`vec` forced if a local).
    fn read_lanes(
        &mut self,
        vec: VecRef,
        index: &Term,
        guard: Option<texpr_ir::Scalar>,
        var: VarId,
        ls: &[u64],
    ) -> Result<Lanes<S>, EvalError> {
        let ix = match eval_term_lanes(index, &self.idx, var, ls)? {
            TermLanes::Same(i) => return Ok(Lanes::Same(self.index_at(vec, i, guard)?)),
            TermLanes::Each(ix) => ix,
        };
        if let (true, Some(src)) = (S::TRIVIAL, self.stored(vec)?) {
            return match columns::gather(src, &ix, guard.map(Sc::from))? {
                Ok(data) => Ok(Lanes::Each(column(data, |_, _| S::exact()))),
                Err(i) => Err(self.out_of_bounds(vec, i)),
            };
        }
        let mut out = Shadowed::with_capacity(self.prog.vec_ty(vec).elem, ls.len());
        for i in ix {
            out.push(self.index_at(vec, i, guard)?)?;
        }
        Ok(Lanes::Each(out))
    }

    /// Whether `vec` holds one value per lane (an `iterate`'s state).
    fn varies(&self, vec: VecRef, var: VarId) -> bool {
        let VecRef::Local(v) = vec else { return false };
        matches!(self.locals.get(v.0 as usize), Some(Slot::Lanes(s)) if s.var == var)
    }

    /// `v[index]` of a local held per lane of `var` (`Slot::Lanes`), its
    /// value computed first in the lanes that have not computed it.
    fn read_per_lane(
        &mut self,
        v: VarId,
        index: &Term,
        guard: Option<texpr_ir::Scalar>,
        var: VarId,
        ls: &[u64],
    ) -> Result<Lanes<S>, EvalError> {
        self.force_lanes(v, ls)?;
        let ix = eval_term_lanes(index, &self.idx, var, ls)?;
        let vec = VecRef::Local(v);
        let Some(Slot::Lanes(s)) = self.locals.get(v.0 as usize) else {
            return malformed(format!("local {} is not held per lane", v.0));
        };
        let mut out = Shadowed::with_capacity(self.prog.vec_ty(vec).elem, ls.len());
        for (k, &l) in ls.iter().enumerate() {
            let i = match &ix {
                TermLanes::Same(i) => *i,
                TermLanes::Each(ix) => ix[k],
            };
            out.push(match (i, guard) {
                (0, _) => s.of(l as i64)?,
                (_, Some(g)) => given(g.into()),
                (_, None) => return Err(self.out_of_bounds(vec, i)),
            })?;
        }
        Ok(Lanes::Each(out))
    }

    /// Local `v`, held per lane: its value computed in the lanes of `ls`
    /// that have not computed it (a `let`'s; an `iterate`'s state has all).
    fn force_lanes(&mut self, v: VarId, ls: &[u64]) -> Result<(), EvalError> {
        let Some(Slot::Lanes(s)) = self.locals.get(v.0 as usize) else {
            return Ok(());
        };
        let Some((e, done)) = &s.lazy else {
            return Ok(());
        };
        let (e, var): (&'a Expr, VarId) = (e, s.var);
        let todo = |l: u64| s.at(l as i64).is_some_and(|k| !done[k]);
        let missing: Vec<u64> = ls.iter().copied().filter(|&l| todo(l)).collect();
        if missing.is_empty() {
            return Ok(());
        }
        let xs = self.keeping_indices(|it| it.lanes(e, var, &missing))?;
        if let Some(Slot::Lanes(s)) = self.locals.get_mut(v.0 as usize) {
            for (k, &l) in missing.iter().enumerate() {
                if let Some(j) = s.at(l as i64) {
                    s.vals[j] = xs.at(k);
                    if let Some((_, done)) = &mut s.lazy {
                        done[j] = true;
                    }
                }
            }
        }
        Ok(())
    }

    /// Whether `e`'s value may differ between values of `var`: it reads
    /// `var` or a state held per lane. (A local bound outside `e` holds a
    /// value that does not depend on `var`, or one per lane.)
    fn depends(&self, e: &Expr, var: VarId) -> bool {
        e.mentions(var)
            || e.any(|x| match &x.kind {
                ExprKind::Index { vec, .. } | ExprKind::Whole(vec) => self.varies(*vec, var),
                _ => false,
            })
    }

    /// `f(args)` over lanes.
    fn call_lanes(
        &mut self,
        elem: texpr_ir::ElemTy,
        f: Func,
        args: &'a [Expr],
        var: VarId,
        ls: &[u64],
    ) -> Result<Lanes<S>, EvalError> {
        if args.len() > 3 {
            return malformed(format!("`{}` with {} arguments", f.name(), args.len()));
        }
        let xs = args
            .iter()
            .map(|a| self.lanes(a, var, ls))
            .collect::<Result<Vec<_>, _>>()?;
        let one = |k: usize| {
            let mut buf = [(Sc::B(false), S::exact()); 3];
            let mut vals = [Sc::B(false); 3];
            for (j, x) in xs.iter().enumerate() {
                buf[j] = x.at(k);
                vals[j] = buf[j].0;
            }
            let r = scalar::call(f, &vals[..xs.len()])?;
            Ok((r, S::call(f, &buf[..xs.len()], r)))
        };
        if xs.iter().all(|x| matches!(x, Lanes::Same(_))) {
            return Ok(Lanes::Same(one(0)?));
        }
        let mut out = Shadowed::with_capacity(elem, ls.len());
        for k in 0..ls.len() {
            out.push(one(k)?)?;
        }
        Ok(Lanes::Each(out))
    }

    /// `select(c, a, b)` over lanes: each operand on the lanes that pick
    /// it, and on those whose shadow needs the other (as `select_scalar`).
    fn select_lanes(
        &mut self,
        args: &'a [Expr],
        var: VarId,
        ls: &[u64],
    ) -> Result<Lanes<S>, EvalError> {
        let [c, a, b] = args else {
            return malformed(format!("`select` with {} arguments", args.len()));
        };
        let cond = self.lanes(c, var, ls)?;
        let n = ls.len();
        let picks_a = |x: El<S>| x.0 == Sc::B(true);
        if let (true, Lanes::Same(c @ (Sc::B(_), _))) = (S::TRIVIAL, &cond) {
            // No shadow needs the other operand: every lane's is the pick's.
            return self.lanes(if picks_a(*c) { a } else { b }, var, ls);
        }
        // Per lane: whether it picks `a`, and whether its shadow needs the
        // other operand too; then the positions (in `ls`) of each operand's.
        let (mut pick, mut both) = (Vec::with_capacity(n), Vec::with_capacity(n));
        let (mut on_a, mut on_b) = (Vec::with_capacity(n), Vec::with_capacity(n));
        for k in 0..n {
            let c = cond.at(k);
            let (p, o) = (picks_a(c), S::needs_other(c));
            if p || o {
                on_a.push(k);
            }
            if !p || o {
                on_b.push(k);
            }
            pick.push(p);
            both.push(o);
        }
        let xa = self.lanes_at(a, var, ls, &on_a)?;
        let xb = self.lanes_at(b, var, ls, &on_b)?;
        if let (
            true,
            Lanes::Each(Shadowed {
                data: crate::Data::Bool(bits),
                ..
            }),
        ) = (S::TRIVIAL, &cond)
        {
            // Each lane's value is its pick's, its shadow trivial.
            let xa = xa.map(|x| x.column(on_a.len()));
            let xb = xb.map(|x| x.column(on_b.len()));
            let (xa, xb) = (xa.as_ref().map(|x| &x.data), xb.as_ref().map(|x| &x.data));
            let data = columns::merge(bits, xa, xb)?;
            return Ok(Lanes::Each(column(data, |_, _| S::exact())));
        }
        let (mut ia, mut ib) = (0, 0);
        let mut out = Shadowed::with_capacity(a.ty.elem, n);
        for k in 0..n {
            let next = |x: &Option<Lanes<S>>, i: &mut usize| {
                let v = x.as_ref().map(|x| x.at(*i));
                *i += 1;
                v
            };
            let va = if pick[k] || both[k] {
                next(&xa, &mut ia)
            } else {
                None
            };
            let vb = if !pick[k] || both[k] {
                next(&xb, &mut ib)
            } else {
                None
            };
            // An operand not evaluated is never read: the picked value
            // stands in (as `select_scalar`).
            let (x, y) = match (va, vb) {
                (Some(x), Some(y)) => (x, y),
                (Some(x), None) => (x, (x.0, S::exact())),
                (None, Some(y)) => ((y.0, S::exact()), y),
                (None, None) => return malformed("a `select`'s picked operand was not evaluated"),
            };
            let c = cond.at(k);
            let r = scalar::call(Func::Select, &[c.0, x.0, y.0])?;
            out.push((r, S::call(Func::Select, &[c, x, y], r)))?;
        }
        Ok(Lanes::Each(out))
    }

    /// `e` on the lanes at positions `at` of `ls`; `None` when there are none.
    fn lanes_at(
        &mut self,
        e: &'a Expr,
        var: VarId,
        ls: &[u64],
        at: &[usize],
    ) -> Result<Option<Lanes<S>>, EvalError> {
        if at.is_empty() {
            return Ok(None);
        }
        if at.len() == ls.len() {
            return self.lanes(e, var, ls).map(Some);
        }
        let on: Vec<u64> = at.iter().map(|&k| ls[k]).collect();
        self.lanes(e, var, &on).map(Some)
    }
}

/// `f` of each lane's element, of type `elem`.
fn each<S: Shadow>(
    a: Lanes<S>,
    elem: texpr_ir::ElemTy,
    f: impl Fn(El<S>) -> Result<El<S>, EvalError>,
) -> Result<Lanes<S>, EvalError> {
    match a {
        Lanes::Same(x) => Ok(Lanes::Same(f(x)?)),
        Lanes::Each(xs) => {
            let mut out = Shadowed::with_capacity(elem, xs.len());
            for k in 0..xs.len() {
                out.push(f(xs.get(k).expect("k < n"))?)?;
            }
            Ok(Lanes::Each(out))
        }
    }
}
