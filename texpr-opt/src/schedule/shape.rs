//! The shapes of item roots that strategies take, as typed matches: each is
//! recognised here once, and the heuristic ([`classify`]) and the strategies
//! read the same matches.
//!
//! Every match is of an unscheduled root: no level and no index map on the
//! nodes it names.
//! - [`Tiled`]: `compute M |i| compute N |j| S` with a scalar `S`, or
//!   `compute B |p|` around it (a batch); `tile` takes it.
//! - [`Rows`]: `compute R |r| BODY`; `rows` and `wide_rows` take it, and
//!   `flash` one that [`Rows::streams`].
//! - [`Fold`]: `reduce N |i| E`, alone or under an epilogue `F(reduce N |i| E)`
//!   (operators, casts and calls on the way to it); `multipass` takes it.
//! - [`Transposed`]: a 2D elementwise item `out[a*C + b] = S(a, b)` (a
//!   [`Tiled`] root, or `compute C {k -> (k % C)*R + k / C} |j| compute R |i| S`,
//!   whose map lays the result out transposed) whose `S` reads some vector at
//!   an index with unit stride along the output's rows `a` and another along
//!   its columns `b` (`x[b*R + a]`); `transpose` takes it.
//! - [`Shape`]: the heuristic's classes: a contraction (a [`Tiled`] whose
//!   every element folds a long outer product, [`super::contraction`]), a
//!   row reduction (a [`Rows`] whose body holds a `reduce`, unless it is a
//!   [`Tiled`] root: then each element folds its own, and the item is
//!   elementwise), a fold, a transpose, or anything else (elementwise).

pub use super::contraction::single_reduce;
use texpr_ir::term::{as_const, summands};
use texpr_ir::{Expr, ExprKind, Func, MapKind, Term, TermKind, VarId, VecRef};
use texpr_ir::{ReduceOp, TermOp};

/// `compute n |var| body` with no level and no index map.
fn plain_compute(e: &Expr) -> Option<(u64, VarId, &Expr)> {
    match &e.kind {
        ExprKind::Compute {
            level: None,
            n,
            var,
            map: None,
            body,
        } => Some((*n, *var, body)),
        _ => None,
    }
}

/// `compute M |i| compute N |j| S`, `S` scalar, optionally in `compute B |p|`.
#[derive(Clone, Copy, Debug)]
pub struct Tiled<'e> {
    /// `(B, p)` of a batch around the 2D compute.
    pub batch: Option<(u64, VarId)>,
    pub m: u64,
    pub i: VarId,
    pub n: u64,
    pub j: VarId,
    /// `S`.
    pub body: &'e Expr,
}

impl Tiled<'_> {
    /// The batch size (1 without a batch).
    pub fn batch_len(&self) -> u64 {
        self.batch.map_or(1, |b| b.0)
    }
}

/// The 2D compute of `root`, batched or not.
pub fn tiled(root: &Expr) -> Option<Tiled<'_>> {
    fn unbatched(e: &Expr) -> Option<(u64, VarId, u64, VarId, &Expr)> {
        let (m, i, rest) = plain_compute(e)?;
        let (n, j, s) = plain_compute(rest)?;
        (s.ty.len == 1).then_some((m, i, n, j, s))
    }
    let (batch, (m, i, n, j, body)) = match plain_compute(root) {
        Some((b, p, inner)) if unbatched(inner).is_some() => (Some((b, p)), unbatched(inner)?),
        _ => (None, unbatched(root)?),
    };
    Some(Tiled {
        batch,
        m,
        i,
        n,
        j,
        body,
    })
}

/// `compute R |r| BODY`.
#[derive(Clone, Copy, Debug)]
pub struct Rows<'e> {
    pub r: u64,
    pub var: VarId,
    pub body: &'e Expr,
}

pub fn rows(root: &Expr) -> Option<Rows<'_>> {
    plain_compute(root).map(|(r, var, body)| Rows { r, var, body })
}

impl Rows<'_> {
    /// Whether the row streams (`flash` takes it): `let`s, at least one of
    /// them a vector (attention's scores), then `compute C |c| F(reduce T
    /// |j| E)` with one scalar fold.
    pub fn streams(&self) -> bool {
        let mut e = self.body;
        let mut vectors = 0;
        while let ExprKind::Let {
            level: None,
            value,
            body,
            ..
        } = &e.kind
        {
            vectors += usize::from(value.ty.len > 1);
            e = body;
        }
        vectors > 0 && plain_compute(e).is_some_and(|(_, _, f)| single_reduce(f).is_some())
    }
}

/// `reduce op N |i| E`: the root, or under an epilogue `F(...)` whose path
/// to it holds only unary and binary operators, casts and calls (so the
/// root has the fold's length, and `F` binds nothing the fold could read).
#[derive(Clone, Copy, Debug)]
pub struct Fold<'e> {
    pub op: ReduceOp,
    pub n: u64,
    pub var: VarId,
    pub body: &'e Expr,
    /// The `reduce` node itself: the root when there is no epilogue.
    pub reduce: &'e Expr,
}

