//! The wgpu runtime on hand-written WGSL: upload, dispatch, readback, kernel
//! sequences, folded dispatches, limits, and errors that come back as values.

use texpr_codegen::{Access, Binding, BufferId, BufferPlan, BufferRole, Kernel, Module};
use texpr_ir::ElemTy;
use texpr_ir::Span;
use texpr_runtime::{AdapterChoice, Gpu, HostBuffer, RuntimeError};
use texpr_tests::gpu::gpu;

fn buffer(name: &str, role: BufferRole, elem: ElemTy, len: u64) -> BufferPlan {
    BufferPlan {
        name: name.into(),
        role,
        elem,
        len,
        init: Vec::new(),
    }
}

/// A kernel binding buffer `k` at `@group(0) @binding(k)` for each `(buffer, access)`.
fn kernel(entry: &str, wg: [u32; 3], dispatch: [u32; 3], binds: &[(u32, Access)]) -> Kernel {
    let bindings = binds
        .iter()
        .enumerate()
        .map(|(k, &(b, access))| Binding {
            group: 0,
            binding: k as u32,
            buffer: BufferId(b),
            access,
            step: None,
        })
        .collect();
    Kernel {
        entry_point: entry.into(),
        workgroup_size: wg,
        dispatch,
        bindings,
        workgroup_storage_bytes: 0,
        span: Span::default(),
    }
}

const AXPB: &str = r#"
@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read_write> y: array<f32>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    if i < arrayLength(&y) { y[i] = 2.0 * x[i] + 1.0; }
}
"#;

fn axpb(n: u64) -> Module {
    Module {
        wgsl: AXPB.into(),
        enables: Vec::new(),
        uses: Vec::new(),
        buffers: vec![
            buffer("x", BufferRole::Input(0), ElemTy::F32, n),
            buffer("y", BufferRole::Output(0), ElemTy::F32, n),
        ],
        kernels: vec![kernel(
            "main",
            [64, 1, 1],
            [n.div_ceil(64) as u32, 1, 1],
            &[(0, Access::Read), (1, Access::ReadWrite)],
        )],
        loops: Vec::new(),
        kir: Vec::new(),
    }
}

#[test]
fn uploads_dispatches_and_reads_back() {
    let Some(gpu) = gpu() else { return };
    let x: Vec<f32> = (0..1000).map(|i| i as f32 * 0.5 - 100.0).collect();
    let r = gpu.run(&axpb(1000), &[HostBuffer::from_f32(&x)]).unwrap();
    assert_eq!(r.outputs.len(), 1);
    assert_eq!(r.outputs[0].elem, ElemTy::F32);
    let want: Vec<f32> = x.iter().map(|v| 2.0 * v + 1.0).collect();
    assert_eq!(r.outputs[0].to_f32(), want);
}

const TWO_STEPS: &str = r#"
@group(0) @binding(0) var<storage, read> a: array<i32>;
@group(0) @binding(1) var<storage, read_write> t: array<i32>;
@group(0) @binding(2) var<storage, read_write> o: array<i32>;
@compute @workgroup_size(32)
fn square(@builtin(global_invocation_id) gid: vec3<u32>) {
    if gid.x < 100u { t[gid.x] = a[gid.x] * a[gid.x]; }
}
@compute @workgroup_size(32)
fn reverse_plus(@builtin(global_invocation_id) gid: vec3<u32>) {
    if gid.x < 100u { o[gid.x] = t[99u - gid.x] + 1; }
}
@compute @workgroup_size(1)
fn total(@builtin(global_invocation_id) gid: vec3<u32>) {
    var s = 0;
    for (var i = 0u; i < 100u; i++) { s += t[i]; }
    o[100u + gid.x] = s;
}
"#;

