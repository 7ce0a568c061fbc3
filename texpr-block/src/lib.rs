//! Block-matrix layer: block programs over tiled matrices, compiled to TExpr kernels.
//!
//! - [`air`]: block programs (three-address code over block matrices): parser, printer, builder;
//! - [`passes`]: the pass pipeline and its environment;
//! - [`dist`]: the 2D block-cyclic distribution of tiles over a grid of ranks;
//! - [`exec`]: the dense reference and tiled execution;
//! - [`codes`]: every diagnostic code of this layer.

pub mod air;
pub mod codes;
pub mod dist;
pub mod exec;
pub mod passes;
