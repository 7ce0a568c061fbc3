//! Device limits and features that scheduling must respect.
//!
//! `texpr-opt` plans within these numbers; `texpr-codegen` checks the emitted
//! kernels against them; the runtime fills them from the adapter it opens.

/// What a device allows. `Default` is wgpu's `Limits::default()` (the
/// portable WebGPU baseline) with no subgroups.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeviceLimits {
    /// Bytes of `var<workgroup>` memory per workgroup.
    pub max_workgroup_storage_bytes: u32,
    /// Invocations per workgroup (product of the workgroup size).
    pub max_invocations_per_workgroup: u32,
    /// Workgroup size per dimension, x / y / z.
    pub max_workgroup_size: [u32; 3],
    /// Workgroups per dispatch dimension.
    pub max_workgroups_per_dimension: u32,
    /// Storage buffers one shader stage may bind.
    pub max_storage_buffers_per_stage: u32,
    /// Bytes one storage buffer binding may cover.
    pub max_storage_buffer_binding_size: u64,
    /// Bytes of one buffer.
    pub max_buffer_size: u64,
    /// Subgroup sizes `(min, max)` when subgroup operations are available
    /// (the runtime requests `wgpu::Features::SUBGROUP` where the adapter has
    /// it; lavapipe's size is 8). `None`: no subgroups, and neither
    /// `reduce@subgroup` nor `multipass ... combine=subgroup` compiles.
    pub subgroup_size: Option<(u32, u32)>,
    /// Loop iterations one invocation may run, all its loops together, where
    /// the driver cuts loops short: Mesa's llvmpipe (lavapipe) stops every
    /// loop of an invocation once 65,535 iterations have run in total, and the
    /// results are silently wrong. `None`: no such limit.
    pub max_loop_iterations: Option<u64>,
    /// A CPU adapter (lavapipe, WARP, SwiftShader): per-invocation overhead
    /// and barriers dominate, so schedules give each invocation more work.
    pub cpu: bool,
    /// Elements of function memory one invocation of a kernel may hold:
    /// every `var<function>` array and every register vector (an unrolled
    /// `let@reg`, a vector fold's accumulators) the kernel declares, counted
    /// together. Drivers keep these in registers or spill them; an H100
    /// lost the device on a kernel with 64 copies of a 64-element array.
    /// Past it the code generator refuses the kernel (E0318).
    pub max_private_elements: u64,
    /// WGSL statements unrolling may add to one kernel (the second and later
    /// copies of unrolled loop bodies and vector elements). The code
    /// generator keeps a body in a loop rather than unroll past it, and
    /// refuses a kernel that still exceeds it (E0319); it bounds shader size
    /// and the driver's compile time.
    pub max_unrolled_statements: u64,
}

impl Default for DeviceLimits {
    fn default() -> Self {
        DeviceLimits {
            max_workgroup_storage_bytes: 16384,
            max_invocations_per_workgroup: 256,
            max_workgroup_size: [256, 256, 64],
            max_workgroups_per_dimension: 65535,
            max_storage_buffers_per_stage: 8,
            max_storage_buffer_binding_size: 128 << 20,
            max_buffer_size: 256 << 20,
            subgroup_size: None,
            max_loop_iterations: None,
            cpu: false,
            max_private_elements: 2048,
            max_unrolled_statements: 2048,
        }
    }
}

impl DeviceLimits {
    /// Whether subgroup operations (`subgroupAdd`, ...) are available.
    pub fn subgroups(&self) -> bool {
        self.subgroup_size.is_some()
    }
}
