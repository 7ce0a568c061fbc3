//! Block-matrix layer: block programs over tiled matrices, compiled to TExpr kernels.
