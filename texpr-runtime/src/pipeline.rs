//! The pipeline cache: shader modules by WGSL hash, pipelines by (WGSL hash,
//! entry point, layout), each bounded: past [`Gpu::pipeline_limit`] entries
//! the least recently used goes, so a process compiling ever new programs
//! (a size each) keeps its memory flat. A pipeline still used by a loaded
//! module lives on with it; the cache just no longer finds it.

use std::hash::{DefaultHasher, Hash, Hasher};
use std::num::NonZeroUsize;
use std::sync::Arc;

use lru::LruCache;

use super::{Gpu, RuntimeError, scope::scoped};
use texpr_codegen::plan::{Access, Binding, Kernel};

/// Pipelines (and shader modules) a device keeps by default.
const PIPELINE_LIMIT: usize = 1024;

/// A compiled pipeline and the bind group layouts it was made with, indexed by group.
#[derive(Debug)]
pub(super) struct Pipeline {
    pub pipeline: wgpu::ComputePipeline,
    pub layouts: Vec<Option<wgpu::BindGroupLayout>>,
}

/// `(group, binding, read-only)` of every binding, sorted.
type LayoutKey = Vec<(u32, u32, bool)>;

#[derive(Debug)]
pub(super) struct Cache {
    modules: LruCache<u64, wgpu::ShaderModule>,
    pipelines: LruCache<(u64, String, LayoutKey), Arc<Pipeline>>,
}

impl Default for Cache {
    fn default() -> Cache {
        let cap = NonZeroUsize::new(PIPELINE_LIMIT).unwrap_or(NonZeroUsize::MIN);
        Cache {
            modules: LruCache::new(cap),
            pipelines: LruCache::new(cap),
        }
    }
}

impl Cache {
    pub fn len(&self) -> usize {
        self.pipelines.len()
    }
}

pub(super) fn wgsl_hash(wgsl: &str) -> u64 {
    let mut h = DefaultHasher::new();
    wgsl.hash(&mut h);
    h.finish()
}

fn layout_key(bindings: &[Binding]) -> LayoutKey {
    let mut key: LayoutKey = bindings
        .iter()
        .map(|b| (b.group, b.binding, b.access == Access::Read))
        .collect();
    key.sort();
    key
}

impl Gpu {
    /// How many pipelines (and shader modules) the device keeps for reuse.
    pub fn pipeline_limit(&self) -> usize {
        self.lock_cache().pipelines.cap().get()
    }

    /// Keeps at most `limit` pipelines and shader modules (at least one),
    /// dropping the least recently used beyond.
    pub fn set_pipeline_limit(&self, limit: usize) {
        let cap = NonZeroUsize::new(limit).unwrap_or(NonZeroUsize::MIN);
        let mut cache = self.lock_cache();
        cache.pipelines.resize(cap);
        cache.modules.resize(cap);
    }

    /// The pipeline for `kernel` of the module with source `wgsl`, from the cache or made now.
    pub(super) fn pipeline(
        &self,
        wgsl: &str,
        kernel: &Kernel,
    ) -> Result<Arc<Pipeline>, RuntimeError> {
        let hash = wgsl_hash(wgsl);
        let key = (
            hash,
            kernel.entry_point.clone(),
            layout_key(&kernel.bindings),
        );
        if let Some(p) = self.lock_cache().pipelines.get(&key) {
            return Ok(Arc::clone(p));
        }
        let module = self.module(hash, wgsl)?;
        let made = Arc::new(self.make_pipeline(&module, kernel, &key.2)?);
        self.lock_cache().pipelines.put(key, Arc::clone(&made));
        Ok(made)
    }

    fn lock_cache(&self) -> std::sync::MutexGuard<'_, Cache> {
        self.cache
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    fn module(&self, hash: u64, wgsl: &str) -> Result<wgpu::ShaderModule, RuntimeError> {
        if let Some(m) = self.lock_cache().modules.get(&hash) {
            return Ok(m.clone());
        }
        let desc = wgpu::ShaderModuleDescriptor {
            label: Some("texpr"),
            source: wgpu::ShaderSource::Wgsl(wgsl.into()),
        };
        let made = scoped(&self.device, || self.device.create_shader_module(desc));
        let module = self.checked(
            || "compiling the shader module".into(),
            made,
            RuntimeError::ShaderModule,
        )?;
        self.lock_cache().modules.put(hash, module.clone());
        Ok(module)
    }

    fn make_pipeline(
        &self,
        module: &wgpu::ShaderModule,
        kernel: &Kernel,
        key: &LayoutKey,
    ) -> Result<Pipeline, RuntimeError> {
        let fail = |message: String| RuntimeError::Pipeline {
            entry_point: kernel.entry_point.clone(),
            message,
        };
        let made = scoped(&self.device, || {
            let layouts = self.bind_group_layouts(key);
            let refs: Vec<Option<&wgpu::BindGroupLayout>> =
                layouts.iter().map(|l| l.as_ref()).collect();
            let layout = self
                .device
                .create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
                    label: Some(&kernel.entry_point),
                    bind_group_layouts: &refs,
                    immediate_size: 0,
                });
            let pipeline = self
                .device
                .create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                    label: Some(&kernel.entry_point),
                    layout: Some(&layout),
                    module,
                    entry_point: Some(&kernel.entry_point),
                    compilation_options: Default::default(),
                    cache: None,
                });
            Pipeline { pipeline, layouts }
        });
        let during = || format!("creating the pipeline of kernel `{}`", kernel.entry_point);
        self.checked(during, made, fail)
    }

    /// One layout per group index up to the highest used; `None` for unused groups.
    fn bind_group_layouts(&self, key: &LayoutKey) -> Vec<Option<wgpu::BindGroupLayout>> {
        let groups = key.iter().map(|k| k.0 + 1).max().unwrap_or(0);
        (0..groups)
            .map(|g| {
                let entries: Vec<wgpu::BindGroupLayoutEntry> = key
                    .iter()
                    .filter(|k| k.0 == g)
                    .map(|&(_, binding, read_only)| storage_entry(binding, read_only))
                    .collect();
                (!entries.is_empty()).then(|| {
                    self.device
                        .create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
                            label: None,
                            entries: &entries,
                        })
                })
            })
            .collect()
    }
}

fn storage_entry(binding: u32, read_only: bool) -> wgpu::BindGroupLayoutEntry {
    wgpu::BindGroupLayoutEntry {
        binding,
        visibility: wgpu::ShaderStages::COMPUTE,
        ty: wgpu::BindingType::Buffer {
            ty: wgpu::BufferBindingType::Storage { read_only },
            has_dynamic_offset: false,
            min_binding_size: None,
        },
        count: None,
    }
}