#[test]
fn kernels_run_in_order_and_outputs_come_back_in_output_order() {
    let Some(gpu) = gpu() else { return };
    // Bindings of different kernels name different buffers for the same slots.
    let module = Module {
        wgsl: TWO_STEPS.into(),
        enables: Vec::new(),
        uses: Vec::new(),
        buffers: vec![
            buffer("sum", BufferRole::Output(1), ElemTy::I32, 101),
            buffer("a", BufferRole::Input(0), ElemTy::I32, 100),
            buffer("t", BufferRole::Scratch, ElemTy::I32, 100),
            buffer("o", BufferRole::Output(0), ElemTy::I32, 100),
        ],
        kernels: vec![
            kernel(
                "square",
                [32, 1, 1],
                [4, 1, 1],
                &[(1, Access::Read), (2, Access::ReadWrite)],
            ),
            kernel(
                "reverse_plus",
                [32, 1, 1],
                [4, 1, 1],
                &[
                    (1, Access::Read),
                    (2, Access::ReadWrite),
                    (3, Access::ReadWrite),
                ],
            ),
            // `total` sums what `reverse_plus` wrote (now at slot 1) into `sum[100]`.
            kernel(
                "total",
                [1, 1, 1],
                [1, 1, 1],
                &[
                    (1, Access::Read),
                    (3, Access::ReadWrite),
                    (0, Access::ReadWrite),
                ],
            ),
        ],
        loops: Vec::new(),
        kir: Vec::new(),
    };
    let a: Vec<i32> = (0..100).map(|i| i - 50).collect();
    let r = gpu.run(&module, &[HostBuffer::from_i32(&a)]).unwrap();
    let want: Vec<i32> = (0..100).map(|i| a[99 - i] * a[99 - i] + 1).collect();
    assert_eq!(r.outputs[0].to_i32(), want);
    let mut want_sum = vec![0; 101];
    want_sum[100] = want.iter().sum::<i32>();
    assert_eq!(r.outputs[1].to_i32(), want_sum);
}

const INCREMENT: &str = r#"
@group(0) @binding(0) var<storage, read_write> c: array<u32>;
@compute @workgroup_size(8)
fn bump(@builtin(global_invocation_id) gid: vec3<u32>) { c[gid.x] = c[gid.x] * 3u + 1u; }
"#;

#[test]
fn long_kernel_sequences_split_across_submits_keep_their_order() {
    let Some(gpu) = gpu() else { return };
    let steps = 45;
    let module = Module {
        wgsl: INCREMENT.into(),
        enables: Vec::new(),
        uses: Vec::new(),
        buffers: vec![buffer("c", BufferRole::Output(0), ElemTy::U32, 8)],
        kernels: (0..steps)
            .map(|_| kernel("bump", [8, 1, 1], [1, 1, 1], &[(0, Access::ReadWrite)]))
            .collect(),
        loops: Vec::new(),
        kir: Vec::new(),
    };
    let r = gpu.run(&module, &[]).unwrap();
    let want = (0..steps).fold(0u32, |c, _| c.wrapping_mul(3).wrapping_add(1));
    assert_eq!(r.outputs[0].to_u32(), vec![want; 8]);
}

const FOLDED: &str = r#"
@group(0) @binding(0) var<storage, read_write> o: array<u32>;
@compute @workgroup_size(4)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let group = wid.x + wid.y * 65535u + wid.z * 65535u * 3u;
    let i = group * 4u + lid;
    if i < arrayLength(&o) { o[i] = i ^ 0x5555u; }
}
"#;

#[test]
fn dispatches_beyond_65535_groups_fold_into_y_and_z() {
    let Some(gpu) = gpu() else { return };
    let groups: u64 = 65535 * 3 * 2 - 7; // needs x, y and z
    let n = groups * 4;
    let module = Module {
        wgsl: FOLDED.into(),
        enables: Vec::new(),
        uses: Vec::new(),
        buffers: vec![buffer("o", BufferRole::Output(0), ElemTy::U32, n)],
        kernels: vec![kernel(
            "main",
            [4, 1, 1],
            [65535, 3, 2],
            &[(0, Access::ReadWrite)],
        )],
        loops: Vec::new(),
        kir: Vec::new(),
    };
    let r = gpu.run(&module, &[]).unwrap();
    let out = r.outputs[0].to_u32();
    assert_eq!(out.len() as u64, n);
    let bad = out
        .iter()
        .enumerate()
        .find(|&(i, &v)| v != (i as u32) ^ 0x5555);
    assert_eq!(bad, None, "first wrong element");
}

fn max_invocations_wgsl(size: u32) -> String {
    format!(
        "@group(0) @binding(0) var<storage, read_write> o: array<u32>;\n\
         @compute @workgroup_size({size})\n\
         fn main(@builtin(local_invocation_index) lid: u32) {{ o[lid] = lid * 2u; }}\n"
    )
}

