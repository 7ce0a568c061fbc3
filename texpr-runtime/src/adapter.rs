//! Choosing an adapter, opening a device on it, and describing it as a [`Target`].

use std::sync::{Arc, Mutex};

use texpr_target::{CoopMatrix, CoopScalar, DeviceKind, DeviceLimits, Features, Profile, Target};

use super::{ErrorSink, Gpu, RuntimeError, pipeline};

/// Which adapter to open.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub enum AdapterChoice {
    /// wgpu's high-performance choice (the first adapter if it has none).
    #[default]
    Default,
    /// The n-th adapter of [`Gpu::list_adapters`].
    Index(usize),
    /// The first adapter whose name contains this (case-insensitive).
    Name(String),
}

impl AdapterChoice {
    /// Reads a choice as written in `TEXPR_ADAPTER` or a flag: an index or a name part.
    pub fn parse(text: &str) -> AdapterChoice {
        let text = text.trim();
        if text.is_empty() {
            AdapterChoice::Default
        } else if let Ok(i) = text.parse::<usize>() {
            AdapterChoice::Index(i)
        } else {
            AdapterChoice::Name(text.to_string())
        }
    }

    /// The choice in the environment variable `TEXPR_ADAPTER`, or the default.
    pub fn from_env() -> AdapterChoice {
        std::env::var("TEXPR_ADAPTER")
            .map(|v| AdapterChoice::parse(&v))
            .unwrap_or_default()
    }
}

impl std::fmt::Display for AdapterChoice {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            AdapterChoice::Default => f.write_str("default"),
            AdapterChoice::Index(i) => write!(f, "{i}"),
            AdapterChoice::Name(n) => f.write_str(n),
        }
    }
}

/// What an adapter says about itself.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GpuInfo {
    pub name: String,
    pub backend: String,
    pub device_type: String,
    pub driver: String,
    pub driver_info: String,
}

impl GpuInfo {
    fn of(info: &wgpu::AdapterInfo) -> GpuInfo {
        GpuInfo {
            name: info.name.clone(),
            backend: format!("{:?}", info.backend),
            device_type: format!("{:?}", info.device_type),
            driver: info.driver.clone(),
            driver_info: info.driver_info.clone(),
        }
    }
}

impl std::fmt::Display for GpuInfo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} ({}, {}", self.name, self.backend, self.device_type)?;
        if !self.driver.is_empty() {
            write!(f, ", {} {}", self.driver, self.driver_info)?;
        }
        f.write_str(")")
    }
}

/// Adapters of the primary backends (Vulkan, Metal, DX12), or of all
/// backends when those have none; `WGPU_BACKEND` overrides both.
fn adapters() -> Vec<wgpu::Adapter> {
    let primary = enumerate(wgpu::Backends::PRIMARY);
    if primary.is_empty() {
        enumerate(wgpu::Backends::all())
    } else {
        primary
    }
}

fn enumerate(backends: wgpu::Backends) -> Vec<wgpu::Adapter> {
    let backends = backends.with_env();
    let mut desc = wgpu::InstanceDescriptor::new_without_display_handle_from_env();
    desc.backends = backends;
    let instance = wgpu::Instance::new(desc);
    pollster::block_on(instance.enumerate_adapters(backends))
}

/// Real GPUs first, then virtual ones, then CPU adapters.
fn preference(a: &wgpu::Adapter) -> u8 {
    match a.get_info().device_type {
        wgpu::DeviceType::DiscreteGpu => 0,
        wgpu::DeviceType::IntegratedGpu => 1,
        wgpu::DeviceType::VirtualGpu => 2,
        wgpu::DeviceType::Cpu => 3,
        wgpu::DeviceType::Other => 4,
    }
}

fn pick(choice: &AdapterChoice) -> Result<wgpu::Adapter, RuntimeError> {
    let adapters = adapters();
    let names = || {
        let list: Vec<String> = adapters
            .iter()
            .enumerate()
            .map(|(i, a)| format!("{i}: {}", GpuInfo::of(&a.get_info())))
            .collect();
        if list.is_empty() {
            "none".to_string()
        } else {
            list.join("; ")
        }
    };
    let not_found = || RuntimeError::AdapterNotFound {
        choice: choice.to_string(),
        available: names(),
    };
    let found = match choice {
        AdapterChoice::Default => {
            return adapters
                .iter()
                .min_by_key(|a| preference(a))
                .cloned()
                .ok_or_else(|| RuntimeError::NoAdapter(String::new()));
        }
        AdapterChoice::Index(i) => adapters.get(*i),
        AdapterChoice::Name(n) => {
            let n = n.to_lowercase();
            adapters
                .iter()
                .find(|a| a.get_info().name.to_lowercase().contains(&n))
        }
    };
    found.cloned().ok_or_else(not_found)
}

