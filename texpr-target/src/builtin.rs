//! The built-in targets. Each is compiled for by naga's rules (wgpu's):
//! `enable f16;` where a module uses `f16`, no `enable subgroups;`.
//!
//! - `wgpu-default`: wgpu's `Limits::default()`, the portable WebGPU
//!   baseline every adapter meets; no subgroups, no timestamps. What
//!   `texprc compile` uses when no target or device is named.
//! - `llvmpipe`: Mesa's lavapipe (software Vulkan on the CPU) as wgpu 30
//!   reports it: 32 KiB of workgroup memory, 1024 invocations, subgroups of
//!   8, 64-bit integers, and the driver's loop budget of 65,535 iterations
//!   per invocation.
//! - `webgpu`: what a browser's WebGPU gives every page (Chromium's Tint
//!   consumes the WGSL): WebGPU's default limits (wgpu-default's), no
//!   64-bit integers, no subgroups (an adapter with them is a target file
//!   with `subgroup_size = MIN..MAX`, Chromium's minimum 4), and the
//!   directives Tint requires before use: `enable subgroups;`, `enable f16;`.
//! - `nvidia`: a generic discrete NVIDIA GPU with the limits of an H100
//!   through Vulkan (`../shared/perf/h100/`): 48 KiB of workgroup memory,
//!   1024 invocations, workgroups of 1024 x 1024 x 64, 65,535 groups per
//!   dimension, storage bindings and buffers up to 4 GiB - 1 (a 1 GiB buffer
//!   binds and runs), subgroups of 32, timestamps, 64-bit integers, 132 SMs,
//!   and its driver's cooperative-matrix configurations.

use crate::{DeviceKind, DeviceLimits, Extension, Features, Profile, Target};

pub fn wgpu_default() -> Target {
    Target {
        name: "wgpu-default".into(),
        limits: DeviceLimits::default(),
        features: Features {
            enables: vec![Extension::F16, Extension::CooperativeMatrix],
            ..Features::default()
        },
        profile: Profile::default(),
    }
}

pub fn webgpu() -> Target {
    Target {
        name: "webgpu".into(),
        limits: DeviceLimits::default(),
        features: Features {
            subgroup_size: None,
            timestamps: false,
            int64: false,
            // SwiftShader, Chromium's adapter, has no `shader-f16`.
            shader_f16: false,
            // WebGPU has no cooperative matrices.
            cooperative_matrix: Vec::new(),
            enables: vec![Extension::Subgroups, Extension::F16],
        },
        profile: Profile::default(),
    }
}

pub fn llvmpipe() -> Target {
    Target {
        name: "llvmpipe".into(),
        limits: DeviceLimits {
            max_workgroup_storage_bytes: 32768,
            max_invocations_per_workgroup: 1024,
            max_workgroup_size: [1024, 1024, 1024],
            max_workgroups_per_dimension: 65535,
            max_storage_buffers_per_stage: 32,
            max_storage_buffer_binding_size: 128 << 20,
            max_buffer_size: (2 << 30) - 1,
            max_loop_iterations: Some(65_535),
            max_unrolled_elements: 64,
            ..DeviceLimits::default()
        },
        features: Features {
            subgroup_size: Some((8, 8)),
            timestamps: true,
            int64: true,
            shader_f16: true,
            cooperative_matrix: Vec::new(),
            enables: vec![Extension::F16, Extension::CooperativeMatrix],
        },
        profile: Profile {
            kind: DeviceKind::Cpu,
            vendor: "mesa".into(),
            compute_units: None,
        },
    }
}

pub fn nvidia() -> Target {
    Target {
        name: "nvidia".into(),
        limits: DeviceLimits {
            max_workgroup_storage_bytes: 49152,
            max_invocations_per_workgroup: 1024,
            max_workgroup_size: [1024, 1024, 64],
            max_workgroups_per_dimension: 65535,
            max_storage_buffers_per_stage: 96,
            max_storage_buffer_binding_size: u64::from(u32::MAX),
            max_buffer_size: u64::from(u32::MAX),
            max_loop_iterations: None,
            max_unrolled_elements: 64,
            ..DeviceLimits::default()
        },
        features: Features {
            subgroup_size: Some((32, 32)),
            timestamps: true,
            int64: true,
            shader_f16: true,
            cooperative_matrix: h100_cooperative_matrices(),
            enables: vec![Extension::F16, Extension::CooperativeMatrix],
        },
        profile: Profile {
            kind: DeviceKind::DiscreteGpu,
            vendor: "nvidia".into(),
            compute_units: Some(132),
        },
    }
}

/// The cooperative-matrix configurations of an H100 through Vulkan, as
/// wgpu 30 keeps them (subgroup scope; M, N and K each 8 or 16; element
/// types f16, f32, i32, u32): NVIDIA's `VK_KHR_cooperative_matrix` lists
/// `16x16x16` and `16x8x16`, `16x8x8` with f16 operands and an f16 or f32
/// accumulator for Ampere and Hopper (the Vulkan hardware database's
/// reports of the 5xx drivers; its 8-bit integer and bf16 entries wgpu
/// drops). `texprc target` on the adapter prints the list the driver
/// reports; the next GPU sitting checks this one against it.
fn h100_cooperative_matrices() -> Vec<crate::CoopMatrix> {
    crate::coop::parse_list(
        "16x16x16 f16>f16, 16x16x16 f16>f32, 16x8x16 f16>f16, 16x8x16 f16>f32, \
         16x8x8 f16>f16, 16x8x8 f16>f32",
    )
    .expect("a valid list")
}
