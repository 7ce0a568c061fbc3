//! Block programs (AIR): three-address code over typed block matrices, one basic block.
//!
//! Text form (see `parse` for the grammar):
//! ```text
//! param N = 512
//! func gemm {
//!   %a = input : f32[N x N, 128x128]
//!   %b = input : f32[N x N, 128x128]
//!   %c = matmul %a, %b : f32[512x512, 128x128]
//!   ret %c
//! }
//! ```

pub mod builder;
pub mod elementwise;
pub mod expr;
pub mod gather;
pub mod lexer;
mod linalg;
pub mod ops;
pub mod parse;
mod parse_op;
pub mod print;
pub mod program;
pub mod reg;
pub mod types;
pub mod typing;
pub mod verify;

#[cfg(test)]
mod tests;

pub use builder::Builder;
pub use elementwise::{BinOp, UnaryFn};
pub use expr::EExpr;
pub use ops::{Agg, Axis, Bcast, Flip, Fused, Op, OpMeta, Operand, Range, SumAxis};
pub use parse::parse;
pub use print::print;
pub use program::{Inst, Program};
pub use reg::Reg;
pub use types::{BlockTy, Dims, ElemTy};
pub use verify::verify;
