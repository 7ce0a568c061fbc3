//! `canonicalize`: a program in the form the checker would give its printed text.
//!
//! Passes allocate variables with `Program::fresh_var` (appended to
//! `Program::vars`) and may leave constant sub-terms unfolded; checking the
//! printed program numbers variables in binding order and folds constants.
//! `canonicalize(p) == canonicalize(check(parse(print(p))))` for every valid
//! program, so tests can compare a pass's output with its text form. A
//! `reduce` of dependent steps gets the `n` the checker would give it, the
//! largest value of its steps (a rewrite may leave a looser one, which
//! means the same).

use super::strip_spans;
use std::collections::BTreeMap;
use texpr_ir::{Expr, ExprKind, MapKind, Program, Term, TermKind, VarId, VarInfo, VecRef};

/// Spans dummied, variables renumbered in the checker's binding order
/// (unreferenced ones dropped), constant sub-terms folded as the checker folds,
/// loops unscheduled (`Loop::group`, which the text states in a comment only).
pub fn canonicalize(p: &Program) -> Program {
    let mut p = strip_spans(p);
    for lp in &mut p.loops {
        lp.group = None;
    }
    let mut r = Renumber {
        old: std::mem::take(&mut p.vars),
        new: Vec::new(),
        map: BTreeMap::new(),
        uppers: BTreeMap::new(),
    };
    // A loop's step is bound (as the checker binds it) just before the
    // first global within the loop, and stays bound through its last.
    let mut open: Vec<(u32, (VarId, Option<VarId>))> = Vec::new();
    for g in 0..p.globals.len() {
        let within = p.globals[g].within;
        while let Some(&(l, b)) = open.last() {
            if p.loop_within(within, l) {
                break;
            }
            r.unbind(b);
            open.pop();
        }
        let mut entering = Vec::new();
        let mut l = within;
        while let Some(x) = l.filter(|x| !open.iter().any(|(o, _)| o == x)) {
            entering.push(x);
            l = p.loops[x as usize].within;
        }
        for &x in entering.iter().rev() {
            let b = r.bind(&mut p.loops[x as usize].var);
            open.push((x, b));
            // Its updates in place, over its step.
            for st in p.states.iter_mut().filter(|s| s.of == x) {
                if let Some(t) = &mut st.at {
                    r.term(t);
                }
            }
        }
        r.expr(&mut p.globals[g].value);
    }
    for (_, b) in open.into_iter().rev() {
        r.unbind(b);
    }
    for o in &mut p.outputs {
        r.expr(&mut o.value);
    }
    p.vars = r.new;
    p
}

struct Renumber {
    old: Vec<VarInfo>,
    new: Vec<VarInfo>,
    /// Old id to new id, for the binders in scope.
    map: BTreeMap<VarId, VarId>,
    /// The upper terms of the dependent `reduce` variables in scope (new ids).
    uppers: BTreeMap<VarId, Term>,
}

impl Renumber {
    /// Gives `v` the next new id (a binder); returns the id it shadows in the map.
    fn bind(&mut self, v: &mut VarId) -> (VarId, Option<VarId>) {
        let old = *v;
        let info = self.old.get(old.0 as usize).cloned();
        let new = VarId(self.new.len() as u32);
        self.new.extend(info);
        *v = new;
        (old, self.map.insert(old, new))
    }

    fn unbind(&mut self, (old, prev): (VarId, Option<VarId>)) {
        match prev {
            Some(p) => self.map.insert(old, p),
            None => self.map.remove(&old),
        };
    }

    fn use_var(&self, v: &mut VarId) {
        if let Some(&n) = self.map.get(v) {
            *v = n;
        }
    }

