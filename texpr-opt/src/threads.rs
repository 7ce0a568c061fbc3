//! Filling missing levels inside one invocation: `compute`/`reduce` become
//! `@thread`, `let` becomes `@reg`; levels already written are kept.

use texpr_syntax::ast::{Level, MemLevel};
use texpr_syntax::ir::Expr;

/// `e` with every missing level set to its thread-level form.
pub fn to_thread_levels(e: &Expr) -> Expr {
    let mut out = e.clone();
    out.walk_mut(|n| {
        if n.takes_level() && n.level().is_none() {
            n.set_level(Some(Level::Thread), Some(MemLevel::Reg));
        }
    });
    out
}
