//! Index terms as WGSL `i32` values: constants fold (never into an
//! overflowing or undefined value), everything else is one `let` per operation.

use crate::wgsl::ctx::{Ctx, Ix};
use texpr_syntax::Diagnostic;
use texpr_syntax::ir::term::fold;
use texpr_syntax::ir::{Term, TermKind};

/// `t`'s value in the current kernel.
pub fn term(cx: &mut Ctx<'_>, t: &Term) -> Result<Ix, Diagnostic> {
    match &t.kind {
        TermKind::Const(c) => Ok(Ix::Const(*c)),
        TermKind::Var(v) => cx.index_var(*v),
        TermKind::Binary(op, a, b) => {
            let (a, b) = (term(cx, a)?, term(cx, b)?);
            if let (Ix::Const(x), Ix::Const(y)) = (&a, &b)
                && let Some(r) = fold(*op, *x, *y)
            {
                return Ok(Ix::Const(r));
            }
            let expr = format!("{a} {} {b}", op.symbol());
            Ok(Ix::Name(cx.w.let_("i32", expr)))
        }
    }
}
