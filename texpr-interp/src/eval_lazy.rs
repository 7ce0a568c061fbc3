//! What the evaluator leaves unevaluated: the operand a `select` does not
//! pick, and a `let`'s value until its body reads it.
//!
//! The language defines a `select` by the operand it picks (docs/language.md,
//! "Non-finite values"), so the other one is computed only where the
//! shadow needs it: where another evaluation may pick it
//! ([`Shadow::needs_other`], a condition that may flip within its bounds).
//! A `let` holds its expression ([`Slot::Lazy`]) until the first read, then
//! its value: a value read only under the operand a `select` does not pick
//! (cholesky's `let below = ... in select(j == k && i > k, below, ...)`)
//! is never computed. Both give the values and shadows an eager evaluation
//! gives: a `let`'s value depends only on variables bound outside it, which
//! its body does not rebind (no two variables in scope share an id). The
//! value may bind index variables its body binds too, in sibling places
//! (`let p = compute 64 |j| ... in reduce 64 |j| p[j] * ...`, forced inside
//! the `reduce`), so forcing it restores every index variable after.

use crate::error::{EvalError, malformed};
use crate::eval::{Interp, Slot};
use crate::scalar::{self, Sc};
use crate::shadow::{El, Shadow, Shadowed};
use texpr_ir::{ElemTy, Expr, Func, VarId};