#[test]
fn a_workgroup_at_the_device_limit_runs() {
    let Some(gpu) = gpu() else { return };
    let limits = &gpu.target().limits;
    let size = limits
        .max_invocations_per_workgroup
        .min(limits.max_workgroup_size[0]);
    let module = Module {
        wgsl: max_invocations_wgsl(size),
        enables: Vec::new(),
        uses: Vec::new(),
        buffers: vec![buffer("o", BufferRole::Output(0), ElemTy::U32, size as u64)],
        kernels: vec![kernel(
            "main",
            [size, 1, 1],
            [1, 1, 1],
            &[(0, Access::ReadWrite)],
        )],
        loops: Vec::new(),
        kir: Vec::new(),
    };
    let r = gpu.run(&module, &[]).unwrap();
    let want: Vec<u32> = (0..size).map(|i| i * 2).collect();
    assert_eq!(r.outputs[0].to_u32(), want);
}

#[test]
fn an_over_limit_workgroup_is_an_error_and_the_device_survives() {
    let Some(gpu) = gpu() else { return };
    let size = gpu.target().limits.max_invocations_per_workgroup + 1;
    let module = Module {
        wgsl: max_invocations_wgsl(size),
        enables: Vec::new(),
        uses: Vec::new(),
        buffers: vec![buffer("o", BufferRole::Output(0), ElemTy::U32, size as u64)],
        kernels: vec![kernel(
            "main",
            [size, 1, 1],
            [1, 1, 1],
            &[(0, Access::ReadWrite)],
        )],
        loops: Vec::new(),
        kir: Vec::new(),
    };
    let err = gpu.run(&module, &[]).unwrap_err();
    assert!(
        matches!(
            err,
            RuntimeError::Pipeline { .. } | RuntimeError::ShaderModule(_)
        ),
        "{err}"
    );
    let x = [1.0f32, 2.0, 3.0];
    let r = gpu.run(&axpb(3), &[HostBuffer::from_f32(&x)]).unwrap();
    assert_eq!(r.outputs[0].to_f32(), vec![3.0, 5.0, 7.0]);
}

#[test]
fn invalid_wgsl_is_a_shader_module_error() {
    let Some(gpu) = gpu() else { return };
    let mut module = axpb(4);
    module.wgsl = "@compute @workgroup_size(1) fn main() { let x: f32 = 1u; }".into();
    let err = gpu
        .run(&module, &[HostBuffer::from_f32(&[0.0; 4])])
        .unwrap_err();
    assert!(matches!(err, RuntimeError::ShaderModule(_)), "{err}");
}

#[test]
fn a_missing_entry_point_is_a_pipeline_error() {
    let Some(gpu) = gpu() else { return };
    let mut module = axpb(4);
    module.kernels[0].entry_point = "nowhere".into();
    let err = gpu
        .run(&module, &[HostBuffer::from_f32(&[0.0; 4])])
        .unwrap_err();
    assert!(
        matches!(err, RuntimeError::Pipeline { ref entry_point, .. } if entry_point == "nowhere"),
        "{err}"
    );
}

#[test]
fn wrong_inputs_are_reported() {
    let Some(gpu) = gpu() else { return };
    let module = axpb(4);
    let err = gpu.run(&module, &[]).unwrap_err();
    assert_eq!(
        err,
        RuntimeError::InputCount {
            expected: 1,
            got: 0
        }
    );
    let err = gpu
        .run(&module, &[HostBuffer::from_f32(&[0.0; 5])])
        .unwrap_err();
    assert!(
        matches!(
            err,
            RuntimeError::InputMismatch {
                index: 0,
                expected_len: 4,
                got_len: 5,
                ..
            }
        ),
        "{err}"
    );
    let err = gpu
        .run(&module, &[HostBuffer::from_i32(&[0; 4])])
        .unwrap_err();
    assert!(
        matches!(
            err,
            RuntimeError::InputMismatch {
                got_elem: ElemTy::I32,
                ..
            }
        ),
        "{err}"
    );
}

#[test]
fn over_limit_buffers_and_dispatches_are_reported() {
    let Some(gpu) = gpu() else { return };
    let mut module = axpb(4);
    let huge = gpu.wgpu_limits().max_storage_buffer_binding_size / 4 + 1;
    module.buffers[1].len = huge;
    let err = gpu
        .run(&module, &[HostBuffer::from_f32(&[0.0; 4])])
        .unwrap_err();
    assert!(matches!(err, RuntimeError::BufferTooLarge { .. }), "{err}");
    let mut module = axpb(4);
    module.kernels[0].dispatch = [gpu.target().limits.max_workgroups_per_dimension + 1, 1, 1];
    let err = gpu
        .run(&module, &[HostBuffer::from_f32(&[0.0; 4])])
        .unwrap_err();
    assert!(
        matches!(err, RuntimeError::DispatchTooLarge { .. }),
        "{err}"
    );
}

