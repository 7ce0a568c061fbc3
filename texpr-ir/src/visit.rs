//! Walking the IR: children, searches, levels and rewrites, for every stage.
//!
//! Read-only walks borrow (`children`, `any`, `find`, `walk`, `mentions`) and
//! never clone a subtree. Rewrites come in two kinds: [`Expr::map_children`]
//! and [`Expr::try_map_children`] rebuild one node from new children (the
//! shape of a bottom-up rewrite that changes types or spans), and
//! [`Expr::walk_mut`] edits a tree in place (what a pass that only sets
//! levels or renames does to its own copy).
//!
//! A node's children, in evaluation order: `compute`/`reduce` their body;
//! `let` its value, then its body; an `iterate` its initial values, then its
//! next values; operators and calls their operands. Index
//! terms and index maps are not children (see [`Term`] and [`Expr::mentions`]).

use super::basic::{Level, MemLevel};
use super::{Expr, ExprKind, IndexMap, MapKind, Term, TermKind, VarId, VecRef};

/// The level written on a `compute`, `reduce` (a [`Level`]) or `let` (a [`MemLevel`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AnyLevel {
    Loop(Level),
    Mem(MemLevel),
}

impl Expr {
    /// The direct child expressions, in evaluation order.
    pub fn children(&self) -> impl Iterator<Item = &Expr> {
        let (a, b, rest): (Option<&Expr>, Option<&Expr>, &[Expr]) = match &self.kind {
            ExprKind::Compute { body, .. } | ExprKind::Reduce { body, .. } => {
                (Some(body), None, &[])
            }
            ExprKind::Let { value, body, .. } => (Some(value), Some(body), &[]),
            ExprKind::Broadcast(x) | ExprKind::Cast(x) | ExprKind::Unary(_, x) => {
                (Some(x), None, &[])
            }
            ExprKind::Binary(_, x, y) => (Some(x), Some(y), &[]),
            ExprKind::Call(_, args) | ExprKind::Iterate { parts: args, .. } => (None, None, args),
            ExprKind::Index { .. }
            | ExprKind::Whole(_)
            | ExprKind::IndexVar(_)
            | ExprKind::Const(_)
            | ExprKind::Fill(_)
            | ExprKind::VecLit(_) => (None, None, &[]),
        };
        a.into_iter().chain(b).chain(rest)
    }

    /// The direct child expressions, mutably, in evaluation order.
    pub(crate) fn children_mut(&mut self) -> impl Iterator<Item = &mut Expr> {
        let (a, b, rest): (Option<&mut Expr>, Option<&mut Expr>, &mut [Expr]) = match &mut self.kind
        {
            ExprKind::Compute { body, .. } | ExprKind::Reduce { body, .. } => {
                (Some(body), None, &mut [])
            }
            ExprKind::Let { value, body, .. } => (Some(value), Some(body), &mut []),
            ExprKind::Broadcast(x) | ExprKind::Cast(x) | ExprKind::Unary(_, x) => {
                (Some(x), None, &mut [])
            }
            ExprKind::Binary(_, x, y) => (Some(x), Some(y), &mut []),
            ExprKind::Call(_, args) | ExprKind::Iterate { parts: args, .. } => (None, None, args),
            ExprKind::Index { .. }
            | ExprKind::Whole(_)
            | ExprKind::IndexVar(_)
            | ExprKind::Const(_)
            | ExprKind::Fill(_)
            | ExprKind::VecLit(_) => (None, None, &mut []),
        };
        a.into_iter().chain(b).chain(rest.iter_mut())
    }

    /// Whether `pred` holds for this node or any node below it (pre-order,
    /// stopping at the first).
    pub fn any(&self, mut pred: impl FnMut(&Expr) -> bool) -> bool {
        self.find(&mut pred).is_some()
    }

    /// Whether `pred` holds for this node and every node below it.
    pub fn all(&self, mut pred: impl FnMut(&Expr) -> bool) -> bool {
        self.find(|e| !pred(e)).is_none()
    }

