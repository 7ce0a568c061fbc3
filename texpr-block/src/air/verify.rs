//! The block-program verifier, run after every pass in tests and debug builds.
//!
//! Invariants checked:
//! - every instruction reads only registers defined before it;
//! - register names are unique;
//! - every instruction's type is what the type rules give (see `typing`);
//! - the returned register exists.

use super::program::Program;
use super::reg::Reg;
use super::types::BlockTy;
use super::typing::{self, TyEnv};
use crate::codes;
use std::collections::BTreeSet;
use texpr_ir::Diagnostic;

impl TyEnv for Program {
    fn ty_of(&self, r: Reg) -> BlockTy {
        self.ty(r)
    }
    fn name_of(&self, r: Reg) -> String {
        self.inst(r).name.clone()
    }
}

/// Checks every invariant; the first violation as a diagnostic.
pub fn verify(p: &Program) -> Result<(), Diagnostic> {
    let mut names = BTreeSet::new();
    for r in p.regs() {
        let inst = p.inst(r);
        if !names.insert(inst.name.as_str()) {
            return Err(Diagnostic::error(
                codes::DUPLICATE_REG,
                format!("register %{} is defined twice", inst.name),
            )
            .with_primary(inst.span, "defined again here"));
        }
        if let Some(bad) = inst.op.args().into_iter().find(|a| *a >= r) {
            return Err(Diagnostic::error(
                codes::UNKNOWN_REG,
                format!(
                    "%{} reads register {} before it is defined",
                    inst.name, bad.0
                ),
            )
            .with_primary(inst.span, "in this op"));
        }
        typing::infer(p, &inst.op, Some(inst.ty), inst.span)?;
    }
    if p.ret.index() >= p.insts.len() {
        return Err(
            Diagnostic::error(codes::UNKNOWN_REG, "the returned register does not exist")
                .with_primary(p.ret_span, "returned here"),
        );
    }
    Ok(())
}
