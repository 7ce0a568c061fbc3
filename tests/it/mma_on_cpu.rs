//! Tensor-core (`mma`) kernels executed on a CPU device with cooperative
//! matrices (`tools/coop-device/setup`: lavapipe with 16-lane subgroups and
//! a Vulkan layer that emulates `VK_KHR_cooperative_matrix`), every element
//! compared with the interpreter.
//!
//! The device is another Vulkan driver than the suite's, chosen by the
//! environment of the Vulkan loader, so each test runs its body in a child
//! process of this test binary with the environment `TEXPR_COOP_DEVICE`
//! names (a file of `KEY=VALUE` lines). Without it the tests skip loudly, or
//! fail with `TEXPR_REQUIRE_GPU=1` (CI sets both).

use std::process::Command;

use texpr::{Options, Schedule, ScheduleChoice, compile};
use texpr_ir::{ElemTy, Program};
use texpr_runtime::raw::{RawBuffer, RawKernel, RawProgram};
use texpr_runtime::{Gpu, HostBuffer};
use texpr_tests::r#gen::Rng;
use texpr_tests::golden::repo_root;
use texpr_tests::gpu::{REQUIRE_VAR, check_program_with, gpu};

/// The file of `KEY=VALUE` lines that makes the Vulkan loader open the device.
const DEVICE_VAR: &str = "TEXPR_COOP_DEVICE";
/// Set in the child process that runs a test's body on the device.
const CHILD_VAR: &str = "TEXPR_COOP_CHILD";

/// Runs `body` on the cooperative-matrix device: in a child process of this
/// binary (running only the test `name` of this module) with the device's
/// environment; in that child, with the device.
fn on_coop_device(name: &str, body: impl FnOnce(&Gpu)) {
    if std::env::var_os(CHILD_VAR).is_some() {
        let gpu = gpu().expect("the cooperative-matrix device");
        let listed = &gpu.target().features.cooperative_matrix;
        assert!(
            !listed.is_empty(),
            "the device `{}` lists no cooperative matrices: is the layer loaded?",
            gpu.info().name
        );
        // llvmpipe compiles a kernel at its first dispatch, and the
        // emulation's multiply-adds make that minutes of LLVM on a loaded
        // machine: the runtime's watchdog (no progress for 120 s) would
        // call it hung.
        gpu.set_wait_limit(std::time::Duration::from_secs(1800));
        body(gpu);
        return;
    }
    let Some(file) = std::env::var_os(DEVICE_VAR) else {
        let why = format!(
            "{DEVICE_VAR} is not set: `export {DEVICE_VAR}=$(tools/coop-device/setup)` makes the device"
        );
        if std::env::var(REQUIRE_VAR).is_ok_and(|v| v == "1") {
            panic!("{REQUIRE_VAR}=1 and {why}");
        }
        eprintln!("  (mma_on_cpu test skipped: {why})");
        return;
    };
    let text = std::fs::read_to_string(&file)
        .unwrap_or_else(|e| panic!("{DEVICE_VAR}={}: {e}", file.to_string_lossy()));
    let mut child = Command::new(std::env::current_exe().expect("this test binary"));
    child.args([&format!("mma_on_cpu::{name}"), "--exact", "--nocapture"]);
    child
        .env(CHILD_VAR, "1")
        .env(REQUIRE_VAR, "1")
        .env_remove("TEXPR_ADAPTER");
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let (key, value) = line
            .split_once('=')
            .unwrap_or_else(|| panic!("{DEVICE_VAR}: not KEY=VALUE: {line}"));
        let value = match (key, std::env::var("LD_LIBRARY_PATH")) {
            ("LD_LIBRARY_PATH", Ok(old)) if !old.is_empty() => format!("{value}:{old}"),
            _ => value.to_string(),
        };
        child.env(key, value);
    }
    let out = child.output().expect("the child test process starts");
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    assert!(
        out.status.success(),
        "{name} on the cooperative-matrix device failed ({}):\n{stdout}\n{stderr}",
        out.status
    );
    // The child ran this very test (a filter that matched nothing also exits 0).
    assert!(
        stdout.contains("1 passed"),
        "{name}: the child ran no test:\n{stdout}"
    );
}

