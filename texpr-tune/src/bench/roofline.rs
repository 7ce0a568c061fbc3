//! The roofline of `texprc bench`: the device's copy bandwidth and f32
//! multiply-add throughput, measured in the same run as the programs and by
//! the same harness, and each row's share of the limit that binds it.
//!
//! - copy bandwidth: `copy_buffer_to_buffer` of one large buffer into
//!   another, counted as its bytes read plus its bytes written (as the rows'
//!   GB/s count each input read once and each output written once);
//! - FMA throughput: `shaders/baselines/fma_peak.wgsl`, long independent
//!   chains of multiply-adds (two operations each), as the rows' GFLOP/s
//!   count a matmul's 2MNK.
//!
//! A row's roofline time is the larger of its bytes over the bandwidth and
//! its operations over the throughput (`texpr_opt::cost::min_bytes` and
//! `texpr_opt::cost::flops`); its share is that time over its measured one.

use super::suite::Scale;
use texpr_runtime::raw::baselines;
use texpr_runtime::{BufferPool, Gpu, RuntimeError, TimingPlan};

/// The measured limits, in GB/s and GFLOP/s.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Roofline {
    pub copy_gbs: f64,
    pub fma_gflops: f64,
    /// Bytes copied (the buffer's size).
    pub copy_bytes: u64,
    /// Whether the copy was timed by the GPU's timestamps (else wall clock).
    pub copy_by_timestamps: bool,
}

/// The limit that binds a row, and the row's share of it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Share {
    /// `copy` (bandwidth) or `fma` (arithmetic).
    pub limit: &'static str,
    /// Roofline time over the measured time, in percent.
    pub percent: f64,
}

/// (bytes copied, invocations, iterations) of the probes at `scale`.
fn probe_sizes(scale: Scale) -> (u64, u64, u64) {
    match scale {
        Scale::Cpu => (64 << 20, 1 << 16, 256),
        Scale::Gpu => (1 << 30, 1 << 21, 512),
    }
}

/// Measures both limits on `gpu`, the two probes interleaved.
pub fn measure(
    gpu: &Gpu,
    scale: Scale,
    warmups: usize,
    runs: usize,
) -> Result<Roofline, RuntimeError> {
    let (bytes, invocations, iterations) = probe_sizes(scale);
    let copy = gpu.prepare_copy(bytes)?;
    let fma = baselines::fma_peak(invocations, iterations)?;
    let fma = gpu.prepare_raw(&fma, &mut BufferPool::default())?;
    let plan = TimingPlan {
        warmups,
        runs,
        cutoff: None,
    };
    let mut timed = gpu.time(&[&copy, &fma], &plan).results.into_iter();
    let (Some(copy_t), Some(fma_t)) = (timed.next(), timed.next()) else {
        return Err(RuntimeError::BadPlan(
            "the roofline probes were not timed".into(),
        ));
    };
    let (copy_t, fma_t) = (copy_t?, fma_t?);
    let bytes = bytes.min(gpu.wgpu_limits().max_buffer_size) / 4 * 4;
    let flops = baselines::fma_flops(invocations, iterations) as f64;
    Ok(Roofline {
        copy_gbs: 2.0 * bytes as f64 / copy_t.primary().as_secs_f64() / 1e9,
        fma_gflops: flops / fma_t.primary().as_secs_f64() / 1e9,
        copy_bytes: bytes,
        copy_by_timestamps: copy_t.gpu().is_some(),
    })
}

impl Roofline {
    /// The line printed above the table.
    pub fn describe(&self) -> String {
        let by = match self.copy_by_timestamps {
            true => "timestamps",
            false => "wall clock",
        };
        format!(
            "roofline: copy {:.2} GB/s (copy_buffer_to_buffer of {} MiB, read + write, by {by}), \
             FMA {:.2} GFLOP/s (fma_peak)",
            self.copy_gbs,
            self.copy_bytes >> 20,
            self.fma_gflops
        )
    }

    /// The share of the binding limit a run of `secs` reaches for work of
    /// `flops` operations and `bytes` of traffic; `None` for no work.
    pub fn share(&self, flops: f64, bytes: f64, secs: f64) -> Option<Share> {
        let memory = bytes / (self.copy_gbs * 1e9);
        let arithmetic = flops / (self.fma_gflops * 1e9);
        let (limit, bound) = match memory >= arithmetic {
            true => ("copy", memory),
            false => ("fma", arithmetic),
        };
        (bound > 0.0 && secs > 0.0 && bound.is_finite()).then(|| Share {
            limit,
            percent: 100.0 * bound / secs,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_limit_that_binds_is_the_slower_one() {
        let r = Roofline {
            copy_gbs: 10.0,
            fma_gflops: 100.0,
            copy_bytes: 1 << 20,
            copy_by_timestamps: true,
        };
        // 1 GB at 10 GB/s is 0.1 s; 1 GFLOP at 100 GFLOP/s is 0.01 s.
        let s = r.share(1e9, 1e9, 0.2).unwrap();
        assert_eq!(s.limit, "copy");
        assert!((s.percent - 50.0).abs() < 1e-9, "{s:?}");
        // 100 GFLOP is 1 s: arithmetic binds.
        let s = r.share(100e9, 1e9, 4.0).unwrap();
        assert_eq!(s.limit, "fma");
        assert!((s.percent - 25.0).abs() < 1e-9, "{s:?}");
        assert_eq!(r.share(0.0, 0.0, 1.0), None);
        assert!(r.describe().contains("copy 10.00 GB/s"), "{}", r.describe());
        assert!(
            r.describe().contains("FMA 100.00 GFLOP/s"),
            "{}",
            r.describe()
        );
    }
}
