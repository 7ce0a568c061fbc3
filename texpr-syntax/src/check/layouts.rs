//! Layouts written on an index map: `digits(r:o:w, ...)` and
//! `padded(N, Np, digits(...))` and `strided(C, S)` (see [`texpr_ir::Layout`]) checked into
//! [`Layout`]s. Every argument is a size term; the digits must form a
//! permutation of the raw result, a padded layout's corner must fit it
//! (E0140 an unknown layout, E0141 wrong arguments, E0142 a misfit).

use super::{CResult, Checker, codes};
use crate::ast::{LayoutArg, LayoutAst};
use texpr_ir::Diagnostic;
use texpr_ir::{DigitPerm, Layout, Padded, Strided};

impl Checker {
    /// The layout `l` of a map of `len` elements on a raw result of `raw`.
    pub(crate) fn layout(&mut self, l: &LayoutAst, len: u64, raw: u64) -> CResult<Layout> {
        let layout = match l.name.name.as_str() {
            "digits" => Layout::Digits(self.digits(l)?),
            "padded" => self.padded(l, len)?,
            "strided" => self.strided(l)?,
            other => {
                return Err(self.err(
                    Diagnostic::error(codes::UNKNOWN_LAYOUT, format!("unknown layout `{other}`"))
                        .with_primary(l.name.span, "not a layout")
                        .with_note(
                            "the layouts are `digits(r:o:w, ...)`, `padded(N, Np, digits(...))` and `strided(C, S)`",
                        ),
                ));
            }
        };
        match layout.misfit(len, raw) {
            None => Ok(layout),
            Some(why) => Err(self.err(
                Diagnostic::error(codes::LAYOUT_MISFIT, "this layout does not fit")
                    .with_primary(l.span, why),
            )),
        }
    }

    /// `digits(r:o:w, ...)`: a digit permutation.
    fn digits(&mut self, l: &LayoutAst) -> CResult<DigitPerm> {
        let mut digits = Vec::with_capacity(l.args.len());
        for a in &l.args {
            let LayoutArg::Digit([r, o, w], _) = a else {
                return Err(self.args_error(
                    l,
                    "`digits` takes digits `radix:layout_stride:computed_stride`",
                ));
            };
            digits.push((self.size(r)?, self.size(o)?, self.size(w)?));
        }
        DigitPerm::new(&digits).ok_or_else(|| {
            self.err(
                Diagnostic::error(codes::LAYOUT_MISFIT, "these digits are not a permutation")
                    .with_primary(l.span, "the digits overlap or leave gaps")
                    .with_note("both strides of the digits, sorted, must be the running products of their radices"),
            )
        })
    }

    /// `padded(N, Np, digits(...))`: the `len / N x N` corner of a digit
    /// permutation over rows of `Np`.
    fn padded(&mut self, l: &LayoutAst, len: u64) -> CResult<Layout> {
        let [
            LayoutArg::Size(n),
            LayoutArg::Size(np),
            LayoutArg::Layout(inner),
        ] = l.args.as_slice()
        else {
            return Err(self.args_error(l, "`padded` takes `(N, Np, digits(...))`"));
        };
        if inner.name.name != "digits" {
            return Err(self.args_error(l, "`padded` takes `(N, Np, digits(...))`"));
        }
        let (cols, padded_cols) = (self.size(n)?, self.size(np)?);
        let perm = self.digits(inner)?;
        let fits = len
            .is_multiple_of(cols)
            .then(|| Padded::new(len / cols, cols, padded_cols, perm))
            .flatten();
        fits.map(Layout::Padded).ok_or_else(|| {
            self.err(
                Diagnostic::error(codes::LAYOUT_MISFIT, "this padded layout does not fit")
                    .with_primary(l.span, format!("{len} elements in rows of {cols}, padded to {padded_cols}"))
                    .with_note("the map's length must be whole rows of N <= Np, and no digit may straddle a padded row"),
            )
        })
    }

    /// `strided(C, S)`: rows of `C` raw elements laid out `S` apart.
    fn strided(&mut self, l: &LayoutAst) -> CResult<Layout> {
        let [LayoutArg::Size(c), LayoutArg::Size(s)] = l.args.as_slice() else {
            return Err(self.args_error(l, "`strided` takes `(C, S)`"));
        };
        Ok(Layout::Strided(Strided {
            cols: self.size(c)?,
            stride: self.size(s)?,
        }))
    }

    fn args_error(&mut self, l: &LayoutAst, what: &str) -> super::Reported {
        self.err(
            Diagnostic::error(codes::LAYOUT_ARGS, "wrong arguments for this layout")
                .with_primary(l.span, what.to_string()),
        )
    }
}
