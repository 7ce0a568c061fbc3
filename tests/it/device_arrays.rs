//! Device arrays (`texpr_runtime::DeviceArray`) and programs launched on
//! them: a chain of launches gives the interpreter's result of the same
//! steps written as one program and reads nothing back before its end (the
//! device's transfer counters say so); a launch gives what a run gives,
//! loops and globals included; a run is an upload per input and one read of
//! its outputs; launches that never read keep the device's queue bounded;
//! arrays refuse what does not fit.

use texpr::{Options, ScheduleChoice};
use texpr_interp::{Value, random_inputs};
use texpr_ir::{ElemTy, Program};
use texpr_runtime::{DeviceArray, Gpu, HostBuffer, MAX_QUEUED, RuntimeError};
use texpr_tests::golden::repo_root;
use texpr_tests::gpu::{compare, from_host, gpu, reference, to_host};

/// A device of the test's own, so that its transfer counters count only
/// what the test does (the shared one serves every test thread).
fn own_device() -> Option<Gpu> {
    gpu()?;
    Some(Gpu::open_from_env().expect("the adapter opened before opens again"))
}

fn compiled(src: &str, defines: &[(&str, i64)], gpu: &Gpu) -> (Program, texpr::Module) {
    let overrides: Vec<(String, i64)> = defines.iter().map(|(n, v)| (n.to_string(), *v)).collect();
    let program = texpr_syntax::frontend(src, &overrides).expect("checks");
    let opts = Options {
        target: gpu.target().clone(),
        overrides,
        schedule: ScheduleChoice::Heuristic,
    };
    let module = texpr::compile(&program, &opts).expect("compiles").module;
    (program, module)
}

const STEP1: &str = "param R = 64\nparam C = 48\ninput x: f32[R * C]\n\
    output y: f32[R * C] = compute R * C |i| x[i] * 0.5 + 1.0\n";
const STEP2: &str = "param R = 64\nparam C = 48\ninput y: f32[R * C]\n\
    output z: f32[R] = compute R |r| reduce C |j| y[r * C + j] * y[r * C + j]\n";
/// The two steps as one program: the meaning the chain must have.
const BOTH: &str = "param R = 64\nparam C = 48\ninput x: f32[R * C]\n\
    let y = compute R * C |i| x[i] * 0.5 + 1.0\n\
    output z: f32[R] = compute R |r| reduce C |j| y[r * C + j] * y[r * C + j]\n";

#[test]
fn a_chain_on_device_arrays_gives_the_interpreters_result_and_reads_back_once() {
    let Some(gpu) = own_device() else { return };
    let (_, k1) = compiled(STEP1, &[], &gpu);
    let (_, k2) = compiled(STEP2, &[], &gpu);
    let (both, _) = compiled(BOTH, &[], &gpu);
    let (e1, e2) = (gpu.load(&k1).unwrap(), gpu.load(&k2).unwrap());
    let inputs = random_inputs(&both, 7);
    let want = reference(&both, &inputs).unwrap();

    let before = gpu.transfers();
    let x = gpu.upload_host(&to_host(&inputs[0])).unwrap();
    let y = gpu.launch(&e1, &[&x]).unwrap();
    let z = gpu.launch(&e2, &[&y[0]]).unwrap();
    let between = gpu.transfers();
    assert_eq!(between.reads, before.reads, "a read before the chain's end");
    assert_eq!(between.uploads, before.uploads + 1, "only x was uploaded");
    assert_eq!(between.launches, before.launches + 2);
    assert_eq!(z[0].shape(), &[64]);

    let got = gpu.read(&[&z[0]]).unwrap();
    let after = gpu.transfers();
    assert_eq!(after.reads, between.reads + 1);
    assert_eq!(after.read_bytes, between.read_bytes + 64 * 4);
    let checked = compare("z", &from_host(&got[0]), &want[0]).unwrap();
    assert_eq!(checked.compared, 64);
}

