//! One element of an expression as a kir value: every `compute` is index
//! arithmetic, every `reduce` a loop with a variable accumulator folding in
//! index order (unrolled within the kernel's budget without changing the
//! order; a sum or product starts from its identity, a `max` or `min` from
//! its first element), every `let@reg` a value or an array.

use super::{Ix, Loc, Lower, R};
use crate::kir::{BinOp as K, Init, LoopStep, V};
use texpr_ir::Diagnostic;
use texpr_ir::{Expr, ExprKind, Func, Term, TermKind, VarId};
use texpr_ir::{MemLevel, TermOp};

impl Lower<'_> {
    /// Element `idx` of `e`.
    pub fn elem(&mut self, e: &Expr, idx: Ix) -> R<V> {
        match &e.kind {
            ExprKind::Compute { var, map, body, .. } => {
                let raw = match map {
                    Some(m) => {
                        self.idx.insert(m.var, idx);
                        self.term(&m.term())?
                    }
                    None => idx,
                };
                let m = body.ty.len as i64;
                let outer = self.div(raw, m);
                let inner = self.rem(raw, m);
                self.idx.insert(*var, outer);
                self.elem(body, inner)
            }
            ExprKind::Reduce { body, .. } => {
                let accs = self.fold(e, 1, None, false, |cx| Ok(vec![cx.elem(body, idx)?]))?;
                Ok(accs[0])
            }
            ExprKind::Let {
                level,
                var,
                value,
                body,
            } => match level {
                Some(MemLevel::Global) => {
                    Err(
                        Diagnostic::error("E0303", "this let cannot be placed here").with_primary(
                            e.span,
                            "`let@global` may only stand at the top level of an item",
                        ),
                    )
                }
                Some(MemLevel::Shared) => {
                    let body = self.staged_shared(e)?;
                    self.elem(body, idx)
                }
                _ => {
                    let live = self.accounts.live_private;
                    let loc = match level {
                        Some(MemLevel::Lanes) => self.lane_shared_vector(*var, value)?,
                        _ => self.local_vector(*var, value)?,
                    };
                    self.bind_local(*var, loc);
                    let v = self.elem(body, idx);
                    // The vector is dead once its body's element is computed.
                    self.accounts.live_private = live;
                    v
                }
            },
            ExprKind::Iterate {
                n,
                var,
                steps,
                states,
                parts,
            } => self.iterate((*n, *var, steps.as_ref()), states, parts),
            ExprKind::Index { vec, index, guard } => {
                if guard.is_none()
                    && let Some(v) = self.wide_read(*vec, index)
                {
                    return Ok(v);
                }
                let t = self.term(index)?;
                self.read(*vec, t, *guard, e)
            }
            ExprKind::Whole(v) => self.read(*v, idx, None, e),
            ExprKind::IndexVar(v) => {
                let ix = self.index_var(*v)?;
                Ok(self.ix(ix))
            }
            ExprKind::Const(c) | ExprKind::Fill(c) => Ok(self.constant(*c)),
            ExprKind::VecLit(vals) => self.veclit(vals, idx, e),
            ExprKind::Broadcast(x) => self.elem(x, Ix::Const(0)),
            ExprKind::Cast(x) => {
                let v = self.elem(x, idx)?;
                let v = self.runtime(&[v], 1)[0];
                Ok(self.cast(x.ty.elem, e.ty.elem, v))
            }
            ExprKind::Unary(op, x) => {
                let v = self.elem(x, idx)?;
                let v = self.runtime(&[v], 1)[0];
                Ok(self.unary(*op, v))
            }
            ExprKind::Binary(op, a, b) => {
                let int = a.ty.elem.is_int();
                let a = self.elem(a, idx)?;
                let b = self.elem(b, idx)?;
                let divides = int && matches!(op, texpr_ir::BinOp::Div | texpr_ir::BinOp::Rem);
                let v = self.runtime(&[a, b], if divides { 2 } else { 1 });
                Ok(self.binary(*op, v[0], v[1]))
            }
            ExprKind::Call(Func::Select, args) if args[1..].iter().any(lazy_branch) => {
                self.lazy_select(e, args, idx)
            }
            ExprKind::Call(f, args) => {
                let vals = (args.iter())
                    .map(|a| self.elem(a, idx))
                    .collect::<R<Vec<_>>>()?;
                let vals = self.runtime(&vals, 1);
                Ok(self.call(*f, &vals))
            }
        }
    }

    /// `iterate` in an expression: a variable per state, a loop of the
    /// steps (`min(steps, n)` of them when they depend on an enclosing
    /// index) computing every next value before assigning any; its value
    /// the first state's.
    fn iterate(
        &mut self,
        (n, var, steps): (u64, VarId, Option<&Term>),
        states: &[VarId],
        parts: &[Expr],
    ) -> R<V> {
        let (inits, nexts) = parts.split_at(states.len());
        let mut vars = Vec::with_capacity(states.len());
        for (s, init) in states.iter().zip(inits) {
            let v = self.elem(init, Ix::Const(0))?;
            let name = self.p.var(*s).name.clone();
            vars.push(
                self.b
                    .var(&name, super::ty(init.ty.elem), None, Init::Value(v)),
            );
        }
        let zero = self.b.i32(0);
        let end = match self.dependent_end(n, steps)? {
            Some(end) => end,
            None => self.b.i32(n as i32),
        };
        let name = self.p.var(var).name.clone();
        let i = (self.b).open_loop(&name, (zero, end, LoopStep::Up(1)), steps.is_none(), n);
        self.idx.insert(var, Ix::Val(i));
        for (s, x) in states.iter().zip(&vars) {
            self.bind_local(*s, Loc::Vars(vec![*x]));
        }
        let next = (nexts.iter())
            .map(|e| self.elem(e, Ix::Const(0)))
            .collect::<R<Vec<_>>>()?;
        for (x, v) in vars.iter().zip(next) {
            self.b.assign(*x, None, v);
        }
        self.b.close();
        Ok(self.b.read_var(vars[0]))
    }

    /// `select(c, a, b)` whose `a` or `b` runs a loop: only the branch the
    /// condition picks is computed, in an `if`/`else`.
    fn lazy_select(&mut self, e: &Expr, args: &[Expr], idx: Ix) -> R<V> {
        let c = self.elem(&args[0], idx)?;
        let r = self.b.var("pick", super::ty(e.ty.elem), None, Init::None);
        self.b.open_if(c, false);
        let a = self.elem(&args[1], idx)?;
        self.b.assign(r, None, a);
        self.b.open_else();
        let b = self.elem(&args[2], idx)?;
        self.b.assign(r, None, b);
        self.b.close();
        Ok(self.b.read_var(r))
    }

    /// `let@shared v = V in ...` (with any `let@shared`s right after it)
    /// met inside an invocation's code: in uniform control flow only
    /// (E0303), a barrier first when inside a loop (earlier readers are
    /// done), the cooperative fills, a barrier. Returns the body after them.
    pub fn staged_shared<'e>(&mut self, e: &'e Expr) -> R<&'e Expr> {
        if !self.b.uniform() {
            return Err(Diagnostic::error(
                "E0303",
                "this `let@shared` stands where invocations diverge",
            )
            .with_primary(
                e.span,
                "the invocations of a workgroup do not all reach this point together",
            ));
        }
        if self.b.nested() {
            self.b.barrier()?;
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
            let loc = self.fill_shared(&name, value, self.group.group_size, e.span)?;
            self.bind_local(*var, loc);
            e = body;
        }
        self.b.barrier()?;
        self.prefetch_next()?;
        Ok(e)
    }

    pub fn div(&mut self, a: Ix, m: i64) -> Ix {
        match a {
            _ if m == 1 => a,
            Ix::Const(c) => Ix::Const(c.div_euclid(m)),
            Ix::Val(_) => self.arith(K::Div, a, Ix::Const(m)),
        }
    }

    pub fn rem(&mut self, a: Ix, m: i64) -> Ix {
        match a {
            _ if m == 1 => Ix::Const(0),
            Ix::Const(c) => Ix::Const(c.rem_euclid(m)),
            Ix::Val(_) => self.arith(K::Rem, a, Ix::Const(m)),
        }
    }

    /// An index term's value (constants folded where defined).
    pub fn term(&mut self, t: &Term) -> R<Ix> {
        match &t.kind {
            TermKind::Const(c) => Ok(Ix::Const(*c)),
            TermKind::Var(v) => self.index_var(*v),
            TermKind::Binary(op, a, b) => {
                let (a, b) = (self.term(a)?, self.term(b)?);
                let op = match op {
                    TermOp::Add => K::Add,
                    TermOp::Sub => K::Sub,
                    TermOp::Mul => K::Mul,
                    TermOp::Div => K::Div,
                    TermOp::Rem => K::Rem,
                };
                Ok(self.arith(op, a, b))
            }
        }
    }
}

/// Whether a `select` operand is worth computing only when picked: it runs
/// a loop of one invocation's own.
fn lazy_branch(e: &Expr) -> bool {
    e.has_loop() && !e.has_structure()
}
