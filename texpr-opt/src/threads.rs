//! Filling missing levels inside one invocation: `compute`/`reduce` become
//! `@thread`, `let` becomes `@reg`; levels already written are kept.

use crate::subst::map_children;
use texpr_syntax::ast::{Level, MemLevel};
use texpr_syntax::ir::{Expr, ExprKind};

/// `e` with every missing level set to its thread-level form.
pub fn to_thread_levels(e: &Expr) -> Expr {
    let kind = match map_children(e, to_thread_levels) {
        ExprKind::Compute {
            level,
            n,
            var,
            map,
            body,
        } => ExprKind::Compute {
            level: level.or(Some(Level::Thread)),
            n,
            var,
            map,
            body,
        },
        ExprKind::Reduce {
            level,
            op,
            n,
            var,
            body,
        } => ExprKind::Reduce {
            level: level.or(Some(Level::Thread)),
            op,
            n,
            var,
            body,
        },
        ExprKind::Let {
            level,
            var,
            value,
            body,
        } => ExprKind::Let {
            level: level.or(Some(MemLevel::Reg)),
            var,
            value,
            body,
        },
        k => k,
    };
    Expr {
        kind,
        ty: e.ty,
        span: e.span,
    }
}
