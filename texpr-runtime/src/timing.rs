//! GPU timestamps around each compute pass, where the adapter has
//! `TIMESTAMP_QUERY`, and around copies in an encoder where it also has
//! `TIMESTAMP_QUERY_INSIDE_ENCODERS`. A [`Timer`] is reused run after run.

use std::sync::mpsc;
use std::time::Duration;

use super::{Gpu, RuntimeError, scope::scoped};

/// A query set with a begin and an end timestamp per pass, and buffers to read them.
#[derive(Debug)]
pub(super) struct Timer {
    set: wgpu::QuerySet,
    resolve: wgpu::Buffer,
    read: wgpu::Buffer,
    passes: u32,
}

impl Timer {
    /// The timestamp writes of pass `k`.
    pub fn writes(&self, k: usize) -> wgpu::ComputePassTimestampWrites<'_> {
        wgpu::ComputePassTimestampWrites {
            query_set: &self.set,
            beginning_of_pass_write_index: Some(2 * k as u32),
            end_of_pass_write_index: Some(2 * k as u32 + 1),
        }
    }

    /// Writes the begin (`end == false`) or end timestamp of span `k` in the
    /// encoder, outside any pass (needs [`Gpu::has_encoder_timestamps`]).
    pub fn write(&self, encoder: &mut wgpu::CommandEncoder, k: usize, end: bool) {
        encoder.write_timestamp(&self.set, 2 * k as u32 + u32::from(end));
    }

    /// Copies every timestamp out to the readable buffer (after the last pass).
    pub fn resolve(&self, encoder: &mut wgpu::CommandEncoder) {
        encoder.resolve_query_set(&self.set, 0..2 * self.passes, &self.resolve, 0);
        encoder.copy_buffer_to_buffer(&self.resolve, 0, &self.read, 0, self.bytes());
    }

    fn bytes(&self) -> u64 {
        2 * self.passes as u64 * wgpu::QUERY_SIZE as u64
    }
}

impl Gpu {
    /// Whether runs report [`super::RunResult::kernel_time`].
    pub fn has_timestamps(&self) -> bool {
        self.device
            .features()
            .contains(wgpu::Features::TIMESTAMP_QUERY)
    }

    /// Whether timestamps can be written between commands of an encoder (to
    /// time copies, which run outside compute passes).
    pub fn has_encoder_timestamps(&self) -> bool {
        self.device.features().contains(
            wgpu::Features::TIMESTAMP_QUERY | wgpu::Features::TIMESTAMP_QUERY_INSIDE_ENCODERS,
        )
    }

    /// A timer for `passes` compute passes, or `None` without timestamp queries.
    pub(super) fn timer(&self, passes: usize) -> Option<Timer> {
        let count = 2 * passes as u32;
        if !self.has_timestamps() || passes == 0 || count > wgpu::QUERY_SET_MAX_QUERIES {
            return None;
        }
        let set = self.device.create_query_set(&wgpu::QuerySetDescriptor {
            label: Some("texpr timestamps"),
            ty: wgpu::QueryType::Timestamp,
            count,
        });
        let size = count as u64 * wgpu::QUERY_SIZE as u64;
        let buffer = |usage| {
            self.device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("texpr timestamps"),
                size,
                usage,
                mapped_at_creation: false,
            })
        };
        let resolve = buffer(wgpu::BufferUsages::QUERY_RESOLVE | wgpu::BufferUsages::COPY_SRC);
        let read = buffer(wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST);
        Some(Timer {
            set,
            resolve,
            read,
            passes: passes as u32,
        })
    }

    /// [`Gpu::timer`] in an error scope.
    pub(super) fn made_timer(&self, passes: usize) -> Result<Option<Timer>, RuntimeError> {
        let during = || "creating the timestamp queries".to_string();
        let timer = scoped(&self.device, || self.timer(passes));
        self.checked(during, timer, |message| RuntimeError::Execution {
            during: during(),
            message,
        })
    }

    /// The summed duration of all timed passes, resolved by submission `last`.
    pub(super) fn read_timer(
        &self,
        timer: &Timer,
        last: &wgpu::SubmissionIndex,
    ) -> Result<Duration, RuntimeError> {
        let (tx, rx) = mpsc::channel();
        timer
            .read
            .slice(..)
            .map_async(wgpu::MapMode::Read, move |r| {
                let _ = tx.send(r);
            });
        let during = || "reading back the timestamps".to_string();
        self.wait(Some(last.clone()), during)?;
        let mapped = rx.recv().map_err(|e| e.to_string());
        let mapped = self.checked(during, mapped, RuntimeError::Readback)?;
        let mapped = mapped.map_err(|e| format!("timestamps: {e}"));
        self.checked(during, mapped, RuntimeError::Readback)?;
        let ticks: Vec<u64> = {
            let view = timer
                .read
                .slice(..)
                .get_mapped_range()
                .map_err(|e| RuntimeError::Readback(e.to_string()))?;
            bytemuck::pod_collect_to_vec(&view[..])
        };
        timer.read.unmap();
        let total: u64 = ticks.chunks(2).map(|p| p[1].saturating_sub(p[0])).sum();
        let nanos = total as f64 * self.queue.get_timestamp_period() as f64;
        Ok(Duration::from_nanos(nanos as u64))
    }
}
