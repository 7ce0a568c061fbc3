//! Block stages: each op of a block program as global values, per-block
//! contexts and block bodies (TExpr programs built as IR).

pub mod body;
pub mod build;
pub mod expr;
pub mod gather;
pub mod kernel;
pub mod linalg;
pub mod print;
#[allow(clippy::module_inception)] // `stage::stage`: the stage of one op, as the design names it
pub mod stage;
pub mod view;

#[cfg(test)]
mod tests;

pub use body::{BlockBody, BlockContext, Kernel, Panel};
pub use print::print_stages;
pub use stage::{BlockMatrixStage, BlockTask, CtxType, GlobalVal, lower};