#[test]
fn a_launch_gives_what_a_run_gives() {
    let Some(gpu) = gpu() else { return };
    for (example, defines) in texpr_tests::gpu::RUN_SHAPES {
        let src = std::fs::read_to_string(repo_root().join("examples").join(example)).unwrap();
        let (program, module) = compiled(&src, defines, gpu);
        let exe = gpu.load(&module).unwrap();
        for seed in [1, 2] {
            let hosts: Vec<HostBuffer> =
                random_inputs(&program, seed).iter().map(to_host).collect();
            let ran = gpu.run(&module, &hosts).expect("runs").outputs;
            let arrays: Vec<DeviceArray> =
                hosts.iter().map(|h| gpu.upload_host(h).unwrap()).collect();
            let refs: Vec<&DeviceArray> = arrays.iter().collect();
            let outs = gpu.launch(&exe, &refs).unwrap();
            let launched = gpu.read(&outs.iter().collect::<Vec<_>>()).unwrap();
            assert_eq!(launched, ran, "{example}, seed {seed}");
            // Launched and read back in one submission: the same bytes.
            let outs: Vec<DeviceArray> = (exe.output_types())
                .map(|(elem, len)| gpu.zeros(elem, &[len]).unwrap())
                .collect();
            let mut bytes: Vec<Vec<u8>> =
                outs.iter().map(|o| vec![0; o.nbytes() as usize]).collect();
            let mut dst: Vec<&mut [u8]> = bytes.iter_mut().map(|b| b.as_mut_slice()).collect();
            gpu.launch_read(&exe, &refs, &outs.iter().collect::<Vec<_>>(), &mut dst)
                .unwrap();
            let want: Vec<Vec<u8>> = (ran.iter())
                .map(|h| h.data.iter().flat_map(|w| w.to_le_bytes()).collect())
                .collect();
            assert_eq!(bytes, want, "{example}, seed {seed}, launched and read");
        }
    }
}

#[test]
fn a_run_uploads_each_input_once_and_reads_its_outputs_once() {
    let Some(gpu) = own_device() else { return };
    let src = std::fs::read_to_string(repo_root().join("examples/saxpy.te")).unwrap();
    let (program, module) = compiled(&src, &[("N", 1000)], &gpu);
    let hosts: Vec<HostBuffer> = random_inputs(&program, 3).iter().map(to_host).collect();
    let before = gpu.transfers();
    let out = gpu.run(&module, &hosts).unwrap().outputs;
    let after = gpu.transfers();
    assert_eq!(after.uploads - before.uploads, 3);
    assert_eq!(
        after.upload_bytes - before.upload_bytes,
        (1 + 1000 + 1000) * 4
    );
    assert_eq!(after.reads - before.reads, 1);
    assert_eq!(after.read_bytes - before.read_bytes, 1000 * 4);
    let inputs: Vec<Value> = hosts.iter().map(from_host).collect();
    let want = reference(&program, &inputs).unwrap();
    compare("out", &from_host(&out[0]), &want[0]).unwrap();
}

#[test]
fn launches_that_never_read_keep_the_queue_bounded() {
    let Some(gpu) = own_device() else { return };
    // Each launch folds 4,096 terms per element, which the max drops (x is
    // never negative), so the values are x / 2 + 1, and a device that runs
    // submissions on its own queue falls behind the launches (lavapipe runs
    // each in the submitting thread).
    let src = "param N = 256\ninput x: f32[N]\noutput y: f32[N] = compute N |i| \
        max(x[i] * 0.5 + 1.0, -(reduce 16 |k| reduce N |j| x[(i + j + k) % N]))\n";
    let (_, module) = compiled(src, &[], &gpu);
    let exe = gpu.load(&module).unwrap();
    let mut x = gpu
        .upload(
            ElemTy::F32,
            &[256],
            &le_bytes([0f32; 256].map(f32::to_le_bytes)),
        )
        .unwrap();
    let steps = 3 * MAX_QUEUED as usize;
    for _ in 0..steps {
        x = gpu.launch(&exe, &[&x]).unwrap().remove(0);
        let queued = gpu.queued_submissions();
        assert!(queued <= MAX_QUEUED + 1, "{queued} submissions in flight");
    }
    // x <- x / 2 + 1 from 0 converges to 2; in f32 it is exactly 2 long before the end.
    let got = gpu.read(&[&x]).unwrap();
    assert_eq!(got[0].to_f32(), vec![2.0; 256]);
}

/// Elements as the host holds them: little-endian bytes.
fn le_bytes<const W: usize>(words: impl IntoIterator<Item = [u8; W]>) -> Vec<u8> {
    words.into_iter().flatten().collect()
}

