//! Completing a user's partial schedule: keeps every level written when it is
//! legal, fills the missing ones, and says why when a level is not legal.
//!
//! Expects: a checked item root with at least one grid- or group-level node
//! or `let@shared` (see [`Expr::has_structure`]). Guarantees: the root is a
//! `compute@grid` (a root without one is wrapped in `compute@grid 1`); every
//! node has a level; levels never increase from root to leaf. Filling: an
//! unleveled `compute` at the root is `@grid`; on the grid body's spine (the
//! grid body and the bodies of lets on it) an unleveled `let` is `@shared`
//! when group-level work follows it, else `@reg`; anywhere else an unleveled
//! `compute`/`reduce` is `@thread` and a `let` is `@reg`. Group-level work
//! inside a thread-level loop is the workgroup's together (a staged tile's
//! fill); code generation requires the invocations to run the loop in step
//! (E0303).
//!
//! Errors: E0202 (a group wider than the device allows), E0203 (a level out of
//! order or a let level in the wrong place), E0204 (an unleveled
//! `compute`/`reduce` inside a grid body with group-level work inside it),
//! E0206 (a `compute@grid` nested in another grid: not supported).

use texpr_ir::Diagnostic;
use texpr_ir::{Expr, ExprKind, Program, Ty, VarKind};
use texpr_ir::{Level, MemLevel};
use texpr_target::Target;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Ctx {
    /// On the grid body's spine: outside any invocation.
    Spine,
    /// Inside a group-level node: group-level nodes may still appear.
    Group,
    /// Inside a thread-level node or a `let@reg` value.
    Thread,
}

/// The item root with its schedule completed.
pub fn fill_levels(p: &mut Program, root: &Expr, target: &Target) -> Result<Expr, Vec<Diagnostic>> {
    let mut f = Filler {
        target,
        errs: Vec::new(),
    };
    let out = match &root.kind {
        ExprKind::Compute {
            level: Some(Level::Grid),
            ..
        } => f.grid(root),
        ExprKind::Compute {
            level: None, body, ..
        } if body.has_structure() => f.grid(root),
        _ => {
            let g = p.fresh_var("g", VarKind::Index { extent: 1 }, root.span);
            let body = f.node(root, Ctx::Spine);
            Expr {
                kind: ExprKind::Compute {
                    level: Some(Level::Grid),
                    n: 1,
                    var: g,
                    map: None,
                    body: Box::new(body),
                },
                ty: Ty::new(root.ty.elem, root.ty.len),
                span: root.span,
            }
        }
    };
    if f.errs.is_empty() {
        Ok(out)
    } else {
        Err(f.errs)
    }
}

struct Filler<'a> {
    target: &'a Target,
    errs: Vec<Diagnostic>,
}

