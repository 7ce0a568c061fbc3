//! How often a `select` picks each operand, for estimates of work: the
//! interpreter's operation budget (`texpr_interp::footprint`) and the FLOP
//! count `texprc bench` divides by time (`texpr_opt::cost`) bill the operand
//! a `select` picks, as the interpreter evaluates it, not both.
//!
//! A condition over index variables only (`i > k`, `j == k && i > k`) holds
//! at a [`share`] of the points of its variables' ranges, counted exactly
//! by enumeration where they number at most `MAX_POINTS`; beyond that, a
//! conjunction or disjunction combines its parts' shares as if they were
//! independent, and `!c` takes the complement. A condition that reads data
//! has no share: the caller bills the costlier operand. A `let`'s value is
//! computed once where its body first reads it ([`read_share`]). All the
//! counting for one program visits at most [`BUDGET`] points; past that a
//! condition is split into its parts as if it were too large to count, so
//! an estimate takes time linear in the program's size.

use super::{BinOp, Expr, ExprKind, Func, Program, Scalar, UnaryOp, VarId};

/// The most points of a condition's variables counted one by one.
pub(crate) const MAX_POINTS: u64 = 1 << 20;

/// The most points counted one by one for one program, in all.
pub const BUDGET: u64 = 1 << 24;

/// Every index variable's range `0..extent` (0: not an index variable),
/// and what is left of the program's [`BUDGET`].
#[derive(Clone, Debug)]
pub struct Extents(Vec<u64>, std::cell::Cell<u64>);

impl Extents {
    /// The ranges of `p`'s index variables: each `compute`'s, `reduce`'s and
    /// index map's count (a `reduce` of dependent steps by its largest), and
    /// each loop's steps.
    pub fn of(p: &Program) -> Extents {
        let mut ex = Extents(vec![0; p.vars.len()], std::cell::Cell::new(BUDGET));
        for lp in &p.loops {
            ex.set(lp.var, lp.count.max(1));
        }
        let roots = p.globals.iter().map(|g| &g.value);
        for e in roots.chain(p.outputs.iter().map(|o| &o.value)) {
            ex.walk(e);
        }
        ex
    }

    fn set(&mut self, v: VarId, n: u64) {
        if let Some(x) = self.0.get_mut(v.0 as usize) {
            *x = (*x).max(n);
        }
    }

    fn walk(&mut self, e: &Expr) {
        match &e.kind {
            ExprKind::Compute { n, var, map, .. } => {
                self.set(*var, *n);
                if let Some(m) = map {
                    self.set(m.var, m.len);
                }
            }
            ExprKind::Reduce { n, var, .. } => self.set(*var, *n),
            ExprKind::Iterate { n, var, .. } => self.set(*var, (*n).max(1)),
            _ => {}
        }
        e.children().for_each(|c| self.walk(c));
    }

    fn get(&self, v: VarId) -> u64 {
        self.0.get(v.0 as usize).copied().unwrap_or(0)
    }
}

/// The share of the points of its index variables' ranges at which `cond`
/// holds (see the module doc); `None` where it reads data.
pub fn share(cond: &Expr, ex: &Extents) -> Option<f64> {
    let mut vars = Vec::new();
    if !index_only(cond, &mut vars) {
        return None;
    }
    let points = vars.iter().try_fold(1u64, |acc, &v| match ex.get(v) {
        0 => None,
        n => Some(acc.saturating_mul(n)),
    })?;
    if points <= MAX_POINTS && points <= ex.1.get() {
        ex.1.set(ex.1.get() - points);
        return Some(count(cond, &vars, ex) as f64 / points as f64);
    }
    match &cond.kind {
        ExprKind::Binary(BinOp::And, a, b) => Some(share(a, ex)? * share(b, ex)?),
        ExprKind::Binary(BinOp::Or, a, b) => {
            let (x, y) = (share(a, ex)?, share(b, ex)?);
            Some(x + y - x * y)
        }
        ExprKind::Unary(UnaryOp::Not, a) => Some(1.0 - share(a, ex)?),
        _ => None,
    }
}

/// The share of `body`'s evaluations that read the `let`-bound `var`: each
/// read under a `select`'s operand counts that operand's share, and
/// together at most 1 (the value is computed once).
pub fn read_share(var: VarId, body: &Expr, ex: &Extents) -> f64 {
    let mut acc = 0.0;
    reads(var, body, 1.0, ex, &mut acc);
    acc.min(1.0)
}

