//! The hand-written WGSL baselines of `texprc bench --suite`
//! (`shaders/baselines/`, run through `texpr_runtime::raw`) compute
//! what they claim: each is checked against a plain-Rust reference at small,
//! uneven sizes; and the raw harness reports bad WGSL and bad bindings as errors.

use texpr_ir::ElemTy;
use texpr_runtime::raw::{RawBuffer, RawKernel, RawProgram, baselines};
use texpr_runtime::{HostBuffer, RuntimeError};
use texpr_tests::gpu::gpu;

/// Deterministic values in [-1, 1).
fn values(n: usize, seed: u64) -> Vec<f32> {
    let mut s = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    (0..n)
        .map(|_| {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((s >> 40) as f32 / (1u64 << 24) as f32) * 2.0 - 1.0
        })
        .collect()
}

const EPS: f64 = 1.0 / (1u64 << 24) as f64;

fn check_matmul(
    name: &str,
    make: fn([u64; 3], HostBuffer, HostBuffer) -> Result<RawProgram, RuntimeError>,
    [m, n, k]: [usize; 3],
) {
    let Some(gpu) = gpu() else { return };
    let a = values(m * k, 1);
    let b = values(k * n, 2);
    let program = make(
        [m as u64, n as u64, k as u64],
        HostBuffer::from_f32(&a),
        HostBuffer::from_f32(&b),
    )
    .unwrap();
    let result = gpu
        .run_raw(&program)
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    assert_eq!(result.outputs.len(), 1);
    let c = result.outputs[0].to_f32();
    assert_eq!(c.len(), m * n);
    for i in 0..m {
        for j in 0..n {
            let (mut exact, mut magnitude) = (0.0f64, 0.0f64);
            for p in 0..k {
                let t = f64::from(a[i * k + p]) * f64::from(b[p * n + j]);
                exact += t;
                magnitude += t.abs();
            }
            // A sequential f32 dot product of length k errs by at most k eps sum|a b|.
            let tol = (k as f64 + 1.0) * EPS * magnitude + 1e-30;
            let got = f64::from(c[i * n + j]);
            assert!(
                (got - exact).abs() <= tol,
                "{name} {m}x{n}x{k}: c[{i},{j}] = {got}, expected {exact} (tolerance {tol})"
            );
        }
    }
}

#[test]
fn matmul_naive_matches_the_reference() {
    check_matmul("matmul_naive", baselines::matmul_naive, [37, 45, 29]);
    check_matmul("matmul_naive", baselines::matmul_naive, [32, 16, 64]);
}

#[test]
fn matmul_tiled_matches_the_reference() {
    // Uneven edges in every dimension (partial tiles and a partial K step),
    // then exact tiles over several K steps.
    check_matmul("matmul_tiled", baselines::matmul_tiled, [70, 130, 35]);
    check_matmul("matmul_tiled", baselines::matmul_tiled, [128, 64, 48]);
    check_matmul("matmul_tiled", baselines::matmul_tiled, [1, 1, 1]);
}

#[test]
fn matmul_regk4_matches_the_reference() {
    check_matmul("matmul_regk4", baselines::matmul_regk4, [128, 64, 48]);
    check_matmul("matmul_regk4", baselines::matmul_regk4, [64, 192, 4]);
    // It takes whole 64 x 64 tiles and runs of 4 along K only.
    for mnk in [[70, 64, 48], [64, 64, 6]] {
        let (a, b) = (HostBuffer::from_f32(&[]), HostBuffer::from_f32(&[]));
        assert!(baselines::matmul_regk4(mnk, a, b).is_err(), "{mnk:?}");
    }
}

fn check_sum(n: usize) {
    let Some(gpu) = gpu() else { return };
    let x = values(n, 3);
    let program = baselines::sum_tree(n as u64, HostBuffer::from_f32(&x)).unwrap();
    let groups = program.buffers.iter().find_map(|b| match b {
        RawBuffer::Scratch { len, .. } => Some(*len),
        _ => None,
    });
    assert_eq!(
        groups,
        Some(
            (n as u64)
                .div_ceil(256)
                .min(u64::from(baselines::SUM_GROUPS))
        )
    );
    let result = gpu.run_raw(&program).unwrap();
    let got = f64::from(result.outputs[0].to_f32()[0]);
    let exact: f64 = x.iter().map(|&v| f64::from(v)).sum();
    let magnitude: f64 = x.iter().map(|&v| f64::from(v).abs()).sum();
    // Each invocation adds n / (256 G) elements in order, pass 2 adds G / 256
    // partials, and two trees add 8 levels each: no addition chain is longer.
    let groups = baselines::SUM_GROUPS as usize;
    let depth = n.div_ceil(256 * groups) + groups.div_ceil(256) + 16;
    let tol = depth as f64 * EPS * magnitude;
    assert!(
        (got - exact).abs() <= tol,
        "sum_tree of {n}: {got}, expected {exact} (tolerance {tol})"
    );
}

#[test]
fn sum_tree_matches_the_reference() {
    // One partial workgroup; several; and more elements than one grid-stride
    // sweep of SUM_GROUPS workgroups covers.
    check_sum(1);
    check_sum(1000);
    check_sum(256 * baselines::SUM_GROUPS as usize * 3 + 7);
}

