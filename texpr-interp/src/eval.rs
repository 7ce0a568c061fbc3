//! The evaluator: a tree walk with a scalar fast path.
//!
//! [`Interp::vector`] evaluates any expression to a whole vector;
//! [`Interp::scalar`] evaluates a length-1 expression to one element without
//! allocating, so the body of `compute n |i| <scalar>` or `reduce n |i| <scalar>`
//! (the inner loops of matmul, softmax, ...) runs allocation-free per `i`.
//! Levels are ignored: a scheduled program means the same as an unscheduled one.

use crate::error::{EvalError, malformed};
use crate::index::eval_term;
use crate::scalar::{self, Sc};
use crate::value::{Data, Value};
use texpr_syntax::ast::{ElemTy, ReduceOp};
use texpr_syntax::ir::{Expr, ExprKind, IndexMap, MapKind, Program, Scalar, Term, VarId, VecRef};

/// Evaluates `p` on `inputs` (in `Program::inputs` order): the globals first,
/// in order, then the outputs, returned in `Program::outputs` order.
pub fn eval(p: &Program, inputs: &[Value]) -> Result<Vec<Value>, EvalError> {
    check_inputs(p, inputs)?;
    let mut it = Interp::new(p, inputs);
    for g in &p.globals {
        let v = it.vector(&g.value)?;
        it.globals.push(v);
    }
    p.outputs.iter().map(|o| it.vector(&o.value)).collect()
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
    check_inputs(p, inputs)?;
    let mut it = Interp::new(p, inputs);
    for g in &p.globals {
        let v = it.vector(&g.value)?;
        it.globals.push(v);
    }
    p.outputs
        .iter()
        .zip(picks)
        .map(|(o, ks)| {
            let mut data = Data::with_capacity(o.value.ty.elem, ks.len());
            for &k in ks {
                if k >= o.value.ty.len {
                    return malformed(format!(
                        "element {k} of `{}` (length {})",
                        o.name, o.value.ty.len
                    ));
                }
                data.push(it.element_of(&o.value, k)?)?;
            }
            Ok(Value::new(data))
        })
        .collect()
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

/// What a `let`-bound variable holds while its body is evaluated.
#[derive(Debug)]
enum Slot {
    Empty,
    Scalar(Sc),
    Vector(Value),
}

#[derive(Debug)]
struct Interp<'a> {
    prog: &'a Program,
    inputs: &'a [Value],
    globals: Vec<Value>,
    /// The current value of each index variable, by `VarId`.
    idx: Vec<i64>,
    /// The current value of each `let`-bound variable, by `VarId`.
    locals: Vec<Slot>,
}

