//! Element emission: WGSL statements computing one element of an expression.
//!
//! `elem(e, idx)` writes `let` statements (one per subexpression, so naga's
//! parser never recurses deeply) and returns the name or literal holding
//! element `idx` of `e`. On this path every `compute` (of any level) is index
//! arithmetic (`i = idx / m`, element `idx % m` of the body, after the index
//! map if any), every `reduce` is a loop with a `var` accumulator folding in
//! index order (a sum or product starts from its identity, a `max` or `min`
//! from its first element, never from the type's extreme value: see
//! [`lit::identity`]), and every `let@reg` is a `var` array (or a scalar)
//! filled by a loop. Reads are in bounds: plain reads were proved so by the checker,
//! guarded reads clamp the index and `select` the guard value.
//!
//! A `let@reg` of at most the target's `max_unrolled_elements` (the kernel's
//! `budget.register_vector`) is a register tile
//! ([`Loc::Regs`]): [`Ctx::vector`] computes all its elements unrolled, a
//! `reduce` of a short vector keeps one accumulator per element and computes
//! its body's `let@reg`s once per step, so operands loaded into a register
//! tile are loaded once and reused by every accumulator.

use super::cost::{expr_size, unroll_factor};
use super::ctx::{Ctx, FoldInto, Ix};
use super::lit;
use super::online::Online;
use super::ops;
use crate::wgsl::index::term;
use texpr_syntax::Diagnostic;
use texpr_syntax::ast::{BinOp, ElemTy, MemLevel, ReduceOp};
use texpr_syntax::ir::{Expr, ExprKind, Func};

