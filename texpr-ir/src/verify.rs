//! The IR verifier: re-checks every invariant of a typed [`Program`], for the
//! optimizer to run after each pass.
//!
//! Invariants (code in brackets):
//! - Top level: names of params, inputs, globals and outputs are distinct
//!   [E0102]; at least one output [E0126]; input and node lengths are within
//!   `1..=i32::MAX` and inputs are not `bool` [E0150]; a global has no level
//!   or `@global` [E0125].
//! - Vector references: `Input(i)` exists; `Global(j)` exists and, inside
//!   global `g`, `j < g` (globals read only earlier globals; outputs read any)
//!   [E0153]; `Local(v)` is a `let` vector in scope [E0151, E0152].
//! - Variables: every `VarId` is in `Program::vars` and bound by an enclosing
//!   node where used [E0151]; a binder's variable has the right kind and
//!   extent (`compute`/`reduce` var `Index { extent: n }`, map var
//!   `Index { extent: len }`, `let` var `Vector(value.ty)`) and `IndexVar`
//!   reads an index variable [E0152]; no two variables in scope at once share
//!   a name, nor does a variable share a top-level name (`_` excepted) [E0103].
//! - Types: every node's type agrees with its children (see `verify_ty`)
//!   [E0150]; `bool` only as the condition of `select` (through broadcasts)
//!   [E0117].
//! - Terms: divisors positive constants [E0113], dividends non-negative
//!   [E0114], every sub-term within `i32` [E0108]; unguarded indices provably in
//!   bounds [E0111]; index maps within the raw length [E0112] (all by
//!   [`crate::linear`]); a layout map a permutation that fits the raw result
//!   and the map's length [E0142].
//! - Levels: non-increasing along every path [E0120], no `reduce@grid`
//!   [E0121], `let@shared`/`@global`/`@reg` placed legally [E0122-E0124] (see
//!   [`super::levels`]).
//! - Depth: at most [`super::MAX_NESTING`] nested nodes, not counting
//!   broadcasts [E0134].
//! - Loops [E0154]: a loop's enclosing loop comes before it; its step
//!   variable is `Index { extent: max(count, 1) }` and in scope in the items
//!   within it; the globals within a loop (its inner loops' included) are
//!   contiguous and at least one; a state's `init` is an input or a global
//!   outside its loop, before it, of the state's type, and its `next` a
//!   global directly within its loop, of its type, no other state's `next`;
//!   a global within a loop is read only by items within that loop, a state
//!   only within its loop or after it.
//! - A `reduce` of dependent steps: its steps a valid term (rules above);
//!   its variable's upper term (`steps - 1`) serves the bounds proofs below
//!   it. (`n` bounds the steps the program runs: the interpreter and the
//!   GPU clamp them to it; a rewritten term's range may be tighter.)

use super::levels::LevelCtx;
use super::{MAX_NESTING, codes};
use crate::bounds::{bounds_diag, show_range};
use crate::diag::Diagnostic;
use crate::linear as bounds;
use crate::span::Span;
use crate::{ElemTy, Level};
use crate::{Expr, ExprKind, IndexMap, MapKind, Program, Term, Ty, VarId, VarKind, VecRef};
use std::collections::BTreeMap;

/// Checks every invariant listed in the module doc; all violations are returned.
pub fn verify(p: &Program) -> Result<(), Vec<Diagnostic>> {
    let mut v = Verifier::new(p);
    v.top_level();
    v.loops();
    for (g, global) in p.globals.iter().enumerate() {
        v.item(Some(g), &global.value);
    }
    for o in &p.outputs {
        v.item(None, &o.value);
    }
    if v.diags.is_empty() {
        Ok(())
    } else {
        Err(v.diags)
    }
}

mod iterate;

pub(super) struct Verifier<'p> {
    pub(super) p: &'p Program,
    pub(super) diags: Vec<Diagnostic>,
    scope: Vec<VarId>,
    levels: LevelCtx,
    depth: usize,
    /// The global being verified (it may read only earlier globals).
    pub(super) global: Option<usize>,
    top_names: BTreeMap<&'p str, Span>,
    /// The upper term of each `reduce` variable of dependent steps in scope.
    uppers: BTreeMap<VarId, Term>,
}

