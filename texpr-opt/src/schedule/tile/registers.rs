//! Register tiles of a contraction: the tile accumulates its `RI x RJ`
//! results over the reduction in `S`, and each operand read that depends on
//! only one of `i`, `j` (besides the reduction variable and the batch) is
//! loaded once per reduction step into a register tile
//! (`let@reg tile = compute@thread RI |r| OPERAND[i := row r]`) that every
//! accumulator reads. With `shared=KB`, the loads read workgroup memory
//! instead ([`super::staging`]).

use super::super::fail::Fail;
use super::super::grid::{compute_at, let_at, reduce_at, replace_equal, same_read};
use super::blocks::Blocks;
use super::epilogue;
use super::staging::{self, Staged};
use crate::schedule::data::Staging;
use texpr_ir::build::read_local;
use texpr_ir::index::subst::subst_expr;
use texpr_ir::term::var;
use texpr_ir::{Expr, ExprKind, Program, Ty, VarId, VarKind, VecRef};
use texpr_ir::{Level, MemLevel, ReduceOp};
use texpr_target::Target;

/// The tile of a contraction whose one scalar reduction is `reduce` (a
/// node of `b.s`): `let@reg acc = REDUCTION in EPILOGUE`.
pub fn accumulate(
    p: &mut Program,
    b: &Blocks,
    reduce: &Expr,
    shared: Option<Staging>,
    target: &Target,
) -> Result<Expr, Fail> {
    let ExprKind::Reduce {
        op,
        n: k_n,
        var: k,
        body,
        ..
    } = &reduce.kind
    else {
        unreachable!("single_reduce returns reduces")
    };
    let mut loads_i: Vec<Expr> = Vec::new();
    let mut loads_j: Vec<Expr> = Vec::new();
    collect_loads(body, [b.i, b.j, *k, b.g], &mut loads_i, &mut loads_j);
    let (ri, rj) = (b.fresh(p, "ri", b.ri), b.fresh(p, "rj", b.rj));
    let staged = match shared {
        Some(how) => Some(staging::blocks(
            p,
            b,
            (*k_n, how),
            [&loads_i, &loads_j],
            target,
        )?),
        None => None,
    };
    let mut inner = (**body).clone();
    let mut lets: Vec<(VarId, Expr)> = Vec::new();
    let mut shared_lets: Vec<(VarId, Expr)> = Vec::new();
    for (loads, along_i, r) in [(&loads_i, true, ri), (&loads_j, false, rj)] {
        for ld in loads {
            let (v, value) = load(p, b, ld, (along_i, *k), staged.as_ref(), &mut shared_lets)?;
            let read = read_local(v, var(r), ld.ty.elem).at(ld.span);
            inner = replace_equal(&inner, ld, &read);
            lets.push((v, value));
        }
    }
    let inner = b.place(p, &inner, ri, rj);
    let inner = match &staged {
        Some(st) => subst_expr(p, &inner, *k, &st.step()),
        None => inner,
    };
    let mut step = b.registers(ri, rj, &inner);
    for (v, value) in lets.into_iter().rev() {
        step = let_at(MemLevel::Reg, v, value, step);
    }
    let acc_ty = Ty::new(reduce.ty.elem, b.ri * b.rj);
    let fold = |n: u64, v: VarId, body: Expr| thread_fold(*op, n, v, body, acc_ty, reduce);
    let acc_val = match staged {
        None => fold(*k_n, *k, step),
        Some(st) => {
            let mut block = fold(st.kb, st.kk, step);
            for (v, value) in shared_lets.into_iter().rev() {
                block = let_at(MemLevel::Shared, v, value, block);
            }
            fold(k_n / st.kb, st.kb_var, block)
        }
    };
    Ok(epilogue::accumulators(p, b, reduce, acc_ty, acc_val))
}

/// `reduce@thread op n |v| body` of the accumulators' type, spanned like `at`.
pub(super) fn thread_fold(op: ReduceOp, n: u64, v: VarId, body: Expr, ty: Ty, at: &Expr) -> Expr {
    let mut e = reduce_at(Level::Thread, op, n, v, body).at(at.span);
    e.ty = ty;
    e
}

/// The register tile of operand read `ld` along `i` (or `j`): its `let@reg`
/// variable and value, loading from global memory or, staged, from the
/// workgroup's block (whose `let@shared` is pushed to `shared_lets`).
fn load(
    p: &mut Program,
    b: &Blocks,
    ld: &Expr,
    (along_i, k): (bool, VarId),
    staged: Option<&Staged>,
    shared_lets: &mut Vec<(VarId, Expr)>,
) -> Result<(VarId, Expr), Fail> {
    let (n, orig) = match along_i {
        true => (b.ri, b.i),
        false => (b.rj, b.j),
    };
    let rr = b.fresh(p, "r", n);
    let one = match staged {
        None => subst_expr(p, ld, orig, &b.at(along_i, rr)).with_thread_levels(),
        Some(st) => {
            let (shared, read) = st.stage(p, b, ld, (along_i, [orig, k]), rr)?;
            shared_lets.push(shared);
            read
        }
    };
    let value = compute_at(Level::Thread, n, rr, one);
    let v = p.fresh_var("tile", VarKind::Vector(value.ty), b.span);
    Ok((v, value))
}

/// Distinct scalar reads in `e` whose index mentions only `i` and `k`, and
/// `i` (into `li`), or only `j` and `k`, and `j` (into `lj`) — besides the
/// grid variable `g`, the same for the whole workgroup (a batch index):
/// operands that one register tile per reduction step can hold.
pub(super) fn collect_loads(e: &Expr, ijkg: [VarId; 4], li: &mut Vec<Expr>, lj: &mut Vec<Expr>) {
    let [i, j, k, g] = ijkg;
    if let ExprKind::Index {
        index,
        vec: VecRef::Input(_) | VecRef::Global(_),
        ..
    } = &e.kind
    {
        let vars = index.vars();
        let only =
            |a: VarId| vars.iter().all(|v| *v == a || *v == k || *v == g) && vars.contains(&a);
        let list = if only(i) {
            Some(li)
        } else if only(j) {
            Some(lj)
        } else {
            None
        };
        if let Some(list) = list
            && !list.iter().any(|x| same_read(x, e))
        {
            list.push(e.clone());
        }
        return;
    }
    e.children().for_each(|c| collect_loads(c, ijkg, li, lj));
}