    fn expr(&mut self, e: &mut Expr) {
        match &mut e.kind {
            ExprKind::Compute { var, map, body, .. } => {
                let b = self.bind(var);
                self.expr(body);
                self.unbind(b);
                if let Some(m) = map {
                    let b = self.bind(&mut m.var);
                    if let MapKind::Term(t) = &mut m.kind {
                        self.term(t);
                    }
                    self.unbind(b);
                }
            }
            ExprKind::Reduce {
                var,
                body,
                steps,
                n,
                ..
            } => {
                let b = self.bind_counted(var, n, steps.as_mut(), 1);
                self.expr(body);
                self.uppers.remove(var);
                self.unbind(b);
            }
            ExprKind::Let {
                var, value, body, ..
            } => {
                self.expr(value);
                let b = self.bind(var);
                self.expr(body);
                self.unbind(b);
            }
            ExprKind::Iterate {
                n,
                var,
                steps,
                states,
                parts,
            } => {
                let k = states.len().min(parts.len());
                let (inits, nexts) = parts.split_at_mut(k);
                inits.iter_mut().for_each(|x| self.expr(x));
                let b = self.bind_counted(var, n, steps.as_mut(), 0);
                let bs: Vec<_> = states.iter_mut().map(|s| self.bind(s)).collect();
                nexts.iter_mut().for_each(|x| self.expr(x));
                bs.into_iter().rev().for_each(|b| self.unbind(b));
                self.uppers.remove(var);
                self.unbind(b);
            }
            ExprKind::Index { vec, index, .. } => {
                self.vec(vec);
                self.term(index);
            }
            ExprKind::Whole(vec) => self.vec(vec),
            ExprKind::IndexVar(v) => self.use_var(v),
            ExprKind::Broadcast(a) | ExprKind::Cast(a) | ExprKind::Unary(_, a) => self.expr(a),
            ExprKind::Binary(_, a, b) => {
                self.expr(a);
                self.expr(b);
            }
            ExprKind::Call(_, xs) => xs.iter_mut().for_each(|x| self.expr(x)),
            ExprKind::Const(_) | ExprKind::Fill(_) | ExprKind::VecLit(_) => {}
        }
    }

    /// Binds the variable of a loop that runs `steps` (a `reduce`'s, an
    /// `iterate`'s): with a dependent count, `n` becomes its largest value
    /// (at least `least`), the variable's extent `n` (at least 1), and its
    /// upper term is in scope until it is unbound.
    fn bind_counted(
        &mut self,
        var: &mut VarId,
        n: &mut u64,
        steps: Option<&mut Term>,
        least: i64,
    ) -> (VarId, Option<VarId>) {
        let Some(t) = steps else {
            return self.bind(var);
        };
        self.term(t);
        if let Some(hi) = self.largest(t) {
            *n = hi.max(least) as u64;
        }
        let b = self.bind(var);
        if let Some(v) = self.new.get_mut(var.0 as usize) {
            v.kind = texpr_ir::VarKind::Index {
                extent: (*n).max(1),
            };
        }
        let upper = texpr_ir::term::sub(t.clone(), texpr_ir::term::constant(1));
        self.uppers.insert(*var, upper);
        b
    }

    /// The largest value of a term over the new variables in scope.
    fn largest(&self, t: &Term) -> Option<i64> {
        let extent = |v: VarId| match self.new.get(v.0 as usize)?.kind {
            texpr_ir::VarKind::Index { extent } => Some(extent),
            texpr_ir::VarKind::Vector(_) => None,
        };
        let upper = |v: VarId| self.uppers.get(&v).cloned();
        texpr_ir::linear::term_range_within(t, &extent, &upper)
            .ok()
            .map(|r| r.1)
    }

    fn vec(&self, v: &mut VecRef) {
        if let VecRef::Local(id) = v {
            self.use_var(id);
        }
    }

    fn term(&self, t: &mut Term) {
        match &mut t.kind {
            TermKind::Var(v) => self.use_var(v),
            TermKind::Const(_) => {}
            TermKind::Binary(op, a, b) => {
                self.term(a);
                self.term(b);
                let folded = match (&a.kind, &b.kind) {
                    (TermKind::Const(x), TermKind::Const(y)) => {
                        super::terms::fold_const(*op, *x, *y)
                    }
                    _ => None,
                };
                if let Some(v) = folded {
                    t.kind = TermKind::Const(v);
                }
            }
        }
    }
}
