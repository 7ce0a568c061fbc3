//! `let@mma acc = compute M |r| compute N |c| reduce K |k| x * y` directly
//! in a grid body: the workgroup's block of a contraction in tensor cores.
//!
//! The operands (`x` of `r` and `k`, `y` of `k` and `c`, each read as
//! written or widened from `f16` by a cast) are staged `BK` columns and
//! rows at a time in workgroup memory, every invocation filling elements
//! `l, l + W, ...`; each subgroup then multiplies its fragments (`m x m`
//! tiles of the block, fragment `f` of subgroup `s` for `f = s, s + S,
//! ...`) with cooperative matrices of the target's configuration, and at
//! the end stores them, row-major, to the workgroup array the body reads
//! `acc` from. The configuration is the largest square one the target
//! lists for the operands' and the product's element types that divides
//! `M`, `N` and `K` (naga spells `8x8` and `16x16`); none is E0396, naming
//! what is missing, as is a target whose subgroup size is not fixed.

use super::{Ix, Loc, Lower, R};
use crate::kir::{BinOp as K, Builtin, CoopId, CoopStmt, LoopStep, Role, Ty};
use texpr_ir::{Diagnostic, Span};
use texpr_ir::{Expr, ExprKind, Products, VarId};

/// The block product a `let@mma` holds: `compute M |r| compute N |c|`
/// around a fold of products whose `x` is free of `c` and `y` of `r`.
struct Block<'e> {
    m: u64,
    n: u64,
    vars: [VarId; 3],
    p: Products<'e>,
}

/// `compute n |var| body` without an index map.
fn compute(e: &Expr) -> Option<(u64, VarId, &Expr)> {
    match &e.kind {
        ExprKind::Compute {
            n,
            var,
            body,
            map: None,
            ..
        } => Some((*n, *var, &**body)),
        _ => None,
    }
}

fn block(value: &Expr) -> Option<Block<'_>> {
    let (m, r, rest) = compute(value)?;
    let (n, c, fold) = compute(rest)?;
    let p = fold.products()?;
    (!p.x.mentions(c) && !p.y.mentions(r)).then_some(Block {
        m,
        n,
        vars: [r, c, p.var],
        p,
    })
}

fn refuse(span: Span, what: String, note: String) -> Diagnostic {
    Diagnostic::error("E0396", what)
        .with_primary(span, "this `let@mma`")
        .with_note(note)
}