/// The device as the planner reads it, from the adapter's wgpu limits, the
/// features the device was opened with, and what the adapter says of itself.
fn device_target(
    l: &wgpu::Limits,
    info: &wgpu::AdapterInfo,
    features: wgpu::Features,
    coop: &[wgpu::CooperativeMatrixProperties],
) -> Target {
    let limits = DeviceLimits {
        max_workgroup_storage_bytes: l.max_compute_workgroup_storage_size,
        max_invocations_per_workgroup: l.max_compute_invocations_per_workgroup,
        max_workgroup_size: [
            l.max_compute_workgroup_size_x,
            l.max_compute_workgroup_size_y,
            l.max_compute_workgroup_size_z,
        ],
        max_workgroups_per_dimension: l.max_compute_workgroups_per_dimension,
        max_storage_buffers_per_stage: l.max_storage_buffers_per_shader_stage,
        max_storage_buffer_binding_size: l.max_storage_buffer_binding_size,
        max_buffer_size: l.max_buffer_size,
        max_loop_iterations: loop_limit(info),
        ..DeviceLimits::default()
    };
    let subgroups = features.contains(wgpu::Features::SUBGROUP);
    Target {
        name: info.name.clone(),
        limits,
        features: Features {
            subgroup_size: subgroups.then_some((info.subgroup_min_size, info.subgroup_max_size)),
            timestamps: features.contains(wgpu::Features::TIMESTAMP_QUERY),
            // Wide loads split a `u64` into its low and high `f32`s, the
            // little-endian order: a CPU device's memory is its host's.
            int64: features.contains(wgpu::Features::SHADER_INT64)
                && (info.device_type != wgpu::DeviceType::Cpu || cfg!(target_endian = "little")),
            shader_f16: features.contains(wgpu::Features::SHADER_F16),
            cooperative_matrix: match features
                .contains(wgpu::Features::EXPERIMENTAL_COOPERATIVE_MATRIX)
            {
                true => cooperative_matrices(coop),
                false => Vec::new(),
            },
            // wgpu compiles with naga, which wants `enable f16;` and
            // rejects `enable subgroups;`.
            enables: vec![
                texpr_target::Extension::F16,
                texpr_target::Extension::CooperativeMatrix,
            ],
        },
        profile: Profile {
            kind: match info.device_type {
                wgpu::DeviceType::DiscreteGpu => DeviceKind::DiscreteGpu,
                wgpu::DeviceType::IntegratedGpu => DeviceKind::IntegratedGpu,
                wgpu::DeviceType::VirtualGpu => DeviceKind::VirtualGpu,
                wgpu::DeviceType::Cpu => DeviceKind::Cpu,
                wgpu::DeviceType::Other => DeviceKind::Other,
            },
            vendor: vendor_name(info.vendor).to_string(),
            compute_units: None,
        },
    }
}

/// The adapter's cooperative-matrix configurations as target data, sorted.
fn cooperative_matrices(props: &[wgpu::CooperativeMatrixProperties]) -> Vec<CoopMatrix> {
    let scalar = |t: wgpu::CooperativeScalarType| match t {
        wgpu::CooperativeScalarType::F16 => CoopScalar::F16,
        wgpu::CooperativeScalarType::F32 => CoopScalar::F32,
        wgpu::CooperativeScalarType::I32 => CoopScalar::I32,
        wgpu::CooperativeScalarType::U32 => CoopScalar::U32,
    };
    let mut out: Vec<CoopMatrix> = (props.iter())
        .map(|p| CoopMatrix {
            m: p.m_size,
            n: p.n_size,
            k: p.k_size,
            ab: scalar(p.ab_type),
            cr: scalar(p.cr_type),
        })
        .collect();
    out.sort();
    out.dedup();
    out
}