impl Filler<'_> {
    fn grid(&mut self, e: &Expr) -> Expr {
        let ExprKind::Compute {
            n, var, map, body, ..
        } = &e.kind
        else {
            unreachable!("grid() is called on computes only")
        };
        let kind = ExprKind::Compute {
            level: Some(Level::Grid),
            n: *n,
            var: *var,
            map: map.clone(),
            body: Box::new(self.node(body, Ctx::Spine)),
        };
        Expr {
            kind,
            ty: e.ty,
            span: e.span,
        }
    }

    fn node(&mut self, e: &Expr, ctx: Ctx) -> Expr {
        let kind = match &e.kind {
            ExprKind::Compute { level, n, body, .. } | ExprKind::Reduce { level, n, body, .. } => {
                let (level, inner) = self.loop_level(e, *level, *n, body, ctx);
                let mut out = e.map_children(|c| self.node(c, inner));
                out.set_level(Some(level), None);
                return out;
            }
            ExprKind::Let {
                level,
                var,
                value,
                body,
            } => {
                let level = self.let_level(e, *level, body, ctx);
                let value_ctx = if level == MemLevel::Shared {
                    Ctx::Group
                } else {
                    Ctx::Thread
                };
                let body_ctx = if ctx == Ctx::Spine { Ctx::Spine } else { ctx };
                ExprKind::Let {
                    level: Some(level),
                    var: *var,
                    value: Box::new(self.node(value, value_ctx.min_with(ctx))),
                    body: Box::new(self.node(body, body_ctx)),
                }
            }
            _ => {
                let inner = if ctx == Ctx::Spine { Ctx::Group } else { ctx };
                e.map_children(|c| self.node(c, inner)).kind
            }
        };
        Expr {
            kind,
            ty: e.ty,
            span: e.span,
        }
    }

    /// The level of a `compute`/`reduce` and the context of its body.
    fn loop_level(
        &mut self,
        e: &Expr,
        level: Option<Level>,
        n: u64,
        body: &Expr,
        ctx: Ctx,
    ) -> (Level, Ctx) {
        match level {
            Some(Level::Grid) => {
                let (code, why) = if ctx == Ctx::Spine {
                    (
                        "E0206",
                        "a `compute@grid` nested in another grid is not supported",
                    )
                } else {
                    (
                        "E0203",
                        "a grid-level node cannot stand inside an invocation",
                    )
                };
                self.errs
                    .push(Diagnostic::error(code, why).with_primary(e.span, "this grid level"));
                (Level::Grid, Ctx::Group)
            }
            // Inside a thread-level loop, group-level work is the
            // workgroup's together (a staged tile's fill): code generation
            // requires the invocations to run the loop in step (E0303).
            Some(lv @ (Level::Group | Level::Subgroup)) => {
                self.check_group_size(e, n);
                (lv, Ctx::Group)
            }
            Some(Level::Thread) => (Level::Thread, Ctx::Thread),
            None if ctx == Ctx::Spine && body.has_structure() => {
                self.errs.push(
                    Diagnostic::error("E0204", "cannot choose a level for this node")
                        .with_primary(e.span, "this has no level but group-level work inside")
                        .with_note(
                            "write `@group` or `@thread` on it, or move the group-level work out",
                        ),
                );
                (Level::Thread, Ctx::Group)
            }
            None => (Level::Thread, Ctx::Thread),
        }
    }

    fn let_level(&mut self, e: &Expr, level: Option<MemLevel>, body: &Expr, ctx: Ctx) -> MemLevel {
        match (level, ctx) {
            (None, Ctx::Spine) if body.has_structure() => MemLevel::Shared,
            (None, _) => MemLevel::Reg,
            // Where the checker accepted a `let@shared` (on the spine, or in a
            // thread-level loop of the invocations), it stays.
            (Some(MemLevel::Reg | MemLevel::Prefetch | MemLevel::Lanes), _)
            | (Some(MemLevel::Shared), Ctx::Spine | Ctx::Thread)
            | (Some(MemLevel::Mma), Ctx::Spine) => level.unwrap_or(MemLevel::Reg),
            (Some(other), _) => {
                let why = match other {
                    MemLevel::Global => "`let@global` is only for top-level lets",
                    MemLevel::Mma => "`let@mma` must stand directly in a `compute@grid`'s body",
                    _ => "`let@shared` must be inside a `compute@grid` and outside any invocation",
                };
                self.errs
                    .push(Diagnostic::error("E0203", why).with_primary(e.span, "this let"));
                other
            }
        }
    }

    fn check_group_size(&mut self, e: &Expr, n: u64) {
        let inv = self.target.limits.max_invocations_per_workgroup as u64;
        let x = self.target.limits.max_workgroup_size[0] as u64;
        if n > inv.min(x) {
            let (what, lim) = if n > inv {
                ("invocations per workgroup", inv)
            } else {
                ("workgroup size x", x)
            };
            self.errs.push(
                Diagnostic::error(
                    "E0202",
                    format!("a workgroup of {n} invocations is over the device's limit of {lim}"),
                )
                .with_primary(e.span, format!("{n} invocations"))
                .with_note(format!("the device allows {lim} {what}")),
            );
        }
    }
}

impl Ctx {
    /// The more restrictive of a let value's own context and the let's.
    fn min_with(self, outer: Ctx) -> Ctx {
        if outer == Ctx::Thread {
            Ctx::Thread
        } else {
            self
        }
    }
}