#[test]
fn a_binding_to_a_missing_buffer_is_a_bad_plan() {
    let Some(gpu) = gpu() else { return };
    let mut module = axpb(4);
    module.kernels[0].bindings[1].buffer = BufferId(9);
    let err = gpu
        .run(&module, &[HostBuffer::from_f32(&[0.0; 4])])
        .unwrap_err();
    assert!(matches!(err, RuntimeError::BadPlan(_)), "{err}");
}

#[test]
fn runs_report_kernel_time_where_the_adapter_has_timestamps() {
    let Some(gpu) = gpu() else { return };
    let r = gpu
        .run(&axpb(4096), &[HostBuffer::from_f32(&[0.5; 4096])])
        .unwrap();
    assert_eq!(r.kernel_time.is_some(), gpu.has_timestamps(), "{r:?}");
    assert_eq!(r.outputs[0].to_f32(), vec![2.0; 4096]);
}

#[test]
fn bench_times_the_requested_runs() {
    let Some(gpu) = gpu() else { return };
    let timing = gpu
        .bench(&axpb(256), &[HostBuffer::from_f32(&[1.0; 256])], 2, 3)
        .unwrap();
    assert_eq!(timing.samples.len(), 3);
    assert!(!timing.cut);
    assert!(timing.samples.iter().all(|s| !s.wall.is_zero()));
    let stamped = timing.samples.iter().all(|s| s.gpu.is_some());
    assert_eq!(stamped, gpu.has_timestamps(), "{timing:?}");
}

#[test]
fn pipelines_are_cached_per_module_and_entry_point() {
    if gpu().is_none() {
        return;
    }
    // A private device, so that other tests do not change the count.
    let own = Gpu::open(&AdapterChoice::from_env()).unwrap();
    let x = HostBuffer::from_f32(&[1.0; 64]);
    own.run(&axpb(64), std::slice::from_ref(&x)).unwrap();
    assert_eq!(own.cached_pipelines(), 1);
    own.run(&axpb(64), std::slice::from_ref(&x)).unwrap();
    assert_eq!(own.cached_pipelines(), 1);
    let mut other = axpb(64);
    other.wgsl.push_str("\n// a different module\n");
    own.run(&other, &[x]).unwrap();
    assert_eq!(own.cached_pipelines(), 2);
}

#[test]
fn limits_come_from_the_adapter() {
    let Some(gpu) = gpu() else { return };
    let (l, w) = (&gpu.target().limits, gpu.wgpu_limits());
    assert_eq!(
        l.max_invocations_per_workgroup,
        w.max_compute_invocations_per_workgroup
    );
    assert_eq!(
        l.max_workgroup_storage_bytes,
        w.max_compute_workgroup_storage_size
    );
    assert_eq!(
        l.max_workgroups_per_dimension,
        w.max_compute_workgroups_per_dimension
    );
    assert_eq!(l.max_buffer_size, w.max_buffer_size);
    assert!(l.max_invocations_per_workgroup >= 256, "{l:?}");
    if let Some((lo, hi)) = gpu.target().features.subgroup_size {
        assert!(lo >= 1 && lo <= hi && hi <= 128, "{l:?}");
    }
    assert!(!gpu.info().name.is_empty());
}

/// The built-in `llvmpipe` target describes lavapipe as the runtime sees
/// it, so `compile --target llvmpipe` plans what `run` plans on lavapipe.
#[test]
fn the_llvmpipe_target_describes_lavapipe() {
    let Some(gpu) = gpu() else { return };
    if !gpu.info().name.to_lowercase().contains("llvmpipe") {
        return;
    }
    let mut seen = gpu.target().clone();
    seen.name = "llvmpipe".into();
    assert_eq!(seen, texpr_target::Target::builtin("llvmpipe").unwrap());
}

#[test]
fn adapter_choices_parse() {
    assert_eq!(AdapterChoice::parse(""), AdapterChoice::Default);
    assert_eq!(AdapterChoice::parse(" 1 "), AdapterChoice::Index(1));
    assert_eq!(
        AdapterChoice::parse("LLVMpipe"),
        AdapterChoice::Name("LLVMpipe".into())
    );
}

#[test]
fn an_unknown_adapter_name_lists_the_available_ones() {
    let err = Gpu::open(&AdapterChoice::Name("no such adapter 42".into())).unwrap_err();
    assert!(matches!(err, RuntimeError::AdapterNotFound { .. }), "{err}");
    let listed = Gpu::list_adapters();
    let text = err.to_string();
    assert!(listed.iter().all(|a| text.contains(&a.name)), "{text}");
}
