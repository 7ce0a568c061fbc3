//! Hand-written WGSL through the same harness as compiled programs.
//!
//! A [`RawProgram`] is one WGSL module, the storage buffers it works on and the
//! compute passes to dispatch in order. [`Gpu::run_raw`], [`Gpu::bench_raw`] and [`Gpu::prepare_raw`]
//! validate the WGSL with naga, read each entry point's workgroup size and the
//! access of every binding it uses from naga's module, turn the program into a
//! kernel plan ([`Module`]) and hand it to [`Gpu::run`] / [`Gpu::bench`]: the
//! uploads, dispatch, waits and timing are exactly those of a compiled program,
//! so their figures compare.
//!
//! [`baselines`] holds the hand-written baselines of `texprc bench --suite`
//! (`shaders/baselines/*.wgsl`) with their sizes filled in.

use naga::valid::{ValidationFlags, Validator};
use texpr_ir::ElemTy;
use texpr_ir::Span;

use super::{BufferPool, Gpu, HostBuffer, Prepared, RunResult, RuntimeError, Timing};
use texpr_codegen::plan::{Access, Binding, BufferId, BufferPlan, BufferRole, Kernel, Module};

/// A storage buffer of a raw program.
#[derive(Clone, Debug, PartialEq)]
pub enum RawBuffer {
    /// Uploaded before the first pass.
    Input(HostBuffer),
    /// Zeroed, read back after the last pass (outputs come back in this order).
    Output { elem: ElemTy, len: u64 },
    /// Zeroed, not read back.
    Scratch { elem: ElemTy, len: u64 },
}

/// One compute pass: an entry point of the program's WGSL.
#[derive(Clone, Debug, PartialEq)]
pub struct RawKernel {
    pub entry: String,
    /// `bindings[i]` is the buffer (an index into [`RawProgram::buffers`]) at
    /// `@group(0) @binding(i)`. Bindings the entry point does not use are not bound.
    pub bindings: Vec<usize>,
    /// Workgroups to dispatch in x / y / z.
    pub dispatch: [u32; 3],
}

/// Hand-written WGSL, its buffers, and its passes in dispatch order.
#[derive(Clone, Debug, PartialEq)]
pub struct RawProgram {
    pub wgsl: String,
    pub buffers: Vec<RawBuffer>,
    pub kernels: Vec<RawKernel>,
}

impl Gpu {
    /// Runs every pass in order and reads back the [`RawBuffer::Output`] buffers.
    pub fn run_raw(&self, program: &RawProgram) -> Result<RunResult, RuntimeError> {
        let (module, inputs) = self.raw_plan(program)?;
        self.run(&module, &inputs)
    }

    /// Uploads once, then times `runs` repetitions of all passes after
    /// `warmups`, exactly as [`Gpu::bench`] times a compiled program.
    pub fn bench_raw(
        &self,
        program: &RawProgram,
        warmups: usize,
        runs: usize,
    ) -> Result<Timing, RuntimeError> {
        let (module, inputs) = self.raw_plan(program)?;
        self.bench(&module, &inputs, warmups, runs)
    }

    /// [`Gpu::prepare`] for a raw program: ready for [`Gpu::time`] beside
    /// compiled programs (its inputs and outputs from `pool`).
    pub fn prepare_raw(
        &self,
        program: &RawProgram,
        pool: &mut BufferPool,
    ) -> Result<Prepared, RuntimeError> {
        let (module, inputs) = self.raw_plan(program)?;
        self.prepare(&module, &inputs, pool)
    }

    /// The kernel plan of `program` and its inputs in plan order, after naga
    /// has validated the WGSL with the device's capabilities.
    pub fn raw_plan(
        &self,
        program: &RawProgram,
    ) -> Result<(Module, Vec<HostBuffer>), RuntimeError> {
        let naga_module = naga::front::wgsl::parse_str(&program.wgsl)
            .map_err(|e| RuntimeError::ShaderModule(e.emit_to_string(&program.wgsl)))?;
        let info = Validator::new(
            ValidationFlags::all(),
            texpr_codegen::validate::capabilities(&self.target.features),
        )
        .validate(&naga_module)
        .map_err(|e| RuntimeError::ShaderModule(e.emit_to_string(&program.wgsl)))?;

        let mut buffers = Vec::with_capacity(program.buffers.len());
        let mut inputs = Vec::new();
        let mut outputs = 0u32;
        for (i, b) in program.buffers.iter().enumerate() {
            let (role, elem, len) = match b {
                RawBuffer::Input(h) => {
                    inputs.push(h.clone());
                    (
                        BufferRole::Input(inputs.len() as u32 - 1),
                        h.elem,
                        h.len() as u64,
                    )
                }
                RawBuffer::Output { elem, len } => {
                    outputs += 1;
                    (BufferRole::Output(outputs - 1), *elem, *len)
                }
                RawBuffer::Scratch { elem, len } => (BufferRole::Scratch, *elem, *len),
            };
            buffers.push(BufferPlan {
                name: format!("b{i}"),
                role,
                elem,
                len,
                init: Vec::new(),
            });
        }

        let kernels = program
            .kernels
            .iter()
            .map(|k| raw_kernel(&naga_module, &info, k, buffers.len()))
            .collect::<Result<Vec<_>, _>>()?;
        let module = Module {
            wgsl: program.wgsl.clone(),
            enables: Vec::new(),
            uses: Vec::new(),
            buffers,
            kernels,
            loops: Vec::new(),
            kir: Vec::new(),
        };
        Ok((module, inputs))
    }
}

