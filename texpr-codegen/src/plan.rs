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
    /// The elements of a long vector literal ([`BufferPlan::init`]), uploaded
    /// before the first kernel and only read.
    Constant,
}

#[derive(Clone, Debug, PartialEq)]
pub struct BufferPlan {
    pub name: String,
    pub role: BufferRole,
    pub elem: ElemTy,
    /// Elements (4 bytes each).
    pub len: u64,
    /// Contents to upload before the first kernel, each element's bits
    /// (a [`BufferRole::Constant`]'s literal); empty for every other buffer.
    pub init: Vec<u32>,
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

impl std::fmt::Display for BufferRole {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            BufferRole::Input(i) => write!(f, "input {i}"),
            BufferRole::Output(i) => write!(f, "output {i}"),
            BufferRole::Global(i) => write!(f, "global {i}"),
            BufferRole::Scratch => write!(f, "scratch"),
            BufferRole::Constant => write!(f, "constant"),
        }
    }
}

impl std::fmt::Display for Module {
    /// The plan without the WGSL: buffers, then kernels in dispatch order
    /// (what `texprc compile --emit kernels` prints).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(f, "buffers:")?;
        for (i, b) in self.buffers.iter().enumerate() {
            writeln!(
                f,
                "  b{i} {}: {}[{}] ({})",
                b.name,
                b.elem.name(),
                b.len,
                b.role
            )?;
        }
        writeln!(f, "kernels (in dispatch order):")?;
        for k in &self.kernels {
            let [x, y, z] = k.workgroup_size;
            let [dx, dy, dz] = k.dispatch;
            let invocations = u64::from(x * y * z) * u64::from(dx) * u64::from(dy) * u64::from(dz);
            writeln!(
                f,
                "  {}: workgroup_size ({x}, {y}, {z}), dispatch ({dx}, {dy}, {dz}), {invocations} invocations",
                k.entry_point
            )?;
            for b in &k.bindings {
                let buf = &self.buffers[b.buffer.0 as usize];
                let access = match b.access {
                    Access::Read => "read",
                    Access::ReadWrite => "read_write",
                };
                writeln!(
                    f,
                    "    @group({}) @binding({}) b{} {} ({access})",
                    b.group, b.binding, b.buffer.0, buf.name
                )?;
            }
        }
        Ok(())
    }
}
