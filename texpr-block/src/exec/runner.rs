//! Kernel runners: something that runs a block body's TExpr kernel on panel data.
//!
//! [`InterpRunner`] checks each distinct kernel once with the TExpr front end
//! and evaluates it with the reference interpreter (no GPU needed).

use crate::codes;
use std::collections::BTreeMap;
use texpr_interp::Value;
use texpr_syntax::{Diagnostic, ir};

/// Runs TExpr block kernels. Implementations compile each distinct kernel
/// source once and reuse it.
pub trait KernelRunner {
    /// Runs `kernel` (TExpr source with inputs in order and one output).
    fn run(&mut self, kernel: &str, inputs: &[&[f32]]) -> Result<Vec<f32>, Diagnostic>;
    /// How many distinct kernels were compiled so far.
    fn compiled(&self) -> usize;
}

/// Checks a generated kernel with the TExpr front end; a failure is a bug of this layer.
pub fn check_kernel(kernel: &str) -> Result<ir::Program, Diagnostic> {
    texpr_syntax::frontend(kernel, &[]).map_err(|ds| {
        let text = texpr_syntax::diag::render("block-body.te", kernel, &ds);
        Diagnostic::error(
            codes::KERNEL_FRONTEND,
            "a generated block body does not check",
        )
        .with_note(format!("kernel:\n{kernel}"))
        .with_note(text)
    })
}

/// The CPU runner: the reference interpreter.
#[derive(Debug, Default)]
pub struct InterpRunner {
    cache: BTreeMap<String, ir::Program>,
}

impl KernelRunner for InterpRunner {
    fn run(&mut self, kernel: &str, inputs: &[&[f32]]) -> Result<Vec<f32>, Diagnostic> {
        if !self.cache.contains_key(kernel) {
            let prog = check_kernel(kernel)?;
            self.cache.insert(kernel.to_string(), prog);
        }
        let prog = &self.cache[kernel];
        let values: Vec<Value> = inputs.iter().map(|v| Value::f32(v.to_vec())).collect();
        let out = texpr_interp::eval(prog, &values).map_err(|e| {
            Diagnostic::error(codes::KERNEL_RUN, format!("a block body failed: {e}"))
        })?;
        out.first()
            .and_then(|v| v.as_f32())
            .map(<[f32]>::to_vec)
            .ok_or_else(|| Diagnostic::error(codes::KERNEL_RUN, "a block body gave no f32 output"))
    }

    fn compiled(&self) -> usize {
        self.cache.len()
    }
}
