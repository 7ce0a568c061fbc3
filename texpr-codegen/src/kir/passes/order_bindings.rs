//! `order_bindings`: binding `i` is the `i`th smallest buffer the kernel
//! binds, every reference renumbered. Lowering binds buffers as it first
//! reads them; after this pass a kernel's bindings, and so the plan's,
//! follow the program's buffer order whatever order its reads came in.
//!
//! Expects nothing; guarantees `bindings` sorted by [`BufferId`] (a stable
//! sort: equal ids keep their order), each `Mem::Buffer` naming the same
//! declaration as before.
//!
//! [`BufferId`]: crate::buffer_id::BufferId

use super::Rewritten;
use crate::kir::{Kernel, Mem, Op, Stmt};
use texpr_target::Target;

pub fn order_bindings(k: &mut Kernel, _: &Target) -> Rewritten {
    if k.bindings.is_sorted_by_key(|b| b.buffer) {
        return Ok(false);
    }
    let mut order: Vec<usize> = (0..k.bindings.len()).collect();
    order.sort_by_key(|&i| k.bindings[i].buffer);
    let mut new_of = vec![0u32; order.len()];
    for (new, &old) in order.iter().enumerate() {
        new_of[old] = new as u32;
    }
    let old = std::mem::take(&mut k.bindings);
    k.bindings = order.iter().map(|&i| old[i].clone()).collect();
    let renumber = |m: &mut Mem| {
        if let Mem::Buffer(b) = m
            && let Some(&n) = new_of.get(*b as usize)
        {
            *b = n;
        }
    };
    for v in &mut k.values {
        if let Op::Load(m, _) = &mut v.op {
            renumber(m);
        }
    }
    k.body.walk_mut(&mut |s| match s {
        Stmt::Store(m, _, _) => renumber(m),
        Stmt::Coop(c) => c.mem_mut().into_iter().for_each(renumber),
        _ => {}
    });
    Ok(true)
}
