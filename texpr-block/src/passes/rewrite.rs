//! A helper for passes: rebuild a program instruction by instruction, renumbering registers.

use crate::air::{Inst, Program, Reg};
use std::collections::BTreeSet;

/// Builds a new program from an old one; `map` says which new register
/// stands for each old one.
#[derive(Debug)]
pub struct Rewriter {
    out: Program,
    map: Vec<Option<Reg>>,
    taken: BTreeSet<String>,
}

impl Rewriter {
    pub fn new(old: &Program) -> Rewriter {
        Rewriter {
            out: Program {
                insts: Vec::new(),
                ..old.clone()
            },
            map: vec![None; old.insts.len()],
            taken: old.insts.iter().map(|i| i.name.clone()).collect(),
        }
    }

    /// The new register for an old one (which must have been emitted or mapped).
    pub fn get(&self, old: Reg) -> Reg {
        self.map[old.index()].expect("operands are emitted before their uses")
    }

    pub fn set(&mut self, old: Reg, new: Reg) {
        self.map[old.index()] = Some(new);
    }

    /// Appends an instruction whose operands are already new registers.
    pub fn emit(&mut self, inst: Inst) -> Reg {
        self.taken.insert(inst.name.clone());
        self.out.insts.push(inst);
        Reg(self.out.insts.len() as u32 - 1)
    }

    /// Appends an old instruction with its operands mapped, and maps it.
    pub fn copy(&mut self, old: &Program, r: Reg) -> Reg {
        let mut inst = old.inst(r).clone();
        inst.op.map_args(|a| self.get(a));
        let new = self.emit(inst);
        self.set(r, new);
        new
    }

    /// The smallest number not used as a register name.
    pub fn fresh_name(&self) -> String {
        (0u32..)
            .map(|k| k.to_string())
            .find(|n| !self.taken.contains(n))
            .expect("a free number")
    }

    /// The type of a new register.
    pub fn ty(&self, r: Reg) -> crate::air::BlockTy {
        self.out.ty(r)
    }

    pub fn finish(mut self, old_ret: Reg) -> Program {
        self.out.ret = self.get(old_ret);
        self.out
    }
}