#[test]
fn axpb_vec4_matches_the_reference() {
    let Some(gpu) = gpu() else { return };
    for n in [4usize, 1000, 4 * 256 * 3 + 4] {
        let x = values(n, 4);
        let program = baselines::axpb_vec4(n as u64, HostBuffer::from_f32(&x)).unwrap();
        let y = gpu.run_raw(&program).unwrap().outputs[0].to_f32();
        // 2x is exact, so 2x + 1 rounds once however the GPU fuses it.
        let expected: Vec<f32> = x.iter().map(|&v| v * 2.0 + 1.0).collect();
        assert_eq!(y, expected, "axpb_vec4 of {n}");
    }
}

#[test]
fn bench_raw_times_every_run() {
    let Some(gpu) = gpu() else { return };
    let x = values(1024, 5);
    let program = baselines::axpb_vec4(1024, HostBuffer::from_f32(&x)).unwrap();
    let timing = gpu.bench_raw(&program, 1, 3).unwrap();
    assert_eq!(timing.samples.len(), 3);
    assert!(timing.samples.iter().all(|s| !s.wall.is_zero()));
}

#[test]
fn fma_peak_settles_every_chain_at_two() {
    let Some(gpu) = gpu() else { return };
    let program = baselines::fma_peak(512, 40).unwrap();
    let out = gpu.run_raw(&program).unwrap().outputs[0].to_f32();
    // 16 chains x = 0.5 x + 1 from starts in [0, 4): within 2^-40 of 2
    // after 160 steps, each rounded to 2; their sum is 32.
    assert_eq!(out, vec![32.0; 512]);
    assert_eq!(baselines::fma_flops(512, 40), 2 * 64 * 512 * 40);
    let e = baselines::fma_peak(100, 40).unwrap_err();
    assert_eq!(e.code(), "E0410");
    assert!(e.to_string().contains("multiple of 256"), "{e}");
}

#[test]
fn baseline_sizes_are_checked() {
    let x = HostBuffer::from_f32(&[0.0; 6]);
    let e = baselines::axpb_vec4(6, x.clone()).unwrap_err();
    assert_eq!(e.code(), "E0410");
    assert!(e.to_string().contains("multiple of 4"), "{e}");
    let e = baselines::sum_tree(7, x.clone()).unwrap_err();
    assert!(e.to_string().contains("F32[7]"), "{e}");
    let e = baselines::matmul_naive([0, 2, 3], x.clone(), x).unwrap_err();
    assert!(e.to_string().contains("M = 0"), "{e}");
}

const COPY: &str = "
@group(0) @binding(0) var<storage, read> src: array<f32>;
@group(0) @binding(1) var<storage, read_write> dst: array<f32>;
@compute @workgroup_size(4)
fn main(@builtin(global_invocation_id) g: vec3<u32>) { dst[g.x] = src[g.x] + 1.0; }
";

fn copy_program(wgsl: &str, entry: &str, bindings: Vec<usize>) -> RawProgram {
    RawProgram {
        wgsl: wgsl.into(),
        buffers: vec![
            RawBuffer::Input(HostBuffer::from_f32(&[1.0, 2.0, 3.0, 4.0])),
            RawBuffer::Output {
                elem: ElemTy::F32,
                len: 4,
            },
        ],
        kernels: vec![RawKernel {
            entry: entry.into(),
            bindings,
            dispatch: [1, 1, 1],
        }],
    }
}

#[test]
fn raw_programs_take_their_layout_from_the_wgsl() {
    let Some(gpu) = gpu() else { return };
    let p = copy_program(COPY, "main", vec![0, 1]);
    let (module, inputs) = gpu.raw_plan(&p).unwrap();
    assert_eq!(inputs.len(), 1);
    let k = &module.kernels[0];
    assert_eq!(k.workgroup_size, [4, 1, 1]);
    assert_eq!(k.workgroup_storage_bytes, 0);
    // The tree sum's `var<workgroup> sums: array<f32, 256>`.
    let tree = baselines::sum_tree(1024, HostBuffer::from_f32(&[1.0; 1024])).unwrap();
    let (tree, _) = gpu.raw_plan(&tree).unwrap();
    assert_eq!(tree.kernels[0].workgroup_storage_bytes, 1024);
    let access: Vec<_> = k.bindings.iter().map(|b| (b.binding, b.access)).collect();
    assert_eq!(
        access,
        vec![
            (0, texpr_codegen::Access::Read),
            (1, texpr_codegen::Access::ReadWrite)
        ]
    );
    let out = gpu.run_raw(&p).unwrap().outputs[0].to_f32();
    assert_eq!(out, vec![2.0, 3.0, 4.0, 5.0]);
}

#[test]
fn bad_raw_programs_are_errors() {
    let Some(gpu) = gpu() else { return };
    let cases = [
        (
            copy_program("fn main( {", "main", vec![0, 1]),
            "E0406",
            "expected",
        ),
        (
            copy_program(
                &COPY.replace("src[g.x]", "src[g.x] + true"),
                "main",
                vec![0, 1],
            ),
            "E0406",
            "",
        ),
        (
            copy_program(COPY, "other", vec![0, 1]),
            "E0410",
            "no compute entry point",
        ),
        (
            copy_program(COPY, "main", vec![0]),
            "E0410",
            "uses binding 1 but only 1 are given",
        ),
        (
            copy_program(COPY, "main", vec![0, 7]),
            "E0410",
            "names buffer 7 of 2",
        ),
    ];
    for (p, code, text) in cases {
        let e = gpu.run_raw(&p).unwrap_err();
        assert_eq!(e.code(), code, "{e}");
        assert!(e.to_string().contains(text), "{e}");
    }
}
