//! The evaluator's vector path: any expression to a whole vector, with the
//! shadow of every element (see `eval.rs` for the scalar path).

use crate::error::{EvalError, malformed};
use crate::eval::Interp;
use crate::index::eval_term;
use crate::scalar::{self, Sc};
use crate::shadow::{El, Shadow, Shadowed, given};
use texpr_ir::{ElemTy, ReduceOp};
use texpr_ir::{Expr, ExprKind, Func, IndexMap, MapKind, VarId, VecRef};

/// The most lanes a `compute` evaluates together.
const LANES: u64 = 1024;

impl<'a, S: Shadow> Interp<'a, S> {
    /// Evaluates any expression to a whole vector of type `e.ty`.
    pub(crate) fn vector(&mut self, e: &'a Expr) -> Result<Shadowed<S>, EvalError> {
        let v = self.vector_data(e)?;
        if v.len() as u64 != e.ty.len || v.data.elem() != e.ty.elem {
            return malformed(format!(
                "an expression of type {}[{}] gave {}[{}]",
                e.ty.elem.name(),
                e.ty.len,
                v.data.elem().name(),
                v.len()
            ));
        }
        Ok(v)
    }

    fn vector_data(&mut self, e: &'a Expr) -> Result<Shadowed<S>, EvalError> {
        let (elem, len) = (e.ty.elem, e.ty.len as usize);
        match &e.kind {
            ExprKind::Compute {
                n, var, map, body, ..
            } => self.compute(elem, *n, *var, map.as_ref(), body),
            ExprKind::Reduce {
                op,
                n,
                var,
                body,
                steps,
                ..
            } if body.ty.len != 1 => {
                let n = self.steps(*n, steps.as_ref())?;
                self.reduce_vector(*op, n, *var, body)
            }
            ExprKind::Let {
                var, value, body, ..
            } => {
                let old = self.bind(*var, value)?;
                let r = self.vector(body)?;
                self.locals[var.0 as usize] = old;
                Ok(r)
            }
            ExprKind::Whole(v) => {
                if let VecRef::Local(l) = v {
                    self.force(*l)?;
                }
                self.whole(*v)
            }
            ExprKind::Fill(s) => Ok(Shadowed::splat(given((*s).into()), len)),
            ExprKind::VecLit(xs) => collect(elem, xs.iter().map(|&s| Ok(given(s.into())))),
            ExprKind::Broadcast(a) => Ok(Shadowed::splat(self.scalar(a)?, len)),
            ExprKind::Cast(a) => {
                let a = self.vector(a)?;
                collect(
                    elem,
                    each(&a).map(|x| {
                        let r = scalar::cast(elem, x.0)?;
                        Ok((r, S::cast(x, r)))
                    }),
                )
            }
            ExprKind::Unary(op, a) => {
                let a = self.vector(a)?;
                collect(
                    elem,
                    each(&a).map(|x| {
                        let r = scalar::unary(*op, x.0)?;
                        Ok((r, S::unary(*op, x, r)))
                    }),
                )
            }
            ExprKind::Binary(op, a, b) => {
                let (a, b) = (self.vector(a)?, self.vector(b)?);
                same_len(&[&a, &b])?;
                let pairs = each(&a).zip(each(&b));
                collect(
                    elem,
                    pairs.map(|(x, y)| {
                        let r = scalar::binary(*op, x.0, y.0)?;
                        Ok((r, S::binary(*op, x, y, r)))
                    }),
                )
            }
            ExprKind::Call(Func::Select, args) => self.select_vector(elem, args),
            ExprKind::Call(f, args) => self.call_vector(elem, *f, args),
            _ => Ok(Shadowed::splat(self.scalar(e)?, 1)),
        }
    }

    pub(crate) fn call_vector(
        &mut self,
        elem: ElemTy,
        f: Func,
        args: &'a [Expr],
    ) -> Result<Shadowed<S>, EvalError> {
        let vals = args
            .iter()
            .map(|a| self.vector(a))
            .collect::<Result<Vec<_>, _>>()?;
        let refs: Vec<&Shadowed<S>> = vals.iter().collect();
        let n = same_len(&refs)?;
        let (mut buf, mut xs) = (
            Vec::with_capacity(vals.len()),
            Vec::with_capacity(vals.len()),
        );
        collect(
            elem,
            (0..n).map(|i| {
                buf.clear();
                buf.extend(vals.iter().filter_map(|v| v.get(i)));
                xs.clear();
                xs.extend(buf.iter().map(|x| x.0));
                let r = scalar::call(f, &xs)?;
                Ok((r, S::call(f, &buf, r)))
            }),
        )
    }

