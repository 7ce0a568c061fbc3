//! Shared staging of a tile's operands (`shared=KB [pad=P] [vec4=on]`): the
//! reduction runs as `K/KB` blocks (`kb`) of `KB` steps (`kk`); for each
//! block, each operand's `TI*RI x KB` (or `KB x TJ*RJ`) block for the whole
//! workgroup is a `let@shared` filled by all invocations together between
//! barriers, and the register tiles read it.
//!
//! A block is `R` rows of `C` raw elements along the operand's unit-stride
//! index (`[row][step]` along `i`, `[step][column]` along `j`), so that
//! neighbouring invocations fill neighbouring addresses:
//! - scalar fill: `compute@thread R*C |x| OPERAND[row x / C, col x % C]`,
//!   invocation `l` filling elements `l, l+W, ...`;
//! - `vec4=on`: `compute@group W |f| let@reg q = compute@thread V |v|
//!   OPERAND[row f / (C/V), col (f % (C/V))*V + v] in compute@thread V |c|
//!   q[c]`: each invocation loads `V = R*C / W` consecutive elements of one
//!   row into a register tile (a multiple of 4: code generation makes it
//!   `vec4` loads, as any register tile); E0212 unless `V` is a multiple of
//!   4 that divides `C`. An operand whose index does not step by 1 along
//!   the row (a transposed one), or whose overhanging columns wrap at an
//!   `N` that `V` does not divide, is filled one element at a time;
//! - `prefetch=on` (with `vec4=on`): that register tile is a
//!   `let@prefetch`, loaded one block ahead: the next block's runs are in
//!   flight while the current block computes, then stored after it;
//! - `pad=P`: the block's rows laid out `S = C + P` apart (the value carries
//!   a `strided(C, S)` layout, [`texpr_ir::Strided`]): invocations
//!   reading down a column of an `[row][step]` block hit different banks.
//!   A `[step][column]` block is read along a row, invocation `l` at
//!   columns `(l % TJ)*RJ + r`: with rows of whole banks it is padded every
//!   32 elements instead (`strided(32, 32 + P)`), so that the invocations
//!   whose columns share a bank in one row land on the next ones.
//!
//! E0212 when `KB` does not divide the reduction, E0216 when the blocks
//! need more workgroup memory than the device has.

use super::super::fail::Fail;
use super::super::grid::{compute_at, fits_shared, index, let_at};
use super::blocks::Blocks;
use crate::schedule::data::Staging;
use texpr_ir::build::read_local;
use texpr_ir::index::subst::subst_expr;
use texpr_ir::term::{add, div, linear, mul, rem, unit_stride as steps_by_one, var};
use texpr_ir::{Expr, ExprKind, IndexMap, Layout, MapKind, Program, Strided, Term, VarId, VarKind};
use texpr_ir::{Level, MemLevel};
use texpr_target::Target;

/// The reduction split into blocks of `kb` steps: `kb_var` counts the
/// blocks, `kk` the steps within one.
#[derive(Debug)]
pub struct Staged {
    pub kb: u64,
    pub kb_var: VarId,
    pub kk: VarId,
    pub how: Staging,
}

/// The blocks of `KB` steps of a `K`-step reduction over `loads` (the
/// operand reads along `i` and along `j`).
pub fn blocks(
    p: &mut Program,
    b: &Blocks,
    (k_n, how): (u64, Staging),
    [loads_i, loads_j]: [&Vec<Expr>; 2],
    target: &Target,
) -> Result<Staged, Fail> {
    let kb = how.kb;
    if !k_n.is_multiple_of(kb) {
        return Err(Fail::sizes(format!(
            "{k_n} reduction steps do not divide into blocks of {kb}"
        )));
    }
    // Rows of `KB` (along i) and of `TJ*RJ` (along j), padded by `P`.
    let block_i = Block {
        rows: b.ti * b.ri,
        cols: kb,
        along_i: true,
        width: b.ri,
    };
    let block_j = Block {
        rows: kb,
        cols: b.tj * b.rj,
        along_i: false,
        width: b.rj,
    };
    let along_i = loads_i.len() as u64 * block_i.stored_len(how.pad);
    let along_j = loads_j.len() as u64 * block_j.stored_len(how.pad);
    fits_shared((along_i + along_j) * 4, target)?;
    let kb_var = b.fresh(p, "kb", k_n / kb);
    let kk = b.fresh(p, "kk", kb);
    Ok(Staged {
        kb,
        kb_var,
        kk,
        how,
    })
}

/// One operand block: `rows x cols` raw elements, the terms of the
/// operand's own index and of the reduction step at `(row, col)`.
struct Block {
    rows: u64,
    cols: u64,
    along_i: bool,
    /// Registers per invocation along the block (`RI` or `RJ`).
    width: u64,
}

