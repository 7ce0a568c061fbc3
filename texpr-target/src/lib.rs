//! What texpr compiles for: a device's limits, features and profile, as data.
//!
//! A [`Target`] is what the optimizer plans within and what the code
//! generator checks every kernel against. It comes from one of three places:
//! a built-in description ([`Target::builtin`]: `wgpu-default`, `llvmpipe`,
//! `nvidia`), a text file (`texprc compile --target FILE`, read with
//! [`Target::parse`]), or the adapter the runtime opens. The text form is
//! one `key = value` a line (see [`text`]); [`Target`]'s `Display` writes it
//! and [`Target::parse`] reads it back.
//!
//! This crate sits below both the optimizer and the code generator and
//! depends on neither. Budgets live here once: the loop budget a driver
//! imposes ([`DeviceLimits::max_loop_iterations`]), the longest register
//! vector code generation unrolls ([`DeviceLimits::max_unrolled_elements`]),
//! and the per-invocation memory and unrolling budgets
//! ([`DeviceLimits::max_private_elements`],
//! [`DeviceLimits::max_unrolled_statements`]).
//!
//! Error codes (E0600-E0699, reading a target description):
//! - E0601 a line that is not `key = value`
//! - E0602 an unknown key
//! - E0603 a value that does not parse for its key
//! - E0604 a key given twice
//! - E0605 an unknown built-in target name

mod builtin;
pub mod coop;
pub mod text;

pub use coop::{CoopMatrix, CoopScalar};
pub use text::TargetError;

/// A device to compile for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Target {
    /// A short name for reports (`nvidia`, `llvmpipe`, an adapter's name).
    pub name: String,
    pub limits: DeviceLimits,
    pub features: Features,
    pub profile: Profile,
}

/// What a device allows. `Default` is wgpu's `Limits::default()` (the
/// portable WebGPU baseline) with texpr's own budgets.
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
    /// Loop iterations one invocation may run, all its loops together, where
    /// the driver cuts loops short: Mesa's llvmpipe (lavapipe) stops every
    /// loop of an invocation once 65,535 iterations have run in total, and the
    /// results are silently wrong. `None`: no such limit.
    pub max_loop_iterations: Option<u64>,
    /// The longest `let@reg` vector kept unrolled in registers (a register
    /// tile): code generation unrolls up to this many elements.
    pub max_unrolled_elements: u64,
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
            max_loop_iterations: None,
            max_unrolled_elements: 64,
            max_private_elements: 2048,
            max_unrolled_statements: 2048,
        }
    }
}

impl DeviceLimits {
    /// The widest one-dimensional workgroup: invocations per workgroup and
    /// the x size, whichever is smaller.
    pub fn max_group_width(&self) -> u64 {
        u64::from(
            self.max_invocations_per_workgroup
                .min(self.max_workgroup_size[0]),
        )
    }
}

/// Optional capabilities.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Features {
    /// Subgroup sizes `(min, max)` when subgroup operations are available
    /// (the runtime requests `wgpu::Features::SUBGROUP` where the adapter has
    /// it; lavapipe's size is 8). `None`: no subgroups, and neither
    /// `reduce@subgroup` nor `multipass ... combine=subgroup` compiles.
    pub subgroup_size: Option<(u32, u32)>,
    /// GPU timestamp queries (kernel times without submit overhead).
    pub timestamps: bool,
    /// 64-bit integers in shaders (`u64`, `wgpu::Features::SHADER_INT64`),
    /// which code generation uses only for a schedule's `loads=wide` (two
    /// `f32`s a 64-bit lane). The runtime reports none for a CPU device on
    /// a big-endian host: the split assumes little-endian memory.
    pub int64: bool,
    /// 16-bit floats in shaders and storage (`f16`,
    /// `wgpu::Features::SHADER_F16`): what a program with `f16` values needs
    /// (E0395 without it).
    pub shader_f16: bool,
    /// The cooperative-matrix configurations the device runs (tensor
    /// cores; [`coop`]): an adapter's list, filled by the runtime, or a
    /// built-in's. Empty: no `coop_mat` in any kernel.
    pub cooperative_matrix: Vec<CoopMatrix>,
    /// The language extensions the consumer of the WGSL wants declared
    /// with `enable NAME;` before the module uses them: Chromium's Tint
    /// requires `enable subgroups;`, which naga 30 (and so wgpu) rejects.
    /// Code generation prints a directive for each listed extension a
    /// module uses; validation is on the built module, so naga never
    /// parses one it rejects.
    pub enables: Vec<Extension>,
}