#[test]
fn arrays_keep_their_bytes_and_shapes() {
    let Some(gpu) = gpu() else { return };
    // Five halves: ten bytes, padded to a word on the device.
    let halves: Vec<u16> = vec![0x3c00, 0x4000, 0xc200, 0x0001, 0x7bff];
    let bytes = le_bytes(halves.iter().map(|h| h.to_le_bytes()));
    let a = gpu.upload(ElemTy::F16, &[5], &bytes).unwrap();
    assert_eq!((a.len(), a.nbytes()), (5, 10));
    let mut back = vec![0u8; 10];
    gpu.read_into(&[&a], &mut [back.as_mut_slice()]).unwrap();
    assert_eq!(back, bytes);
    let host = gpu.read(&[&a]).unwrap();
    assert_eq!(
        host[0].data,
        halves.iter().map(|&h| u32::from(h)).collect::<Vec<_>>()
    );

    let ints: Vec<i32> = (0..12).map(|i| i * 7 - 40).collect();
    let m = gpu
        .upload(
            ElemTy::I32,
            &[3, 4],
            &le_bytes(ints.iter().map(|i| i.to_le_bytes())),
        )
        .unwrap();
    assert_eq!(m.shape(), &[3, 4]);
    let t = m.reshaped(&[4, 3]).unwrap();
    assert!(t.same_buffer(&m) && m.reshaped(&[5, 2]).is_none());
    assert_eq!(gpu.read(&[&t]).unwrap()[0].to_i32(), ints);
    assert_eq!(
        gpu.zeros(ElemTy::U32, &[2, 2])
            .map(|z| gpu.read(&[&z]).unwrap()[0].data.clone())
            .unwrap(),
        vec![0; 4]
    );
    match gpu.upload(ElemTy::F32, &[3], &[0u8; 8]) {
        Err(e @ RuntimeError::BadPlan(_)) => assert!(e.to_string().contains("8 bytes"), "{e}"),
        other => panic!("expected a refusal of 8 bytes for f32[3], got {other:?}"),
    }
}

#[test]
fn launches_refuse_arrays_that_do_not_fit() {
    let Some(gpu) = gpu() else { return };
    let src = std::fs::read_to_string(repo_root().join("examples/saxpy.te")).unwrap();
    let (_, module) = compiled(&src, &[("N", 64)], gpu);
    let exe = gpu.load(&module).unwrap();
    let f32s = |n: u64| gpu.zeros(ElemTy::F32, &[n]).unwrap();
    let (a, x, y) = (f32s(1), f32s(64), f32s(64));
    match gpu.launch(&exe, &[&a, &f32s(63), &y]) {
        Err(RuntimeError::InputMismatch {
            name, got_len: 63, ..
        }) => assert_eq!(name, "x"),
        other => panic!("expected InputMismatch, got {other:?}"),
    }
    match gpu.launch(&exe, &[&a, &x]) {
        Err(RuntimeError::InputCount {
            expected: 3,
            got: 2,
        }) => {}
        other => panic!("expected InputCount, got {other:?}"),
    }
    let ints = gpu.zeros(ElemTy::I32, &[64]).unwrap();
    match gpu.launch(&exe, &[&a, &ints, &y]) {
        Err(RuntimeError::InputMismatch {
            got_elem: ElemTy::I32,
            ..
        }) => {}
        other => panic!("expected InputMismatch, got {other:?}"),
    }
    // An output array that is also an input.
    let err = gpu.launch_into(&exe, &[&a, &x, &y], &[&y]).unwrap_err();
    assert!(err.to_string().contains("also an input"), "{err}");
    // Arrays and programs of another device.
    let other = Gpu::open_from_env().expect("the adapter opens again");
    let foreign = other.zeros(ElemTy::F32, &[64]).unwrap();
    let err = gpu.launch(&exe, &[&a, &foreign, &y]).unwrap_err();
    assert_eq!(err.code(), "E0417", "{err}");
    assert_eq!(
        other.launch(&exe, &[&a, &x, &y]).unwrap_err().code(),
        "E0417"
    );
    assert_eq!(other.read(&[&x]).unwrap_err().code(), "E0417");
    // Into arrays of the right type: the outputs land there.
    let filled = |v: f32, n: u64| {
        gpu.upload_host(&HostBuffer::from_f32(&vec![v; n as usize]))
            .unwrap()
    };
    let out = f32s(64);
    gpu.launch_into(
        &exe,
        &[&filled(2.0, 1), &filled(1.5, 64), &filled(-1.0, 64)],
        &[&out],
    )
    .unwrap();
    assert_eq!(gpu.read(&[&out]).unwrap()[0].to_f32(), vec![2.0; 64]);
}