impl<'p> Verifier<'p> {
    fn new(p: &'p Program) -> Self {
        Verifier {
            p,
            diags: Vec::new(),
            scope: Vec::new(),
            levels: LevelCtx::default(),
            depth: 0,
            global: None,
            top_names: BTreeMap::new(),
            uppers: BTreeMap::new(),
        }
    }

    pub(super) fn fail(&mut self, code: &'static str, span: Span, msg: String) {
        self.diags
            .push(Diagnostic::error(code, msg.clone()).with_primary(span, msg));
    }

    fn top_level(&mut self) {
        let p = self.p;
        let names = p.params.iter().map(|(n, _)| (n.as_str(), Span::DUMMY));
        let names = names
            .chain(p.inputs.iter().map(|i| (i.name.as_str(), i.span)))
            .chain(p.globals.iter().map(|g| (g.name.as_str(), g.span)))
            .chain(p.outputs.iter().map(|o| (o.name.as_str(), o.span)))
            .chain(p.states.iter().map(|s| (s.name.as_str(), s.span)));
        for (name, span) in names {
            if self.top_names.insert(name, span).is_some() {
                self.fail(
                    codes::DUPLICATE_NAME,
                    span,
                    format!("`{name}` is declared twice"),
                );
            }
        }
        for i in &p.inputs {
            if !valid_len(i.ty.len) || i.ty.elem == ElemTy::Bool {
                self.fail(
                    codes::IR_TYPE,
                    i.span,
                    format!("input `{}` has type {:?}", i.name, i.ty),
                );
            }
        }
        for g in p
            .globals
            .iter()
            .filter(|g| g.level.is_some_and(|l| l != crate::MemLevel::Global))
        {
            self.fail(
                codes::TOP_LET_LEVEL,
                g.span,
                format!("global `{}` has a level other than `@global`", g.name),
            );
        }
        if p.outputs.is_empty() {
            self.diags.push(Diagnostic::error(
                codes::NO_OUTPUTS,
                "the program has no outputs",
            ));
        }
    }

    fn item(&mut self, global: Option<usize>, value: &Expr) {
        self.global = global;
        self.levels = LevelCtx::default();
        self.scope.clear();
        self.uppers.clear();
        self.depth = 0;
        // The steps of the loops around the item are in scope.
        let mut l = global.and_then(|g| self.p.globals[g].within);
        while let Some(x) = l.filter(|x| (*x as usize) < self.p.loops.len()) {
            self.scope.push(self.p.loops[x as usize].var);
            l = self.p.loops[x as usize].within;
        }
        self.expr(value);
        if value.ty.elem == ElemTy::Bool {
            self.fail(
                codes::BOOL_VALUE,
                value.span,
                "a top-level value is bool".into(),
            );
        }
    }

    fn expr(&mut self, e: &Expr) {
        let counts = !matches!(e.kind, ExprKind::Broadcast(_));
        if counts && self.depth >= MAX_NESTING {
            if !self.diags.iter().any(|d| d.code == codes::TOO_DEEP) {
                self.fail(
                    codes::TOO_DEEP,
                    e.span,
                    format!("nested more than {MAX_NESTING} deep"),
                );
            }
            return;
        }
        self.depth += counts as usize;
        if !valid_len(e.ty.len) {
            self.fail(
                codes::IR_TYPE,
                e.span,
                format!("length {} outside 1..=2147483647", e.ty.len),
            );
        }
        self.node(e);
        self.depth -= counts as usize;
    }

    /// What `compute` and `reduce` share: entering the level (`level.1`: a
    /// reduce), the index variable in scope, and the body.
    fn indexed_body(
        &mut self,
        level: (Option<Level>, bool),
        var: VarId,
        n: u64,
        body: &Expr,
        span: Span,
    ) {
        let (mut inner, err) = self.levels.enter(level.0, span, level.1);
        self.diags.extend(err);
        if level == (Some(Level::Group), false) && inner.group_var.is_none() {
            inner.group_var = Some(var);
        }
        self.bind_index(var, n, span);
        let saved = std::mem::replace(&mut self.levels, inner);
        self.expr(body);
        self.levels = saved;
        self.scope.pop();
    }