impl Ctx<'_> {
    /// Element `idx` of `e`: a WGSL name or literal.
    pub fn elem(&mut self, e: &Expr, idx: &Ix) -> Result<String, Diagnostic> {
        match &e.kind {
            ExprKind::Compute { .. } => self.compute_elem(e, idx),
            ExprKind::Reduce { body, .. } => {
                let each = self.cost().elem(body);
                let accs = self.fold(e, 1, each, |cx| Ok(vec![cx.elem(body, idx)?]))?;
                Ok(accs.into_iter().next().expect("one accumulator"))
            }
            ExprKind::Let { .. } => self.let_elem(e, idx),
            ExprKind::Index { vec, index, guard } => {
                if guard.is_none()
                    && let Some(name) = self.wide_read(*vec, index)
                {
                    return Ok(name);
                }
                let t = term(self, index)?;
                self.read(*vec, &t, *guard, e)
            }
            ExprKind::Whole(v) => self.read(*v, idx, None, e),
            ExprKind::IndexVar(v) => Ok(self.index_var(*v)?.to_string()),
            ExprKind::Const(c) | ExprKind::Fill(c) => Ok(lit::scalar(*c)),
            ExprKind::VecLit(vals) => self.veclit(vals, idx, e),
            ExprKind::Broadcast(x) => self.elem(x, &Ix::Const(0)),
            ExprKind::Cast(x) => {
                let v = self.elem(x, idx)?;
                let v = self.runtime(&[v], x.ty.elem).remove(0);
                Ok(self
                    .w
                    .let_(lit::ty(e.ty.elem), ops::cast(x.ty.elem, e.ty.elem, &v)))
            }
            ExprKind::Unary(op, x) => {
                let v = self.elem(x, idx)?;
                let v = self.runtime(&[v], x.ty.elem).remove(0);
                Ok(self.w.let_(lit::ty(e.ty.elem), ops::unary(*op, &v)))
            }
            ExprKind::Binary(op, a, b) => {
                let elem = a.ty.elem;
                let a = self.elem(a, idx)?;
                let b = self.elem(b, idx)?;
                let hoist = if elem.is_int() && matches!(op, BinOp::Div | BinOp::Rem) {
                    2
                } else {
                    1
                };
                let [a, b]: [String; 2] = self
                    .runtime_n(&[a, b], elem, hoist)
                    .try_into()
                    .expect("two operands");
                Ok(self
                    .w
                    .let_(lit::ty(e.ty.elem), format!("{a} {} {b}", op.symbol())))
            }
            ExprKind::Call(Func::Select, args) if args[1..].iter().any(lazy_branch) => {
                self.lazy_select(e, args, idx)
            }
            ExprKind::Call(f, args) => {
                let vals = args
                    .iter()
                    .map(|a| self.elem(a, idx))
                    .collect::<Result<Vec<_>, _>>()?;
                let vals = self.runtime(&vals, args[args.len() - 1].ty.elem);
                Ok(self.w.let_(lit::ty(e.ty.elem), ops::call(*f, &vals)))
            }
        }
    }

    /// Element `idx` of `select(c, a, b)` (`e`) whose `a` or `b` runs a
    /// loop: only the branch the condition picks is computed, in an
    /// `if`/`else` (a `select` computes both: a matrix-wide update that
    /// folds in one column would fold at every element).
    fn lazy_select(&mut self, e: &Expr, args: &[Expr], idx: &Ix) -> Result<String, Diagnostic> {
        let c = self.elem(&args[0], idx)?;
        let ty = lit::ty(e.ty.elem);
        let r = self.w.fresh("pick");
        self.w.line(format!("var {r}: {ty};"));
        self.w.open(format!("if ({c})"), false);
        let a = self.elem(&args[1], idx)?;
        self.w.line(format!("{r} = {a};"));
        self.w.close();
        self.w.open("else", false);
        let b = self.elem(&args[2], idx)?;
        self.w.line(format!("{r} = {b};"));
        self.w.close();
        Ok(r)
    }

    /// Element `idx` of a `compute` (`e`): its index map, then its body's
    /// element at the index's remainder.
    fn compute_elem(&mut self, e: &Expr, idx: &Ix) -> Result<String, Diagnostic> {
        let ExprKind::Compute { var, map, body, .. } = &e.kind else {
            unreachable!("compute_elem on a compute")
        };
        let raw = match map {
            Some(m) => {
                let k = self.named(idx);
                self.idx.insert(m.var, k);
                term(self, &m.term())?
            }
            None => idx.clone(),
        };
        let m = body.ty.len as i64;
        let outer = self.div(&raw, m);
        let inner = self.rem(&raw, m);
        self.idx.insert(*var, outer);
        self.elem(body, &inner)
    }

    /// Element `idx` of a `let` (`e`): its value staged in shared memory or
    /// held in a local vector, then its body's element.
    fn let_elem(&mut self, e: &Expr, idx: &Ix) -> Result<String, Diagnostic> {
        let ExprKind::Let {
            level,
            var,
            value,
            body,
        } = &e.kind
        else {
            unreachable!("let_elem on a let")
        };
        match level {
            Some(MemLevel::Global) => Err(misplaced_let(e)),
            Some(MemLevel::Shared) => {
                let body = self.staged_shared(e)?;
                self.elem(body, idx)
            }
            _ => {
                let live = self.live_private;
                let loc = self.local_vector(*var, value)?;
                self.bind_local(*var, loc);
                let v = self.elem(body, idx);
                // The vector is dead once its body's element is computed.
                self.live_private = live;
                v
            }
        }
    }

    /// The operands of one operation, with the first put in a `var` when all
    /// are literals: naga would otherwise evaluate the operation as a constant
    /// expression, and reject `5i / 0i` or `i32::MAX + 1i` that WGSL defines
    /// at run time. By induction every name is a run-time value, so no
    /// operation the emitter writes is ever a constant expression.
    fn runtime(&mut self, vals: &[String], elem: ElemTy) -> Vec<String> {
        self.runtime_n(vals, elem, 1)
    }

    /// Like [`Self::runtime`], hoisting up to `n` literals (integer `/` and
    /// `%` need the divisor hoisted too: naga rejects a literal zero divisor).
    fn runtime_n(&mut self, vals: &[String], elem: ElemTy, n: usize) -> Vec<String> {
        let mut vals = vals.to_vec();
        if vals.iter().any(|v| is_name(v)) && n == 1 {
            return vals;
        }
        for v in vals.iter_mut().filter(|v| !is_name(v)).take(n) {
            *v = self.w.const_var(lit::ty(elem), v);
        }
        vals
    }

    /// Every element of a short vector, unrolled (see the module docs).
    ///
    /// A `reduce` of `+` or `*` whose body ends, after `let`s only, in a
    /// `reduce` of the same fold (a staged tile's blocks, each a fold over
    /// its steps) folds that inner `reduce` straight into its own
    /// accumulators: one set of registers instead of two, the order of the
    /// flat fold the program wrote before it was tiled.
    pub fn vector(&mut self, e: &Expr) -> Result<Vec<String>, Diagnostic> {
        // An offered fold target reaches this expression's tail only.
        let into = self.fold_into.take();
        match &e.kind {
            ExprKind::Let {
                level: None | Some(MemLevel::Reg | MemLevel::Prefetch),
                var,
                value,
                body,
            } => {
                let live = self.live_private;
                let loc = self.local_vector(*var, value)?;
                self.bind_local(*var, loc);
                self.fold_into = into;
                let vals = self.vector(body);
                self.live_private = live;
                vals
            }
            ExprKind::Let {
                level: Some(MemLevel::Shared),
                ..
            } => {
                let body = self.staged_shared(e)?;
                self.fold_into = into;
                self.vector(body)
            }
            ExprKind::Reduce { op, body, .. } => {
                let into = into.filter(|t| {
                    t.op == *op && t.elem == e.ty.elem && t.accs.len() as u64 == e.ty.len
                });
                let offer = matches!(op, ReduceOp::Add | ReduceOp::Mul);
                let each = self.cost().vector(body);
                self.fold_with(e, e.ty.len, each, into, offer, |cx| cx.vector(body))
            }
            ExprKind::Compute {
                n,
                var,
                map: None,
                body,
                ..
            } => {
                let mut out = Vec::with_capacity(e.ty.len as usize);
                for i in 0..*n {
                    self.idx.insert(*var, Ix::Const(i as i64));
                    let copy = self.w.enter_copy(i);
                    out.extend(self.vector(body)?);
                    self.w.leave_copy(copy);
                }
                Ok(out)
            }
            _ => (0..e.ty.len)
                .map(|i| {
                    let copy = self.w.enter_copy(i);
                    let v = self.elem(e, &Ix::Const(i as i64));
                    self.w.leave_copy(copy);
                    v
                })
                .collect(),
        }
    }

    /// The fold of `reduce n |i| body` (`e`), `width` accumulators, one per
    /// value `step` yields for a body instance (about `each` statements): a
    /// loop unrolled by [`unroll_factor`] as far as the kernel's budget
    /// allows, folding in index order.
    fn fold(
        &mut self,
        e: &Expr,
        width: u64,
        each: u64,
        step: impl FnMut(&mut Self) -> Result<Vec<String>, Diagnostic>,
    ) -> Result<Vec<String>, Diagnostic> {
        self.fold_with(e, width, each, None, false, step)
    }

    /// [`Self::fold`] into the accumulators `into` when given (an enclosing
    /// fold's), and, when `offer`, offering its own to a fold of the same
    /// kind in the tail of `step`'s body: a step whose values are the
    /// accumulators themselves was folded in already.
    fn fold_with(
        &mut self,
        e: &Expr,
        width: u64,
        each: u64,
        into: Option<FoldInto>,
        offer: bool,
        mut step: impl FnMut(&mut Self) -> Result<Vec<String>, Diagnostic>,
    ) -> Result<Vec<String>, Diagnostic> {
        let ExprKind::Reduce {
            op,
            n,
            var,
            body,
            steps,
            ..
        } = &e.kind
        else {
            unreachable!("fold takes a reduce")
        };
        let online = *op == ReduceOp::Lse;
        let accs: Vec<String> = match into {
            Some(into) => into.accs,
            None => (0..width)
                .map(|_| {
                    let a = self.w.fresh("acc");
                    if online {
                        return a;
                    }
                    let ty = lit::ty(e.ty.elem);
                    match lit::identity(*op, e.ty.elem) {
                        Some(id) => self.w.line(format!("var {a}: {ty} = {id};")),
                        None => self.w.line(format!("var {a}: {ty};")),
                    }
                    a
                })
                .collect(),
        };
        let pairs: Vec<Online> = match online {
            true => accs.iter().map(|a| self.online_open(a)).collect(),
            false => Vec::new(),
        };
        // Steps that depend on an index: a loop to a bound computed here
        // (at most `n`), not unrolled.
        let end = match steps {
            Some(t) => {
                let t = term(self, t)?;
                let n = lit::i32_lit(*n as i32);
                Some(self.w.let_("i32", format!("min({t}, {n})")))
            }
            None => None,
        };
        let (u, wide) = match end {
            Some(_) => (1, Default::default()),
            None => {
                let u = self.fit_unroll(unroll_factor(*n, expr_size(body) as u64), each);
                (u, self.wide_fold_reads(body, *var, *n, u))
            }
        };
        let name = self.p.var(*var).name.clone();
        let i = match &end {
            Some(end) => self.open_loop_to(&name, end, *n),
            None => self.open_loop(&name, &Ix::Const(0), *n as i64, u as i64, true),
        };
        for k in 0..u {
            let copy = self.w.enter_copy(k);
            let at = self.step_index(&i, k);
            self.idx.insert(*var, at.clone());
            self.wide_step(&wide, *var, k)?;
            self.trips.push(super::ctx::Trip {
                var: *var,
                at,
                n: *n,
            });
            if offer {
                self.fold_into = Some(FoldInto {
                    op: *op,
                    elem: e.ty.elem,
                    accs: accs.clone(),
                });
            }
            let vals = step(self);
            self.fold_into = None;
            self.trips.pop();
            let vals = vals?;
            if vals == accs {
                self.w.leave_copy(copy);
                continue;
            }
            // Step 0 of the first iteration is element 0: a `max`/`min`
            // accumulator (which has no identity here) takes it as it is.
            let first = (k == 0).then(|| format!("{i} == 0i"));
            for (k, (a, v)) in accs.iter().zip(&vals).enumerate() {
                if online {
                    self.online_step(&pairs[k], v, first.as_deref());
                    continue;
                }
                let next = lit::fold_step(*op, a, v, first.as_deref());
                self.w.line(format!("{a} = {next};"));
            }
            self.w.leave_copy(copy);
        }
        self.w.close();
        self.wide_done(*var);
        let results = match online {
            true => pairs.iter().map(|o| self.online_close(o)).collect(),
            false => accs,
        };
        match (&end, lit::identity(*op, e.ty.elem)) {
            // No step ran: a fold without an identity written gives its identity.
            (Some(end), None) => {
                let id = crate::wgsl::lit::scalar(identity_of(*op, e.ty.elem));
                let ty = lit::ty(e.ty.elem);
                Ok(results
                    .iter()
                    .map(|r| self.w.let_(ty, format!("select({id}, {r}, {end} > 0i)")))
                    .collect())
            }
            _ => Ok(results),
        }
    }

    /// `i + step` as an index (the `step`-th copy of an unrolled loop body).
    pub fn step_index(&mut self, i: &str, step: u64) -> Ix {
        match step {
            0 => Ix::Name(i.to_string()),
            s => Ix::Name(
                self.w
                    .let_("i32", format!("{i} + {}", lit::i32_lit(s as i32))),
            ),
        }
    }

    /// `let@shared v = V in ...` (`e`, with any `let@shared`s directly
    /// after it) met inside an invocation's code: in control flow every
    /// invocation runs alike (a loop with constant bounds), a barrier so that
    /// every read of the previous fill is done (inside a loop), the
    /// cooperative fills and one barrier. Returns the body after them.
    /// Elsewhere, E0303.
    pub fn staged_shared<'e>(&mut self, e: &'e Expr) -> Result<&'e Expr, Diagnostic> {
        if !self.w.uniform() {
            return Err(Diagnostic::error(
                "E0303",
                "this `let@shared` stands where invocations diverge",
            )
            .with_primary(
                e.span,
                "the invocations of a workgroup do not all reach this point together",
            )
            .with_note("inside a `compute@group`, put a `let@shared` in a `thread`-level `reduce` or `compute` that every invocation runs alike, before any per-element code"));
        }
        if self.w.nested() {
            self.w.barrier()?;
        }
        let mut e = e;
        while let ExprKind::Let {
            level: Some(MemLevel::Shared),
            var,
            value,
            body,
        } = &e.kind
        {
            let name = self.p.var(*var).name.clone();
            let loc = self.fill_shared(&name, value, self.group_size, e.span)?;
            self.bind_local(*var, loc);
            e = body;
        }
        self.w.barrier()?;
        self.prefetch_next()?;
        Ok(e)
    }

    /// Opens `for (var i = 0; i < end; i += 1)` for a bound `end` computed
    /// at run time (at most `max`), which invocations need not share: the
    /// loop is not uniform.
    pub fn open_loop_to(&mut self, base: &str, end: &str, max: u64) -> String {
        let i = self.w.fresh(base);
        self.w.open_loop(
            format!("for (var {i}: i32 = 0i; {i} < {end}; {i} = {i} + 1i)"),
            false,
            max,
        );
        self.w.immutable(&i);
        i
    }

    /// Opens `for (var i = start; i < end; i += step)` and returns `i`.
    pub fn open_loop(
        &mut self,
        base: &str,
        start: &Ix,
        end: i64,
        step: i64,
        uniform: bool,
    ) -> String {
        let i = self.w.fresh(base);
        let first = match start {
            Ix::Const(c) => *c,
            Ix::Name(_) => 0, // a non-negative start: at most this many trips
        };
        let step_ = step.max(1);
        let trips = ((end - first).max(0) + step_ - 1) / step_;
        let trips = trips as u64;
        let (end, step) = (lit::i32_lit(end as i32), lit::i32_lit(step as i32));
        self.w.open_loop(
            format!("for (var {i}: i32 = {start}; {i} < {end}; {i} = {i} + {step})"),
            uniform,
            trips,
        );
        // Only the loop's own update assigns it, after the body: fixed
        // within the body, the only place it can be named.
        self.w.immutable(&i);
        i
    }

    pub fn div(&mut self, a: &Ix, m: i64) -> Ix {
        match a {
            _ if m == 1 => a.clone(),
            Ix::Const(c) => Ix::Const(c.div_euclid(m)),
            Ix::Name(n) => Ix::Name(
                self.w
                    .let_("i32", format!("{n} / {}", lit::i32_lit(m as i32))),
            ),
        }
    }

    pub fn rem(&mut self, a: &Ix, m: i64) -> Ix {
        match a {
            _ if m == 1 => Ix::Const(0),
            Ix::Const(c) => Ix::Const(c.rem_euclid(m)),
            Ix::Name(n) => Ix::Name(
                self.w
                    .let_("i32", format!("{n} % {}", lit::i32_lit(m as i32))),
            ),
        }
    }
}

