//! Scheduling every item root: the default distribution for unscheduled
//! roots, completion of the user's schedule for the rest.
//!
//! Expects: a checked program with globals marked (see `globals`).
//! Guarantees: every item root is a `compute@grid` and every `compute`,
//! `reduce` and `let` below it has a level (see `distribute` and `fill`).

use crate::distribute::distribute;
use crate::fill::{fill_levels, has_structure};
use crate::limits::DeviceLimits;
use texpr_syntax::Diagnostic;
use texpr_syntax::ir::{Expr, Program};

pub fn schedule_items(p: &mut Program, limits: &DeviceLimits) -> Result<(), Vec<Diagnostic>> {
    let mut errs = Vec::new();
    for i in 0..p.globals.len() {
        let root = p.globals[i].value.clone();
        match schedule_root(p, &root, limits) {
            Ok(e) => p.globals[i].value = e,
            Err(mut e) => errs.append(&mut e),
        }
    }
    for i in 0..p.outputs.len() {
        let root = p.outputs[i].value.clone();
        match schedule_root(p, &root, limits) {
            Ok(e) => p.outputs[i].value = e,
            Err(mut e) => errs.append(&mut e),
        }
    }
    if errs.is_empty() { Ok(()) } else { Err(errs) }
}

fn schedule_root(
    p: &mut Program,
    root: &Expr,
    limits: &DeviceLimits,
) -> Result<Expr, Vec<Diagnostic>> {
    if has_structure(root) {
        fill_levels(p, root, limits)
    } else {
        distribute(p, root, limits).map_err(|d| vec![d])
    }
}
