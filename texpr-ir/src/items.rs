//! A program's items and loops: which items there are and where each is
//! computed, the loops' bodies and step counts, renumbering vector
//! references, and an item's name, root, span and load width.

use super::{Expr, ExprKind, Item, Loads, LoopId, Program, VecRef};

impl Program {
    /// Every item: globals first, then outputs.
    pub fn items(&self) -> Vec<Item> {
        let mut v: Vec<Item> = (0..self.globals.len()).map(Item::Global).collect();
        v.extend((0..self.outputs.len()).map(Item::Output));
        v
    }

    /// The item named `name`, if any.
    pub fn item(&self, name: &str) -> Option<Item> {
        self.items().into_iter().find(|it| it.name(self) == name)
    }

    /// Rewrites every vector reference (`v[t]` and whole reads) of every item,
    /// and every state's `init` and `next`, with `f`: renumbering globals when
    /// one is added or removed.
    pub fn map_vec_refs(&mut self, f: impl Fn(VecRef) -> VecRef) {
        let roots = self.globals.iter_mut().map(|g| &mut g.value);
        for root in roots.chain(self.outputs.iter_mut().map(|o| &mut o.value)) {
            root.walk_mut(|e| match &mut e.kind {
                ExprKind::Index { vec, .. } | ExprKind::Whole(vec) => *vec = f(*vec),
                _ => {}
            });
        }
        for s in &mut self.states {
            s.init = f(s.init);
            s.next = f(s.next);
        }
    }

    /// The loop an item is computed in (innermost), if any.
    pub fn loop_of(&self, item: Item) -> Option<LoopId> {
        match item {
            Item::Global(g) => self.globals[g].within,
            Item::Output(_) => None,
        }
    }

    /// Whether loop `inner` is `outer` or runs within it.
    pub fn loop_within(&self, inner: Option<LoopId>, outer: LoopId) -> bool {
        let mut l = inner;
        while let Some(x) = l {
            if x == outer {
                return true;
            }
            l = self.loops[x as usize].within;
        }
        false
    }

    /// The globals loop `l` computes each step (its inner loops' included),
    /// as a range of [`Program::globals`] (empty for a loop without any, which
    /// the verifier refuses).
    pub fn loop_body(&self, l: LoopId) -> std::ops::Range<usize> {
        let inside = |g: &super::Global| self.loop_within(g.within, l);
        match self.globals.iter().position(inside) {
            Some(start) => {
                let len = self.globals[start..]
                    .iter()
                    .take_while(|g| inside(g))
                    .count();
                start..start + len
            }
            None => 0..0,
        }
    }

    /// Whether global `g` is a state's `init` or `next` (the loop reads it
    /// whole though no expression does: no pass may remove or fuse it).
    pub fn held_by_state(&self, g: usize) -> bool {
        let v = VecRef::Global(g as u32);
        self.states.iter().any(|s| s.init == v || s.next == v)
    }

    /// How many times loop `inner`'s steps run per run of `outer` (which
    /// contains it): the product of the step counts of the loops from
    /// `inner` out to, not including, `outer` (`None`: the top level).
    /// At least 1 (a loop of 0 steps counts 1: its kernels are still made).
    pub fn runs_within(&self, inner: Option<LoopId>, outer: Option<LoopId>) -> u64 {
        let mut runs = 1u64;
        let mut l = inner;
        while let Some(x) = l.filter(|x| Some(*x) != outer) {
            let lp = &self.loops[x as usize];
            runs = runs.saturating_mul(lp.count.max(1));
            l = lp.within;
        }
        runs
    }

    /// Whether the program has loops.
    pub fn has_loops(&self) -> bool {
        !self.loops.is_empty()
    }
}

impl Item {
    pub fn name(self, p: &Program) -> &str {
        match self {
            Item::Global(i) => &p.globals[i].name,
            Item::Output(i) => &p.outputs[i].name,
        }
    }

    pub fn root(self, p: &Program) -> &Expr {
        match self {
            Item::Global(i) => &p.globals[i].value,
            Item::Output(i) => &p.outputs[i].value,
        }
    }

    pub fn root_mut(self, p: &mut Program) -> &mut Expr {
        match self {
            Item::Global(i) => &mut p.globals[i].value,
            Item::Output(i) => &mut p.outputs[i].value,
        }
    }

    pub fn span(self, p: &Program) -> crate::Span {
        match self {
            Item::Global(i) => p.globals[i].span,
            Item::Output(i) => p.outputs[i].span,
        }
    }

    /// How the item's kernel moves elements (the schedule's `loads=`).
    pub fn loads(self, p: &Program) -> Loads {
        match self {
            Item::Global(i) => p.globals[i].loads,
            Item::Output(i) => p.outputs[i].loads,
        }
    }

    pub fn set_loads(self, p: &mut Program, loads: Loads) {
        match self {
            Item::Global(i) => p.globals[i].loads = loads,
            Item::Output(i) => p.outputs[i].loads = loads,
        }
    }
}