/// The identity of a fold, as the interpreter starts from it (what a fold
/// of no steps gives).
fn identity_of(op: ReduceOp, elem: ElemTy) -> texpr_syntax::ir::Scalar {
    use texpr_syntax::ir::Scalar;
    match (op, elem) {
        (ReduceOp::Max | ReduceOp::Lse, ElemTy::F32) => Scalar::F32(f32::NEG_INFINITY),
        (ReduceOp::Max, ElemTy::I32) => Scalar::I32(i32::MIN),
        (ReduceOp::Max, _) => Scalar::U32(0),
        (ReduceOp::Min, ElemTy::F32) => Scalar::F32(f32::INFINITY),
        (ReduceOp::Min, ElemTy::I32) => Scalar::I32(i32::MAX),
        (ReduceOp::Min, _) => Scalar::U32(u32::MAX),
        (ReduceOp::Mul, ElemTy::F32) => Scalar::F32(1.0),
        (ReduceOp::Mul, ElemTy::I32) => Scalar::I32(1),
        (ReduceOp::Mul, _) => Scalar::U32(1),
        (_, ElemTy::F32) => Scalar::F32(0.0),
        (_, ElemTy::I32) => Scalar::I32(0),
        (_, _) => Scalar::U32(0),
    }
}

/// Whether a `select` operand is worth computing only when picked: it runs
/// a loop (a `reduce`) of one invocation's own (no workgroup-level work,
/// which needs every invocation alike).
fn lazy_branch(e: &Expr) -> bool {
    e.has_reduce() && !e.has_structure()
}

/// Whether `s` is a WGSL identifier (a value's name) rather than a literal.
fn is_name(s: &str) -> bool {
    s.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
        && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

fn misplaced_let(e: &Expr) -> Diagnostic {
    Diagnostic::error("E0303", "this let cannot be placed here").with_primary(
        e.span,
        "`let@global` may only stand at the top level of an item",
    )
}

pub(super) fn unbound(e: &Expr) -> Diagnostic {
    Diagnostic::error("E0392", "internal error: a vector read has no storage")
        .with_primary(e.span, "this read")
}
