//! Device buffers for a plan: sizing, limit checks, upload, and bind groups per kernel.

use std::sync::Arc;

use super::pipeline::Pipeline;
use super::{Gpu, HostBuffer, RuntimeError, scope::scoped};
use texpr_codegen::plan::{BufferPlan, BufferRole, Kernel, Module};
use texpr_ir::ElemTy;

/// A plan bound to device buffers, ready to dispatch any number of times.
#[derive(Debug)]
pub(super) struct Bound {
    /// Each kernel with each set of buffers it binds at some step.
    pub variants: Vec<Step>,
    /// The dispatches in order, as indices into `variants` (a loop's
    /// kernels once per step).
    pub order: Vec<u32>,
}

impl Bound {
    /// The dispatches in order.
    pub fn steps(&self) -> impl Iterator<Item = &Step> {
        self.order.iter().map(|&v| &self.variants[v as usize])
    }
}

/// The most dispatches one run of a plan makes (a loop's kernels count once
/// per step): beyond, the runtime refuses the plan rather than hold its
/// dispatch list (code generation refuses such a program first, E0320).
pub const MAX_DISPATCHES: u64 = texpr_codegen::plan::MAX_DISPATCHES;

/// A buffer a kernel binds: the whole of it, or `range` (byte offset, byte size).
#[derive(Clone, Debug)]
pub(super) struct BoundBuffer {
    pub buffer: wgpu::Buffer,
    pub range: Option<(u64, u64)>,
}

impl BoundBuffer {
    pub fn whole(buffer: wgpu::Buffer) -> BoundBuffer {
        BoundBuffer {
            buffer,
            range: None,
        }
    }
}

/// One kernel: its pipeline, bind groups (by group index) and workgroup counts.
#[derive(Debug)]
pub(super) struct Step {
    pub entry_point: String,
    pub pipeline: Arc<Pipeline>,
    pub bind_groups: Vec<Option<wgpu::BindGroup>>,
    pub dispatch: [u32; 3],
    /// Invocations the dispatch runs (workgroups times the workgroup size).
    pub invocations: u64,
}

/// Device buffers shared by the plans of one program on one device: its
/// inputs, uploaded once by the first plan that binds them, and its outputs,
/// which each plan writes in turn. Comparing many schedules of a program then
/// holds its inputs and outputs once, not once per schedule. Every plan bound
/// with one pool must be given the same inputs.
#[derive(Debug, Default)]
pub struct BufferPool {
    buffers: Vec<(BufferRole, ElemTy, u64, wgpu::Buffer)>,
}

impl BufferPool {
    /// Buffers held.
    pub fn len(&self) -> usize {
        self.buffers.len()
    }

    pub fn is_empty(&self) -> bool {
        self.buffers.is_empty()
    }

    fn get(&self, b: &BufferPlan) -> Option<wgpu::Buffer> {
        self.buffers
            .iter()
            .find(|(role, elem, len, _)| (*role, *elem, *len) == (b.role, b.elem, b.len))
            .map(|(.., buffer)| buffer.clone())
    }

    /// Whether buffers of `role` are shared (inputs and outputs are).
    fn shares(role: BufferRole) -> bool {
        matches!(role, BufferRole::Input(_) | BufferRole::Output(_))
    }
}

/// Bytes a buffer of `len` 4-byte elements takes on the device (at least 4).
pub(super) fn byte_size(elem: ElemTy, len: u64) -> u64 {
    let bytes = len.max(1).saturating_mul(elem.bytes());
    bytes.next_multiple_of(4)
}

impl Gpu {
    /// Checks the plan and inputs, makes pipelines and buffers, uploads the
    /// inputs; with a pool, inputs and outputs come from it (made there first).
    pub(super) fn bind(
        &self,
        module: &Module,
        inputs: &[HostBuffer],
        pool: Option<&mut BufferPool>,
    ) -> Result<Bound, RuntimeError> {
        check_inputs(module, inputs)?;
        let pipelines = self.checked_pipelines(module)?;
        let buffers = self.make_buffers(module, inputs, pool)?;
        let whole: Vec<BoundBuffer> = buffers.iter().cloned().map(BoundBuffer::whole).collect();
        let (variants, order) = self.bind_dispatches(module, &pipelines, &whole)?;
        Ok(Bound { variants, order })
    }

