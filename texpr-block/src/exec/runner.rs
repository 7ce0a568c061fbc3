//! Kernel runners: something that runs a block body's TExpr kernel on panel data.
//!
//! [`InterpRunner`] evaluates each kernel with the reference interpreter (no
//! GPU needed), counting the distinct kernels it ran.

use crate::codes;
use crate::stage::Kernel;
use texpr_interp::Value;
use texpr_ir::Diagnostic;

/// Runs TExpr block kernels. Implementations compile each distinct kernel
/// once and reuse it.
pub trait KernelRunner {
    /// Runs `kernel` (inputs in order and one output).
    fn run(&mut self, kernel: &Kernel, inputs: &[&[f32]]) -> Result<Vec<f32>, Diagnostic>;
    /// How many distinct kernels were compiled so far.
    fn compiled(&self) -> usize;
}

/// The CPU runner: the reference interpreter.
#[derive(Debug, Default)]
pub struct InterpRunner {
    seen: Vec<Kernel>,
}

impl KernelRunner for InterpRunner {
    fn run(&mut self, kernel: &Kernel, inputs: &[&[f32]]) -> Result<Vec<f32>, Diagnostic> {
        if !self.seen.contains(kernel) {
            self.seen.push(kernel.clone());
        }
        let values: Vec<Value> = inputs.iter().map(|v| Value::f32(v.to_vec())).collect();
        let out = texpr_interp::eval(kernel, &values).map_err(|e| {
            Diagnostic::error(codes::KERNEL_RUN, format!("a block body failed: {e}"))
        })?;
        out.first()
            .and_then(|v| v.as_f32())
            .map(<[f32]>::to_vec)
            .ok_or_else(|| Diagnostic::error(codes::KERNEL_RUN, "a block body gave no f32 output"))
    }

    fn compiled(&self) -> usize {
        self.seen.len()
    }
}