impl<'a, S: Shadow> Interp<'a, S> {
    /// Computes local `v`'s value if it is still an expression.
    /// A value held per lane (`Slot::Lanes`) is computed for the lane
    /// variable's current value.
    pub(crate) fn force(&mut self, v: VarId) -> Result<(), EvalError> {
        let e: &'a Expr = match self.locals.get(v.0 as usize) {
            Some(Slot::Lazy(e)) => e,
            Some(Slot::Lanes(s)) => return self.force_lane(v, s.var),
            _ => return Ok(()),
        };
        let slot = self.keeping_indices(|it| {
            if e.ty.len == 1 {
                it.scalar(e).map(Slot::Scalar)
            } else {
                it.vector(e).map(Slot::Vector)
            }
        });
        self.locals[v.0 as usize] = slot?;
        Ok(())
    }

    /// `f`, with every index variable restored after it.
    pub(crate) fn keeping_indices<T>(&mut self, f: impl FnOnce(&mut Self) -> T) -> T {
        let base = self.saved_idx.len();
        self.saved_idx.extend_from_slice(&self.idx);
        let r = f(self);
        let n = self.idx.len();
        self.idx.copy_from_slice(&self.saved_idx[base..base + n]);
        self.saved_idx.truncate(base);
        r
    }

    /// Local `v`, a `let`'s value held per lane of `var`: computed for
    /// `var`'s current value if that lane has not computed it.
    fn force_lane(&mut self, v: VarId, var: VarId) -> Result<(), EvalError> {
        let l = self.idx[var.0 as usize];
        let Some(Slot::Lanes(s)) = self.locals.get(v.0 as usize) else {
            return Ok(());
        };
        let Some(k) = s.at(l) else {
            return Ok(());
        };
        let e: &'a Expr = match &s.lazy {
            Some((e, done)) if !done[k] => e,
            _ => return Ok(()),
        };
        let x = self.keeping_indices(|it| it.scalar(e))?;
        if let Some(Slot::Lanes(s)) = self.locals.get_mut(v.0 as usize) {
            s.vals[k] = x;
            if let Some((_, done)) = &mut s.lazy {
                done[k] = true;
            }
        }
        Ok(())
    }

    /// `select(c, a, b)` of length 1: the condition, the operand it picks,
    /// and the other only where the shadow needs it.
    pub(crate) fn select_scalar(&mut self, args: &'a [Expr]) -> Result<El<S>, EvalError> {
        let [c, a, b] = args else {
            return malformed(format!("`select` with {} arguments", args.len()));
        };
        let c = self.scalar(c)?;
        let (picked, other) = if c.0 == Sc::B(true) { (a, b) } else { (b, a) };
        let p = self.scalar(picked)?;
        let o = match S::needs_other(c) {
            true => self.scalar(other)?,
            // Never read: the picked value stands in.
            false => (p.0, S::exact()),
        };
        let (x, y) = if c.0 == Sc::B(true) { (p, o) } else { (o, p) };
        let r = scalar::call(Func::Select, &[c.0, x.0, y.0])?;
        Ok((r, S::call(Func::Select, &[c, x, y], r)))
    }

    /// `select(c, a, b)` of whole vectors: an operand no element picks is
    /// computed only where the shadow needs it.
    pub(crate) fn select_vector(
        &mut self,
        elem: ElemTy,
        args: &'a [Expr],
    ) -> Result<Shadowed<S>, EvalError> {
        let [c, a, b] = args else {
            return malformed(format!("`select` with {} arguments", args.len()));
        };
        let cond = self.vector(c)?;
        let picks = |want: bool| (0..cond.len()).any(|i| cond.data.get(i) == Some(Sc::B(want)));
        let needed = (0..cond.len()).any(|i| cond.get(i).is_some_and(S::needs_other));
        if needed || (picks(true) && picks(false)) {
            return self.call_vector(elem, Func::Select, args);
        }
        let all_true = picks(true);
        let p = self.vector(if all_true { a } else { b })?;
        let mut out = Shadowed::with_capacity(elem, p.len());
        for i in 0..p.len() {
            let (Some(c), Some(x)) = (cond.get(i), p.get(i)) else {
                return malformed("`select` operands of different lengths");
            };
            let o = (x.0, S::exact());
            let (t, f) = if all_true { (x, o) } else { (o, x) };
            let r = scalar::call(Func::Select, &[c.0, t.0, f.0])?;
            out.push((r, S::call(Func::Select, &[c, t, f], r)))?;
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use crate::eval::run;
    use crate::scalar::Sc;
    use crate::shadow::{El, Shadow};
    use crate::{Value, accuracy};
    use std::cell::Cell;
    use texpr_ir::{BinOp, Func, ReduceOp, UnaryOp};

    thread_local! {
        static OPS: Cell<u64> = const { Cell::new(0) };
    }

    /// A shadow that counts the operations evaluated.
    #[derive(Clone, Copy, Debug, Default)]
    struct Counted;

    fn tick() -> Counted {
        OPS.with(|n| n.set(n.get() + 1));
        Counted
    }

    impl Shadow for Counted {
        fn unary(_: UnaryOp, _: El<Self>, _: Sc) -> Self {
            tick()
        }
        fn binary(_: BinOp, _: El<Self>, _: El<Self>, _: Sc) -> Self {
            tick()
        }
        fn call(_: Func, _: &[El<Self>], _: Sc) -> Self {
            tick()
        }
        fn cast(_: El<Self>, _: Sc) -> Self {
            tick()
        }
        fn fold(_: ReduceOp, _: u64, _: El<Self>, _: El<Self>, _: Sc, _: bool) -> Self {
            tick()
        }
    }

    fn count(src: &str, inputs: &[Value]) -> (Vec<Value>, u64) {
        let p = texpr_syntax::frontend(src, &[]).unwrap_or_else(|d| panic!("{d:?}"));
        OPS.with(|n| n.set(0));
        let outs = run::<Counted>(&p, inputs).expect("runs");
        let vals = outs.into_iter().map(|v| Value::new(v.data)).collect();
        (vals, OPS.with(Cell::get))
    }

    #[test]
    fn the_operand_a_select_does_not_pick_is_never_evaluated() {
        let a = Value::f32((0..64).map(|i| i as f32 / 8.0).collect());
        let eager = "input a: f32[64]\noutput y = compute 8 |i| compute 8 |j| \
                     select(i == j, reduce 8 |k| a[i * 8 + k] * a[k * 8 + j], a[i * 8 + j])";
        let by_let = "input a: f32[64]\noutput y = compute 8 |i| compute 8 |j| \
                      let d = reduce 8 |k| a[i * 8 + k] * a[k * 8 + j] in select(i == j, d, a[i * 8 + j])";
        let (y, n) = count(eager, std::slice::from_ref(&a));
        let (z, m) = count(by_let, std::slice::from_ref(&a));
        assert_eq!(y, z, "the same values");
        // Per element a comparison and the select; on the diagonal (8
        // elements) 8 products and 8 fold steps.
        assert_eq!(n, 64 * 2 + 8 * 16);
        assert_eq!(m, n);
        let want = crate::eval(
            &texpr_syntax::frontend(eager, &[]).unwrap(),
            std::slice::from_ref(&a),
        )
        .unwrap();
        assert_eq!(y, want);
    }

    #[test]
    fn a_let_forced_inside_a_loop_of_the_same_variable_keeps_the_loop_going() {
        // `p`'s value and the `reduce` both bind `j` (siblings); `p` is
        // computed at the reduce's first step, which must still see its own
        // `j` afterwards.
        let src = "input a: f32[8]\noutput y = compute 1 |g| \
                   let p = compute 8 |j| a[j] * 2.0 in reduce 8 |j| p[j] * a[j]";
        let p = texpr_syntax::frontend(src, &[]).unwrap();
        let a = Value::f32((0..8).map(|i| i as f32).collect());
        let y = crate::eval(&p, std::slice::from_ref(&a)).unwrap();
        let want: f32 = (0..8).map(|i| 2.0 * (i * i) as f32).sum();
        assert_eq!(y[0], Value::f32(vec![want]));
    }

    #[test]
    fn a_condition_that_may_flip_evaluates_both_operands() {
        // `a[i] * 3.0 >= 0.75` may flip at a[i] = 0.25: the bound there
        // needs the other operand, which is NaN arithmetic: no bound.
        let a = Value::f32(vec![0.25, f32::NAN, 0.5, f32::NAN]);
        let src = "input a: f32[4]\noutput y = compute 4 |i| \
                   select(a[i] * 3.0 >= 0.75, a[i] + 1.0, a[(i + 1) % 4] * 2.0)";
        let p = texpr_syntax::frontend(src, &[]).unwrap();
        let r = accuracy::reference(&p, std::slice::from_ref(&a)).unwrap();
        assert!(r[0].bounds[0].err.is_infinite(), "{:?}", r[0].bounds[0]);
        assert!(r[0].bounds[2].err < 1e-6, "{:?}", r[0].bounds[2]);
    }
}