    /// Every dispatch of `module` on `buffers` in order (a loop's kernels
    /// once per step, its states alternating between their two buffers):
    /// each kernel bound once per set of buffers it binds at some step
    /// (the variants), and the dispatches as indices into them.
    pub(super) fn bind_dispatches(
        &self,
        module: &Module,
        pipelines: &[Arc<Pipeline>],
        buffers: &[BoundBuffer],
    ) -> Result<(Vec<Step>, Vec<u32>), RuntimeError> {
        let mut variants = Vec::new();
        let mut known: std::collections::HashMap<(usize, Vec<u32>), u32> = Default::default();
        let mut order = Vec::new();
        for (k, at) in module.dispatches() {
            let kernel = &module.kernels[k];
            let ids: Vec<u32> = kernel.bindings.iter().map(|b| b.buffer_at(&at).0).collect();
            let v = match known.get(&(k, ids.clone())) {
                Some(&v) => v,
                None => {
                    let step = self.step(kernel, pipelines[k].clone(), buffers, &ids)?;
                    variants.push(step);
                    let v = variants.len() as u32 - 1;
                    known.insert((k, ids), v);
                    v
                }
            };
            order.push(v);
        }
        Ok((variants, order))
    }

    pub(super) fn check_size(&self, b: &BufferPlan) -> Result<(), RuntimeError> {
        let bytes = byte_size(b.elem, b.len);
        let limits = [
            (self.wgpu_limits.max_buffer_size, "max_buffer_size"),
            (
                self.wgpu_limits.max_storage_buffer_binding_size,
                "max_storage_buffer_binding_size",
            ),
        ];
        for (limit, limit_name) in limits {
            if bytes > limit {
                return Err(RuntimeError::BufferTooLarge {
                    name: b.name.clone(),
                    bytes,
                    limit,
                    limit_name,
                });
            }
        }
        Ok(())
    }

    pub(super) fn check_dispatch(&self, k: &Kernel) -> Result<(), RuntimeError> {
        let limit = self.wgpu_limits.max_compute_workgroups_per_dimension;
        if k.dispatch.iter().any(|&d| d > limit) {
            return Err(RuntimeError::DispatchTooLarge {
                entry_point: k.entry_point.clone(),
                dispatch: k.dispatch,
                limit,
            });
        }
        Ok(())
    }

    /// One device buffer per planned buffer, inputs uploaded; each in its
    /// own error scope, so a failure names its buffer.
    fn make_buffers(
        &self,
        module: &Module,
        inputs: &[HostBuffer],
        mut pool: Option<&mut BufferPool>,
    ) -> Result<Vec<wgpu::Buffer>, RuntimeError> {
        module
            .buffers
            .iter()
            .map(|b| {
                let pooled = pool.as_deref_mut().filter(|_| BufferPool::shares(b.role));
                if let Some(found) = pooled.as_ref().and_then(|p| p.get(b)) {
                    return Ok(found);
                }
                let input = match b.role {
                    BufferRole::Input(i) => Some(&inputs[i as usize]),
                    _ => None,
                };
                let made = self.plan_buffer(b, input)?;
                if let Some(p) = pooled {
                    p.buffers.push((b.role, b.elem, b.len, made.clone()));
                }
                Ok(made)
            })
            .collect()
    }

    /// The device buffer of a planned buffer, holding `input` when given
    /// and its constant elements (`init`) when it has them.
    pub(super) fn plan_buffer(
        &self,
        b: &BufferPlan,
        input: Option<&HostBuffer>,
    ) -> Result<wgpu::Buffer, RuntimeError> {
        let usage = wgpu::BufferUsages::STORAGE
            | wgpu::BufferUsages::COPY_DST
            | wgpu::BufferUsages::COPY_SRC;
        self.made_buffer(&b.name, || {
            let buffer = self.device.create_buffer(&wgpu::BufferDescriptor {
                label: Some(&b.name),
                size: byte_size(b.elem, b.len),
                usage,
                mapped_at_creation: false,
            });
            if let Some(input) = input {
                let bytes = input.bytes();
                self.queue.write_buffer(&buffer, 0, &bytes);
                self.counters.uploaded(bytes.len() as u64);
            }
            if !b.init.is_empty() {
                self.queue
                    .write_buffer(&buffer, 0, &crate::host::device_bytes(b.elem, &b.init));
            }
            buffer
        })
    }

    /// The buffer `make` creates (and fills), in an error scope; errors name `name`.
    pub(super) fn made_buffer(
        &self,
        name: &str,
        make: impl FnOnce() -> wgpu::Buffer,
    ) -> Result<wgpu::Buffer, RuntimeError> {
        let made = scoped(&self.device, make);
        let fail = |message| RuntimeError::Buffer {
            name: name.to_string(),
            message,
        };
        self.checked(|| format!("creating buffer `{name}`"), made, fail)
    }

