//! Resident buffers bound and read by range (what the block executor's
//! matrix allocations need): a module runs on ranges of two buffers at
//! 256 B offsets, leaves the rest untouched, and a misaligned range is a
//! runtime error, never a panic.

use std::time::Duration;
use texpr_codegen::BufferRole;
use texpr_ir::ElemTy;
use texpr_runtime::{BufferRange, DeviceArray, Gpu, HostBuffer, RuntimeError};
use texpr_tests::gpu::gpu;

fn read(gpu: &Gpu, range: BufferRange<'_>) -> Vec<f32> {
    let pending = gpu.start_read_range(range).unwrap();
    loop {
        if let Some(h) = gpu.finish_read(&pending).unwrap() {
            return h.to_f32();
        }
        std::thread::sleep(Duration::from_micros(200));
    }
}

#[test]
fn a_module_runs_on_ranges_of_buffers_at_aligned_offsets() {
    let Some(gpu) = gpu() else { return };
    let align = gpu.wgpu_limits().min_storage_buffer_offset_alignment as u64 / 4;
    assert!(
        align <= 64,
        "256 B slots suit this device ({align} elements)"
    );
    let opts = texpr::Options {
        target: gpu.target().clone(),
        ..texpr::Options::default()
    };
    let src = "input x: f32[64]\noutput y = compute 64 |i| 2.0 * x[i] + 1.0";
    let module = texpr::compile_source(src, &opts).unwrap().module;
    let prepared = gpu.prepare_resident(&module).unwrap();
    // x in the second 256 B slot of `a`, y into the third of `b`.
    let (a, b) = (
        gpu.zeros(ElemTy::F32, &[192]).unwrap(),
        gpu.zeros(ElemTy::F32, &[192]).unwrap(),
    );
    let x: Vec<f32> = (0..64).map(|i| i as f32 * 0.5).collect();
    gpu.write_host(&a, 64, &HostBuffer::from_f32(&x)).unwrap();
    let scratch: Vec<DeviceArray> = module
        .buffers
        .iter()
        .map(|p| gpu.zeros(p.elem, &[p.len]).unwrap())
        .collect();
    let bind = |x_at: u64| -> Vec<BufferRange<'_>> {
        module
            .buffers
            .iter()
            .zip(&scratch)
            .map(|(p, s)| match p.role {
                BufferRole::Input(_) => BufferRange {
                    buffer: &a,
                    offset: x_at,
                    len: 64,
                },
                BufferRole::Output(_) => BufferRange {
                    buffer: &b,
                    offset: 128,
                    len: 64,
                },
                _ => BufferRange::whole(s),
            })
            .collect()
    };
    let mut c = gpu.commands();
    c.dispatch_ranges(&prepared, &bind(64)).unwrap();
    c.submit().unwrap();
    let whole = read(gpu, BufferRange::whole(&b));
    let want: Vec<f32> = x.iter().map(|v| 2.0 * v + 1.0).collect();
    assert_eq!(&whole[128..], &want[..]);
    assert!(
        whole[..128].iter().all(|&v| v == 0.0),
        "only the range is written"
    );
    let y = read(
        gpu,
        BufferRange {
            buffer: &b,
            offset: 128,
            len: 64,
        },
    );
    assert_eq!(y, want);
    // One element off the alignment: refused before wgpu sees it.
    let mut c = gpu.commands();
    let err = c.dispatch_ranges(&prepared, &bind(65)).unwrap_err();
    assert!(matches!(err, RuntimeError::BadPlan(_)), "{err}");
    // A range past the end of its buffer, likewise.
    let err = gpu
        .start_read_range(BufferRange {
            buffer: &b,
            offset: 160,
            len: 64,
        })
        .unwrap_err();
    assert!(matches!(err, RuntimeError::BadPlan(_)), "{err}");
}

/// A block device's kernel reading one range of a buffer and writing another
/// of the same buffer (a factorization's tile made from tiles of its own
/// matrix), and a copy within one buffer: both through a temporary buffer
/// on the GPU, since WebGPU binds no buffer writable and readable at once
/// nor copies within one; the interpreter device gives the same values.
#[test]
fn block_devices_write_a_range_of_the_buffer_they_read() {
    use texpr_block::exec::device::gpu::GpuDevice;
    use texpr_block::exec::device::interp::InterpDevice;
    use texpr_block::exec::device::{Slice, TileDevice, heuristic};
    let src = "input x: f32[4]\ninput z: f32[4]\noutput y = compute 4 |i| x[i] * 2.0 + z[i]\n";
    let body = std::sync::Arc::new(texpr_syntax::frontend(src, &[]).unwrap());
    let run = |dev: &mut dyn TileDevice| -> Vec<f32> {
        let k = dev.compile(&body).unwrap();
        let b = dev.alloc(192).unwrap();
        let slot = |s: usize| Slice {
            buf: b,
            offset: 64 * s,
            len: 4,
        };
        dev.write(slot(0), &[1.0, 2.0, 3.0, 4.0]).unwrap();
        dev.write(slot(1), &[10.0, 20.0, 30.0, 40.0]).unwrap();
        dev.run(k, &[slot(0), slot(1)], slot(2)).unwrap();
        dev.copy(slot(2), slot(0)).unwrap();
        let r = dev.start_read(Slice::whole(b, 192)).unwrap();
        loop {
            if let Some(v) = dev.try_read(r).unwrap() {
                assert_eq!(dev.allocations(), 1);
                return v;
            }
            std::thread::sleep(Duration::from_micros(200));
        }
    };
    let mut interp = InterpDevice::new(&heuristic);
    let want = run(&mut interp);
    assert_eq!(&want[128..132], &[12.0, 24.0, 36.0, 48.0]);
    assert_eq!(&want[0..4], &want[128..132]);
    let Some(gpu) = gpu() else { return };
    let mut dev = GpuDevice::new(gpu, &heuristic);
    assert_eq!(run(&mut dev), want);
}