    /// The first node (pre-order, this one first) for which `pred` holds.
    pub fn find(&self, mut pred: impl FnMut(&Expr) -> bool) -> Option<&Expr> {
        fn go<'e>(e: &'e Expr, pred: &mut dyn FnMut(&Expr) -> bool) -> Option<&'e Expr> {
            if pred(e) {
                return Some(e);
            }
            e.children().find_map(|c| go(c, pred))
        }
        go(self, &mut pred)
    }

    /// The outermost nodes for which `pred` holds (pre-order; below a match
    /// nothing is searched).
    pub fn find_outermost(&self, mut pred: impl FnMut(&Expr) -> bool) -> Vec<&Expr> {
        fn go<'e>(e: &'e Expr, pred: &mut dyn FnMut(&Expr) -> bool, out: &mut Vec<&'e Expr>) {
            if pred(e) {
                out.push(e);
                return;
            }
            e.children().for_each(|c| go(c, pred, out));
        }
        let mut out = Vec::new();
        go(self, &mut pred, &mut out);
        out
    }

    /// Calls `f` on this node and every node below it, pre-order.
    pub fn walk(&self, mut f: impl FnMut(&Expr)) {
        fn go(e: &Expr, f: &mut dyn FnMut(&Expr)) {
            f(e);
            e.children().for_each(|c| go(c, f));
        }
        go(self, &mut f)
    }

    /// Calls `f` on every node, children before their parent, in place.
    pub fn walk_mut(&mut self, mut f: impl FnMut(&mut Expr)) {
        fn go(e: &mut Expr, f: &mut dyn FnMut(&mut Expr)) {
            e.children_mut().for_each(|c| go(c, f));
            f(e);
        }
        go(self, &mut f)
    }

    /// This tree with every variable renamed by `f`: binders (`compute`,
    /// `reduce`, `let`, `iterate` and index maps) and uses alike.
    pub fn rename_vars(&self, f: impl Fn(VarId) -> VarId) -> Expr {
        let mut out = self.clone();
        out.walk_mut(|n| match &mut n.kind {
            ExprKind::Compute { var, map: m, .. } => {
                *var = f(*var);
                if let Some(m) = m {
                    m.var = f(m.var);
                    if let MapKind::Term(t) = &mut m.kind {
                        *t = crate::term::rename(t, &f);
                    }
                }
            }
            ExprKind::Reduce { var, steps, .. } => {
                *var = f(*var);
                if let Some(t) = steps {
                    *t = crate::term::rename(t, &f);
                }
            }
            ExprKind::Let { var, .. } => *var = f(*var),
            ExprKind::Iterate {
                var, steps, states, ..
            } => {
                *var = f(*var);
                states.iter_mut().for_each(|s| *s = f(*s));
                if let Some(t) = steps {
                    *t = crate::term::rename(t, &f);
                }
            }
            ExprKind::Index { vec, index, .. } => {
                if let VecRef::Local(x) = vec {
                    *x = f(*x);
                }
                *index = crate::term::rename(index, &f);
            }
            ExprKind::Whole(VecRef::Local(x)) | ExprKind::IndexVar(x) => *x = f(*x),
            _ => {}
        });
        out
    }

    /// This node rebuilt with `f` applied to each child (type and span kept).
    pub fn map_children(&self, mut f: impl FnMut(&Expr) -> Expr) -> Expr {
        self.try_map_children(|c| Ok::<_, std::convert::Infallible>(f(c)))
            .unwrap_or_else(|e| match e {})
    }

    /// [`Expr::map_children`] with a fallible `f`: the first error is returned.
    pub fn try_map_children<E>(
        &self,
        mut f: impl FnMut(&Expr) -> Result<Expr, E>,
    ) -> Result<Expr, E> {
        let mut bx = |c: &Expr| f(c).map(Box::new);
        let kind = match &self.kind {
            ExprKind::Compute {
                level,
                n,
                var,
                map,
                body,
            } => ExprKind::Compute {
                level: *level,
                n: *n,
                var: *var,
                map: map.clone(),
                body: bx(body)?,
            },
            ExprKind::Reduce {
                level,
                op,
                n,
                var,
                body,
                steps,
            } => ExprKind::Reduce {
                level: *level,
                op: *op,
                n: *n,
                var: *var,
                body: bx(body)?,
                steps: steps.clone(),
            },
            ExprKind::Let {
                level,
                var,
                value,
                body,
            } => {
                let value = bx(value)?;
                ExprKind::Let {
                    level: *level,
                    var: *var,
                    value,
                    body: bx(body)?,
                }
            }
            ExprKind::Broadcast(x) => ExprKind::Broadcast(bx(x)?),
            ExprKind::Cast(x) => ExprKind::Cast(bx(x)?),
            ExprKind::Unary(op, x) => ExprKind::Unary(*op, bx(x)?),
            ExprKind::Binary(op, a, b) => {
                let a = bx(a)?;
                ExprKind::Binary(*op, a, bx(b)?)
            }
            ExprKind::Call(func, args) => ExprKind::Call(
                *func,
                args.iter()
                    .map(|a| bx(a).map(|b| *b))
                    .collect::<Result<_, _>>()?,
            ),
            ExprKind::Iterate {
                n,
                var,
                steps,
                states,
                parts,
            } => ExprKind::Iterate {
                n: *n,
                var: *var,
                steps: steps.clone(),
                states: states.clone(),
                parts: (parts.iter())
                    .map(|a| bx(a).map(|b| *b))
                    .collect::<Result<_, _>>()?,
            },
            other => other.clone(),
        };
        Ok(Expr {
            kind,
            ty: self.ty,
            span: self.span,
        })
    }

    /// Whether index variable `v` occurs in this expression: in an index
    /// term, an index map's term, a `reduce`'s steps, or as a value.
    pub fn mentions(&self, v: VarId) -> bool {
        self.any(|e| match &e.kind {
            ExprKind::Index { index, .. } => index.mentions(v),
            ExprKind::IndexVar(x) => *x == v,
            ExprKind::Compute { map: Some(m), .. } => m.mentions(v),
            ExprKind::Reduce { steps: Some(t), .. } | ExprKind::Iterate { steps: Some(t), .. } => {
                t.mentions(v)
            }
            _ => false,
        })
    }

    /// Every index term of this node itself (not its children's): a read's
    /// index, a term map's term, a `reduce`'s steps.
    pub fn own_terms(&self) -> impl Iterator<Item = &Term> {
        let (a, b) = match &self.kind {
            ExprKind::Index { index, .. } => (Some(index), None),
            ExprKind::Compute {
                map:
                    Some(IndexMap {
                        kind: MapKind::Term(t),
                        ..
                    }),
                ..
            } => (Some(t), None),
            ExprKind::Reduce { steps, .. } | ExprKind::Iterate { steps, .. } => {
                (None, steps.as_ref())
            }
            _ => (None, None),
        };
        a.into_iter().chain(b)
    }

    /// Whether a `reduce` here runs a number of steps that depends on an
    /// enclosing index (`reduce i |k|`).
    pub fn has_dependent_steps(&self) -> bool {
        self.any(|e| {
            matches!(
                e.kind,
                ExprKind::Reduce { steps: Some(_), .. } | ExprKind::Iterate { steps: Some(_), .. }
            )
        })
    }

    /// Whether this node takes a level (`compute`, `reduce`, `let`).
    pub fn takes_level(&self) -> bool {
        matches!(
            self.kind,
            ExprKind::Compute { .. } | ExprKind::Reduce { .. } | ExprKind::Let { .. }
        )
    }

    /// The level written on this node, if it takes one and has one.
    pub fn level(&self) -> Option<AnyLevel> {
        match &self.kind {
            ExprKind::Compute { level, .. } | ExprKind::Reduce { level, .. } => {
                level.map(AnyLevel::Loop)
            }
            ExprKind::Let { level, .. } => level.map(AnyLevel::Mem),
            _ => None,
        }
    }

    /// Sets the level of a `compute`/`reduce` (`loop_level`) or a `let`
    /// (`mem_level`); `None` removes it. Other nodes are left alone.
    pub fn set_level(&mut self, loop_level: Option<Level>, mem_level: Option<MemLevel>) {
        match &mut self.kind {
            ExprKind::Compute { level, .. } | ExprKind::Reduce { level, .. } => *level = loop_level,
            ExprKind::Let { level, .. } => *level = mem_level,
            _ => {}
        }
    }

    /// This expression with every missing level set to its form inside one
    /// invocation: `compute`/`reduce` `@thread`, `let` `@reg` (levels
    /// already written are kept).
    pub fn with_thread_levels(&self) -> Expr {
        let mut out = self.clone();
        out.walk_mut(|n| {
            if n.takes_level() && n.level().is_none() {
                n.set_level(Some(Level::Thread), Some(MemLevel::Reg));
            }
        });
        out
    }

    /// Whether any node here has a level written.
    pub fn has_levels(&self) -> bool {
        self.any(|e| e.level().is_some())
    }

    /// Whether any grid-, group- or subgroup-level node or `let@shared` is
    /// here: work across invocations that the user wrote.
    pub fn has_structure(&self) -> bool {
        self.any(|e| {
            matches!(
                e.level(),
                Some(
                    AnyLevel::Loop(Level::Grid | Level::Group | Level::Subgroup)
                        | AnyLevel::Mem(MemLevel::Shared)
                )
            )
        })
    }

    /// Nesting depth, not counting broadcasts (as the verifier counts).
    pub fn depth(&self) -> usize {
        let below = self.children().map(Expr::depth).max().unwrap_or(0);
        below + usize::from(!matches!(self.kind, ExprKind::Broadcast(_)))
    }

    /// Whether a loop of one invocation is here: a `reduce` (which a
    /// schedule may also spread over invocations) or an `iterate`.
    pub fn has_loop(&self) -> bool {
        self.any(|e| matches!(e.kind, ExprKind::Reduce { .. } | ExprKind::Iterate { .. }))
    }

    /// The variables this node itself binds: a `compute`'s (and its index
    /// map's), a `reduce`'s, a `let`'s, an `iterate`'s step and states.
    pub fn binders(&self) -> Vec<VarId> {
        match &self.kind {
            ExprKind::Compute { var, map, .. } => std::iter::once(*var)
                .chain(map.as_ref().map(|m| m.var))
                .collect(),
            ExprKind::Reduce { var, .. } | ExprKind::Let { var, .. } => vec![*var],
            ExprKind::Iterate { var, states, .. } => std::iter::once(*var)
                .chain(states.iter().copied())
                .collect(),
            _ => Vec::new(),
        }
    }
}