    /// Kernel `k` with its bindings bound to buffers `ids` (one per binding).
    pub(super) fn step(
        &self,
        k: &Kernel,
        pipeline: Arc<Pipeline>,
        buffers: &[BoundBuffer],
        ids: &[u32],
    ) -> Result<Step, RuntimeError> {
        let mut bind_groups = Vec::with_capacity(pipeline.layouts.len());
        for (group, layout) in pipeline.layouts.iter().enumerate() {
            let Some(layout) = layout else {
                bind_groups.push(None);
                continue;
            };
            let mut entries = Vec::new();
            for (b, &id) in k
                .bindings
                .iter()
                .zip(ids)
                .filter(|(b, _)| b.group == group as u32)
            {
                let buffer = buffers.get(id as usize).ok_or_else(|| {
                    RuntimeError::BadPlan(format!(
                        "kernel `{}` binds buffer {} of {}",
                        k.entry_point,
                        id,
                        buffers.len()
                    ))
                })?;
                let resource = match buffer.range {
                    None => buffer.buffer.as_entire_binding(),
                    Some((offset, size)) => wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                        buffer: &buffer.buffer,
                        offset,
                        size: wgpu::BufferSize::new(size),
                    }),
                };
                entries.push(wgpu::BindGroupEntry {
                    binding: b.binding,
                    resource,
                });
            }
            let made = scoped(&self.device, || {
                self.device.create_bind_group(&wgpu::BindGroupDescriptor {
                    label: Some(&k.entry_point),
                    layout,
                    entries: &entries,
                })
            });
            let during = || format!("binding the buffers of kernel `{}`", k.entry_point);
            let made = self.checked(during, made, |message| RuntimeError::Pipeline {
                entry_point: k.entry_point.clone(),
                message,
            })?;
            bind_groups.push(Some(made));
        }
        Ok(Step {
            entry_point: k.entry_point.clone(),
            pipeline,
            bind_groups,
            dispatch: k.dispatch,
            invocations: invocations(k),
        })
    }
}

/// Invocations one dispatch of `k` runs.
pub(super) fn invocations(k: &Kernel) -> u64 {
    (k.workgroup_size.iter().chain(&k.dispatch))
        .map(|&d| u64::from(d))
        .fold(1, u64::saturating_mul)
}

/// The inputs must match the plan's input buffers in number, element type and length.
pub(super) fn check_inputs(module: &Module, inputs: &[HostBuffer]) -> Result<(), RuntimeError> {
    let planned: Vec<(u32, &BufferPlan)> = module
        .buffers
        .iter()
        .filter_map(|b| match b.role {
            BufferRole::Input(i) => Some((i, b)),
            _ => None,
        })
        .collect();
    if planned.len() != inputs.len() {
        return Err(RuntimeError::InputCount {
            expected: planned.len(),
            got: inputs.len(),
        });
    }
    for (i, b) in planned {
        let Some(host) = inputs.get(i as usize) else {
            return Err(RuntimeError::BadPlan(format!(
                "input buffer index {i} out of range"
            )));
        };
        if host.elem != b.elem || host.data.len() as u64 != b.len {
            return Err(RuntimeError::InputMismatch {
                index: i as usize,
                name: b.name.clone(),
                expected_elem: b.elem,
                expected_len: b.len,
                got_elem: host.elem,
                got_len: host.data.len() as u64,
            });
        }
    }
    Ok(())
}

/// The first `len` words of a mapped staging buffer, which is unmapped after.
pub(super) fn read_staging(
    staging: &wgpu::Buffer,
    elem: ElemTy,
    len: u64,
) -> Result<HostBuffer, RuntimeError> {
    let data = {
        let view = staging
            .slice(..)
            .get_mapped_range()
            .map_err(|e| RuntimeError::Readback(e.to_string()))?;
        crate::host::host_words(elem, &view[..], len)?
    };
    staging.unmap();
    Ok(HostBuffer { elem, data })
}

impl Gpu {
    /// `module` checked against the device's limits (buffer sizes,
    /// workgroup counts, the dispatches of a run) and its kernels'
    /// pipelines, made or found in the cache.
    pub(super) fn checked_pipelines(
        &self,
        module: &Module,
    ) -> Result<Vec<Arc<Pipeline>>, RuntimeError> {
        for b in &module.buffers {
            self.check_size(b)?;
        }
        let pipelines = module
            .kernels
            .iter()
            .map(|k| {
                self.check_dispatch(k)?;
                self.pipeline(&module.wgsl, k)
            })
            .collect::<Result<Vec<_>, _>>()?;
        let count = module.dispatch_count();
        if count > MAX_DISPATCHES {
            return Err(RuntimeError::BadPlan(format!(
                "{count} dispatches (a loop's kernels once per step): at most {MAX_DISPATCHES} run in one go"
            )));
        }
        Ok(pipelines)
    }
}