/// A WGSL language extension a module may need declared (`enable NAME;`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Extension {
    /// `subgroups`: `subgroupAdd`, `subgroupBroadcast`, `subgroup_size`, ...
    Subgroups,
    /// `f16`: the 16-bit float type.
    F16,
    /// `wgpu_cooperative_matrix`: `coop_mat8x8`, `coop_mat16x16`, their
    /// loads, stores and multiply-adds (naga's; native only).
    CooperativeMatrix,
}

impl Extension {
    pub const ALL: [Extension; 3] = [
        Extension::Subgroups,
        Extension::F16,
        Extension::CooperativeMatrix,
    ];

    /// The name in `enable NAME;` and in the text form.
    pub fn name(self) -> &'static str {
        match self {
            Extension::Subgroups => "subgroups",
            Extension::F16 => "f16",
            Extension::CooperativeMatrix => "wgpu_cooperative_matrix",
        }
    }
}

/// What kind of device it is, as far as choosing a schedule cares.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Profile {
    pub kind: DeviceKind,
    /// The vendor, lower case (`nvidia`, `amd`, `intel`, `mesa`, ...), or empty.
    pub vendor: String,
    /// Streaming multiprocessors / compute units, when known.
    pub compute_units: Option<u32>,
}

/// The device kinds wgpu reports.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum DeviceKind {
    /// Not known: treated as a GPU.
    #[default]
    Other,
    DiscreteGpu,
    IntegratedGpu,
    VirtualGpu,
    /// A CPU adapter (lavapipe, WARP, SwiftShader): per-invocation overhead
    /// and barriers dominate, so schedules give each invocation more work.
    Cpu,
}

impl DeviceKind {
    pub const ALL: [DeviceKind; 5] = [
        DeviceKind::Other,
        DeviceKind::DiscreteGpu,
        DeviceKind::IntegratedGpu,
        DeviceKind::VirtualGpu,
        DeviceKind::Cpu,
    ];

    /// The name in the text form.
    pub fn name(self) -> &'static str {
        match self {
            DeviceKind::Other => "other",
            DeviceKind::DiscreteGpu => "discrete-gpu",
            DeviceKind::IntegratedGpu => "integrated-gpu",
            DeviceKind::VirtualGpu => "virtual-gpu",
            DeviceKind::Cpu => "cpu",
        }
    }
}

impl Default for Target {
    /// `wgpu-default`.
    fn default() -> Target {
        builtin::wgpu_default()
    }
}

impl Target {
    /// The names of the built-in targets, in the order `texprc` lists them.
    pub const BUILTINS: [&'static str; 4] = ["wgpu-default", "webgpu", "llvmpipe", "nvidia"];

    /// A built-in target by name (E0605 for any other name).
    pub fn builtin(name: &str) -> Result<Target, TargetError> {
        match name {
            "wgpu-default" => Ok(builtin::wgpu_default()),
            "webgpu" => Ok(builtin::webgpu()),
            "llvmpipe" => Ok(builtin::llvmpipe()),
            "nvidia" => Ok(builtin::nvidia()),
            _ => Err(TargetError {
                line: 0,
                code: "E0605",
                message: format!(
                    "there is no built-in target `{name}` (the built-in targets: {})",
                    Target::BUILTINS.join(", ")
                ),
            }),
        }
    }

    /// Whether subgroup operations (`subgroupAdd`, ...) are available.
    pub fn subgroups(&self) -> bool {
        self.features.subgroup_size.is_some()
    }

    /// The subgroup width when the device has exactly one.
    pub fn subgroup_width(&self) -> Option<u64> {
        match self.features.subgroup_size? {
            (lo, hi) if lo == hi => Some(u64::from(lo)),
            _ => None,
        }
    }

    /// A CPU adapter (see [`DeviceKind::Cpu`]).
    pub fn cpu(&self) -> bool {
        self.profile.kind == DeviceKind::Cpu
    }
}