    /// `compute n |var| body`, then the index map if any.
    fn compute(
        &mut self,
        elem: ElemTy,
        n: u64,
        var: VarId,
        map: Option<&IndexMap>,
        body: &'a Expr,
    ) -> Result<Shadowed<S>, EvalError> {
        let m = body.ty.len;
        let mut raw = Shadowed::with_capacity(elem, n.saturating_mul(m) as usize);
        if m == 1 && self.lanes {
            // The elements together (`eval_lanes.rs`), in runs of at most
            // `LANES`: enough to share each node's walk, few enough that
            // the columns (and the bounds beside them) stay small.
            let mut lo = 0;
            while lo < n {
                let ls: Vec<u64> = (lo..n.min(lo + LANES)).collect();
                raw.extend(&self.lanes(body, var, &ls)?.column(ls.len()))?;
                lo += LANES;
            }
        } else {
            for i in 0..n {
                self.set_idx(var, i)?;
                if m == 1 {
                    raw.push(self.scalar(body)?)?;
                } else {
                    raw.extend(&self.vector(body)?)?;
                }
            }
        }
        match map {
            None => Ok(raw),
            Some(map) => self.permute(map, &raw),
        }
    }

    /// `f(k)`: a term map's term with `k` bound, or a layout evaluated.
    pub(crate) fn map_at(&mut self, map: &IndexMap, k: u64) -> Result<i64, EvalError> {
        self.set_idx(map.var, k)?;
        match &map.kind {
            MapKind::Term(t) => eval_term(t, &self.idx),
            MapKind::Layout(l) => Ok(l.apply(k) as i64),
        }
    }

    /// `out[k] = raw[f(k)]` for `k` in `0..map.len`.
    fn permute(&mut self, map: &IndexMap, raw: &Shadowed<S>) -> Result<Shadowed<S>, EvalError> {
        let mut out = Shadowed::with_capacity(raw.data.elem(), map.len as usize);
        for k in 0..map.len {
            let target = self.map_at(map, k)?;
            let x = (target >= 0).then(|| raw.get(target as usize)).flatten();
            match x {
                Some(x) => out.push(x)?,
                None => {
                    return Err(EvalError::MapOutOfRange {
                        k,
                        target,
                        raw_len: raw.len() as u64,
                    });
                }
            }
        }
        Ok(out)
    }

    /// `reduce op n |var| body` for a body of length > 1: an elementwise fold.
    fn reduce_vector(
        &mut self,
        op: ReduceOp,
        n: u64,
        var: VarId,
        body: &'a Expr,
    ) -> Result<Shadowed<S>, EvalError> {
        let m = body.ty.len as usize;
        let identity = (scalar::identity(op, body.ty.elem)?, S::exact());
        let mut acc = Shadowed::splat(identity, m);
        for i in 0..n {
            self.set_idx(var, i)?;
            let v = self.vector(body)?;
            for j in 0..m {
                if let (Some(a), Some(x)) = (acc.get(j), v.get(j)) {
                    let r = scalar::fold(op, a.0, x.0)?;
                    acc.set(j, (r, S::fold(op, n, a, x, r, i == 0)))?;
                }
            }
        }
        Ok(acc)
    }
}

/// The elements of a vector, one by one, with their shadows.
fn each<S: Shadow>(v: &Shadowed<S>) -> impl Iterator<Item = El<S>> + '_ {
    (0..v.len()).map(|i| v.get(i).expect("i < len"))
}

/// Collects elements of type `elem` into a vector.
fn collect<S: Shadow>(
    elem: ElemTy,
    it: impl Iterator<Item = Result<(Sc, S), EvalError>>,
) -> Result<Shadowed<S>, EvalError> {
    let mut out = Shadowed::with_capacity(elem, it.size_hint().0);
    for x in it {
        out.push(x?)?;
    }
    Ok(out)
}

/// The common length of elementwise operands.
fn same_len<S: Shadow>(vals: &[&Shadowed<S>]) -> Result<usize, EvalError> {
    let n = vals.first().map_or(0, |v| v.len());
    if vals.iter().any(|v| v.len() != n) {
        let lens: Vec<String> = vals.iter().map(|v| v.len().to_string()).collect();
        return malformed(format!(
            "elementwise operands of lengths {}",
            lens.join(", ")
        ));
    }
    Ok(n)
}
