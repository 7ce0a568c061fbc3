//! Recomputing a vector where it is read instead of storing it: the cost
//! rule and the read replacement shared by `inline` (expression `let`s) and
//! `fuse_globals` (top-level `let`s).
//!
//! - [`element_reads`] counts the element reads of a vector in an expression
//!   ([`Reads`]: each weighted by the trip counts of the `compute`s and
//!   `reduce`s around it, and the read sites), and says whether every read
//!   is one that can be recomputed: an element read `v[t]` whose index the
//!   interval analysis ([`texpr_ir::term::range`]) places inside
//!   `0..len(v)` (a guarded read qualifies only then, and loses its guard),
//!   or a whole read of a length-1 `v` (element 0).
//! - [`recompute`] is the cost rule along a chain of recomputations. One
//!   step is `R * E <= F * W`: `R` the weighted reads, `E` the work of one
//!   element of the value ([`elem_work`]: a `reduce` of `n` terms costs `n`
//!   terms, a `compute` one body, a `let` inside its whole value), `W` the
//!   work of the whole vector ([`work`]); recomputing then does the value's
//!   operations `R * E / W` times as often as storing it. Steps multiply: a
//!   value read 3 times per element inlined into a consumer that is itself
//!   read 3 times per element is computed 9 times. So every decision carries
//!   an [`Amp`], how many times recomputing already multiplied the value's
//!   operations (their work and their copies in the tree), and the rule
//!   bounds the product: at most `F` times the work of the program as
//!   written, and at most [`MAX_COPIES`] copies of any of its operations.
//!   A chain of `let`s that each read the previous one several times is
//!   then fused in runs of bounded length, never into one tree exponential
//!   in the chain.
//! - [`replace_reads`] replaces every read by the element it reads
//!   (`ELEM(value, t)`, see [`texpr_ir::index::elem`]), with fresh variables in every
//!   copy ([`freshen`]) so that no two binders share a name, and no levels.

use std::collections::BTreeMap;

use texpr_ir::Diagnostic;
use texpr_ir::index::elem::elem;
use texpr_ir::term::{constant, range};
use texpr_ir::{Expr, ExprKind, Program, VarId, VecRef};

/// Items deeper than this after recomputing keep their `let`s (the verifier's
/// limit is [`texpr_ir::MAX_NESTING`]; scheduling adds a few levels).
pub const MAX_DEPTH: usize = texpr_ir::MAX_NESTING / 2;

/// Copies of one operation of the program as written that recomputing may
/// make (the product of the read sites along a chain of recomputed values):
/// with the cost rule's factor, what keeps an optimized program within a
/// constant factor of the size of the program as written.
pub const MAX_COPIES: u64 = 16;

/// What recomputing has done to the operations of a subtree: the most times
/// any of them is computed per time the program as written computes it
/// (`work`, in units of `1 / Amp::UNIT`, rounded up), and the most copies of
/// any of them in the tree (`copies`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Amp {
    pub work: u64,
    pub copies: u64,
}

impl Amp {
    /// One unit of `work`.
    pub const UNIT: u64 = 1 << 10;
    /// Operations as written: computed once, one copy.
    pub const ONE: Amp = Amp {
        work: Amp::UNIT,
        copies: 1,
    };

    /// The larger amplification of each kind (a tree holding both subtrees).
    pub fn max(self, other: Amp) -> Amp {
        Amp {
            work: self.work.max(other.work),
            copies: self.copies.max(other.copies),
        }
    }
}

/// The cost rule along a chain (see the module doc): recomputing `value`,
/// whose operations are already amplified by `inner`, at `reads` instead of
/// storing it. `Some(amp)`, the amplification of the value's operations
/// afterwards, when their work stays within `factor` times the program as
/// written's and their copies within [`MAX_COPIES`]; `None` otherwise.
pub fn recompute(reads: Reads, value: &Expr, inner: Amp, factor: u64) -> Option<Amp> {
    let copies = inner.copies.saturating_mul(reads.sites);
    // inner.work/UNIT * R * E / W <= factor, in integers.
    let done = u128::from(inner.work)
        .saturating_mul(u128::from(reads.weighted))
        .saturating_mul(u128::from(elem_work(value)));
    let stored = u128::from(work(value)).max(1);
    let within = done <= u128::from(factor) * u128::from(Amp::UNIT) * stored;
    (within && copies <= MAX_COPIES).then(|| Amp {
        work: done.div_ceil(stored) as u64,
        copies,
    })
}

/// The nodes of `e` (its size as a tree; index terms not counted).
pub fn nodes(e: &Expr) -> u64 {
    let mut n = 0u64;
    e.walk(|_| n += 1);
    n
}

/// The scalar operations to compute all of `e` once (saturating).
pub fn work(e: &Expr) -> u64 {
    let len = e.ty.len;
    match &e.kind {
        ExprKind::Compute { n, body, .. } => n.saturating_mul(work(body)),
        ExprKind::Reduce { n, body, .. } => n.saturating_mul(work(body).saturating_add(len)),
        ExprKind::Let { value, body, .. } => work(value).saturating_add(work(body)),
        ExprKind::Iterate {
            n, states, parts, ..
        } => loop_work(*n, states.len(), parts, work),
        ExprKind::Index { .. } | ExprKind::IndexVar(_) | ExprKind::Const(_) => 1,
        ExprKind::Whole(_) | ExprKind::Fill(_) | ExprKind::VecLit(_) => len,
        _ => e.children().map(work).fold(len, u64::saturating_add),
    }
}