impl Fold<'_> {
    /// Whether the fold stands under an epilogue (`reduce` is not the root).
    pub fn has_epilogue(&self, root: &Expr) -> bool {
        !std::ptr::eq(self.reduce, root)
    }
}

pub fn fold(root: &Expr) -> Option<Fold<'_>> {
    match &root.kind {
        ExprKind::Reduce {
            level: None,
            op,
            n,
            var,
            body,
            steps: None,
        } => Some(Fold {
            op: *op,
            n: *n,
            var: *var,
            body,
            reduce: root,
        }),
        ExprKind::Unary(_, a) | ExprKind::Cast(a) => fold(a),
        ExprKind::Binary(_, a, b) => epilogue_operand([&**a, &**b].into_iter()),
        ExprKind::Call(_, args) => epilogue_operand(args.iter()),
        _ => None,
    }
}

/// The fold among an epilogue node's operands, when exactly one holds a
/// `reduce` on its path: one long fold per item, the rest computed in the
/// final pass.
fn epilogue_operand<'e>(operands: impl Iterator<Item = &'e Expr>) -> Option<Fold<'e>> {
    let with_reduce: Vec<&Expr> = operands
        .filter(|a| a.any(|x| matches!(x.kind, ExprKind::Reduce { .. })))
        .collect();
    match with_reduce[..] {
        [a] => fold(a),
        _ => None,
    }
}

/// A 2D elementwise item read transposed: `tiled.i` indexes the result's
/// rows (`tiled.m` of them), `tiled.j` its columns, so element `(i, j)` of
/// the row-major result is `tiled.body`; `reads` are the reads in it with
/// unit stride along `i` and another stride along `j` (each once).
#[derive(Clone, Debug)]
pub struct Transposed<'e> {
    pub tiled: Tiled<'e>,
    pub reads: Vec<&'e Expr>,
}

/// The transposed 2D item of `root`, if it is one (see the module docs).
pub fn transposed(root: &Expr) -> Option<Transposed<'_>> {
    let tiled = match tiled(root) {
        Some(t) if t.batch.is_none() => t,
        Some(_) => return None,
        None => transposed_map(root)?,
    };
    if tiled.m < 2 || tiled.n < 2 || tiled.body.has_loop() {
        return None;
    }
    // A read holds no read, so the outermost ones are all of them. Only
    // inputs and globals: a `let` of `S` is not in scope for a whole block.
    let (i, j) = (tiled.i, tiled.j);
    let mut reads: Vec<&Expr> = Vec::new();
    for e in tiled.body.find_outermost(|e| match &e.kind {
        ExprKind::Index { vec, index, .. } => {
            !matches!(vec, VecRef::Local(_))
                && matches!(strides(index, i, j), Some((1, sj)) if sj != 0 && sj != 1)
        }
        _ => false,
    }) {
        if !reads.iter().any(|r| super::grid::same_read(r, e)) {
            reads.push(e);
        }
    }
    (!reads.is_empty()).then_some(Transposed { tiled, reads })
}

/// `compute C {k -> (k % C)*R + k / C} |j| compute R |i| S`: the raw
/// `C x R` result laid out as its `R x C` transpose, so the result's rows
/// are `i` and its columns `j`.
fn transposed_map(root: &Expr) -> Option<Tiled<'_>> {
    let ExprKind::Compute {
        level: None,
        n: c,
        var: j,
        map: Some(map),
        body,
    } = &root.kind
    else {
        return None;
    };
    let (r, i, s) = plain_compute(body)?;
    let MapKind::Term(f) = &map.kind else {
        return None;
    };
    let mut digits: Vec<(i64, Option<i64>, i64)> = summands(f)
        .into_iter()
        .map(|t| digit(t, map.var))
        .collect::<Option<_>>()?;
    digits.sort();
    let (c, r) = (*c as i64, r as i64);
    let want = [(1, Some(c), r), (c, None, 1)];
    let whole = map.len as i64 == c * r && s.ty.len == 1;
    (whole && (digits == want || digits == [(1, Some(c), r), (c, Some(r), 1)])).then_some(Tiled {
        batch: None,
        m: r as u64,
        i,
        n: c as u64,
        j: *j,
        body: s,
    })
}

/// A summand `((k / d) % r) * w` of a map over `k`, as `(d, r, w)` (`r`
/// absent when the term takes no remainder).
fn digit(t: &Term, k: VarId) -> Option<(i64, Option<i64>, i64)> {
    let (t, w) = match &t.kind {
        TermKind::Binary(TermOp::Mul, a, b) => match (as_const(a), as_const(b)) {
            (_, Some(w)) => (&**a, w),
            (Some(w), _) => (&**b, w),
            _ => return None,
        },
        _ => (t, 1),
    };
    let (t, r) = match &t.kind {
        TermKind::Binary(TermOp::Rem, a, b) => (&**a, Some(as_const(b)?)),
        _ => (t, None),
    };
    let d = match &t.kind {
        TermKind::Binary(TermOp::Div, a, b) => {
            matches!(a.kind, TermKind::Var(v) if v == k).then_some(())?;
            as_const(b)?
        }
        TermKind::Var(v) if *v == k => 1,
        _ => return None,
    };
    Some((d, r, w))
}

