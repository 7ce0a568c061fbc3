//! The reference interpreter: evaluates any typed TExpr program on the CPU with WGSL semantics.