impl IndexMap {
    /// Whether `v` occurs in the map's term (a layout mentions only `k`).
    pub fn mentions(&self, v: VarId) -> bool {
        match &self.kind {
            MapKind::Term(t) => t.mentions(v),
            MapKind::Layout(_) => v == self.var,
        }
    }
}

impl Term {
    /// Whether `v` occurs in this term.
    pub fn mentions(&self, v: VarId) -> bool {
        match &self.kind {
            TermKind::Var(x) => *x == v,
            TermKind::Binary(_, a, b) => a.mentions(v) || b.mentions(v),
            TermKind::Const(_) => false,
        }
    }

    /// The variables of this term, left to right (with repeats).
    pub fn vars(&self) -> Vec<VarId> {
        fn go(t: &Term, out: &mut Vec<VarId>) {
            match &t.kind {
                TermKind::Var(v) => out.push(*v),
                TermKind::Binary(_, a, b) => {
                    go(a, out);
                    go(b, out);
                }
                TermKind::Const(_) => {}
            }
        }
        let mut out = Vec::new();
        go(self, &mut out);
        out
    }

    /// Equal up to spans.
    pub fn same(&self, other: &Term) -> bool {
        match (&self.kind, &other.kind) {
            (TermKind::Const(x), TermKind::Const(y)) => x == y,
            (TermKind::Var(x), TermKind::Var(y)) => x == y,
            (TermKind::Binary(o1, a1, b1), TermKind::Binary(o2, a2, b2)) => {
                o1 == o2 && a1.same(a2) && b1.same(b2)
            }
            _ => false,
        }
    }
}
