//! The runtime's wait limit measures the device's progress, not the wall
//! clock since a submit (`texpr-codegen/src/runtime/progress.rs`): a run
//! queued behind another thread's work does not time out however long that
//! work holds the queue, as long as the device keeps finishing it; a
//! submission the device does not finish within the limit is still
//! reported (E0415), and the device runs again afterwards. Resident
//! buffers (what the block executor keeps its tiles in) run loops as a run
//! does.
//!
//! Each test opens a device of its own (the limits here are short), and
//! sizes its work by what one unit of it takes on this machine, so the
//! tests mean the same on a fast device and on a loaded two-core one.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};
use texpr_codegen::{Access, Binding, BufferId, BufferPlan, BufferRole, Kernel, Module};
use texpr_ir::ElemTy;
use texpr_ir::Span;
use texpr_runtime::{Gpu, HostBuffer, RuntimeError};
use texpr_tests::gpu::gpu;

/// Invocations of one spin dispatch (a workgroup of 64 each).
const SPIN_INVOCATIONS: u32 = 64 * 64;

/// Each invocation folds `iterations` dependent steps (under lavapipe's
/// 65,535 loop iterations an invocation) and stores the result: real work,
/// bounded.
fn spin(iterations: u32, invocations: u32) -> Module {
    let wgsl = format!(
        "@group(0) @binding(0) var<storage, read_write> o: array<f32>;\n\
         @compute @workgroup_size(64)\n\
         fn spin(@builtin(global_invocation_id) gid: vec3<u32>) {{\n\
         \x20   var x = f32(gid.x);\n\
         \x20   for (var i = 0u; i < {iterations}u; i++) {{ x = x * 0.999f + 1.0f; }}\n\
         \x20   o[gid.x] = x;\n\
         }}\n"
    );
    Module {
        wgsl,
        enables: Vec::new(),
        uses: Vec::new(),
        buffers: vec![BufferPlan {
            name: "o".into(),
            role: BufferRole::Output(0),
            elem: ElemTy::F32,
            len: invocations as u64,
            init: Vec::new(),
        }],
        kernels: vec![Kernel {
            entry_point: "spin".into(),
            workgroup_size: [64, 1, 1],
            dispatch: [invocations / 64, 1, 1],
            bindings: vec![Binding {
                group: 0,
                binding: 0,
                buffer: BufferId(0),
                access: Access::ReadWrite,
                step: None,
            }],
            workgroup_storage_bytes: 0,
            span: Span::default(),
        }],
        loops: Vec::new(),
        kir: Vec::new(),
    }
}

/// A small program of its own: `y = 2 x + 1` on 256 elements.
fn small(gpu: &Gpu) -> (Module, Vec<f32>, Vec<f32>) {
    let opts = texpr::Options {
        target: gpu.target().clone(),
        ..texpr::Options::default()
    };
    let src = "input x: f32[256]\noutput y = compute 256 |i| 2.0 * x[i] + 1.0";
    let module = texpr::compile_source(src, &opts).unwrap().module;
    let x: Vec<f32> = (0..256).map(|i| i as f32 * 0.25).collect();
    let y = x.iter().map(|v| 2.0 * v + 1.0).collect();
    (module, x, y)
}

/// A device of its own, when the tests have an adapter at all.
fn own_device() -> Option<Gpu> {
    gpu()?;
    Some(Gpu::open_from_env().expect("the adapter opened before opens again"))
}

/// Reads `buf` back, waiting (the device's work is bounded).
fn read(gpu: &Gpu, buf: &texpr_runtime::DeviceArray) -> Vec<f32> {
    let pending = gpu.start_read(buf).unwrap();
    loop {
        if let Some(h) = gpu.finish_read(&pending).unwrap() {
            return h.to_f32();
        }
        std::thread::sleep(Duration::from_micros(200));
    }
}

