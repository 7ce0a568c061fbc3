//! The kernel plan: what the runtime needs to run a compiled program.
//!
//! A [`Module`] is one WGSL module (one or more entry points), the buffers the
//! program uses, and the kernels to dispatch in order. It is plain data: the
//! runtime (feature `runtime`) executes it, and `texprc compile --emit kernels`
//! prints it.

use texpr_syntax::Span;
use texpr_syntax::ast::ElemTy;

/// Index into [`Module::buffers`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct BufferId(pub u32);

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BufferRole {
    /// `Program::inputs[i]`: uploaded before the first kernel.
    Input(u32),
    /// `Program::outputs[i]`: read back after the last kernel.
    Output(u32),
    /// `Program::globals[i]` (a top-level `let@global`).
    Global(u32),
    /// Compiler-made scratch (e.g. partial results of a multi-pass reduction).
    Scratch,
}

#[derive(Clone, Debug, PartialEq)]
pub struct BufferPlan {
    pub name: String,
    pub role: BufferRole,
    pub elem: ElemTy,
    /// Elements (4 bytes each).
    pub len: u64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Access {
    Read,
    ReadWrite,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Binding {
    pub group: u32,
    pub binding: u32,
    pub buffer: BufferId,
    pub access: Access,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Kernel {
    /// Entry point name in [`Module::wgsl`].
    pub entry_point: String,
    pub workgroup_size: [u32; 3],
    /// Workgroups to dispatch in x / y / z.
    pub dispatch: [u32; 3],
    pub bindings: Vec<Binding>,
    /// The source the kernel computes (an output's or a global's span).
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Module {
    pub wgsl: String,
    pub buffers: Vec<BufferPlan>,
    /// Run in order; each kernel sees every write of the kernels before it.
    pub kernels: Vec<Kernel>,
}
