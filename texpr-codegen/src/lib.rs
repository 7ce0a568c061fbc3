//! Kernel planning and WGSL emission for scheduled TExpr; naga validation; the wgpu runtime.