/// The scalar operations to compute one element of `e` (`ELEM(e, t)`).
pub fn elem_work(e: &Expr) -> u64 {
    match &e.kind {
        ExprKind::Compute { body, .. } => elem_work(body),
        ExprKind::Reduce { n, body, .. } => n.saturating_mul(elem_work(body).saturating_add(1)),
        ExprKind::Let { value, body, .. } => work(value).saturating_add(elem_work(body)),
        ExprKind::Iterate {
            n, states, parts, ..
        } => loop_work(*n, states.len(), parts, elem_work),
        ExprKind::Broadcast(x) => elem_work(x),
        ExprKind::Index { .. }
        | ExprKind::IndexVar(_)
        | ExprKind::Const(_)
        | ExprKind::Whole(_)
        | ExprKind::Fill(_)
        | ExprKind::VecLit(_) => 1,
        _ => e.children().map(elem_work).fold(1, u64::saturating_add),
    }
}

/// An `iterate`'s work: its `k` initial values once, its next values (and
/// the states' updates) `n` times.
fn loop_work(n: u64, k: usize, parts: &[Expr], each: fn(&Expr) -> u64) -> u64 {
    let (inits, nexts) = parts.split_at(k.min(parts.len()));
    let step = nexts.iter().map(each).fold(k as u64, u64::saturating_add);
    let once = inits.iter().map(each).fold(1, u64::saturating_add);
    once.saturating_add(n.saturating_mul(step))
}

/// The reads of one vector in an expression (see [`element_reads`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Reads {
    /// Each read weighted by the trip counts of the loops around it: the
    /// elements recomputing computes per evaluation of the expression.
    pub weighted: u64,
    /// The reads as written: the copies of the value recomputing writes.
    pub sites: u64,
}

/// Element reads of `v` (length `len`) in `e`, each weighted by the trip
/// counts of the loops around it in `e`; `None` when some read is not an
/// element read provably in bounds (see the module doc).
pub fn element_reads(p: &Program, e: &Expr, v: VecRef, len: u64) -> Option<Reads> {
    let mut total = Reads::default();
    count_reads(p, e, v, len, 1, &mut total).then_some(total)
}

fn count_reads(p: &Program, e: &Expr, v: VecRef, len: u64, mult: u64, total: &mut Reads) -> bool {
    let inside = match &e.kind {
        ExprKind::Index { vec, index, .. } if *vec == v => {
            Some(matches!(range(p, index), Some((lo, hi)) if lo >= 0 && (hi as u64) < len))
        }
        ExprKind::Whole(w) if *w == v => Some(len == 1),
        _ => None,
    };
    if let Some(inside) = inside {
        total.weighted = total.weighted.saturating_add(mult);
        total.sites = total.sites.saturating_add(1);
        return inside;
    }
    let inner = match &e.kind {
        ExprKind::Compute { n, .. } | ExprKind::Reduce { n, .. } => mult.saturating_mul(*n),
        // The initial values run once, the next values every step.
        ExprKind::Iterate {
            n, states, parts, ..
        } => {
            let (inits, nexts) = parts.split_at(states.len().min(parts.len()));
            let each = mult.saturating_mul(*n);
            return inits.iter().all(|c| count_reads(p, c, v, len, mult, total))
                && nexts.iter().all(|c| count_reads(p, c, v, len, each, total));
        }
        _ => mult,
    };
    e.children()
        .all(|c| count_reads(p, c, v, len, inner, total))
}

/// `e` with every read of `v` replaced by the element of `value` it reads
/// (fresh variables in each copy, no levels). Reads must satisfy
/// [`element_reads`]. Fails when an index term grows too large (E0207).
pub fn replace_reads(
    p: &mut Program,
    e: &Expr,
    v: VecRef,
    value: &Expr,
) -> Result<Expr, Diagnostic> {
    let index = match &e.kind {
        ExprKind::Index { vec, index, .. } if *vec == v => Some(index.clone()),
        ExprKind::Whole(w) if *w == v => Some(constant(0)),
        _ => None,
    };
    match index {
        Some(index) => {
            let mut x = elem(p, value, &index)?;
            x.walk_mut(|n| n.set_level(None, None));
            Ok(freshen(p, &x).at(e.span))
        }
        None => e.try_map_children(|c| replace_reads(p, c, v, value)),
    }
}

/// `e` with a fresh variable for every variable it binds (`compute`,
/// `reduce`, `let` and index-map variables).
pub fn freshen(p: &mut Program, e: &Expr) -> Expr {
    let mut bound = Vec::new();
    e.walk(|n| bound.extend(n.binders()));
    let mut map = BTreeMap::new();
    for v in bound {
        if map.contains_key(&v) {
            continue;
        }
        let info = p.var(v).clone();
        let base = base_name(&info.name).to_string();
        let fresh = p.fresh_var(&base, info.kind, info.span);
        map.insert(v, fresh);
    }
    rename(e, &map)
}

/// `j_3` -> `j` (fresh names count up from the base again).
fn base_name(name: &str) -> &str {
    match name.rsplit_once('_') {
        Some((base, n)) if !base.is_empty() && n.chars().all(|c| c.is_ascii_digit()) => base,
        _ => name,
    }
}

/// `e` with variables renamed by `map` (binders and uses alike).
pub fn rename(e: &Expr, map: &BTreeMap<VarId, VarId>) -> Expr {
    e.rename_vars(|v| *map.get(&v).unwrap_or(&v))
}