impl<'a> Interp<'a> {
    fn new(prog: &'a Program, inputs: &'a [Value]) -> Interp<'a> {
        let n = prog.vars.len();
        Interp {
            prog,
            inputs,
            globals: Vec::with_capacity(prog.globals.len()),
            idx: vec![0; n],
            locals: (0..n).map(|_| Slot::Empty).collect(),
        }
    }

    fn set_idx(&mut self, v: VarId, i: u64) -> Result<(), EvalError> {
        match self.idx.get_mut(v.0 as usize) {
            Some(slot) => {
                *slot = i as i64;
                Ok(())
            }
            None => malformed(format!("variable {} does not exist", v.0)),
        }
    }

    /// Evaluates a length-1 expression to its one element.
    fn scalar(&mut self, e: &Expr) -> Result<Sc, EvalError> {
        if e.ty.len != 1 {
            return malformed(format!("a vector of length {} used as a scalar", e.ty.len));
        }
        match &e.kind {
            ExprKind::Index { vec, index, guard } => self.index(*vec, index, *guard),
            ExprKind::IndexVar(v) => self.index_var(*v),
            ExprKind::Const(s) | ExprKind::Fill(s) => Ok((*s).into()),
            ExprKind::VecLit(xs) if xs.len() == 1 => Ok(xs[0].into()),
            ExprKind::Whole(v) => self.element(*v, 0),
            ExprKind::Broadcast(a) => self.scalar(a),
            ExprKind::Cast(a) => scalar::cast(e.ty.elem, self.scalar(a)?),
            ExprKind::Unary(op, a) => scalar::unary(*op, self.scalar(a)?),
            ExprKind::Binary(op, a, b) => {
                let a = self.scalar(a)?;
                scalar::binary(*op, a, self.scalar(b)?)
            }
            ExprKind::Call(f, args) => self.call_scalar(*f, args),
            ExprKind::Reduce {
                op, n, var, body, ..
            } if body.ty.len == 1 => self.reduce_scalar(*op, *n, *var, body),
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
    fn element_of(&mut self, e: &Expr, k: u64) -> Result<Sc, EvalError> {
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

    fn index_var(&self, v: VarId) -> Result<Sc, EvalError> {
        match self.idx.get(v.0 as usize) {
            Some(&i) => Ok(Sc::I(i as i32)),
            None => malformed(format!("variable {} does not exist", v.0)),
        }
    }

    fn call_scalar(&mut self, f: texpr_syntax::ir::Func, args: &[Expr]) -> Result<Sc, EvalError> {
        let mut buf = [Sc::B(false); 3];
        if args.len() > buf.len() {
            return malformed(format!("`{}` with {} arguments", f.name(), args.len()));
        }
        for (slot, a) in buf.iter_mut().zip(args) {
            *slot = self.scalar(a)?;
        }
        scalar::call(f, &buf[..args.len()])
    }

    fn reduce_scalar(
        &mut self,
        op: ReduceOp,
        n: u64,
        var: VarId,
        body: &Expr,
    ) -> Result<Sc, EvalError> {
        let mut acc = scalar::identity(op, body.ty.elem)?;
        for i in 0..n {
            self.set_idx(var, i)?;
            acc = scalar::fold(op, acc, self.scalar(body)?)?;
        }
        Ok(acc)
    }

    /// Evaluates a `let`'s value into its slot; returns what the slot held before.
    fn bind(&mut self, var: VarId, value: &Expr) -> Result<Slot, EvalError> {
        let slot = if value.ty.len == 1 {
            Slot::Scalar(self.scalar(value)?)
        } else {
            Slot::Vector(self.vector(value)?)
        };
        match self.locals.get_mut(var.0 as usize) {
            Some(s) => Ok(std::mem::replace(s, slot)),
            None => malformed(format!("variable {} does not exist", var.0)),
        }
    }

    /// `vec[index]`, or the guard's value out of bounds.
    fn index(&mut self, vec: VecRef, index: &Term, guard: Option<Scalar>) -> Result<Sc, EvalError> {
        let i = eval_term(index, &self.idx)?;
        match (self.lookup(vec, i)?, guard) {
            (Some(s), _) => Ok(s),
            (None, Some(g)) => Ok(g.into()),
            (None, None) => Err(EvalError::OutOfBounds {
                vec: self.prog.vec_name(vec).to_string(),
                index: i,
                len: self.prog.vec_ty(vec).len,
            }),
        }
    }

    /// Element `i` of a vector that must be in bounds.
    fn element(&mut self, vec: VecRef, i: i64) -> Result<Sc, EvalError> {
        let t = Term {
            kind: texpr_syntax::ir::TermKind::Const(i),
            span: texpr_syntax::Span::DUMMY,
        };
        self.index(vec, &t, None)
    }

    /// Element `i` of a vector, `None` when out of bounds.
    fn lookup(&self, vec: VecRef, i: i64) -> Result<Option<Sc>, EvalError> {
        let at = |d: &Data| if i < 0 { None } else { d.get(i as usize) };
        match vec {
            VecRef::Input(k) => Ok(at(&self.input(k)?.data)),
            VecRef::Global(k) => Ok(at(&self.global(k)?.data)),
            VecRef::Local(v) => match self.locals.get(v.0 as usize) {
                Some(Slot::Scalar(s)) => Ok((i == 0).then_some(*s)),
                Some(Slot::Vector(val)) => Ok(at(&val.data)),
                _ => malformed(format!("local vector {} read outside its `let`", v.0)),
            },
        }
    }

    fn input(&self, k: u32) -> Result<&'a Value, EvalError> {
        match self.inputs.get(k as usize) {
            Some(v) => Ok(v),
            None => malformed(format!("input {k} does not exist")),
        }
    }

    fn global(&self, k: u32) -> Result<&Value, EvalError> {
        match self.globals.get(k as usize) {
            Some(v) => Ok(v),
            None => malformed(format!("global {k} read before it is computed")),
        }
    }

    /// A whole vector as a value.
    fn whole(&self, vec: VecRef) -> Result<Data, EvalError> {
        match vec {
            VecRef::Input(k) => Ok(self.input(k)?.data.clone()),
            VecRef::Global(k) => Ok(self.global(k)?.data.clone()),
            VecRef::Local(v) => match self.locals.get(v.0 as usize) {
                Some(Slot::Scalar(s)) => Ok(Data::splat(*s, 1)),
                Some(Slot::Vector(val)) => Ok(val.data.clone()),
                _ => malformed(format!("local vector {} read outside its `let`", v.0)),
            },
        }
    }

    /// Evaluates any expression to a whole vector of type `e.ty`.
    fn vector(&mut self, e: &Expr) -> Result<Value, EvalError> {
        let data = self.vector_data(e)?;
        if data.len() as u64 != e.ty.len || data.elem() != e.ty.elem {
            return malformed(format!(
                "an expression of type {}[{}] gave {}[{}]",
                e.ty.elem.name(),
                e.ty.len,
                data.elem().name(),
                data.len()
            ));
        }
        Ok(Value::new(data))
    }

    fn vector_data(&mut self, e: &Expr) -> Result<Data, EvalError> {
        let (elem, len) = (e.ty.elem, e.ty.len as usize);
        match &e.kind {
            ExprKind::Compute {
                n, var, map, body, ..
            } => self.compute(elem, *n, *var, map.as_ref(), body),
            ExprKind::Reduce {
                op, n, var, body, ..
            } if body.ty.len != 1 => self.reduce_vector(*op, *n, *var, body),
            ExprKind::Let {
                var, value, body, ..
            } => {
                let old = self.bind(*var, value)?;
                let r = self.vector(body)?;
                self.locals[var.0 as usize] = old;
                Ok(r.data)
            }
            ExprKind::Whole(v) => self.whole(*v),
            ExprKind::Fill(s) => Ok(Data::splat((*s).into(), len)),
            ExprKind::VecLit(xs) => collect(elem, xs.iter().map(|&s| Ok(s.into()))),
            ExprKind::Broadcast(a) => Ok(Data::splat(self.scalar(a)?, len)),
            ExprKind::Cast(a) => {
                let a = self.vector(a)?;
                collect(elem, each(&a).map(|x| scalar::cast(elem, x?)))
            }
            ExprKind::Unary(op, a) => {
                let a = self.vector(a)?;
                collect(elem, each(&a).map(|x| scalar::unary(*op, x?)))
            }
            ExprKind::Binary(op, a, b) => {
                let (a, b) = (self.vector(a)?, self.vector(b)?);
                same_len(&[&a, &b])?;
                let it = each(&a).zip(each(&b));
                collect(elem, it.map(|(x, y)| scalar::binary(*op, x?, y?)))
            }
            ExprKind::Call(f, args) => self.call_vector(elem, *f, args),
            _ => Ok(Data::splat(self.scalar(e)?, 1)),
        }
    }

    fn call_vector(
        &mut self,
        elem: ElemTy,
        f: texpr_syntax::ir::Func,
        args: &[Expr],
    ) -> Result<Data, EvalError> {
        let vals = args
            .iter()
            .map(|a| self.vector(a))
            .collect::<Result<Vec<_>, _>>()?;
        let refs: Vec<&Value> = vals.iter().collect();
        let n = same_len(&refs)?;
        let mut buf = Vec::with_capacity(vals.len());
        collect(
            elem,
            (0..n).map(|i| {
                buf.clear();
                buf.extend(vals.iter().filter_map(|v| v.get(i)));
                scalar::call(f, &buf)
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
        body: &Expr,
    ) -> Result<Data, EvalError> {
        let m = body.ty.len;
        let mut raw = Data::with_capacity(elem, n.saturating_mul(m) as usize);
        for i in 0..n {
            self.set_idx(var, i)?;
            if m == 1 {
                raw.push(self.scalar(body)?)?;
            } else {
                raw.extend(&self.vector(body)?.data)?;
            }
        }
        match map {
            None => Ok(raw),
            Some(map) => self.permute(map, &raw),
        }
    }

    /// `f(k)`: a term map's term with `k` bound, or a layout evaluated.
    fn map_at(&mut self, map: &IndexMap, k: u64) -> Result<i64, EvalError> {
        self.set_idx(map.var, k)?;
        match &map.kind {
            MapKind::Term(t) => eval_term(t, &self.idx),
            MapKind::Layout(l) => Ok(l.apply(k) as i64),
        }
    }

    /// `out[k] = raw[f(k)]` for `k` in `0..map.len`.
    fn permute(&mut self, map: &IndexMap, raw: &Data) -> Result<Data, EvalError> {
        let mut out = Data::with_capacity(raw.elem(), map.len as usize);
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
        body: &Expr,
    ) -> Result<Data, EvalError> {
        let m = body.ty.len as usize;
        let mut acc = Data::splat(scalar::identity(op, body.ty.elem)?, m);
        for i in 0..n {
            self.set_idx(var, i)?;
            let v = self.vector(body)?;
            for j in 0..m {
                let (a, x) = (acc.get(j), v.get(j));
                if let (Some(a), Some(x)) = (a, x) {
                    acc.set(j, scalar::fold(op, a, x)?)?;
                }
            }
        }
        Ok(acc)
    }
}

/// The elements of a value, one by one.
fn each(v: &Value) -> impl Iterator<Item = Result<Sc, EvalError>> + '_ {
    (0..v.len()).map(|i| Ok(v.get(i).expect("i < len")))
}

/// Collects elements of type `elem` into a vector.
fn collect(
    elem: ElemTy,
    it: impl Iterator<Item = Result<Sc, EvalError>>,
) -> Result<Data, EvalError> {
    let mut out = Data::with_capacity(elem, it.size_hint().0);
    for x in it {
        out.push(x?)?;
    }
    Ok(out)
}

/// The common length of elementwise operands.
fn same_len(vals: &[&Value]) -> Result<usize, EvalError> {
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
