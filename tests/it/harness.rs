//! The timing harness (`Gpu::prepare`, `Gpu::time`): sequences prepared on a
//! shared pool and timed round-robin, the GPU's timestamps inside the wall
//! clock's window, a far slower sequence cut after warm runs, the copy probe,
//! and a device lost mid-timing named by the sequence that found it.

use texpr::{Options, ScheduleChoice, compile_source};
use texpr_runtime::raw::baselines;
use texpr_runtime::{BufferPool, CUT_AFTER, Gpu, HostBuffer, TimingPlan};
use texpr_tests::gpu::gpu;

const CHAIN: &str = "param N = 65536
input x: f32[N]
output y: f32[N] = compute N |i| (x[i] * 2.0 + 1.0) * x[i] - 3.0";

fn compiled(gpu: &Gpu, schedule: ScheduleChoice) -> texpr_codegen::Module {
    let opts = Options {
        target: gpu.target().clone(),
        schedule,
        ..Options::default()
    };
    compile_source(CHAIN, &opts).unwrap().module
}

fn plan(warmups: usize, runs: usize, cutoff: Option<f64>) -> TimingPlan {
    TimingPlan {
        warmups,
        runs,
        cutoff,
    }
}

#[test]
fn schedules_share_one_pool_and_are_timed_round_robin() {
    let Some(gpu) = gpu() else { return };
    let x = HostBuffer::from_f32(&vec![0.5; 65536]);
    let mut pool = BufferPool::default();
    let prepared: Vec<_> = [ScheduleChoice::Default, ScheduleChoice::Heuristic]
        .into_iter()
        .map(|s| gpu.prepare(&compiled(gpu, s), std::slice::from_ref(&x), &mut pool))
        .collect::<Result<_, _>>()
        .unwrap();
    // One input and one output, held once for both schedules.
    assert_eq!(pool.len(), 2);
    let entries: Vec<_> = prepared.iter().collect();
    let timings = gpu.time(&entries, &plan(1, 4, None));
    assert_eq!(timings.lost_in, None);
    for t in timings.results {
        let t = t.unwrap();
        assert_eq!(t.samples.len(), 4);
        assert!(!t.cut);
        assert_eq!(t.gpu().is_some(), gpu.has_timestamps(), "{t:?}");
    }
}

/// The GPU's own time of a sequence lies inside the wall-clock window of
/// its submit and wait (a wrong timestamp period would break this).
#[test]
fn timestamps_fall_inside_the_wall_clock_window() {
    let Some(gpu) = gpu() else { return };
    if !gpu.has_timestamps() {
        return;
    }
    let fma = baselines::fma_peak(1 << 14, 64).unwrap();
    let prepared = gpu.prepare_raw(&fma, &mut BufferPool::default()).unwrap();
    let t = gpu.time_one(&prepared, 1, 5).unwrap();
    for s in &t.samples {
        let g = s.gpu.unwrap();
        assert!(!g.is_zero(), "{t:?}");
        assert!(g <= s.wall, "GPU time past the wall clock: {t:?}");
    }
}

/// A sequence thousands of times slower than another is timed no further
/// after a warm-up and `CUT_AFTER` timed runs; the fast one gets every run.
#[test]
fn a_far_slower_sequence_is_cut_after_warm_runs() {
    let Some(gpu) = gpu() else { return };
    let x = HostBuffer::from_f32(&vec![1.0; 4096]);
    let mut pool = BufferPool::default();
    let fast = gpu
        .prepare_raw(&baselines::axpb_vec4(4096, x).unwrap(), &mut pool)
        .unwrap();
    let slow = baselines::fma_peak(1 << 16, 1024).unwrap();
    let slow = gpu.prepare_raw(&slow, &mut pool).unwrap();
    let timings = gpu.time(&[&slow, &fast], &plan(2, 5, Some(4.0)));
    let [slow, fast] = [0, 1].map(|i| timings.results[i].clone().unwrap());
    assert!(slow.cut, "{slow:?}");
    assert_eq!(slow.samples.len(), CUT_AFTER, "{slow:?}");
    assert!(!fast.cut, "{fast:?}");
    assert_eq!(fast.samples.len(), 5);
    assert!(slow.primary() > fast.primary() * 4);
}

#[test]
fn the_copy_probe_is_timed_by_timestamps_where_the_device_can() {
    let Some(gpu) = gpu() else { return };
    let copy = gpu.prepare_copy(1 << 20).unwrap();
    let t = gpu.time_one(&copy, 1, 3).unwrap();
    assert_eq!(t.samples.len(), 3);
    assert_eq!(t.gpu().is_some(), gpu.has_encoder_timestamps(), "{t:?}");
    assert!(!t.primary().is_zero());
}

#[test]
fn a_device_lost_while_timing_is_named_by_the_sequence_that_found_it() {
    if gpu().is_none() {
        return;
    }
    let own = Gpu::open_from_env().unwrap();
    let x = HostBuffer::from_f32(&vec![0.5; 65536]);
    let mut pool = BufferPool::default();
    let a = own
        .prepare(
            &compiled(&own, ScheduleChoice::Default),
            std::slice::from_ref(&x),
            &mut pool,
        )
        .unwrap();
    let b = own
        .prepare(&compiled(&own, ScheduleChoice::Heuristic), &[x], &mut pool)
        .unwrap();
    own.destroy();
    let timings = own.time(&[&a, &b], &plan(1, 3, None));
    assert_eq!(timings.lost_in, Some(0));
    for r in timings.results {
        assert_eq!(r.unwrap_err().code(), "E0404");
    }
}