fn example(name: &str, overrides: &[(&str, i64)]) -> Program {
    let path = repo_root().join("examples").join(name);
    let src = std::fs::read_to_string(&path).unwrap();
    let overrides: Vec<(String, i64)> =
        overrides.iter().map(|(k, v)| (k.to_string(), *v)).collect();
    texpr_syntax::frontend(&src, &overrides).unwrap_or_else(|d| panic!("{name}: {d:?}"))
}

/// Compiles `p` under `schedule` (one `item: strategy` a line) for `gpu`,
/// asserts the module multiplies with cooperative matrices, runs it and
/// compares every element of every output with the interpreter.
fn check_mma(gpu: &Gpu, what: &str, p: &Program, schedule: &str) {
    let schedule: Schedule = schedule.parse().expect("a schedule");
    let choice = ScheduleChoice::Given(schedule);
    let opts = Options {
        target: gpu.target().clone(),
        overrides: Vec::new(),
        schedule: choice.clone(),
    };
    let compiled = compile(p, &opts).unwrap_or_else(|d| panic!("{what}: {d:?}"));
    let wgsl = &compiled.module.wgsl;
    assert!(
        wgsl.contains("coop_mat") && wgsl.contains("coopMultiplyAdd("),
        "{what}: the module holds no cooperative-matrix multiply-add"
    );
    let checks = check_program_with(gpu, p, 7, &choice).unwrap_or_else(|e| panic!("{what}: {e}"));
    checks
        .require_all_compared()
        .unwrap_or_else(|e| panic!("{what}: {e}"));
    eprintln!("  {what}: {} elements compared", checks.compared());
}

#[test]
fn mma_on_cpu_matmul_f16() {
    on_coop_device("mma_on_cpu_matmul_f16", |gpu| {
        // (M, N, K, block, group): two fragments per subgroup and a fold
        // that 32 does not divide (staged 16 at a time), one subgroup with
        // two fragments, 8x8 fragments, sixteen subgroups with one each,
        // and results the blocks do not divide (the edge blocks padded).
        for (m, n, k, block, group) in [
            (64, 96, 48, "32x32", 32),
            (32, 64, 32, "32x16", 16),
            (48, 32, 40, "8x8", 16),
            (64, 64, 32, "64x64", 256),
            (40, 56, 48, "32x32", 32),
            (20, 36, 16, "16x16", 16),
        ] {
            let p = example("matmul_f16.te", &[("M", m), ("N", n), ("K", k)]);
            let what = format!("matmul_f16 {m}x{n}x{k}, mma block={block} group={group}");
            check_mma(
                gpu,
                &what,
                &p,
                &format!("c: mma block={block} group={group}"),
            );
        }
    });
}

#[test]
fn mma_on_cpu_mlp_f16() {
    on_coop_device("mma_on_cpu_mlp_f16", |gpu| {
        // Both contractions in tensor cores, each with its epilogue: bias,
        // relu and the rounding to f16 of `h`; bias and rounding of `y`.
        let p = example("mlp_f16.te", &[("T", 32), ("D", 32), ("H", 64)]);
        check_mma(
            gpu,
            "mlp_f16 32x32x64",
            &p,
            "h: mma block=32x32 group=32\ny: mma block=16x16 group=16",
        );
        // Sizes no block divides, folds in 8x8x8 steps (24 and 40).
        let p = example("mlp_f16.te", &[("T", 20), ("D", 24), ("H", 40)]);
        let both = "h: mma block=16x16 group=16\ny: mma block=16x16 group=16";
        check_mma(gpu, "mlp_f16 20x24x40", &p, both);
    });
}

#[test]
fn mma_on_cpu_matmul_f32() {
    on_coop_device("mma_on_cpu_matmul_f32", |gpu| {
        // `16x16x16 f32>f32`: the f32 example in tensor cores.
        let p = example("matmul.te", &[("M", 32), ("N", 48), ("K", 32)]);
        check_mma(gpu, "matmul 32x48x32", &p, "c: mma block=16x16 group=16");
    });
}

/// Deterministic values in [-1, 1) with few bits, so that products and
/// their sums are exact in f32 whatever the order.
fn small_values(n: usize, seed: u64) -> Vec<f32> {
    let mut s = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..n)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            ((s >> 59) as f32 - 16.0) / 16.0
        })
        .collect()
}

