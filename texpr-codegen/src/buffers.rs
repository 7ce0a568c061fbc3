//! The buffers of a program: one storage buffer per input, global and output,
//! in that order, then one per distinct vector literal longer than
//! [`INLINE_LITERAL`] elements or holding a value WGSL spells with a
//! `bitcast` ([`inline_literal`]; a constant buffer, uploaded with the program:
//! a long literal inside a shader costs drivers dearly — llvmpipe takes 80 s
//! to compile one of 1024 elements).

use crate::plan::{BufferId, BufferPlan, BufferRole};
use std::collections::BTreeMap;
use texpr_syntax::Span;
use texpr_syntax::ast::ElemTy;
use texpr_syntax::ir::{Expr, ExprKind, Program, Scalar, VecRef};

#[derive(Debug)]
pub struct BufferTable {
    pub plans: Vec<BufferPlan>,
    /// The declaration each buffer comes from, for diagnostics.
    pub spans: Vec<Span>,
    n_inputs: u32,
    n_globals: u32,
    /// The constant buffer of each long literal, by element type and bits.
    constants: BTreeMap<(u8, Vec<u32>), BufferId>,
}

/// Vector literals up to this many elements stay in the shader (a
/// module-scope array); longer ones get a constant buffer.
pub const INLINE_LITERAL: usize = 16;

impl BufferTable {
    pub fn new(p: &Program) -> BufferTable {
        let mut plans = Vec::new();
        let mut spans = Vec::new();
        for (i, x) in p.inputs.iter().enumerate() {
            plans.push(plan(
                &x.name,
                BufferRole::Input(i as u32),
                x.ty.elem,
                x.ty.len,
            ));
            spans.push(x.span);
        }
        for (i, g) in p.globals.iter().enumerate() {
            plans.push(plan(
                &g.name,
                BufferRole::Global(i as u32),
                g.value.ty.elem,
                g.value.ty.len,
            ));
            spans.push(g.span);
        }
        for (i, o) in p.outputs.iter().enumerate() {
            plans.push(plan(
                &o.name,
                BufferRole::Output(i as u32),
                o.value.ty.elem,
                o.value.ty.len,
            ));
            spans.push(o.span);
        }
        let mut table = BufferTable {
            plans,
            spans,
            n_inputs: p.inputs.len() as u32,
            n_globals: p.globals.len() as u32,
            constants: BTreeMap::new(),
        };
        let roots = (p.globals.iter().map(|g| &g.value)).chain(p.outputs.iter().map(|o| &o.value));
        for root in roots {
            table.add_constants(root);
        }
        table
    }

    /// A constant buffer for every long literal in `e` not seen before.
    fn add_constants(&mut self, e: &Expr) {
        if let ExprKind::VecLit(vals) = &e.kind
            && !inline_literal(vals)
        {
            let key = literal_key(e.ty.elem, vals);
            if !self.constants.contains_key(&key) {
                let id = BufferId(self.plans.len() as u32);
                let name = self.free_name(&format!("const_{}", self.constants.len()));
                let mut plan = plan(&name, BufferRole::Constant, e.ty.elem, vals.len() as u64);
                plan.init = key.1.clone();
                self.plans.push(plan);
                self.spans.push(e.span);
                self.constants.insert(key, id);
            }
        }
        e.children().for_each(|c| self.add_constants(c));
    }

    /// `base`, or `base` with `_` appended until no buffer has the name.
    fn free_name(&self, base: &str) -> String {
        let mut name = base.to_string();
        while self.plans.iter().any(|b| b.name == name) {
            name.push('_');
        }
        name
    }

    /// The constant buffer holding literal `vals` of type `elem`, unless it
    /// stays in the shader ([`inline_literal`]).
    pub fn constant(&self, elem: ElemTy, vals: &[Scalar]) -> Option<BufferId> {
        if inline_literal(vals) {
            return None;
        }
        self.constants.get(&literal_key(elem, vals)).copied()
    }

    /// The buffer of an input or a global; `None` for local vectors.
    pub fn of(&self, v: VecRef) -> Option<BufferId> {
        match v {
            VecRef::Input(i) => Some(BufferId(i)),
            VecRef::Global(i) => Some(BufferId(self.n_inputs + i)),
            VecRef::Local(_) => None,
        }
    }

    pub fn global(&self, i: u32) -> BufferId {
        BufferId(self.n_inputs + i)
    }

    pub fn output(&self, i: u32) -> BufferId {
        BufferId(self.n_inputs + self.n_globals + i)
    }
}

fn plan(name: &str, role: BufferRole, elem: ElemTy, len: u64) -> BufferPlan {
    BufferPlan {
        name: name.to_string(),
        role,
        elem,
        len,
        init: Vec::new(),
    }
}

/// Whether a literal stays in the shader: at most [`INLINE_LITERAL`]
/// elements, each written as a WGSL literal (a module-scope initializer must
/// be a constant expression, and naga does not evaluate the `bitcast` that
/// spells an infinity, a NaN, `-0.0` or `i32::MIN`).
pub fn inline_literal(vals: &[Scalar]) -> bool {
    let plain = |v: &Scalar| match *v {
        Scalar::F32(x) => x.is_finite() && !(x == 0.0 && x.is_sign_negative()),
        Scalar::I32(x) => x != i32::MIN,
        Scalar::U32(_) => true,
    };
    vals.len() <= INLINE_LITERAL && vals.iter().all(plain)
}

/// A literal's element type and elements as bits.
fn literal_key(elem: ElemTy, vals: &[Scalar]) -> (u8, Vec<u32>) {
    let bits = vals
        .iter()
        .map(|v| match *v {
            Scalar::F32(x) => x.to_bits(),
            Scalar::I32(x) => x as u32,
            Scalar::U32(x) => x,
        })
        .collect();
    (elem as u8, bits)
}
