//! Printing a loop inside an expression: `iterate T from INITS |STATES, t| NEXTS`.

use super::{BLOCK, Printer};
use crate::{Expr, Term, VarId};

impl Printer<'_> {
    pub(super) fn iterate_expr(
        &self,
        (n, var, steps): (u64, VarId, Option<&Term>),
        states: &[VarId],
        parts: &[Expr],
        ind: usize,
    ) -> String {
        let count = steps.map_or(n.to_string(), |t| self.term(t, 0));
        let (inits, nexts) = parts.split_at(states.len().min(parts.len()));
        let names: Vec<&str> = (states.iter().chain([&var]))
            .map(|v| self.name(*v))
            .collect();
        let head = format!(
            "iterate {count} from {} |{}|",
            self.tuple(inits, ind),
            names.join(", ")
        );
        format!("{head} {}", self.tuple(nexts, ind))
    }

    /// One expression, or several as a parenthesised tuple.
    fn tuple(&self, xs: &[Expr], ind: usize) -> String {
        match xs {
            [x] => self.expr(x, ind, BLOCK),
            _ => {
                let xs: Vec<String> = xs.iter().map(|x| self.expr(x, ind, BLOCK)).collect();
                format!("({})", xs.join(", "))
            }
        }
    }
}