/// The meaning of WGSL's cooperative-matrix builtins that texpr's kernels
/// rely on, on hand-written WGSL: `coopLoadT` of roles A, B and C reads
/// a 16x16 matrix row-major from element `offset` with rows `stride`
/// elements apart; `coopMultiplyAdd(a, b, c)` is `a b + c`; `coopStoreT`
/// writes row-major with its own stride. The minimal kernel that made the
/// unpatched emulation layer abort (docs/gpu-facts.md).
#[test]
fn mma_on_cpu_builtins_mean_row_major_a_times_b_plus_c() {
    on_coop_device(
        "mma_on_cpu_builtins_mean_row_major_a_times_b_plus_c",
        |gpu| {
            const S: usize = 16;
            // Each operand sits in a wider array: rows `stride` apart, from `offset`.
            let (a_stride, a_off, b_stride, b_off, c_stride, c_off, d_stride, d_off) =
                (20, 3, 17, 5, 16, 0, 24, 7);
            let wgsl = format!(
                "enable wgpu_cooperative_matrix;
@group(0) @binding(0) var<storage, read> a: array<f32>;
@group(0) @binding(1) var<storage, read> b: array<f32>;
@group(0) @binding(2) var<storage, read> c: array<f32>;
@group(0) @binding(3) var<storage, read_write> d: array<f32>;
@compute @workgroup_size(16)
fn main() {{
    let ma = coopLoadT<coop_mat16x16<f32,A>>(&a[{a_off}], {a_stride}u);
    let mb = coopLoadT<coop_mat16x16<f32,B>>(&b[{b_off}], {b_stride}u);
    let mc = coopLoadT<coop_mat16x16<f32,C>>(&c[{c_off}], {c_stride}u);
    coopStoreT(coopMultiplyAdd(ma, mb, mc), &d[{d_off}], {d_stride}u);
}}"
            );
            let len = |stride: usize, off: usize| off + (S - 1) * stride + S;
            let a = small_values(len(a_stride, a_off), 1);
            let b = small_values(len(b_stride, b_off), 2);
            let c = small_values(len(c_stride, c_off), 3);
            let d_len = len(d_stride, d_off);
            let program = RawProgram {
                wgsl,
                buffers: vec![
                    RawBuffer::Input(HostBuffer::from_f32(&a)),
                    RawBuffer::Input(HostBuffer::from_f32(&b)),
                    RawBuffer::Input(HostBuffer::from_f32(&c)),
                    RawBuffer::Output {
                        elem: ElemTy::F32,
                        len: d_len as u64,
                    },
                ],
                kernels: vec![RawKernel {
                    entry: "main".into(),
                    bindings: vec![0, 1, 2, 3],
                    dispatch: [1, 1, 1],
                }],
            };
            let d = gpu.run_raw(&program).expect("the kernel runs").outputs[0].to_f32();
            for i in 0..S {
                for j in 0..S {
                    let mut want = c[c_off + i * c_stride + j];
                    for k in 0..S {
                        want += a[a_off + i * a_stride + k] * b[b_off + k * b_stride + j];
                    }
                    // Sixteenths times sixteenths summed: exact in f32.
                    assert_eq!(d[d_off + i * d_stride + j], want, "d[{i}][{j}]");
                }
            }
            // Elements between the rows are not written.
            for (at, &v) in d.iter().enumerate() {
                let (row, col) = (
                    (at.wrapping_sub(d_off)) / d_stride,
                    (at.wrapping_sub(d_off)) % d_stride,
                );
                if at < d_off || row >= S || col >= S {
                    assert_eq!(v, 0.0, "d[{at}] lies outside the stored matrix");
                }
            }
        },
    );
}