fn reads(var: VarId, e: &Expr, weight: f64, ex: &Extents, acc: &mut f64) {
    use super::VecRef::Local;
    match &e.kind {
        ExprKind::Index { vec: Local(v), .. } | ExprKind::Whole(Local(v)) if *v == var => {
            *acc += weight;
        }
        ExprKind::Call(Func::Select, args) if args.len() == 3 => {
            let s = share(&args[0], ex);
            reads(var, &args[0], weight, ex, acc);
            reads(var, &args[1], weight * s.unwrap_or(1.0), ex, acc);
            reads(var, &args[2], weight * s.map_or(1.0, |s| 1.0 - s), ex, acc);
        }
        _ => e.children().for_each(|c| reads(var, c, weight, ex, acc)),
    }
}

/// Whether `e` is computed from index variables and integer constants
/// only; collects the variables.
fn index_only(e: &Expr, vars: &mut Vec<VarId>) -> bool {
    match &e.kind {
        ExprKind::IndexVar(v) => {
            if !vars.contains(v) {
                vars.push(*v);
            }
            true
        }
        ExprKind::Const(Scalar::I32(_) | Scalar::U32(_)) => true,
        ExprKind::Cast(a) => !e.ty.elem.is_float() && index_only(a, vars),
        ExprKind::Unary(UnaryOp::Neg | UnaryOp::Not, a) => index_only(a, vars),
        ExprKind::Binary(_, a, b) => {
            !a.ty.elem.is_float() && index_only(a, vars) && index_only(b, vars)
        }
        _ => false,
    }
}

/// The points of `vars`' ranges at which `cond` holds.
fn count(cond: &Expr, vars: &[VarId], ex: &Extents) -> u64 {
    let mut at: Vec<(VarId, i64)> = vars.iter().map(|&v| (v, 0)).collect();
    let mut hits = 0;
    loop {
        if value(cond, &at) != 0 {
            hits += 1;
        }
        // The next point, the first variable fastest.
        let mut k = 0;
        loop {
            let Some((v, x)) = at.get_mut(k) else {
                return hits;
            };
            *x += 1;
            if (*x as u64) < ex.get(*v) {
                break;
            }
            *x = 0;
            k += 1;
        }
    }
}

/// An index-only expression's value at `at` (booleans as 0 and 1), with
/// integer arithmetic as WGSL's (wrapping; `x / 0 = x`, `x % 0 = 0`).
fn value(e: &Expr, at: &[(VarId, i64)]) -> i64 {
    let unsigned = e.ty.elem == super::ElemTy::U32;
    let wrap = |x: i64| match unsigned {
        true => x as u32 as i64,
        false => x as i32 as i64,
    };
    match &e.kind {
        ExprKind::IndexVar(v) => at.iter().find(|p| p.0 == *v).map_or(0, |p| p.1),
        ExprKind::Const(Scalar::I32(x)) => *x as i64,
        ExprKind::Const(Scalar::U32(x)) => *x as i64,
        ExprKind::Cast(a) => wrap(value(a, at)),
        ExprKind::Unary(UnaryOp::Not, a) => (value(a, at) == 0) as i64,
        ExprKind::Unary(_, a) => wrap(-value(a, at)),
        ExprKind::Binary(op, a, b) => {
            let (x, y) = (value(a, at), value(b, at));
            match op {
                BinOp::Add => wrap(x + y),
                BinOp::Sub => wrap(x - y),
                BinOp::Mul => wrap(x.wrapping_mul(y)),
                BinOp::Div if y == 0 => x,
                BinOp::Div => wrap(x / y),
                BinOp::Rem if y == 0 => 0,
                BinOp::Rem => wrap(x % y),
                BinOp::Lt => (x < y) as i64,
                BinOp::Le => (x <= y) as i64,
                BinOp::Gt => (x > y) as i64,
                BinOp::Ge => (x >= y) as i64,
                BinOp::Eq => (x == y) as i64,
                BinOp::Ne => (x != y) as i64,
                BinOp::And => (x != 0 && y != 0) as i64,
                BinOp::Or => (x != 0 || y != 0) as i64,
            }
        }
        _ => 0,
    }
}