/// Banks of workgroup memory, four bytes each (NVIDIA's and AMD's).
const BANKS: u64 = 32;

impl Block {
    /// With `pad` elements of padding: the raw elements in chunks of `C`
    /// laid out `S = C + pad` apart, `(C, S)`. A `[row][step]` block (read
    /// down a column by neighbouring invocations) pads each row: `C` is
    /// the row. A `[step][column]` block is read along a row by
    /// invocations `RJ` columns apart, so every `32 / RJ`-th invocation
    /// would hit the same bank; padding every 32 elements moves each such
    /// group onto banks of its own (`RJ` must divide 32).
    fn chunks(&self, pad: u64) -> (u64, u64) {
        let chunk = match self.along_i {
            false
                if self.cols > BANKS
                    && self.cols.is_multiple_of(BANKS)
                    && BANKS.is_multiple_of(self.width) =>
            {
                BANKS
            }
            _ => self.cols,
        };
        (chunk, chunk + pad)
    }

    /// Elements of workgroup memory the block takes with `pad`.
    fn stored_len(&self, pad: u64) -> u64 {
        let (chunk, stride) = self.chunks(pad);
        self.rows * self.cols / chunk * stride
    }
}

impl Staged {
    /// `kb*KB + kk`: the reduction step.
    pub fn step(&self) -> Term {
        self.at(var(self.kk))
    }

    /// `kb*KB + step`.
    fn at(&self, step: Term) -> Term {
        linear(var(self.kb_var), self.kb, step)
    }

    /// Stages operand read `ld` (of `dim` and `k`, along `i` or `j`) for the
    /// workgroup's block of `KB` steps: the `let@shared` holding the block,
    /// and the read of element `rr` of an invocation's register tile from
    /// it at step `kk`.
    pub fn stage(
        &self,
        p: &mut Program,
        b: &Blocks,
        ld: &Expr,
        (along_i, dims): (bool, [VarId; 2]),
        rr: VarId,
    ) -> Result<((VarId, Expr), Expr), Fail> {
        let (kb, span) = (self.kb, ld.span);
        let (width, block) = match along_i {
            true => (b.ri, b.ti * b.ri),
            false => (b.rj, b.tj * b.rj),
        };
        let blk = match along_i {
            true => Block {
                rows: block,
                cols: kb,
                along_i,
                width,
            },
            false => Block {
                rows: kb,
                cols: block,
                along_i,
                width,
            },
        };
        let quads = match self.how.vec4 {
            true => self.vec4_fill(p, b, ld, &blk, dims)?,
            false => None,
        };
        let value = match quads {
            Some(fill) => fill,
            None => {
                let x = b.fresh(p, "x", blk.rows * blk.cols);
                let (row, col) = (div(var(x), blk.cols), rem(var(x), blk.cols));
                let e = self.operand_at(p, b, ld, &blk, dims, ([row, col], None));
                compute_at(Level::Thread, blk.rows * blk.cols, x, e)
            }
        };
        let (chunk, stride) = blk.chunks(self.how.pad);
        let value = match self.how.pad {
            0 => value,
            _ => padded(p, value, &blk, (chunk, stride)),
        };
        let v = p.fresh_var("stage", VarKind::Vector(value.ty), span);
        // Along i the workgroup's rows and an invocation's lane are `/`,
        // along j `%` (see `Blocks`).
        let lane = match along_i {
            true => add(mul(div(var(b.l), b.tj), width), var(rr)),
            false => add(mul(rem(var(b.l), b.tj), width), var(rr)),
        };
        let read_ix = match along_i {
            true => add(mul(lane, stride), var(self.kk)),
            false if chunk == blk.cols => add(mul(var(self.kk), stride), lane),
            // Row `kk` holds `cols / chunk` chunks `stride` apart; the lane's
            // column is `(l % TJ)*RJ + rr`, and `RJ` divides a chunk (both
            // powers of two here, or the chunk is the row), so the chunk
            // and the place in it are `(l % TJ) / (C/RJ)` and
            // `((l % TJ) % (C/RJ))*RJ + rr`: one register tile's reads
            // share all but `rr`.
            false => {
                let (col, per) = (rem(var(b.l), b.tj), chunk / width);
                debug_assert!(chunk.is_multiple_of(width));
                let row = mul(var(self.kk), blk.cols / chunk * stride);
                let at = add(
                    mul(div(col.clone(), per), stride),
                    mul(rem(col, per), width),
                );
                add(add(row, at), var(rr))
            }
        };
        let read = read_local(v, read_ix, ld.ty.elem).at(span);
        Ok(((v, value), read))
    }