    fn node(&mut self, e: &Expr) {
        match &e.kind {
            ExprKind::Compute {
                level,
                n,
                var,
                map,
                body,
            } => {
                self.indexed_body((*level, false), *var, *n, body, e.span);
                if let Some(m) = map {
                    self.index_map(m, n.saturating_mul(body.ty.len), e.span);
                }
            }
            ExprKind::Reduce {
                level,
                n,
                var,
                body,
                steps,
                ..
            } => {
                self.enter_steps(*var, steps.as_ref());
                self.indexed_body((*level, true), *var, *n, body, e.span);
                self.uppers.remove(var);
            }
            ExprKind::Let {
                level,
                var,
                value,
                body,
            } => {
                let err = self.levels.check_let(*level, e.span);
                self.diags.extend(err);
                let err = self.levels.shared_value_error(*level, value, e.span);
                self.diags.extend(err);
                let outer = self.levels;
                self.levels = outer.value_ctx(*level);
                self.expr(value);
                self.levels = outer;
                self.bind(
                    *var,
                    e.span,
                    |k| k == VarKind::Vector(value.ty),
                    "a vector of the value's type",
                );
                self.expr(body);
                self.scope.pop();
            }
            ExprKind::Iterate {
                n,
                var,
                steps,
                states,
                parts,
            } => self.iterate((*n, *var, steps.as_ref()), states, parts, e.span),
            ExprKind::Index { vec, index, guard } => {
                self.vec_ref(*vec, e.span);
                self.index(*vec, index, guard.is_some());
            }
            ExprKind::Whole(v) => self.vec_ref(*v, e.span),
            ExprKind::IndexVar(v) => self.use_index(*v, e.span),
            _ => self.children(e),
        }
        self.check_ty(e);
    }

    /// A loop variable `var` running dependent `steps` (a `reduce`'s, an
    /// `iterate`'s): the steps' terms follow the rules of terms (`n`, a
    /// bound of them where the program means anything, may exceed what a
    /// rewritten term's range shows), and `var` stays below them.
    fn enter_steps(&mut self, var: VarId, steps: Option<&Term>) {
        if let Some(t) = steps {
            self.range(t);
            let upper = crate::term::sub(t.clone(), crate::term::constant(1));
            self.uppers.insert(var, upper);
        }
    }

    fn children(&mut self, e: &Expr) {
        match &e.kind {
            ExprKind::Broadcast(a) | ExprKind::Cast(a) | ExprKind::Unary(_, a) => self.expr(a),
            ExprKind::Binary(_, a, b) => {
                self.expr(a);
                self.expr(b);
            }
            ExprKind::Call(_, xs) => xs.iter().for_each(|x| self.expr(x)),
            _ => {}
        }
    }

    fn index_map(&mut self, m: &IndexMap, raw: u64, span: Span) {
        self.bind_index(m.var, m.len, span);
        match &m.kind {
            MapKind::Term(t) => {
                let outside = |&(lo, hi): &(i64, i64)| lo < 0 || hi as u64 >= raw;
                if let Some((lo, hi)) = self.range(t).filter(outside) {
                    let range = show_range((lo as i128, hi as i128));
                    let msg = format!("index map ranges over {range}, outside 0..{raw}");
                    self.fail(codes::MAP_OUT_OF_RANGE, t.span, msg);
                }
            }
            MapKind::Layout(l) => {
                if let Some(why) = l.misfit(m.len, raw) {
                    self.fail(codes::LAYOUT_MISFIT, span, format!("layout map: {why}"));
                }
            }
        }
        self.scope.pop();
    }

    fn index(&mut self, vec: VecRef, index: &Term, guarded: bool) {
        let Some((lo, hi)) = self.range(index) else {
            return;
        };
        let Some(len) = self.vec_ty(vec).map(|t| t.len) else {
            return;
        };
        if !guarded && (lo < 0 || hi as u64 >= len) {
            let range = show_range((lo as i128, hi as i128));
            let name = self.p.vec_name(vec);
            let msg = format!(
                "index ranges over {range} but `{name}` has {}",
                crate::diag::count(len, "element")
            );
            self.fail(codes::INDEX_OUT_OF_BOUNDS, index.span, msg);
        }
    }

    /// The range of a term over the index variables in scope.
    fn range(&mut self, t: &Term) -> Option<(i64, i64)> {
        let (scope, vars, uppers) = (&self.scope, &self.p.vars, &self.uppers);
        let extent = |v: VarId| match vars.get(v.0 as usize)?.kind {
            VarKind::Index { extent } if scope.contains(&v) => Some(extent),
            _ => None,
        };
        match bounds::term_range_within(t, &extent, &|v| uppers.get(&v).cloned()) {
            Ok(r) => Some(r),
            Err(e) => {
                self.diags.push(bounds_diag(e));
                None
            }
        }
    }