/// The plan's kernel for `k`: workgroup size from the entry point, and one
/// binding per `@group(0)` storage buffer the entry point uses, with the access
/// the WGSL declares.
fn raw_kernel(
    module: &naga::Module,
    info: &naga::valid::ModuleInfo,
    k: &RawKernel,
    n_buffers: usize,
) -> Result<Kernel, RuntimeError> {
    let bad = |msg: String| RuntimeError::BadPlan(format!("raw kernel `{}`: {msg}", k.entry));
    let Some((at, ep)) = module
        .entry_points
        .iter()
        .enumerate()
        .find(|(_, ep)| ep.name == k.entry && ep.stage == naga::ShaderStage::Compute)
    else {
        return Err(bad("no compute entry point of that name".into()));
    };
    let uses = info.get_entry_point(at);
    let mut bindings = Vec::new();
    let mut workgroup_storage_bytes = 0;
    for (handle, var) in module.global_variables.iter() {
        if var.space == naga::AddressSpace::WorkGroup && !uses[handle].is_empty() {
            let size = module.types[var.ty].inner.size(module.to_ctx());
            workgroup_storage_bytes += u64::from(size);
        }
        let Some(rb) = &var.binding else { continue };
        if uses[handle].is_empty() {
            continue;
        }
        let naga::AddressSpace::Storage { access } = var.space else {
            return Err(bad(format!(
                "binding {} is not a storage buffer",
                rb.binding
            )));
        };
        if rb.group != 0 {
            return Err(bad(format!(
                "uses group {}; only group 0 is bound",
                rb.group
            )));
        }
        let Some(&buffer) = k.bindings.get(rb.binding as usize) else {
            return Err(bad(format!(
                "uses binding {} but only {} are given",
                rb.binding,
                k.bindings.len()
            )));
        };
        if buffer >= n_buffers {
            return Err(bad(format!(
                "binding {} names buffer {buffer} of {n_buffers}",
                rb.binding
            )));
        }
        let access = if access.contains(naga::StorageAccess::STORE) {
            Access::ReadWrite
        } else {
            Access::Read
        };
        bindings.push(Binding {
            group: 0,
            binding: rb.binding,
            buffer: BufferId(buffer as u32),
            access,
            step: None,
        });
    }
    bindings.sort_by_key(|b| b.binding);
    Ok(Kernel {
        entry_point: k.entry.clone(),
        workgroup_size: ep.workgroup_size,
        dispatch: k.dispatch,
        bindings,
        workgroup_storage_bytes,
        span: Span::default(),
    })
}

/// The hand-written baselines in `shaders/baselines/`, with their sizes
/// substituted for the `{NAME}` placeholders and their dispatch computed.
pub mod baselines {
    use super::{RawBuffer, RawKernel, RawProgram};
    use crate::{HostBuffer, RuntimeError};
    use texpr_ir::ElemTy;

    const MATMUL_NAIVE: &str = include_str!("../../shaders/baselines/matmul_naive.wgsl");
    const MATMUL_TILED: &str = include_str!("../../shaders/baselines/matmul_tiled.wgsl");
    const MATMUL_REGK4: &str = include_str!("../../shaders/baselines/matmul_regk4.wgsl");
    const SUM_TREE: &str = include_str!("../../shaders/baselines/sum_tree.wgsl");
    const AXPB_VEC4: &str = include_str!("../../shaders/baselines/axpb_vec4.wgsl");
    const FMA_PEAK: &str = include_str!("../../shaders/baselines/fma_peak.wgsl");

    /// Scalar multiply-adds per loop iteration of one invocation of [`fma_peak`].
    pub const FMA_PER_ITERATION: u64 = 64;

