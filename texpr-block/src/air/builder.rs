//! A Rust API to build block programs; every op is type-checked as it is added.

use super::elementwise::{BinOp, UnaryFn};
use super::expr::EExpr;
use super::ops::{Agg, Flip, Fused, Op, Range, SumAxis};
use super::program::{Inst, Program};
use super::reg::Reg;
use super::types::BlockTy;
use super::typing::{self, TyEnv};
use texpr_ir::{Diagnostic, Span};

/// Builds a [`Program`] one instruction at a time.
#[derive(Debug)]
pub struct Builder {
    prog: Program,
}

impl TyEnv for Builder {
    fn ty_of(&self, r: Reg) -> BlockTy {
        self.prog.ty(r)
    }
    fn name_of(&self, r: Reg) -> String {
        self.prog.inst(r).name.clone()
    }
}

impl Builder {
    pub fn new(name: &str) -> Builder {
        Builder {
            prog: Program {
                name: name.to_string(),
                params: Vec::new(),
                insts: Vec::new(),
                ret: Reg(0),
                ret_span: Span::DUMMY,
            },
        }
    }

    /// Records a `param` (printing only; types hold numbers).
    pub fn param(&mut self, name: &str, value: u64) {
        self.prog.params.push((name.to_string(), value));
    }

    /// Adds `%name = op : written` (a fresh number when `name` is `None`).
    pub fn push(
        &mut self,
        name: Option<&str>,
        op: Op,
        written: Option<BlockTy>,
        span: Span,
    ) -> Result<Reg, Diagnostic> {
        let ty = typing::infer(self, &op, written, span)?;
        let name = name.map_or_else(|| self.prog.fresh_name(), str::to_string);
        self.prog.insts.push(Inst { name, op, ty, span });
        Ok(Reg(self.prog.insts.len() as u32 - 1))
    }

    pub fn program(&self) -> &Program {
        &self.prog
    }

    pub fn input(&mut self, name: &str, ty: BlockTy) -> Result<Reg, Diagnostic> {
        self.push(Some(name), Op::Input, Some(ty), Span::DUMMY)
    }
    fn op(&mut self, op: Op) -> Result<Reg, Diagnostic> {
        self.push(None, op, None, Span::DUMMY)
    }
    pub fn binary(&mut self, op: BinOp, a: Reg, b: Reg) -> Result<Reg, Diagnostic> {
        self.op(Op::Binary(op, a, b))
    }
    pub fn add(&mut self, a: Reg, b: Reg) -> Result<Reg, Diagnostic> {
        self.binary(BinOp::Add, a, b)
    }
    pub fn sub(&mut self, a: Reg, b: Reg) -> Result<Reg, Diagnostic> {
        self.binary(BinOp::Sub, a, b)
    }
    pub fn mul(&mut self, a: Reg, b: Reg) -> Result<Reg, Diagnostic> {
        self.binary(BinOp::Mul, a, b)
    }
    pub fn div(&mut self, a: Reg, b: Reg) -> Result<Reg, Diagnostic> {
        self.binary(BinOp::Div, a, b)
    }
    /// `select %c, %a, %b`: `a` where `c` is not 0, else `b`.
    pub fn select(&mut self, c: Reg, a: Reg, b: Reg) -> Result<Reg, Diagnostic> {
        self.op(Op::Select(c, a, b))
    }
    pub fn scale(&mut self, a: Reg, c: f32) -> Result<Reg, Diagnostic> {
        self.op(Op::Scale(a, c))
    }
    pub fn map(&mut self, f: UnaryFn, a: Reg) -> Result<Reg, Diagnostic> {
        self.op(Op::Map(f, a))
    }
    pub fn matmul(&mut self, a: Reg, b: Reg) -> Result<Reg, Diagnostic> {
        self.op(Op::Matmul {
            a,
            b,
            epilogue: None,
        })
    }
    pub fn transpose(&mut self, a: Reg) -> Result<Reg, Diagnostic> {
        self.op(Op::Transpose(a))
    }
    pub fn broadcast(&mut self, a: Reg, to: BlockTy) -> Result<Reg, Diagnostic> {
        self.push(None, Op::Broadcast(a), Some(to), Span::DUMMY)
    }
    pub fn sum(&mut self, axis: SumAxis, a: Reg) -> Result<Reg, Diagnostic> {
        self.reduce(Agg::Sum, axis, a)
    }
    pub fn reduce(&mut self, agg: Agg, axis: SumAxis, a: Reg) -> Result<Reg, Diagnostic> {
        self.op(Op::Reduce(agg, axis, a))
    }
    pub fn reverse(&mut self, flip: Flip, a: Reg) -> Result<Reg, Diagnostic> {
        self.op(Op::Reverse(flip, a))
    }
    pub fn slice(
        &mut self,
        src: Reg,
        rows: (u64, u64),
        cols: (u64, u64),
    ) -> Result<Reg, Diagnostic> {
        let r = |(start, end)| Range { start, end };
        self.op(Op::Slice {
            src,
            rows: r(rows),
            cols: r(cols),
        })
    }
    pub fn fused(
        &mut self,
        operands: Vec<super::ops::Operand>,
        body: EExpr,
    ) -> Result<Reg, Diagnostic> {
        self.op(Op::Fused(Fused { operands, body }))
    }

    /// The finished program returning `ret`.
    pub fn ret(mut self, ret: Reg) -> Program {
        self.prog.ret = ret;
        self.prog
    }
}