    /// The type of a vector reference that exists, else `None`.
    pub(super) fn vec_ty(&self, v: VecRef) -> Option<Ty> {
        match v {
            VecRef::Input(i) => self.p.inputs.get(i as usize).map(|x| x.ty),
            VecRef::Global(i) => self.p.globals.get(i as usize).map(|g| g.value.ty),
            VecRef::Local(id) => match self.p.vars.get(id.0 as usize)?.kind {
                VarKind::Vector(ty) => Some(ty),
                VarKind::Index { .. } => None,
            },
            VecRef::State(i) => self.p.states.get(i as usize).map(|s| s.ty),
        }
    }

    fn vec_ref(&mut self, v: VecRef, span: Span) {
        let ok = match v {
            VecRef::Input(i) => (i as usize) < self.p.inputs.len(),
            VecRef::Global(j) => {
                (j as usize) < self.p.globals.len()
                    && self.global.is_none_or(|g| (j as usize) < g)
                    && self.global_in_scope(j as usize)
            }
            VecRef::State(s) => self.state_in_scope(s as usize),
            VecRef::Local(id) => {
                return self.use_var(id, span, |k| matches!(k, VarKind::Vector(_)), "a vector");
            }
        };
        if !ok {
            self.fail(
                codes::IR_VEC_REF,
                span,
                format!("{v:?} does not exist or is not yet defined here"),
            );
        }
    }

    fn use_index(&mut self, v: VarId, span: Span) {
        self.use_var(
            v,
            span,
            |k| matches!(k, VarKind::Index { .. }),
            "an index variable",
        );
    }

    fn use_var(&mut self, v: VarId, span: Span, kind_ok: impl Fn(VarKind) -> bool, what: &str) {
        let Some(info) = self.p.vars.get(v.0 as usize) else {
            return self.fail(
                codes::IR_UNBOUND_VAR,
                span,
                format!("variable v{} does not exist", v.0),
            );
        };
        if !self.scope.contains(&v) {
            self.fail(
                codes::IR_UNBOUND_VAR,
                span,
                format!("`{}` (v{}) is not bound here", info.name, v.0),
            );
        } else if !kind_ok(info.kind) {
            self.fail(
                codes::IR_VAR_KIND,
                span,
                format!("`{}` (v{}) is not {what}", info.name, v.0),
            );
        }
    }

    fn bind_index(&mut self, v: VarId, extent: u64, span: Span) {
        if !valid_len(extent) {
            self.fail(
                codes::SIZE_NOT_POSITIVE,
                span,
                format!("extent {extent} outside 1..=2147483647"),
            );
        }
        self.bind(
            v,
            span,
            |k| k == VarKind::Index { extent },
            "an index variable of this extent",
        );
    }

    /// Pushes `v` on the scope (always, so that pops stay balanced), reporting
    /// a missing variable, a wrong kind or a name clash.
    fn bind(&mut self, v: VarId, span: Span, kind_ok: impl Fn(VarKind) -> bool, what: &str) {
        let p = self.p;
        match p.vars.get(v.0 as usize) {
            None => self.fail(
                codes::IR_UNBOUND_VAR,
                span,
                format!("variable v{} does not exist", v.0),
            ),
            Some(info) if !kind_ok(info.kind) => self.fail(
                codes::IR_VAR_KIND,
                span,
                format!("`{}` (v{}) is not {what}", info.name, v.0),
            ),
            Some(info) if info.name != "_" => {
                let clash = self.scope.iter().any(|w| {
                    p.vars
                        .get(w.0 as usize)
                        .is_some_and(|o| o.name == info.name)
                });
                if clash || self.top_names.contains_key(info.name.as_str()) {
                    self.fail(
                        codes::SHADOWED_NAME,
                        span,
                        format!("`{}` shadows a name in scope", info.name),
                    );
                }
            }
            Some(_) => {}
        }
        self.scope.push(v);
    }
}

fn valid_len(n: u64) -> bool {
    (1..=i32::MAX as u64).contains(&n)
}
