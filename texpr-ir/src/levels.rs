//! Level placement rules of the scheduled form, shared by the checker and the verifier.
//!
//! Walking from an item's root to a leaf, a [`LevelCtx`] records the enclosing
//! leveled nodes. The rules (docs/language.md, "The scheduled form"):
//! - `compute`/`reduce` levels are non-increasing: `grid` above `group` above
//!   `thread` (equal levels may nest; `subgroup`, for `reduce` only, ranks
//!   as `group`);
//! - there is no `reduce@grid`;
//! - `let@global` stands outside every `compute` and `reduce`;
//! - `let@shared` stands inside a `compute@grid`, and either outside every
//!   `compute@group` or, within one, inside a `thread`-level `compute` or
//!   `reduce` (a loop every invocation of the workgroup runs alike, so all of
//!   them reach the `let` together and fill it cooperatively); there its
//!   value must not depend on the invocation (the `compute@group`'s variable):
//!   [`LevelCtx::shared_value_error`]. Its value is filled by the whole
//!   workgroup together, so it stands at the group's level again
//!   ([`LevelCtx::value_ctx`]): it may be a `compute@group W` (each invocation
//!   computing its own elements, the cooperative fill) whatever thread-level
//!   loops enclose the `let`;
//! - `let@reg` and `let@prefetch` stand inside some `compute` or `reduce`;
//! - `let@mma` stands directly in a `compute@grid`'s body.

use super::codes;
use crate::diag::Diagnostic;
use crate::span::Span;
use crate::{Level, MemLevel};

/// What encloses the current node.
#[derive(Clone, Copy, Debug, Default)]
pub struct LevelCtx {
    /// The innermost leveled `compute`/`reduce`: its level and where it was written.
    pub last: Option<(Level, Span)>,
    /// The outermost enclosing `compute@grid`.
    pub grid: Option<Span>,
    /// The outermost enclosing `compute@group`.
    pub group: Option<Span>,
    /// The innermost enclosing `compute` or `reduce` of any level.
    pub loop_: Option<Span>,
    /// A `thread`-level `compute` or `reduce` inside the enclosing `compute@group`.
    pub thread_in_group: Option<Span>,
    /// The variable of the outermost enclosing `compute@group` (set by the caller
    /// once the variable exists).
    pub group_var: Option<crate::VarId>,
}

/// Ordering rank: grid 0, group and subgroup 1, thread 2.
fn rank(l: Level) -> u8 {
    match l {
        Level::Grid => 0,
        Level::Group | Level::Subgroup => 1,
        Level::Thread => 2,
    }
}

impl LevelCtx {
    /// Enters a `compute` (`is_reduce` false) or `reduce` written at `span`
    /// with an optional level; returns the context of its body.
    pub fn enter(
        self,
        level: Option<Level>,
        span: Span,
        is_reduce: bool,
    ) -> (LevelCtx, Option<Diagnostic>) {
        let mut inner = self;
        inner.loop_ = Some(span);
        let Some(level) = level else {
            return (inner, None);
        };
        let mut err = None;
        if is_reduce && level == Level::Grid {
            err = Some(
                Diagnostic::error(codes::REDUCE_AT_GRID, "`reduce` cannot run at level `grid`")
                    .with_primary(span, "`reduce@grid` is not a level a reduction can have")
                    .with_note(
                        "use `reduce@group` (across a workgroup) or `reduce@thread` (a loop)",
                    ),
            );
        } else if let Some((outer, outer_span)) = self.last.filter(|(o, _)| rank(level) < rank(*o))
        {
            err = Some(
                Diagnostic::error(
                    codes::LEVEL_ORDER,
                    format!("level `{}` inside level `{}`", level.name(), outer.name()),
                )
                .with_primary(span, format!("`{}` here", level.name()))
                .with_secondary(outer_span, format!("inside this `{}`", outer.name()))
                .with_note("levels must not increase from the root to a leaf: grid, then group, then thread"),
            );
        }
        inner.last = Some((level, span));
        if !is_reduce && level == Level::Grid && inner.grid.is_none() {
            inner.grid = Some(span);
        }
        if !is_reduce && level == Level::Group && inner.group.is_none() {
            inner.group = Some(span);
        }
        if level == Level::Thread && inner.group.is_some() && inner.thread_in_group.is_none() {
            inner.thread_in_group = Some(span);
        }
        (inner, err)
    }

