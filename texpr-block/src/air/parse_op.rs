//! The arguments of each op of the block-program text form (the grammar's
//! `args`, see `parse.rs`).

use super::elementwise::BinOp;
use super::ops::{Agg, Axis, Flip, Op, Range};
use super::parse::{PResult, Parser};
use crate::codes;
use texpr_ir::{Diagnostic, Span};

impl Parser {
    pub(super) fn op(&mut self, name: &str, span: Span) -> PResult<Op> {
        if let Some(bin) = BinOp::from_name(name) {
            let a = self.reg_use()?.0;
            self.expect(",")?;
            return Ok(Op::Binary(bin, a, self.reg_use()?.0));
        }
        if let Some((agg, axis)) = Agg::parse_op(name) {
            return Ok(Op::Reduce(agg, axis, self.reg_use()?.0));
        }
        Ok(match name {
            "input" => Op::Input,
            "random" => Op::Random(self.int("a seed")?),
            "select" => {
                let c = self.reg_use()?.0;
                self.expect(",")?;
                let a = self.reg_use()?.0;
                self.expect(",")?;
                Op::Select(c, a, self.reg_use()?.0)
            }
            "scale" => {
                let a = self.reg_use()?.0;
                self.expect(",")?;
                Op::Scale(a, self.float()?)
            }
            "map" => {
                let f = self.func()?;
                self.expect(",")?;
                Op::Map(f, self.reg_use()?.0)
            }
            "matmul" => self.matmul()?,
            "transpose" => Op::Transpose(self.reg_use()?.0),
            "broadcast" => Op::Broadcast(self.reg_use()?.0),
            "reverse" => {
                let a = self.reg_use()?.0;
                self.expect(",")?;
                let (w, span) = self.ident("`rows`, `cols` or `both`")?;
                let flip = Flip::from_name(&w).ok_or_else(|| {
                    Diagnostic::error(
                        codes::EXPECTED,
                        format!("expected `rows`, `cols` or `both`, found `{w}`"),
                    )
                    .with_primary(span, "what to reverse")
                })?;
                Op::Reverse(flip, a)
            }
            "slice" => self.slice()?,
            "diag" => Op::Diag(self.reg_use()?.0),
            "cholesky" => Op::Cholesky(self.reg_use()?.0),
            "solve_lower" | "solve_upper" => {
                let tri = self.reg_use()?.0;
                self.expect(",")?;
                Op::Solve {
                    tri,
                    rhs: self.reg_use()?.0,
                    upper: name == "solve_upper",
                }
            }
            "concat_rows" | "concat_cols" => {
                let mut parts = vec![self.reg_use()?.0];
                while self.eat(",") {
                    parts.push(self.reg_use()?.0);
                }
                Op::Concat {
                    parts,
                    axis: axis_of(name),
                }
            }
            "filter_rows" | "filter_cols" => {
                let src = self.reg_use()?.0;
                self.expect(",")?;
                self.expect("[")?;
                let mut keep = vec![self.int("an index")?];
                while self.eat(",") {
                    keep.push(self.int("an index")?);
                }
                self.expect("]")?;
                Op::Filter {
                    src,
                    axis: axis_of(name),
                    keep,
                }
            }
            "fused" => Op::Fused(self.fused()?),
            _ => {
                return Err(Diagnostic::error(codes::UNKNOWN_OP, format!("unknown op `{name}`"))
                    .with_primary(span, "not an op")
                    .with_note(format!("ops: input random {} select scale map matmul transpose reverse broadcast sum prod max min mean var std (each also _rows, _cols) slice concat_rows concat_cols filter_rows filter_cols diag cholesky solve_lower solve_upper fused", BinOp::all_names().replace(',', ""))));
            }
        })
    }

    pub(super) fn matmul(&mut self) -> PResult<Op> {
        let a = self.reg_use()?.0;
        self.expect(",")?;
        let b = self.reg_use()?.0;
        let epilogue = if self.eat_kw("epilogue") {
            Some(self.fused()?)
        } else {
            None
        };
        Ok(Op::Matmul { a, b, epilogue })
    }

    pub(super) fn slice(&mut self) -> PResult<Op> {
        let src = self.reg_use()?.0;
        self.expect(",")?;
        let rows = self.range()?;
        self.expect(",")?;
        let cols = self.range()?;
        Ok(Op::Slice { src, rows, cols })
    }

    pub(super) fn range(&mut self) -> PResult<Range> {
        let start = self.int("a range start")?;
        self.expect("..")?;
        Ok(Range {
            start,
            end: self.int("a range end")?,
        })
    }
}

/// The axis an op's name ends in (`concat_rows`: rows).
fn axis_of(name: &str) -> Axis {
    if name.ends_with("_rows") {
        Axis::Rows
    } else {
        Axis::Cols
    }
}
