//! Block-matrix layer: block programs over tiled matrices, compiled to TExpr kernels.
//!
//! - [`air`]: block programs (three-address code over block matrices): parser, printer, builder;
//! - [`passes`]: the pass pipeline and its environment;
//! - [`stage`]: block stages (global values, contexts, TExpr block bodies);
//! - [`dist`]: the 2D block-cyclic distribution of tiles over a grid of ranks;
//! - [`graph`]: the block graph, pruning, DOT export and schedulers;
//! - [`exec`]: the dense reference, tiled execution, and distributed runs over ranks
//!   (threads of one process, or MPI processes with feature `mpi`);
//! - [`cli`], [`cli_run`]: `texprc block` as library functions;
//! - [`codes`]: every diagnostic code of this layer.

pub mod air;
pub mod cli;
pub mod cli_run;
pub mod codes;
pub mod dist;
pub mod exec;
pub mod graph;
pub mod passes;
pub mod stage;