    /// Workgroups of the first pass of [`sum_tree`] at most (on lavapipe 256
    /// fat workgroups beat 1024 thinner ones 2.5 times over).
    pub const SUM_GROUPS: u32 = 256;
    /// Workgroups per dispatch dimension the baselines use at most.
    const MAX_GROUPS: u32 = 65535;

    /// `template` with every `{NAME}` replaced by its value.
    fn fill(template: &str, sizes: &[(&str, u32)]) -> String {
        let mut text = template.to_string();
        for (name, value) in sizes {
            text = text.replace(&format!("{{{name}}}"), &value.to_string());
        }
        text
    }

    fn size(name: &str, value: u64) -> Result<u32, RuntimeError> {
        match u32::try_from(value) {
            Ok(v) if v > 0 => Ok(v),
            _ => Err(RuntimeError::BadPlan(format!(
                "baseline size {name} = {value} must be in 1..2^32"
            ))),
        }
    }

    fn check_len(name: &str, buf: &HostBuffer, len: u64) -> Result<(), RuntimeError> {
        if buf.elem != ElemTy::F32 || buf.len() as u64 != len {
            return Err(RuntimeError::BadPlan(format!(
                "baseline input `{name}` should be F32[{len}], got {:?}[{}]",
                buf.elem,
                buf.len()
            )));
        }
        Ok(())
    }

    fn matmul(
        template: &str,
        tile: u64,
        [m, n, k]: [u64; 3],
        a: HostBuffer,
        b: HostBuffer,
    ) -> Result<RawProgram, RuntimeError> {
        let (m32, n32, k32) = (size("M", m)?, size("N", n)?, size("K", k)?);
        check_len("a", &a, m * k)?;
        check_len("b", &b, k * n)?;
        let groups = [n.div_ceil(tile), m.div_ceil(tile)];
        if groups.iter().any(|&g| g > u64::from(MAX_GROUPS)) {
            return Err(RuntimeError::BadPlan(format!(
                "matmul baseline of {m} x {n} needs {groups:?} workgroups"
            )));
        }
        Ok(RawProgram {
            wgsl: fill(template, &[("M", m32), ("N", n32), ("K", k32)]),
            buffers: vec![
                RawBuffer::Input(a),
                RawBuffer::Input(b),
                RawBuffer::Output {
                    elem: ElemTy::F32,
                    len: m * n,
                },
            ],
            kernels: vec![RawKernel {
                entry: "main".into(),
                bindings: vec![0, 1, 2],
                dispatch: [groups[0] as u32, groups[1] as u32, 1],
            }],
        })
    }

    /// `c = a b` for row-major `a` (M x K) and `b` (K x N), one invocation per
    /// element of `c` in 16 x 16 workgroups. Output 0 is `c` (M x N).
    pub fn matmul_naive(
        mnk: [u64; 3],
        a: HostBuffer,
        b: HostBuffer,
    ) -> Result<RawProgram, RuntimeError> {
        matmul(MATMUL_NAIVE, 16, mnk, a, b)
    }

    /// `c = a b` with 64 x 64 output tiles per workgroup of 16 x 16
    /// invocations, 4 x 4 outputs per invocation, and A and B tiles in
    /// workgroup memory, 16 along K at a time. Output 0 is `c` (M x N).
    pub fn matmul_tiled(
        mnk: [u64; 3],
        a: HostBuffer,
        b: HostBuffer,
    ) -> Result<RawProgram, RuntimeError> {
        matmul(MATMUL_TILED, 64, mnk, a, b)
    }

    /// `c = a b` with register tiles only: 64 x 64 output tiles per
    /// workgroup of 64 invocations, 8 x 8 outputs per invocation, both
    /// operands read as vec4s (A along K, B along N). M and N must be
    /// multiples of 64 and K of 4. Output 0 is `c` (M x N).
    pub fn matmul_regk4(
        mnk: [u64; 3],
        a: HostBuffer,
        b: HostBuffer,
    ) -> Result<RawProgram, RuntimeError> {
        let [m, n, k] = mnk;
        if !(m.is_multiple_of(64) && n.is_multiple_of(64) && k.is_multiple_of(4)) {
            return Err(RuntimeError::BadPlan(format!(
                "matmul_regk4 needs M and N multiples of 64 and K of 4, got {m} x {n} x {k}"
            )));
        }
        matmul(MATMUL_REGK4, 64, mnk, a, b)
    }