/// A contraction drawn with `rng`: shapes, element types, the second
/// operand's layout and an epilogue, as TExpr source.
fn contraction(rng: &mut Rng) -> String {
    // Results of any size (blocks pad them); folds of whole 8x8x8 steps.
    let dims = [8, 12, 16, 20, 24, 32, 36, 48, 64];
    let folds = [8, 16, 24, 32, 48, 64];
    let (m, n, k) = (*rng.pick(&dims), *rng.pick(&dims), *rng.pick(&folds));
    let half = rng.below(3) != 0;
    let (elem, wide): (&str, fn(&str) -> String) = match half {
        true => ("f16", |x| format!("f32({x})")),
        false => ("f32", |x| x.to_string()),
    };
    let b_at = match rng.below(2) {
        0 => "b[k * N + j]",
        _ => "b[j * K + k]",
    };
    let fold = format!("reduce K |k| {} * {}", wide("a[i * K + k]"), wide(b_at));
    let (out, body) = match rng.below(5) {
        0 => ("f32", fold),
        1 => ("f32", format!("({fold}) + bias[j]")),
        2 => ("f32", format!("max(({fold}) * 0.5 + bias[j], 0.0)")),
        3 if half => ("f16", format!("f16(({fold}) + bias[j])")),
        _ => ("f32", format!("({fold}) - bias[i % N]")),
    };
    format!(
        "param M = {m}\nparam N = {n}\nparam K = {k}\ninput a: {elem}[M * K]\ninput b: {elem}[K * N]\ninput bias: f32[N]\noutput c: {out}[M * N] = compute M |i| compute N |j| {body}\n"
    )
}

/// An `mma` strategy for an `m x n` result of a `k`-long fold drawn with
/// `rng` among those whose blocks are no wider than the result (padded to
/// 8) and whose subgroups
/// take one or two fragments each (the emulation compiles a kernel whose
/// subgroups hold more in minutes), or `None` where no block fits.
fn mma_strategy(rng: &mut Rng, [m, n, k]: [u64; 3], subgroup: u64) -> Option<String> {
    let mut fitting = Vec::new();
    for (bm, bn) in [(8, 8), (16, 16), (16, 32), (32, 16), (32, 32), (16, 8)] {
        let Some(s) = [16, 8]
            .into_iter()
            .find(|s| bm % s == 0 && bn % s == 0 && k % s == 0)
        else {
            continue;
        };
        if bm > m.next_multiple_of(8) || bn > n.next_multiple_of(8) {
            continue;
        }
        for group in [subgroup, 2 * subgroup, 4 * subgroup] {
            let (frags, groups) = ((bm / s) * (bn / s), group / subgroup);
            if frags % groups == 0 && (1..=2).contains(&(frags / groups)) {
                fitting.push(format!("c: mma block={bm}x{bn} group={group}"));
            }
        }
    }
    (!fitting.is_empty()).then(|| rng.pick(&fitting).clone())
}

/// The differential test's draw for tensor cores: contractions of random
/// shapes, types and epilogues, each under a random `mma` block and
/// workgroup that fits, match the interpreter in every element.
/// `TEXPR_MMA_DIFF_N` programs (default 3) from seed `TEXPR_MMA_DIFF_SEED`.
#[test]
fn mma_on_cpu_differential_contractions() {
    on_coop_device("mma_on_cpu_differential_contractions", |gpu| {
        let var = |name: &str, default: u64| {
            std::env::var(name)
                .ok()
                .and_then(|v| v.trim().parse().ok())
                .unwrap_or(default)
        };
        let (first, want) = (var("TEXPR_MMA_DIFF_SEED", 0), var("TEXPR_MMA_DIFF_N", 3));
        let subgroup = match gpu.target().features.subgroup_size {
            Some((lo, hi)) if lo == hi => u64::from(lo),
            other => panic!("the device's subgroups are not of one size: {other:?}"),
        };
        let (mut ran, mut seed) = (0, first);
        while ran < want {
            assert!(
                seed < first + 50 * want,
                "too few contractions drawn fit an `mma` block"
            );
            let mut rng = Rng::new(seed);
            let src = contraction(&mut rng);
            let p = texpr_syntax::frontend(&src, &[]).unwrap_or_else(|d| panic!("{d:?}\n{src}"));
            let size = |name: &str| p.params.iter().find(|q| q.0 == name).map(|q| q.1 as u64);
            let shape = [size("M"), size("N"), size("K")].map(|v| v.expect("M, N and K"));
            if let Some(schedule) = mma_strategy(&mut rng, shape, subgroup) {
                check_mma(
                    gpu,
                    &format!("seed {seed}: {schedule}\n{src}"),
                    &p,
                    &schedule,
                );
                ran += 1;
            }
            seed += 1;
        }
    });
}
