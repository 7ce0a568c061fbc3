//! Carrying out a schedule: each item's [`Strategy`] applied to its root.
//!
//! Expects: a program after the passes before scheduling (globals marked).
//! Guarantees: every item root is a `compute@grid` and every `compute`,
//! `reduce` and `let` below it has a level; the interpreter evaluates the
//! program to the same values (bit for bit except `multipass`, `gridstride`,
//! `wide_rows` and a staged `tile`, which fold in another order). A
//! `multipass` or `gridstride` adds a global before its item
//! (`ITEM_partials`). An item whose source writes
//! levels is completed ([`super::fill`]) under `default`; any other
//! strategy is E0211 for it. The item takes the strategy's `loads=` (one
//! whose levels are written keeps its own). Codes: E0210-E0217 (see
//! [`super::fail`]). A loop whose every item takes `loop group=W` is
//! marked to run whole in one workgroup ([`super::in_loop::mark_loops`]).
//!
//! Whether a device runs the kernels a strategy makes (the loop budget of
//! llvmpipe, E0316, among the rest) is code generation's word: [`fits`]
//! asks it through a [`Verdict`], so the loops are counted once, where they
//! are written.

use super::coarsen::coarsen;
use super::data::{Schedule, Strategy};
use super::default::distribute;
use super::fail::Fail;
use super::fill::fill_levels;
use super::flash::flash;
use super::gridstride::gridstride;
use super::in_loop::{in_a_loop, in_loop, mark_loops};
use super::multipass::multipass;
use super::rows::rows;
use super::tile::tile;
use super::transpose::transpose;
use super::wide_rows::wide_rows;
use std::collections::BTreeSet;
use texpr_ir::Diagnostic;
use texpr_ir::MemLevel;
use texpr_ir::{Expr, Global, Item, Program, VecRef};
use texpr_target::Target;

/// What code generation says of scheduled items (by name): the
/// diagnostics of their kernels, if any. [`accept_all`] is what the
/// optimizer alone knows.
pub type Verdict<'a> = &'a dyn Fn(&Program, &[String]) -> Result<(), Vec<Diagnostic>>;

/// A verdict that accepts every kernel.
pub fn accept_all(_: &Program, _: &[String]) -> Result<(), Vec<Diagnostic>> {
    Ok(())
}

/// E0210 for every name in `s` that is not an item of `p`.
pub fn check_names(p: &Program, s: &Schedule) -> Result<(), Vec<Diagnostic>> {
    let names: Vec<&str> = p.items().into_iter().map(|i| i.name(p)).collect();
    let known: BTreeSet<&str> = names.iter().copied().collect();
    let errs: Vec<Diagnostic> = s
        .items
        .iter()
        .filter(|(n, _)| !known.contains(n.as_str()))
        .map(|(n, _)| {
            Diagnostic::error("E0210", format!("the schedule names `{n}`, not an item"))
                .with_note(format!("the items are: {}", names.join(", ")))
        })
        .collect();
    if errs.is_empty() { Ok(()) } else { Err(errs) }
}

/// Every item of `p` scheduled as `s` says (unnamed items `default`); the
/// errors of all items together.
pub fn apply_all(p: &mut Program, s: &Schedule, target: &Target) -> Result<(), Vec<Diagnostic>> {
    check_names(p, s)?;
    let by_item = s.by_item();
    let mut errs = Vec::new();
    // Strategies may insert globals before an item: walk from the back so
    // the positions still to visit stay valid.
    for item in p.items().into_iter().rev() {
        let strategy = by_item
            .get(item.name(p))
            .map_or(Strategy::Default, |s| (*s).clone());
        if let Err(mut e) = apply_strategy(p, item, &strategy, target) {
            errs.append(&mut e);
        }
    }
    mark_loops(p, |p, it| {
        by_item
            .get(it.name(p))
            .map_or(Strategy::Default, |s| (*s).clone())
    });
    if errs.is_empty() { Ok(()) } else { Err(errs) }
}

