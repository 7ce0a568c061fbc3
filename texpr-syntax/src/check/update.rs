//! Updates in place: `x with [at] = e` as a loop state's result, the state
//! `x` with `e`'s elements from `at` on and the rest kept (an
//! [`ir::State`]'s `at`). Anywhere else it is E0146.

use super::items::show_ty;
use super::scope::{LocalKind, Resolved};
use super::{CResult, Checker, codes};
use crate::ast::{self, Ident};
use texpr_ir::diag::Diagnostic;
use texpr_ir::{self as ir, Span};

/// E0146: an update in place where no loop state takes it.
pub(super) fn misplaced(span: Span, state: &Ident) -> Diagnostic {
    Diagnostic::error(
        codes::UPDATE_PLACE,
        format!(
            "`{} with [..] = ..` stands where no loop state takes it",
            state.name
        ),
    )
    .with_primary(span, "an update in place")
    .with_note(
        "an update in place is a loop's result for the state it names: \
         `iterate T from x0 |x, t| x with [t] = e`",
    )
}

impl Checker {
    /// The result `x with [at] = value` (`e`) of state `s`, named `binder`
    /// in the loop: the value, and the term of the first element it replaces.
    pub(super) fn update(
        &mut self,
        (s, binder): (u32, &Ident),
        e: &ast::Expr,
        (state, at, value): (&Ident, &ast::Term, &ast::Expr),
    ) -> CResult<(ir::Expr, ir::Term)> {
        let want = self.states[s as usize].ty;
        let (name, decl) = (binder.name.clone(), binder.span);
        if !matches!(self.lookup(&state.name), Resolved::Local(LocalKind::State(x), _) if x == s) {
            return Err(self.err(
                Diagnostic::error(
                    codes::UPDATE_PLACE,
                    format!("the result for state `{name}` updates `{}`", state.name),
                )
                .with_primary(state.span, "not the state whose result this is")
                .with_secondary(decl, format!("the state `{name}`"))
                .with_note(
                    "an update in place keeps the rest of the state it names: it names its own",
                ),
            ));
        }
        let term = self.term_root(|c| c.index_term(at));
        let x = self.value(value, Some(want.elem));
        let (term, x) = (term?, x?);
        if x.ty.elem != want.elem || x.ty.len > want.len {
            return Err(self.err(
                Diagnostic::error(
                    codes::STATE_TYPE,
                    format!("the update of `{name}` does not fit its type"),
                )
                .with_primary(value.span, format!("this is {}", show_ty(x.ty)))
                .with_secondary(decl, format!("`{name}` is {}", show_ty(want)))
                .with_note("an update in place writes elements of the state's type, at most as many as it has"),
            ));
        }
        let (lo, hi) = self.term_range(&term)?;
        let last = hi as i128 + x.ty.len as i128 - 1;
        if lo < 0 || last >= want.len as i128 {
            return Err(self.err(
                Diagnostic::error(
                    codes::UPDATE_RANGE,
                    format!("the update of `{name}` may write outside it"),
                )
                .with_primary(
                    e.span,
                    format!("writes elements {lo} to {last} over the steps"),
                )
                .with_secondary(decl, format!("`{name}` has {} elements", want.len))
                .with_note(format!(
                    "every step's first element (here {lo} to {hi}) plus the {} written must stay in 0..{}",
                    x.ty.len, want.len
                )),
            ));
        }
        Ok((x, term))
    }
}
