//! A block program: a function of three-address instructions over block matrices, one basic block.

use super::ops::Op;
use super::reg::Reg;
use super::types::BlockTy;
use texpr_ir::Span;

/// `%name = op args : ty`
#[derive(Clone, Debug, PartialEq)]
pub struct Inst {
    /// The register's name without `%` (`0`, `a`, `bias`).
    pub name: String,
    pub op: Op,
    pub ty: BlockTy,
    /// The instruction's text (for diagnostics); dummy when built in Rust.
    pub span: Span,
}

/// A function: instructions in definition order (each reads only earlier
/// registers) and the returned register.
#[derive(Clone, Debug, PartialEq)]
pub struct Program {
    pub name: String,
    /// `param` values, for printing; types already hold the numbers.
    pub params: Vec<(String, u64)>,
    pub insts: Vec<Inst>,
    pub ret: Reg,
    pub ret_span: Span,
}

impl Program {
    pub fn inst(&self, r: Reg) -> &Inst {
        &self.insts[r.index()]
    }
    pub fn ty(&self, r: Reg) -> BlockTy {
        self.inst(r).ty
    }
    pub fn regs(&self) -> impl DoubleEndedIterator<Item = Reg> + use<> {
        (0..self.insts.len() as u32).map(Reg)
    }
    /// The input registers, in order.
    pub fn inputs(&self) -> Vec<Reg> {
        self.regs()
            .filter(|&r| matches!(self.inst(r).op, Op::Input))
            .collect()
    }
    /// The registers whose tiles no op computes (inputs, and `random`
    /// matrices made from their seed), in order: the block graph's Source.
    pub fn leaves(&self) -> Vec<Reg> {
        self.regs()
            .filter(|&r| matches!(self.inst(r).op, Op::Input | Op::Random(_)))
            .collect()
    }
    /// How many times each register is read (the return counts as a read).
    pub fn use_counts(&self) -> Vec<usize> {
        let mut uses = vec![0; self.insts.len()];
        for inst in &self.insts {
            for a in inst.op.args() {
                uses[a.index()] += 1;
            }
        }
        uses[self.ret.index()] += 1;
        uses
    }
    /// A register name not used yet: the smallest free number.
    pub fn fresh_name(&self) -> String {
        (0..)
            .map(|k: u32| k.to_string())
            .find(|n| self.insts.iter().all(|i| &i.name != n))
            .expect("some number is free")
    }
    pub fn find(&self, name: &str) -> Option<Reg> {
        self.regs().find(|&r| self.inst(r).name == name)
    }
}
