//! Trying strategies on one item at a time without copying the program: a
//! [`Trial`] is the program with every item root replaced by a stub of its
//! type (what applying a strategy to one item reads besides that item is
//! names, types and variables), and code generation judges a slice of it
//! (the items written and what they read), so a try costs the item, not
//! the program.

use super::apply::{Verdict, apply_strategy};
use super::data::Strategy;
use std::collections::{BTreeMap, BTreeSet};
use texpr_ir::Diagnostic;
use texpr_ir::ElemTy;
use texpr_ir::{Expr, ExprKind, Global, Item, LoopId, Output, Program, Scalar, VecRef};
use texpr_target::Target;

/// `p` with stubbed item roots, each item put back while it is tried.
#[derive(Debug)]
pub struct Trial<'p> {
    p: &'p Program,
    q: Program,
}

impl<'p> Trial<'p> {
    pub fn new(p: &'p Program) -> Trial<'p> {
        let q = Program {
            params: p.params.clone(),
            inputs: p.inputs.clone(),
            globals: (p.globals.iter())
                .map(|g| Global {
                    name: g.name.clone(),
                    level: g.level,
                    value: stub(&g.value),
                    span: g.span,
                    within: g.within,
                    loads: g.loads,
                })
                .collect(),
            outputs: (p.outputs.iter())
                .map(|o| Output {
                    name: o.name.clone(),
                    value: stub(&o.value),
                    span: o.span,
                    loads: o.loads,
                })
                .collect(),
            vars: p.vars.clone(),
            loops: p.loops.clone(),
            states: p.states.clone(),
            names: Default::default(),
        };
        Trial { p, q }
    }

    /// The program tried on (its items whole).
    pub fn program(&self) -> &'p Program {
        self.p
    }

    /// Whether `s` schedules `item` of the program: the strategy applies
    /// and code generation accepts the kernels it makes (tried here, never
    /// on the program; a trial kept across tries makes each cost its item
    /// only).
    pub fn fits(
        &mut self,
        item: Item,
        s: &Strategy,
        target: &Target,
        verdict: Verdict<'_>,
    ) -> Result<(), Vec<Diagnostic>> {
        let globals = self.q.globals.len();
        let stub = std::mem::replace(item.root_mut(&mut self.q), item.root(self.p).clone());
        let verdict = apply_strategy(&mut self.q, item, s, target).and_then(|_| {
            let written = written_items(item, globals, self.q.globals.len());
            self.judge(&written, verdict)
        });
        if self.q.globals.len() != globals {
            // A global was added (items renumbered): start afresh.
            *self = Trial::new(self.p);
        } else {
            // The variables the try made stay (unused): dropping them would
            // make the next fresh name rebuild the name index.
            *item.root_mut(&mut self.q) = stub;
        }
        verdict
    }
}

impl Trial<'_> {
    /// Whether `s` (a `loop`) schedules every item of loop `l` (`items`)
    /// so that the loop runs whole in one workgroup: the strategy applies
    /// to each and code generation accepts the loop's kernel.
    pub fn fits_loop(
        &mut self,
        l: LoopId,
        items: &[Item],
        s: &Strategy,
        target: &Target,
        verdict: Verdict<'_>,
    ) -> Result<(), Vec<Diagnostic>> {
        let stubs: Vec<Expr> = (items.iter())
            .map(|&it| std::mem::replace(it.root_mut(&mut self.q), it.root(self.p).clone()))
            .collect();
        let applied: Result<(), Vec<Diagnostic>> = items
            .iter()
            .try_for_each(|&it| apply_strategy(&mut self.q, it, s, target).map(|_| ()));
        let r = applied.and_then(|()| {
            self.q.loops[l as usize].group = Some(s.group_size());
            let names: Vec<String> = (items.iter())
                .map(|it| it.name(&self.q).to_string())
                .collect();
            let r = verdict(&self.q, &names);
            self.q.loops[l as usize].group = None;
            r
        });
        for (&it, stub) in items.iter().zip(stubs) {
            *it.root_mut(&mut self.q) = stub;
        }
        r
    }

    /// The verdict on the `written` items, asked of a slice of the trial
    /// program: the inputs, the globals they read (stubs) and themselves,
    /// renumbered, so that code generation's look at the program costs the
    /// items, not the program (it sets up every buffer it is given).
    fn judge(&mut self, written: &[Item], verdict: Verdict<'_>) -> Result<(), Vec<Diagnostic>> {
        let q = &mut self.q;
        if q.has_loops() {
            // A slice would have to rebuild the loops around the items and
            // the states they read; the stubbed program is judged whole
            // (its other items cost their buffers only).
            let names: Vec<String> = written.iter().map(|it| it.name(q).to_string()).collect();
            return verdict(q, &names);
        }
        let mut keep = BTreeSet::new();
        for &it in written {
            if let Item::Global(x) = it {
                keep.insert(x as u32);
            }
            it.root(q).walk(|e| match e.kind {
                ExprKind::Index {
                    vec: VecRef::Global(g),
                    ..
                }
                | ExprKind::Whole(VecRef::Global(g)) => {
                    keep.insert(g);
                }
                _ => {}
            });
        }
        let renumbered: BTreeMap<u32, u32> = (keep.iter().enumerate())
            .map(|(new, &old)| (old, new as u32))
            .collect();
        let mut slice = Program {
            params: q.params.clone(),
            inputs: q.inputs.clone(),
            globals: Vec::with_capacity(keep.len()),
            outputs: Vec::new(),
            // Moved, not copied (the variables of every item), and moved back.
            vars: std::mem::take(&mut q.vars),
            loops: Vec::new(),
            states: Vec::new(),
            names: Default::default(),
        };
        for &g in &keep {
            let global = &q.globals[g as usize];
            slice.globals.push(Global {
                name: global.name.clone(),
                level: global.level,
                value: match written.contains(&Item::Global(g as usize)) {
                    true => global.value.clone(),
                    false => stub(&global.value),
                },
                span: global.span,
                within: None,
                loads: global.loads,
            });
        }
        for &it in written {
            if let Item::Output(o) = it {
                slice.outputs.push(q.outputs[o].clone());
            }
        }
        slice.map_vec_refs(|v| match v {
            VecRef::Global(g) => VecRef::Global(renumbered[&g]),
            v => v,
        });
        let names: Vec<String> = written.iter().map(|it| it.name(q).to_string()).collect();
        let r = verdict(&slice, &names);
        q.vars = slice.vars;
        r
    }
}

/// The items a try wrote: `item`, after a partials global the strategy
/// inserted before it (`globals` grew to `now`) when it did.
fn written_items(item: Item, globals: usize, now: usize) -> Vec<Item> {
    if now == globals {
        return vec![item];
    }
    match item {
        Item::Global(x) => vec![Item::Global(x), Item::Global(x + 1)],
        Item::Output(o) => vec![Item::Global(globals), Item::Output(o)],
    }
}

/// A stand-in for an item root: a constant vector of its type.
fn stub(e: &Expr) -> Expr {
    let zero = match e.ty.elem {
        ElemTy::F32 => Scalar::F32(0.0),
        ElemTy::F16 => Scalar::F16(half::f16::ZERO),
        ElemTy::U32 => Scalar::U32(0),
        ElemTy::I32 | ElemTy::Bool => Scalar::I32(0),
    };
    Expr {
        kind: ExprKind::Fill(zero),
        ty: e.ty,
        span: e.span,
    }
}
