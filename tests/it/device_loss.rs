//! Device loss and recovery, and runtime errors that keep their cause:
//! a lost device is reported as lost (E0404), never as the invalid buffers
//! that follow; `Gpu::reopen` gives a device the next run succeeds on, and
//! the test harness reopens by itself; wgpu's text stays whole in a note.

use texpr::{Options, compile_source};
use texpr_runtime::{Gpu, HostBuffer, RuntimeError};
use texpr_tests::gpu::{DeviceSlot, gpu};

const DOUBLE: &str = "input x: f32[64]\noutput y = compute 64 |i| x[i] * 2.0";

/// Compiles [`DOUBLE`] for `gpu` and runs it on `0, 1, 2, ...`.
fn run_double(gpu: &Gpu) -> Result<Vec<f32>, RuntimeError> {
    let opts = Options {
        target: gpu.target().clone(),
        ..Options::default()
    };
    let module = compile_source(DOUBLE, &opts).unwrap().module;
    let x: Vec<f32> = (0..64).map(|i| i as f32).collect();
    let r = gpu.run(&module, &[HostBuffer::from_f32(&x)])?;
    Ok(r.outputs[0].to_f32())
}

fn doubled() -> Vec<f32> {
    (0..64).map(|i| 2.0 * i as f32).collect()
}

/// A device of its own (not the shared one other tests use).
fn own_device() -> Option<Gpu> {
    gpu()?;
    Some(Gpu::open_from_env().expect("the adapter opened before opens again"))
}

#[test]
fn a_lost_device_is_reported_lost_and_a_reopened_one_runs() {
    let Some(own) = own_device() else { return };
    assert_eq!(run_double(&own).unwrap(), doubled());
    assert!(!own.is_lost());
    own.destroy();
    assert!(own.is_lost());
    let err = run_double(&own).unwrap_err();
    let RuntimeError::DeviceLost { during, reason } = &err else {
        panic!("not reported as a lost device: {err}");
    };
    assert_eq!(during, "starting a run");
    assert!(!reason.is_empty());
    let d = err.to_diagnostic();
    assert_eq!(d.code, "E0404");
    assert_eq!(d.message, "the device was lost while starting a run");
    assert!(d.notes[0].starts_with("wgpu reported: "), "{:?}", d.notes);
    // Still lost, and still reported as such (not as an invalid buffer).
    let again = run_double(&own).unwrap_err();
    assert_eq!(again.code(), "E0404", "{again}");
    let reopened = own.reopen().unwrap();
    assert!(!reopened.is_lost());
    assert_eq!(run_double(&reopened).unwrap(), doubled());
}

#[test]
fn the_test_harness_reopens_a_lost_device_and_goes_on() {
    let Some(own) = own_device() else { return };
    let slot = DeviceSlot::new(own);
    let first = slot.get();
    assert_eq!(run_double(first).unwrap(), doubled());
    first.destroy();
    let next = slot.get();
    assert!(
        !std::ptr::eq(first, next),
        "the lost device was handed out again"
    );
    assert_eq!(run_double(next).unwrap(), doubled());
    assert_eq!(run_double(first).unwrap_err().code(), "E0404");
    assert!(std::ptr::eq(slot.get(), next), "a healthy device is kept");
}

#[test]
fn a_rejected_shader_keeps_wgpus_text_whole_in_a_note() {
    let Some(gpu) = gpu() else { return };
    let mut module = compile_source(DOUBLE, &Options::default()).unwrap().module;
    module
        .wgsl
        .push_str("\nfn broken() -> f32 { return 1u; }\n");
    let err = gpu
        .run(&module, &[HostBuffer::from_f32(&[0.0; 64])])
        .unwrap_err();
    let text = err.wgpu_text().expect("wgpu's text").to_string();
    let d = err.to_diagnostic();
    assert_eq!(d.code, "E0406");
    assert_eq!(d.message, "the device rejected the shader module");
    assert_eq!(d.notes[0], format!("wgpu reported: {}", text.trim_end()));
    assert!(!d.message.contains(&text));
}

#[test]
fn runtime_errors_name_the_step_and_keep_wgpus_text() {
    // wgpu's own text for a wait on a failed submission ends without its
    // closing parenthesis; it is kept as it is, apart from texpr's words.
    let wgpu_text = "Tried to wait using a submission index (1) that has not been returned by a successful submission (last successful submission: 0";
    let err = RuntimeError::Execution {
        during: "running kernel `k0_y`".into(),
        message: wgpu_text.into(),
    };
    let d = err.to_diagnostic();
    assert_eq!(d.code, "E0413");
    assert_eq!(d.message, "running kernel `k0_y` failed");
    assert_eq!(d.notes, vec![format!("wgpu reported: {wgpu_text}")]);
    let lost = RuntimeError::DeviceLost {
        during: "creating the pipeline of kernel `k0_o0`".into(),
        reason: "Unknown: Unexpected error variant (driver implementation is at fault)".into(),
    };
    assert_eq!(
        lost.to_string(),
        "the device was lost while creating the pipeline of kernel `k0_o0` (wgpu: Unknown: Unexpected error variant (driver implementation is at fault))"
    );
    let buffer = RuntimeError::Buffer {
        name: "x0".into(),
        message: "Not enough memory left.".into(),
    };
    assert_eq!(buffer.code(), "E0416");
    assert_eq!(
        buffer.explanation(),
        "creating or filling buffer `x0` failed"
    );
}
