//! Block-matrix layer: block programs over tiled matrices, compiled to TExpr kernels.
//!
//! - [`dist`]: the 2D block-cyclic distribution of tiles over a grid of ranks.

pub mod dist;