    /// Checks a `let` with an optional memory level written at `span`.
    pub fn check_let(self, level: Option<MemLevel>, span: Span) -> Option<Diagnostic> {
        match level? {
            MemLevel::Global => self.loop_.map(|outer| {
                Diagnostic::error(codes::GLOBAL_PLACEMENT, "`let@global` inside a `compute` or `reduce`")
                    .with_primary(span, "a global buffer cannot be allocated here")
                    .with_secondary(outer, "inside this")
                    .with_note("`let@global` may only stand outside every `compute` and `reduce`; try `let@shared` or `let@reg`")
            }),
            MemLevel::Shared => self.shared_error(span),
            // Directly in a grid body: the workgroup's subgroups compute it.
            MemLevel::Mma => match (self.grid, self.group, self.last) {
                (Some(_), None, Some((Level::Grid, _))) => None,
                _ => Some(
                    Diagnostic::error(codes::SHARED_PLACEMENT, "`let@mma` in the wrong place")
                        .with_primary(span, "not directly in a `compute@grid`'s body")
                        .with_note("`let@mma` stands in a `compute@grid`'s body, outside every other `compute` and `reduce`"),
                ),
            },
            MemLevel::Reg | MemLevel::Prefetch | MemLevel::Lanes => match self.loop_ {
                Some(_) => None,
                None => Some(
                    Diagnostic::error(codes::REG_PLACEMENT, "`let@reg` outside any `compute` or `reduce`")
                        .with_primary(span, "registers exist only inside an invocation")
                        .with_note("at the top of an item use `let@global` (or no level)"),
                ),
            },
        }
    }

    fn shared_error(self, span: Span) -> Option<Diagnostic> {
        let base = || Diagnostic::error(codes::SHARED_PLACEMENT, "`let@shared` in the wrong place");
        let rule = "`let@shared` must stand inside a `compute@grid`: outside every `compute@group`, or within one inside a `thread`-level `compute` or `reduce`";
        if let Some(group) = self.group {
            if self.thread_in_group.is_some() {
                return None;
            }
            return Some(
                base()
                    .with_primary(span, "workgroup memory cannot be allocated per invocation")
                    .with_secondary(
                        group,
                        "inside this `compute@group`, outside any `thread`-level loop",
                    )
                    .with_note(rule),
            );
        }
        match self.grid {
            Some(_) => None,
            None => Some(
                base()
                    .with_primary(span, "not inside any `compute@grid`")
                    .with_note(rule),
            ),
        }
    }

    /// The context of the value of a `let` of `level`: for a `let@shared`
    /// inside a `compute@group`, the group's level (see the module docs).
    pub fn value_ctx(self, level: Option<MemLevel>) -> LevelCtx {
        match (level, self.group) {
            (Some(MemLevel::Shared), Some(group)) => LevelCtx {
                last: Some((Level::Group, group)),
                thread_in_group: None,
                ..self
            },
            _ => self,
        }
    }

    /// A `let@shared` inside a `compute@group` whose `value` depends on the
    /// invocation (mentions the group's variable): every invocation would
    /// need a different vector, which one workgroup array cannot hold.
    pub fn shared_value_error(
        self,
        level: Option<MemLevel>,
        value: &crate::Expr,
        span: Span,
    ) -> Option<Diagnostic> {
        let (Some(MemLevel::Shared), Some(v), Some(group)) = (level, self.group_var, self.group)
        else {
            return None;
        };
        value.mentions(v).then(|| {
            Diagnostic::error(
                codes::SHARED_PLACEMENT,
                "this `let@shared` depends on the invocation",
            )
            .with_primary(span, "its value mentions the workgroup's invocation index")
            .with_secondary(group, "the index of this `compute@group`")
            .with_note("a workgroup array holds one vector for all invocations; use `let@reg` for per-invocation values")
        })
    }
}