    /// The sum of `x` (length `n`) by a two-pass tree reduction: at most
    /// [`SUM_GROUPS`] workgroups of 256 write partial sums, one workgroup adds
    /// them. Output 0 is the total (1 element).
    pub fn sum_tree(n: u64, x: HostBuffer) -> Result<RawProgram, RuntimeError> {
        let n32 = size("N", n)?;
        check_len("x", &x, n)?;
        if n > u64::from(u32::MAX) - 256 * u64::from(SUM_GROUPS) {
            return Err(RuntimeError::BadPlan(format!(
                "sum baseline of {n} elements overflows its u32 index"
            )));
        }
        let groups = n.div_ceil(256).min(u64::from(SUM_GROUPS)) as u32;
        Ok(RawProgram {
            wgsl: fill(SUM_TREE, &[("N", n32), ("G", groups)]),
            buffers: vec![
                RawBuffer::Input(x),
                RawBuffer::Scratch {
                    elem: ElemTy::F32,
                    len: u64::from(groups),
                },
                RawBuffer::Output {
                    elem: ElemTy::F32,
                    len: 1,
                },
            ],
            kernels: vec![
                RawKernel {
                    entry: "partial".into(),
                    bindings: vec![0, 1, 2],
                    dispatch: [groups, 1, 1],
                },
                RawKernel {
                    entry: "finish".into(),
                    bindings: vec![0, 1, 2],
                    dispatch: [1, 1, 1],
                },
            ],
        })
    }

    /// `y = 2 x + 1` over `x` of length `n` (a multiple of 4) as vec4s, 256
    /// invocations per workgroup. Output 0 is `y` (`n` elements).
    pub fn axpb_vec4(n: u64, x: HostBuffer) -> Result<RawProgram, RuntimeError> {
        size("N", n)?;
        if !n.is_multiple_of(4) {
            return Err(RuntimeError::BadPlan(format!(
                "axpb baseline: N = {n} is not a multiple of 4"
            )));
        }
        check_len("x", &x, n)?;
        let n4 = n / 4;
        let [gx, gy] = folded(n4.div_ceil(256), "axpb", n)?;
        Ok(RawProgram {
            wgsl: fill(AXPB_VEC4, &[("N4", n4 as u32)]),
            buffers: vec![
                RawBuffer::Input(x),
                RawBuffer::Output {
                    elem: ElemTy::F32,
                    len: n,
                },
            ],
            kernels: vec![RawKernel {
                entry: "main".into(),
                bindings: vec![0, 1],
                dispatch: [gx, gy, 1],
            }],
        })
    }

    /// `groups` workgroups as x by y, x at most [`MAX_GROUPS`] (the shaders
    /// number workgroups `wid.y * groups.x + wid.x`).
    fn folded(groups: u64, what: &str, n: u64) -> Result<[u32; 2], RuntimeError> {
        let gx = groups.clamp(1, u64::from(MAX_GROUPS));
        let gy = groups.div_ceil(gx);
        if gy > u64::from(MAX_GROUPS) {
            return Err(RuntimeError::BadPlan(format!(
                "{what} baseline of {n} elements needs too many workgroups"
            )));
        }
        Ok([gx as u32, gy as u32])
    }

    /// The f32 multiply-add throughput kernel (`shaders/baselines/fma_peak.wgsl`):
    /// `invocations` (a multiple of 256) each run `iterations` times
    /// [`FMA_PER_ITERATION`] multiply-adds in 16 independent chains. Output 0
    /// has one element per invocation, each 32 (every chain settles at 2).
    /// It does [`fma_flops`] floating-point operations.
    pub fn fma_peak(invocations: u64, iterations: u64) -> Result<RawProgram, RuntimeError> {
        let n = size("invocations", invocations)?;
        let iters = size("iterations", iterations)?;
        if !invocations.is_multiple_of(256) {
            return Err(RuntimeError::BadPlan(format!(
                "fma baseline: {invocations} invocations is not a multiple of 256"
            )));
        }
        let [gx, gy] = folded(invocations / 256, "fma", invocations)?;
        Ok(RawProgram {
            wgsl: fill(FMA_PEAK, &[("ITERS", iters), ("N", n)]),
            buffers: vec![
                RawBuffer::Input(HostBuffer::from_f32(&[0.5, 1.0])),
                RawBuffer::Output {
                    elem: ElemTy::F32,
                    len: invocations,
                },
            ],
            kernels: vec![RawKernel {
                entry: "main".into(),
                bindings: vec![0, 1],
                dispatch: [gx, gy, 1],
            }],
        })
    }

    /// Floating-point operations of [`fma_peak`] (a multiply-add is two).
    pub fn fma_flops(invocations: u64, iterations: u64) -> u64 {
        2 * FMA_PER_ITERATION * invocations * iterations
    }
}
