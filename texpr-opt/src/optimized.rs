//! What [`crate::optimize`] gives: the program before and after the
//! optimizing passes. A schedule applies to one of them ([`crate::Schedule`]'s
//! `optimize`): the baseline to the first, every other to the second.

use texpr_ir::Program;

/// A program ready to schedule.
#[derive(Clone, Debug, PartialEq)]
pub struct Optimized {
    /// After `mark_globals` only: the items as the source writes them.
    pub baseline: Program,
    /// After every pass: what the strategies are measured on.
    pub optimized: Program,
}

impl Optimized {
    /// The program a schedule with this `optimize` setting applies to.
    pub fn program(&self, optimize: bool) -> &Program {
        match optimize {
            true => &self.optimized,
            false => &self.baseline,
        }
    }
}