/// wgpu's token for its `EXPERIMENTAL_*` features, enabled only to request
/// cooperative matrices on an adapter that lists configurations.
#[allow(unsafe_code)]
fn experimental_features(tensor_cores: bool) -> wgpu::ExperimentalFeatures {
    match tensor_cores {
        // SAFETY: the token states that we accept wgpu's experimental
        // cooperative-matrix implementation; texpr uses it only through
        // kernels naga validated, each with a configuration the adapter
        // lists (code generation checks the shape against this list).
        true => unsafe { wgpu::ExperimentalFeatures::enabled() },
        false => wgpu::ExperimentalFeatures::disabled(),
    }
}

/// The vendor of a PCI (or Khronos) vendor id, lower case; empty when unknown.
fn vendor_name(id: u32) -> &'static str {
    match id {
        0x10de => "nvidia",
        0x1002 => "amd",
        0x8086 => "intel",
        0x106b => "apple",
        0x13b5 => "arm",
        0x5143 => "qualcomm",
        0x10005 => "mesa",
        _ => "",
    }
}

/// Mesa's llvmpipe gives each shader invocation one budget of
/// `LP_MAX_TGSI_LOOP_ITERATIONS` (65,535) loop iterations for all its loops,
/// then leaves every loop early (measured: a 65,536-element sum came out wrong).
fn loop_limit(info: &wgpu::AdapterInfo) -> Option<u64> {
    info.name
        .to_lowercase()
        .contains("llvmpipe")
        .then_some(65_535)
}

impl Gpu {
    /// Every adapter wgpu finds, in the order [`AdapterChoice::Index`] counts.
    pub fn list_adapters() -> Vec<GpuInfo> {
        adapters()
            .iter()
            .map(|a| GpuInfo::of(&a.get_info()))
            .collect()
    }

    /// Opens a device on the chosen adapter with the adapter's own limits.
    pub fn open(choice: &AdapterChoice) -> Result<Gpu, RuntimeError> {
        let adapter = pick(choice)?;
        let raw_info = adapter.get_info();
        let info = GpuInfo::of(&raw_info);
        let wanted = wgpu::Features::SUBGROUP
            | wgpu::Features::TIMESTAMP_QUERY
            | wgpu::Features::TIMESTAMP_QUERY_INSIDE_ENCODERS
            | wgpu::Features::SHADER_INT64
            | wgpu::Features::SHADER_F16;
        let mut features = adapter.features() & wanted;
        // Tensor cores where the adapter lists configurations (wgpu's
        // experimental feature: requested only then).
        let coop = adapter.cooperative_matrix_properties();
        let coop_feature = wgpu::Features::EXPERIMENTAL_COOPERATIVE_MATRIX;
        let tensor_cores = !coop.is_empty() && adapter.features().contains(coop_feature);
        if tensor_cores {
            features |= coop_feature;
        }
        let wgpu_limits = adapter.limits();
        let desc = wgpu::DeviceDescriptor {
            label: Some("texpr"),
            required_features: features,
            required_limits: wgpu_limits.clone(),
            experimental_features: experimental_features(tensor_cores),
            ..Default::default()
        };
        let (device, queue) = pollster::block_on(adapter.request_device(&desc)).map_err(|e| {
            RuntimeError::RequestDevice {
                adapter: info.to_string(),
                message: e.to_string(),
            }
        })?;
        let sink = Arc::new(ErrorSink::default());
        install_handlers(&device, &sink);
        Ok(Gpu {
            choice: choice.clone(),
            target: device_target(&wgpu_limits, &raw_info, features, &coop),
            device,
            queue,
            info,
            wgpu_limits,
            sink,
            cache: Mutex::new(pipeline::Cache::default()),
            progress: Default::default(),
            counters: Default::default(),
            pool: Default::default(),
            serial: super::array::next_serial(),
        })
    }

    /// Opens the adapter named by `TEXPR_ADAPTER` (or the default one).
    pub fn open_from_env() -> Result<Gpu, RuntimeError> {
        Gpu::open(&AdapterChoice::from_env())
    }
}

/// Records device loss and errors outside any scope instead of panicking.
fn install_handlers(device: &wgpu::Device, sink: &Arc<ErrorSink>) {
    let lost = Arc::clone(sink);
    device.set_device_lost_callback(move |reason, message| {
        if let Ok(mut l) = lost.lost.lock() {
            *l = Some(format!("{reason:?}: {message}"));
        }
    });
    let uncaptured = Arc::clone(sink);
    device.on_uncaptured_error(Arc::new(move |e: wgpu::Error| {
        if let Ok(mut u) = uncaptured.uncaptured.lock() {
            u.push(super::scope::describe(&e));
        }
    }));
}