    /// `ld` at element `(row, col + v)` of its block (thread-level
    /// throughout); `v`, the element within a run of `V`, is added after the wrap
    /// (runs never straddle it, see [`Staged::vec4_fill`]).
    fn operand_at(
        &self,
        p: &Program,
        b: &Blocks,
        ld: &Expr,
        blk: &Block,
        [dim, k]: [VarId; 2],
        ([row, col], run): ([Term; 2], Option<(VarId, u64)>),
    ) -> Expr {
        let plus_v = |t: Term| match run {
            Some((v, _)) => add(t, var(v)),
            None => t,
        };
        let (base, wrap) = match blk.along_i {
            true => (mul(div(b.gt.clone(), b.gj), blk.rows), b.wrap_i),
            false => (mul(rem(b.gt.clone(), b.gj), blk.cols), b.wrap_j),
        };
        let wrapped = |t: Term| match wrap {
            Some(n) => rem(t, n),
            None => t,
        };
        let (dim_t, k_t) = match (blk.along_i, run, wrap) {
            (true, _, _) => (wrapped(add(base, row)), self.at(plus_v(col))),
            // A run of `V` columns from a multiple of `V`, wrapped at a
            // multiple of `V`: `((start / V) % (N / V)) * V + v`, in range
            // as written.
            (false, Some((v, each)), Some(n)) => {
                let start = rem(div(add(base, col), each), n / each);
                (add(mul(start, each), var(v)), self.at(row))
            }
            (false, _, _) => (plus_v(wrapped(add(base, col))), self.at(row)),
        };
        let e = subst_expr(p, ld, dim, &dim_t);
        subst_expr(p, &e, k, &k_t).with_thread_levels()
    }

    /// The `vec4=on` fill of `blk` (see the module docs); `None` (a scalar
    /// fill) for an operand whose index does not step by 1 along the rows,
    /// or whose runs would straddle the wrap of an overhanging block.
    fn vec4_fill(
        &self,
        p: &mut Program,
        b: &Blocks,
        ld: &Expr,
        blk: &Block,
        dims: [VarId; 2],
    ) -> Result<Option<Expr>, Fail> {
        let (len, w) = (blk.rows * blk.cols, b.w());
        let each = len / w;
        if !len.is_multiple_of(w) || !each.is_multiple_of(4) || !blk.cols.is_multiple_of(each) {
            return Err(Fail::sizes(format!(
                "a block of {} x {} does not split into runs of a multiple of 4 elements along its rows, one per invocation of {w}",
                blk.rows, blk.cols
            )));
        }
        let wrap = match blk.along_i {
            true => None,
            false => b.wrap_j,
        };
        if wrap.is_some_and(|n| !n.is_multiple_of(each)) {
            return Ok(None);
        }
        let runs = blk.cols / each;
        let f = b.fresh(p, "f", w);
        let v = b.fresh(p, "v", each);
        let row = div(var(f), runs);
        let col = mul(rem(var(f), runs), each);
        let e = self.operand_at(p, b, ld, blk, dims, ([row, col], Some((v, each))));
        if !unit_stride(&e, v) {
            return Ok(None);
        }
        let run = compute_at(Level::Thread, each, v, e);
        let q = p.fresh_var("q", VarKind::Vector(run.ty), b.span);
        let c = b.fresh(p, "c", each);
        let copy = compute_at(
            Level::Thread,
            each,
            c,
            read_local(q, var(c), ld.ty.elem).at(ld.span),
        );
        let level = match self.how.prefetch {
            true => MemLevel::Prefetch,
            false => MemLevel::Reg,
        };
        let body = let_at(level, q, run, copy);
        Ok(Some(compute_at(Level::Group, w, f, body)))
    }
}

/// `value` laid out in chunks of `C` raw elements `S` apart: `strided(C, S)`.
fn padded(p: &mut Program, value: Expr, blk: &Block, (chunk, stride): (u64, u64)) -> Expr {
    let len = blk.stored_len(stride - chunk);
    let k = index(p, "y", len, value.span);
    let mut value = value;
    if let ExprKind::Compute { map, .. } = &mut value.kind {
        *map = Some(IndexMap {
            var: k,
            len,
            kind: MapKind::Layout(Layout::Strided(Strided {
                cols: chunk,
                stride,
            })),
        });
    }
    value.ty.len = len;
    value
}

/// Whether `e` is a read whose index is `X + v` with `X` free of `v`.
fn unit_stride(e: &Expr, v: VarId) -> bool {
    match &e.kind {
        ExprKind::Index { index, .. } => steps_by_one(index, v).is_some(),
        _ => false,
    }
}
