//! The device's pool of buffers (`texpr-runtime/src/pool.rs`): the buffers
//! of dropped arrays and finished reads are made again for arrays of their
//! size, a reused buffer's old contents never show through (a launch's
//! outputs are written whole, `zeros` is never reused), and the pool holds
//! at most `POOL_BYTES` in `POOL_BUFFERS` however many sizes go through it.

use texpr::{Options, ScheduleChoice};
use texpr_interp::random_inputs;
use texpr_ir::ElemTy;
use texpr_runtime::{Gpu, POOL_BUFFERS, POOL_BYTES};
use texpr_tests::gpu::{compare, from_host, gpu, reference, to_host};

/// A device of the test's own, so that its pool holds only what the test
/// made (the shared one serves every test thread).
fn own_device() -> Option<Gpu> {
    gpu()?;
    Some(Gpu::open_from_env().expect("the adapter opened before opens again"))
}

const STEP: &str = "param N = 3000\ninput x: f32[N]\ninput s: f32[N]\n\
    output y: f32[N] = compute N |i| x[i] * s[i] + 1.0\n";

#[test]
fn dropped_arrays_are_made_again_and_their_old_values_never_show() {
    let Some(gpu) = own_device() else { return };
    let program = texpr_syntax::frontend(STEP, &[]).expect("checks");
    let opts = Options {
        target: gpu.target().clone(),
        overrides: Vec::new(),
        schedule: ScheduleChoice::Heuristic,
    };
    let module = texpr::compile(&program, &opts).expect("compiles").module;
    let exe = gpu.load(&module).unwrap();
    let start = gpu.pool_stats();
    for seed in 1..=6 {
        let inputs = random_inputs(&program, seed);
        let want = reference(&program, &inputs).unwrap();
        let x = gpu.upload_host(&to_host(&inputs[0])).unwrap();
        let s = gpu.upload_host(&to_host(&inputs[1])).unwrap();
        let y = gpu.launch(&exe, &[&x, &s]).unwrap();
        let got = gpu.read(&[&y[0]]).unwrap();
        let checked = compare("y", &from_host(&got[0]), &want[0]).unwrap();
        assert_eq!(checked.compared, 3000, "seed {seed}");
    }
    // From the second call on, both inputs, the output and the staging
    // buffer of the read come from the pool.
    let reused = gpu.pool_stats().reused - start.reused;
    assert!(reused >= 5 * 4, "{reused} buffers made again in 6 calls");

    // The pool now holds arrays of 3000 f32s with values in them: zeros
    // of that size are still zeros.
    assert!(gpu.pool_stats().buffers > 0);
    let z = gpu.zeros(ElemTy::F32, &[3000]).unwrap();
    let got = gpu.read(&[&z]).unwrap();
    assert!(got[0].to_f32().iter().all(|&v| v == 0.0));
}

#[test]
fn the_pool_holds_at_most_its_bound_over_many_sizes() {
    let Some(gpu) = own_device() else { return };
    let mut largest = 0;
    for k in 1..=160u64 {
        let len = k * 1000;
        let bytes = vec![7u8; (len * 4) as usize];
        let a = gpu.upload(ElemTy::U32, &[len], &bytes).unwrap();
        drop(a);
        largest = largest.max(gpu.pool_stats().bytes);
        assert!(gpu.pool_stats().buffers <= POOL_BUFFERS as u64);
    }
    // 160 sizes of 4 KB to 640 KB: 51 MB given back in all.
    assert!(
        largest > POOL_BYTES / 2,
        "the pool kept only {largest} bytes"
    );
    assert!(largest <= POOL_BYTES, "the pool kept {largest} bytes");
    gpu.free_pool();
    let after = gpu.pool_stats();
    assert_eq!((after.buffers, after.bytes), (0, 0));
    // An array larger than the pool's bound is never kept.
    let big = gpu.zeros(ElemTy::U32, &[POOL_BYTES / 4 + 1]).unwrap();
    drop(big);
    assert_eq!(gpu.pool_stats().bytes, 0);
}