impl Lower<'_> {
    /// The configuration `b` runs in: the largest square one `configs`
    /// lists for its types that divides its sizes.
    fn mma_config(&self, b: &Block<'_>, span: Span) -> R<u64> {
        let (ab, cr) = (b.p.ab.name(), b.p.cr.name());
        let list = &self.coop.configs;
        match texpr_target::coop::square_config(list, ab, cr, &[b.m, b.n, b.p.k]) {
            Some(m) => Ok(u64::from(m)),
            None => Err(refuse(
                span,
                format!(
                    "no cooperative-matrix configuration for a {}x{} block of {} products of {}",
                    b.m, b.n, cr, ab
                ),
                format!(
                    "it needs `8x8x8 {0}>{1}` or `16x16x16 {0}>{1}` dividing {2}, {3} and {4}; the target lists: {5}",
                    ab,
                    cr,
                    b.m,
                    b.n,
                    b.p.k,
                    texpr_target::coop::format_list(&self.coop.configs)
                ),
            )),
        }
    }

    /// The block of `value` (a `let@mma`'s) into a new workgroup array
    /// named after `name`, for `w` invocations; the caller puts the barrier
    /// after it.
    pub fn mma_block(&mut self, name: &str, value: &Expr, w: u64, span: Span) -> R<Loc> {
        let b = block(value).ok_or_else(|| {
            refuse(span, "a `let@mma` that is not a block product".into(),
                "its value must be `compute M |r| compute N |c| reduce K |k| x * y` with `x` free of `c` and `y` free of `r`".into())
        })?;
        let s = self.mma_config(&b, span)?;
        let sg = match self.coop.subgroup {
            Some((lo, hi)) if lo == hi => u64::from(lo),
            _ => {
                return Err(refuse(
                    span,
                    "cooperative matrices need a fixed subgroup size".into(),
                    "the target's `subgroup_size` must be one number".into(),
                ));
            }
        };
        let bk = [32, 16, 8]
            .into_iter()
            .find(|t| t % s == 0 && b.p.k % t == 0)
            .unwrap_or(s);
        let (fm, fn_) = (b.m / s, b.n / s);
        let groups = w / sg;
        let fits = w.is_multiple_of(sg)
            && groups > 0
            && (fm * fn_) % groups == 0
            && (b.m * bk) % w == 0
            && (bk * b.n) % w == 0;
        if !fits {
            return Err(refuse(span, format!("a {}x{} block does not divide among {w} invocations in subgroups of {sg}", b.m, b.n),
                "every subgroup takes as many fragments as the others, and every invocation as many staged elements".into()));
        }
        let per = (fm * fn_) / groups;
        let (ab, cr) = (super::ty(b.p.ab).scalar, super::ty(b.p.cr).scalar);
        let sa = self.shared_array(&format!("{name}_a"), b.p.ab, b.m * bk, span);
        let sb = self.shared_array(&format!("{name}_b"), b.p.ab, bk * b.n, span);
        let out = self.shared_array(name, b.p.cr, b.m * b.n, span);
        let size = s as u8;
        let accs: Vec<CoopId> = (0..per)
            .map(|_| self.b.coop("acc", size, cr, Role::C))
            .collect();
        let ma = self.b.coop("a", size, ab, Role::A);
        let mb = self.b.coop("b", size, ab, Role::B);
        let sgid = self.b.builtin(Builtin::SubgroupId);
        let sgid = self.b.convert(Ty::I32, sgid);
        // Fragment `t` of this subgroup: its first row and column.
        let frags: Vec<(Ix, Ix)> = (0..per)
            .map(|t| {
                let f = self.arith(K::Add, Ix::Val(sgid), Ix::Const((t * groups) as i64));
                let (fr, fc) = (self.div(f, fn_ as i64), self.rem(f, fn_ as i64));
                let row = self.arith(K::Mul, fr, Ix::Const(s as i64));
                let col = self.arith(K::Mul, fc, Ix::Const(s as i64));
                (row, col)
            })
            .collect();
        let [r, c, k] = b.vars;
        let (zero, steps) = (self.b.i32(0), self.b.i32((b.p.k / bk) as i32));
        let kb = self
            .b
            .open_loop("kb", (zero, steps, LoopStep::Up(1)), true, b.p.k / bk);
        let k0 = self.arith(K::Mul, Ix::Val(kb), Ix::Const(bk as i64));
        // Stage `x` (rows r, columns k0..k0+bk) and `y` (rows k0.., columns c).
        for (mem, e, cols, rows_var, cols_var, rows_are_k) in
            [(sa, b.p.x, bk, r, k, false), (sb, b.p.y, b.n, k, c, true)]
        {
            let len = if rows_are_k { bk * b.n } else { b.m * bk };
            let l = self.local();
            for q in 0..len / w {
                let at = self.arith(K::Add, Ix::Val(l), Ix::Const((q * w) as i64));
                let (i, j) = (self.div(at, cols as i64), self.rem(at, cols as i64));
                let (row, col) = match rows_are_k {
                    true => (self.arith(K::Add, k0, i), j),
                    false => (i, self.arith(K::Add, k0, j)),
                };
                self.idx.insert(rows_var, row);
                self.idx.insert(cols_var, col);
                let v = self.elem(e, Ix::Const(0))?;
                let at = self.ix(at);
                self.b.store(mem, at, v);
            }
        }
        self.b.barrier()?;
        for kk in 0..bk / s {
            for (t, &(row, col)) in frags.iter().enumerate() {
                let a_at = self.arith(K::Mul, row, Ix::Const(bk as i64));
                let a_at = self.arith(K::Add, a_at, Ix::Const((kk * s) as i64));
                let b_at = self.arith(K::Add, col, Ix::Const((kk * s * b.n) as i64));
                let (a_at, b_at) = (self.ix(a_at), self.ix(b_at));
                let load = |coop, mem, offset, stride| CoopStmt::Load {
                    coop,
                    mem,
                    offset,
                    stride,
                };
                self.b.coop_stmt(load(ma, sa, a_at, bk as u32))?;
                self.b.coop_stmt(load(mb, sb, b_at, b.n as u32))?;
                self.b.coop_stmt(CoopStmt::MulAdd {
                    acc: accs[t],
                    a: ma,
                    b: mb,
                })?;
            }
        }
        self.b.barrier()?;
        self.b.close();
        for (t, &(row, col)) in frags.iter().enumerate() {
            let at = self.arith(K::Mul, row, Ix::Const(b.n as i64));
            let at = self.arith(K::Add, at, col);
            let offset = self.ix(at);
            let store = CoopStmt::Store {
                coop: accs[t],
                mem: out,
                offset,
                stride: b.n as u32,
            };
            self.b.coop_stmt(store)?;
        }
        for v in [r, c, k] {
            self.idx.remove(&v);
        }
        Ok(Loc::Array(out))
    }
}
