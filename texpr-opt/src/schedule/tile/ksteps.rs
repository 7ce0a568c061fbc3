//! Register tiles that advance the reduction `KS` steps per load
//! (`kstep=KS`): the reduction over `k` runs as `K/KS` runs (`kq`), and for
//! each run every operand read that depends on one of `i`, `j` is loaded
//! into a register tile of its `R x KS` elements, nested so that the
//! operand's unit-stride index runs innermost: `A[i*K + k]` as
//! `compute@thread RI |r| compute@thread KS |kk| A[row r, k := kq*KS + kk]`
//! and `B[k*N + j]` as `compute@thread KS |kk| compute@thread RJ |r| ..`,
//! runs of four that code generation reads as `vec4`s. The `KS` steps'
//! values are combined with the reduction's operator before they join the
//! accumulators (a reassociation of the fold, like a staged tile's blocks).

use super::super::fail::Fail;
use super::super::grid::{combine_two, compute_at, let_at, replace_equal};
use super::blocks::Blocks;
use super::epilogue;
use super::registers::{collect_loads, thread_fold};
use texpr_ir::build::read_local;
use texpr_ir::index::subst::subst_expr;
use texpr_ir::term::{self, add, constant, mul, var};
use texpr_ir::{Expr, ExprKind, Program, Term, Ty, VarId, VarKind};
use texpr_ir::{Level, MemLevel};

/// One operand read's register tile: its variable, whether the steps run
/// innermost, and the register count along `i` or `j`.
struct Loaded {
    read: Expr,
    tile: VarId,
    steps_inner: bool,
    along_i: bool,
    regs: u64,
}

/// The tile of a contraction whose one scalar reduction is `reduce`,
/// `ks` steps per register load: `let@reg acc = REDUCTION in EPILOGUE`.
pub fn accumulate(
    p: &mut Program,
    b: &Blocks,
    reduce: &Expr,
    ks: u64,
    lanes: bool,
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
    if ks < 2 || !k_n.is_multiple_of(ks) {
        return Err(Fail::sizes(format!(
            "{k_n} reduction steps do not divide into runs of kstep={ks} (at least 2)"
        )));
    }
    let (mut loads_i, mut loads_j) = (Vec::new(), Vec::new());
    collect_loads(body, [b.i, b.j, *k, b.g], &mut loads_i, &mut loads_j);
    let kq = b.fresh(p, "kq", k_n / ks);
    let step_k = |s: Term| add(mul(var(kq), ks), s);
    let mut lets = Vec::new();
    let mut loaded = Vec::new();
    for (loads, along_i) in [(&loads_i, true), (&loads_j, false)] {
        for ld in loads {
            let (regs, orig) = match along_i {
                true => (b.ri, b.i),
                false => (b.rj, b.j),
            };
            let (rr, kk) = (b.fresh(p, "r", regs), b.fresh(p, "kk", ks));
            let one = subst_expr(p, ld, orig, &b.at(along_i, rr));
            let one = subst_expr(p, &one, *k, &step_k(var(kk))).with_thread_levels();
            let steps_inner = unit_stride(ld, *k);
            let value = match steps_inner {
                true => compute_at(
                    Level::Thread,
                    regs,
                    rr,
                    compute_at(Level::Thread, ks, kk, one),
                ),
                false => compute_at(
                    Level::Thread,
                    ks,
                    kk,
                    compute_at(Level::Thread, regs, rr, one),
                ),
            };
            let tile = p.fresh_var("tile", VarKind::Vector(value.ty), b.span);
            lets.push((tile, value));
            loaded.push(Loaded {
                read: ld.clone(),
                tile,
                steps_inner,
                along_i,
                regs,
            });
        }
    }
    let (ri, rj) = (b.fresh(p, "ri", b.ri), b.fresh(p, "rj", b.rj));
    let steps: Vec<Expr> = (0..ks as i64)
        .map(|s| {
            step_value(
                p,
                body,
                &loaded,
                (ri, rj),
                (*k, step_k(constant(s))),
                (s, ks),
            )
        })
        .collect();
    let combined = steps
        .into_iter()
        .reduce(|x, y| combine_two(p, *op, x, y))
        .expect("at least two steps");
    let combined = b.place(p, &combined, ri, rj);
    let mut step = b.registers(ri, rj, &combined);
    for (v, value) in lets.into_iter().rev() {
        let level = match lanes {
            true => MemLevel::Lanes,
            false => MemLevel::Reg,
        };
        step = let_at(level, v, value, step);
    }
    let acc_ty = Ty::new(reduce.ty.elem, b.ri * b.rj);
    let acc_val = thread_fold(*op, k_n / ks, kq, step, acc_ty, reduce);
    Ok(epilogue::accumulators(p, b, reduce, acc_ty, acc_val))
}

/// The reduction's body at step `s` of a run: every loaded read replaced
/// by its register (`tile[r*KS + s]` or `tile[s*R + r]`), `k` by the step's
/// index.
fn step_value(
    p: &Program,
    body: &Expr,
    loaded: &[Loaded],
    (ri, rj): (VarId, VarId),
    (k, k_at): (VarId, Term),
    (s, ks): (i64, u64),
) -> Expr {
    let mut e = body.clone();
    for ld in loaded {
        let r = var(if ld.along_i { ri } else { rj });
        let at = match ld.steps_inner {
            true => add(mul(r, ks), constant(s)),
            false => add(constant(s * ld.regs as i64), r),
        };
        let read = read_local(ld.tile, at, ld.read.ty.elem).at(ld.read.span);
        e = replace_equal(&e, &ld.read, &read);
    }
    subst_expr(p, &e, k, &k_at)
}

/// Whether read `ld`'s index moves by one as `k` does (`.. + k`).
fn unit_stride(ld: &Expr, k: VarId) -> bool {
    matches!(&ld.kind, ExprKind::Index { index, .. } if term::unit_stride(index, k).is_some())
}