/// The strides `(along i, along j)` of an index that is `c + si*i + sj*j`
/// for constants (no other variable, no `/` or `%` of `i` or `j`).
pub fn strides(t: &Term, i: VarId, j: VarId) -> Option<(i64, i64)> {
    match &t.kind {
        TermKind::Const(_) => Some((0, 0)),
        TermKind::Var(v) if *v == i => Some((1, 0)),
        TermKind::Var(v) if *v == j => Some((0, 1)),
        TermKind::Var(_) => None,
        TermKind::Binary(op, a, b) => {
            let (x, y) = (strides(a, i, j)?, strides(b, i, j)?);
            match op {
                TermOp::Add => Some((x.0 + y.0, x.1 + y.1)),
                TermOp::Sub => Some((x.0 - y.0, x.1 - y.1)),
                TermOp::Mul => match (as_const(a), as_const(b)) {
                    (Some(c), _) => Some((c * y.0, c * y.1)),
                    (_, Some(c)) => Some((c * x.0, c * x.1)),
                    _ => None,
                },
                TermOp::Div | TermOp::Rem => (x == (0, 0) && y == (0, 0)).then_some((0, 0)),
            }
        }
    }
}

/// The heuristic's classes of item roots.
#[derive(Clone, Debug)]
pub enum Shape<'e> {
    /// A [`Tiled`] root whose every element folds an outer product of `k`
    /// steps ([`super::contraction::contraction`]).
    Contraction { tiled: Tiled<'e>, k: u64 },
    /// A [`Rows`] root whose body (of `c` elements) holds a `reduce`, the
    /// longest of `k` terms (attention's row folds over its keys, not over
    /// the dot products before them).
    RowReduction { rows: Rows<'e>, c: u64, k: u64 },
    /// A [`Fold`] root.
    Fold(Fold<'e>),
    /// A [`Transposed`] root.
    Transpose(Transposed<'e>),
    /// Anything else, `len` elements, each about `cost` operations
    /// ([`element_cost`]); `branches` when an element folds in a `select`'s
    /// branch ([`folds_in_a_branch`]).
    Elementwise { len: u64, cost: u64, branches: bool },
}

/// About how many operations (expression and index-term nodes) computing
/// one element of `root` takes: what an unrolled copy of it costs.
pub fn element_cost(root: &Expr) -> u64 {
    let mut body = root;
    while let ExprKind::Compute { body: b, .. } = &body.kind {
        body = b;
    }
    let mut cost = 0u64;
    body.walk(|e| {
        cost += 1;
        if let ExprKind::Index { index, .. } = &e.kind {
            cost += texpr_ir::term::size(index) as u64;
        }
    });
    cost
}

/// Whether some `select` of `e` has a loop (`reduce`, `iterate`) in its second or third
/// operand: a loop of the element's own that code generation runs only
/// where the condition picks it (an `if`/`else`), so an invocation's
/// elements branch apart (Cholesky's and LU's column updates).
pub fn folds_in_a_branch(e: &Expr) -> bool {
    e.any(|x| match &x.kind {
        ExprKind::Call(Func::Select, args) => args[1..].iter().any(Expr::has_loop),
        _ => false,
    })
}

/// The most terms of any `reduce` in `e`.
fn longest_reduce(e: &Expr) -> Option<u64> {
    let mut most = None;
    e.walk(|x| {
        if let ExprKind::Reduce { n, .. } = x.kind {
            most = most.max(Some(n));
        }
    });
    most
}

/// The class of `root`: contraction, row reduction, fold, transpose or
/// elementwise. A [`Tiled`] root that folds but is no contraction (a
/// matrix-wide `select` folding in one column, a fold of a few steps or of
/// a count over an enclosing index, no outer product) is elementwise: its
/// elements fold independently, and no row shares a fold.
pub fn classify(root: &Expr) -> Shape<'_> {
    let tiled = tiled(root);
    if let Some(t) = tiled
        && let Some(k) = super::contraction::contraction(t.body, t.i, t.j)
    {
        return Shape::Contraction { tiled: t, k };
    }
    if tiled.is_none()
        && let Some(r) = rows(root)
        && let Some(k) = longest_reduce(r.body)
    {
        return Shape::RowReduction {
            rows: r,
            c: r.body.ty.len,
            k,
        };
    }
    if let Some(f) = fold(root) {
        return Shape::Fold(f);
    }
    match transposed(root) {
        Some(t) => Shape::Transpose(t),
        None => Shape::Elementwise {
            len: root.ty.len,
            cost: element_cost(root),
            branches: folds_in_a_branch(root),
        },
    }
}
