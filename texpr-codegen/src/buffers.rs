//! The buffers of a program: one storage buffer per input, global and output,
//! in that order.

use crate::plan::{BufferId, BufferPlan, BufferRole};
use texpr_syntax::Span;
use texpr_syntax::ir::{Program, VecRef};

#[derive(Debug)]
pub struct BufferTable {
    pub plans: Vec<BufferPlan>,
    /// The declaration each buffer comes from, for diagnostics.
    pub spans: Vec<Span>,
    n_inputs: u32,
    n_globals: u32,
}

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
        BufferTable {
            plans,
            spans,
            n_inputs: p.inputs.len() as u32,
            n_globals: p.globals.len() as u32,
        }
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

fn plan(name: &str, role: BufferRole, elem: texpr_syntax::ast::ElemTy, len: u64) -> BufferPlan {
    BufferPlan {
        name: name.to_string(),
        role,
        elem,
        len,
    }
}
