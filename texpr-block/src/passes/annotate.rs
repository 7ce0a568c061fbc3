//! Pass `annotate`: records each op's metadata (commutative, associative, elementwise) in the environment.
//!
//! Expects: a verified program. Guarantees: the program is unchanged; `op.meta`
//! holds one line per op with metadata.

use super::env::{Env, EnvValue, OP_META};
use crate::air::Program;

pub fn annotate(p: &Program, env: &mut Env) -> Program {
    let lines = p
        .insts
        .iter()
        .filter(|i| i.op.meta() != Default::default())
        .map(|i| format!("%{} {}: {}", i.name, i.op.name(), i.op.meta()))
        .collect();
    env.set(OP_META, EnvValue::Lines(lines));
    p.clone()
}
