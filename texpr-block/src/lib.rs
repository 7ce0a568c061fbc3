//! Block-matrix layer: block programs over tiled matrices, compiled to TExpr kernels.
//!
//! - [`air`]: block programs (three-address code over block matrices): parser, printer, builder;
//! - [`passes`]: the pass pipeline and its environment;
//! - [`stage`]: block stages (global values, contexts, TExpr block bodies);
//! - [`dist`]: the 2D block-cyclic distribution of tiles over a grid of ranks;
//! - [`graph`]: the block graph, pruning, DOT export and schedulers;
//! - [`exec`]: the dense reference, tiled execution, and distributed runs over ranks
//!   (threads of one process, or MPI processes with feature `mpi`);
//! - [`driver`]: a block program from source to plan, texts and run, as a host (`texprc block`) calls it;
//! - [`codes`]: every diagnostic code of this layer.

pub mod air;
pub mod codes;
pub mod dist;
pub mod driver;
pub mod exec;
pub mod graph;
pub mod passes;
pub mod stage;