/// Another thread keeps the device busy, one bounded unit of work per
/// submission, for three times the wait limit; runs started meanwhile all
/// finish, right. Where a device queues submissions, each run waits behind
/// the neighbour's queued units (longer than the limit in all) and passes
/// because they keep completing; lavapipe executes one submission at a
/// time (a submit blocks while the one before it runs), so there each run
/// waits behind the unit in flight. The rule itself, with a clock of its
/// own, is tested in `progress.rs`.
#[test]
fn runs_while_another_thread_keeps_the_device_busy_do_not_time_out() {
    let Some(own) = own_device() else { return };
    let module = spin(60_000, SPIN_INVOCATIONS);
    let prepared = own.prepare_resident(&module).unwrap();
    let buf = own.zeros(ElemTy::F32, &[SPIN_INVOCATIONS as u64]).unwrap();
    let submit_spin = || {
        let mut c = own.commands();
        c.dispatch(&prepared, &[&buf]).unwrap();
        c.submit().unwrap();
    };
    // One unit of busy work, as the neighbour submits it: the fastest of
    // three batches of eight, per unit.
    let unit = (0..3)
        .map(|_| {
            let start = Instant::now();
            (0..8).for_each(|_| submit_spin());
            read(&own, &buf);
            start.elapsed() / 8
        })
        .min()
        .unwrap();
    // A limit far above one unit; three times the limit of work, at most.
    let limit = (unit * 20).max(Duration::from_millis(500));
    let units = (3 * limit.as_nanos() / unit.as_nanos().max(1)).clamp(3, 20_000) as usize;
    own.set_wait_limit(limit);
    let (small, x, want) = small(&own);
    let submitted = AtomicUsize::new(0);
    let stop = AtomicBool::new(false);
    let (started_tx, started_rx) = mpsc::channel();
    let runs: Vec<(usize, usize)> = std::thread::scope(|s| {
        let neighbour = s.spawn(|| {
            for k in 0..units {
                if stop.load(Ordering::Acquire) {
                    break;
                }
                submit_spin();
                submitted.store(k + 1, Ordering::Release);
                if k == 0 {
                    started_tx.send(()).unwrap();
                }
            }
            read(&own, &buf)
        });
        started_rx.recv().unwrap();
        let mut runs = Vec::new();
        for _ in 0..3 {
            let before = submitted.load(Ordering::Acquire);
            let r = own.run(&small, &[HostBuffer::from_f32(&x)]).unwrap_or_else(|e| {
                panic!("a run beside a neighbour's units of {unit:?} failed at a limit of {limit:?}: {e}")
            });
            assert_eq!(r.outputs[0].to_f32(), want);
            runs.push((before, submitted.load(Ordering::Acquire)));
        }
        stop.store(true, Ordering::Release);
        let busy = neighbour.join().unwrap();
        assert_eq!(busy.len(), SPIN_INVOCATIONS as usize);
        runs
    });
    // Every run started and ended while the neighbour was still submitting.
    for (before, after) in runs {
        assert!(
            before >= 1 && after < units,
            "a run between the neighbour's units {before} and {after} of {units}"
        );
    }
}

#[test]
fn a_submission_the_device_does_not_finish_in_time_is_reported() {
    let Some(own) = own_device() else { return };
    // A run of 60,000 steps in each of 16,384 invocations: far longer than
    // the 1 ms it is given, and bounded.
    let long = spin(60_000, 4 * SPIN_INVOCATIONS);
    own.set_wait_limit(Duration::from_millis(1));
    let err = own.run(&long, &[]).unwrap_err();
    assert!(matches!(err, RuntimeError::Timeout(_)), "{err}");
    let d = err.to_diagnostic();
    assert_eq!(d.code, "E0415");
    assert!(
        d.message.contains("running kernel `spin`") && d.message.contains("made no progress"),
        "{}",
        d.message
    );
    // The device finishes the work and runs again.
    own.set_wait_limit(texpr_runtime::WAIT_LIMIT);
    let (small, x, want) = small(&own);
    let r = own.run(&small, &[HostBuffer::from_f32(&x)]).unwrap();
    assert_eq!(r.outputs[0].to_f32(), want);
}

/// A module with a loop (`iterate`, its states alternating between two
/// buffers, its step counted in a buffer) runs on resident buffers as
/// `Gpu::run` runs it, bit for bit, and again on the same buffers.
#[test]
fn a_loop_runs_on_resident_buffers_as_in_a_run() {
    let Some(gpu) = gpu() else { return };
    let opts = texpr::Options {
        target: gpu.target().clone(),
        ..texpr::Options::default()
    };
    let src = "input b: f32[64]\n\
               output x = iterate 64 from fill(0.0, 64) |x, k| compute 64 |i| \
               select(i == k, (b[k] - (reduce k |p| 0.01 * f32(k - p) * x[p])) / 2.0, x[i])";
    let module = texpr::compile_source(src, &opts).unwrap().module;
    assert!(!module.loops.is_empty(), "the program loops");
    let b: Vec<f32> = (0..64).map(|i| (i as f32 * 0.37).sin()).collect();
    let want = gpu
        .run(&module, &[HostBuffer::from_f32(&b)])
        .unwrap()
        .outputs[0]
        .to_f32();
    let prepared = gpu.prepare_resident(&module).unwrap();
    let bufs: Vec<texpr_runtime::DeviceArray> = prepared
        .buffers()
        .iter()
        .map(|p| {
            let made = gpu.zeros(p.elem, &[p.len]).unwrap();
            if let BufferRole::Input(_) = p.role {
                gpu.write_host(&made, 0, &HostBuffer::from_f32(&b)).unwrap();
            }
            made
        })
        .collect();
    let out = prepared
        .buffers()
        .iter()
        .position(|p| matches!(p.role, BufferRole::Output(_)))
        .unwrap();
    for _ in 0..2 {
        let mut cmds = gpu.commands();
        cmds.dispatch(&prepared, &bufs.iter().collect::<Vec<_>>())
            .unwrap();
        cmds.submit().unwrap();
        let got = read(gpu, &bufs[out]);
        assert_eq!(
            got.iter().map(|x| x.to_bits()).collect::<Vec<_>>(),
            want.iter().map(|x| x.to_bits()).collect::<Vec<_>>()
        );
    }
}