/// Schedules `item` of `p` with `s` in place; returns the names of the
/// items it wrote (the item, and a partials global when it adds one).
pub fn apply_strategy(
    p: &mut Program,
    item: Item,
    s: &Strategy,
    target: &Target,
) -> Result<Vec<String>, Vec<Diagnostic>> {
    let root = item.root(p).clone();
    let name = item.name(p).to_string();
    let span = item.span(p);
    let fail = |f: Fail| vec![f.at(&name, s, span)];
    // A program whose levels are written states its load width itself.
    let loads = match root.has_structure() {
        true => item.loads(p),
        false => s.loads(),
    };
    if loads.wide() && !target.features.int64 {
        let why =
            "`loads=wide` moves pairs of `f32`s as 64-bit lanes; the device has no 64-bit integers";
        return Err(fail(Fail::new("E0217", why)));
    }
    if root.has_structure() {
        if *s != Strategy::Default {
            let why = "its levels are written in the source; only `default` completes them";
            return Err(fail(Fail::shape(why)));
        }
        *item.root_mut(p) = fill_levels(p, &root, target)?;
        return Ok(vec![name]);
    }
    let thread_folds = matches!(
        s,
        Strategy::Default | Strategy::Coarsen { .. } | Strategy::Loop { .. }
    );
    if root.has_dependent_steps() && !thread_folds {
        let why = "a `reduce` whose steps depend on an index runs as a loop of one invocation; \
                   only `default` and `coarsen` keep it so";
        return Err(fail(Fail::shape(why)));
    }
    let cap = target.limits.max_group_width();
    let group = s.group_size();
    if group > cap {
        let why = format!("{group} invocations per workgroup; the device allows {cap}");
        return Err(fail(Fail::new("E0213", why)));
    }
    let at = match item {
        Item::Global(x) => x,
        Item::Output(_) => p.globals.len(),
    };
    let (new, partials) = match s {
        Strategy::Default => (distribute(p, &root, target).map_err(|d| vec![d])?, None),
        Strategy::MultiPass {
            parts,
            group,
            combine,
            ..
        } => multipass(p, &root, (*parts, *group, *combine), target, at as u32).map_err(fail)?,
        Strategy::GridStride {
            groups,
            group,
            chunk,
            width,
            combine,
            ..
        } => {
            let args = ([*groups, *group, *chunk, *width], *combine);
            let (new, value) = gridstride(p, &root, args, target, at as u32).map_err(fail)?;
            (new, Some(value))
        }
        Strategy::Coarsen {
            group, per_thread, ..
        } => (coarsen(p, &root, *group, *per_thread).map_err(fail)?, None),
        Strategy::Rows { group, .. } => (rows(p, &root, *group).map_err(fail)?, None),
        Strategy::WideRows { group, combine } => (
            wide_rows(p, &root, (*group, *combine), target).map_err(fail)?,
            None,
        ),
        Strategy::Flash { group, split } => {
            (flash(p, &root, (*group, *split)).map_err(fail)?, None)
        }
        Strategy::Tile {
            group,
            reg,
            shared,
            kstep,
            lanes,
            ..
        } => {
            let how = (*shared, *kstep, *lanes);
            let new = tile(p, &root, *group, *reg, how, target).map_err(fail)?;
            (new, None)
        }
        Strategy::Transpose { tile, rows } => {
            let new = transpose(p, &root, *tile, *rows, target).map_err(fail)?;
            (new, None)
        }
        Strategy::Mma { block, group } => {
            let new = super::mma::mma(p, &root, *block, *group, target).map_err(fail)?;
            (new, None)
        }
        Strategy::Loop { group } => {
            in_a_loop(p, item).map_err(fail)?;
            (in_loop(p, &root, *group).map_err(fail)?, None)
        }
    };
    let mut written = vec![name.clone()];
    let item = match partials {
        Some(value) => {
            written.push(add_partials(p, at, &name, value, root.span));
            // The partials' kernel reads the item's terms: it moves them so too.
            p.globals[at].loads = s.loads();
            match item {
                Item::Global(x) => Item::Global(x + 1),
                o => o,
            }
        }
        None => item,
    };
    *item.root_mut(p) = new;
    item.set_loads(p, s.loads());
    Ok(written)
}

/// Inserts global `ITEM_partials` (a name no item has) at position `at`,
/// moving later globals up; returns its name.
fn add_partials(
    p: &mut Program,
    at: usize,
    item: &str,
    value: Expr,
    span: texpr_ir::Span,
) -> String {
    let base = format!("{item}_partials");
    let mut name = base.clone();
    let mut suffix = 1;
    while p.item(&name).is_some() {
        suffix += 1;
        name = format!("{base}{suffix}");
    }
    let at32 = at as u32;
    p.map_vec_refs(|v| match v {
        VecRef::Global(x) if x >= at32 => VecRef::Global(x + 1),
        v => v,
    });
    // Computed where the item is: in its loop's every step, if any.
    let within = match p.globals.get(at) {
        Some(g) if at32 < p.globals.len() as u32 => g.within,
        _ => None,
    };
    p.globals.insert(
        at,
        Global {
            name: name.clone(),
            level: Some(MemLevel::Global),
            value,
            span,
            within,
            loads: Default::default(),
        },
    );
    name
}
