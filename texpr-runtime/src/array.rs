//! Device arrays: typed, shaped arrays that live on a device.
//!
//! A [`DeviceArray`] is a storage buffer of `len` elements of one element
//! type, with a shape whose product is `len` (row-major, as numpy's C
//! order). Cloning one clones the handle, not the data: clones share the
//! buffer, which goes back to the device's pool when the last handle is
//! dropped (module `pool`: the next array of its size takes it; the device
//! frees it once the work that uses it is done).
//!
//! - [`Gpu::upload`] makes one from host bytes (the element bytes as numpy
//!   holds them: `f16` two bytes each, every other type four), copied once
//!   into wgpu's staging memory; the copy to the buffer lands before the
//!   next submission runs, so nothing waits;
//! - [`Gpu::read_into`] and [`Gpu::read`] bring arrays back to the host: the
//!   one step that waits (for the work that writes them, and the copy);
//! - a compiled program takes arrays as inputs and gives arrays as outputs
//!   (module `launch`), so chained calls never touch the host;
//! - [`Gpu::transfers`] counts what crossed between host and device, so a
//!   test can assert that a chain read nothing back before its end.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Weak};

use super::buffers::byte_size;
use super::pool::Pool;
use super::{Gpu, HostBuffer, RuntimeError, scope::scoped};
use texpr_ir::ElemTy;

/// An array on a device: a buffer, its element type and its shape.
#[derive(Clone, Debug)]
pub struct DeviceArray {
    buf: Arc<ArrayBuffer>,
    shape: Vec<u64>,
}

#[derive(Debug)]
struct ArrayBuffer {
    buffer: wgpu::Buffer,
    /// The serial number of the device that made the buffer (arrays are
    /// not shared between devices).
    device: u64,
    elem: ElemTy,
    len: u64,
    /// Where the buffer goes when the last handle is dropped (module `pool`).
    pool: Weak<Pool>,
}

impl Drop for ArrayBuffer {
    fn drop(&mut self) {
        if let Some(pool) = self.pool.upgrade() {
            pool.give(self.buffer.clone());
        }
    }
}

/// What a new array's buffer holds.
#[derive(Clone, Copy, Debug)]
pub(super) enum Contents<'b> {
    /// Zeros: a new buffer, never one from the pool.
    Zeros,
    /// These bytes (written before any use).
    Bytes(&'b [u8]),
    /// Anything: the launch it is made for writes it whole.
    Written,
}

impl DeviceArray {
    /// The element type.
    pub fn elem(&self) -> ElemTy {
        self.buf.elem
    }

    /// The shape (row-major); its product is [`DeviceArray::len`].
    pub fn shape(&self) -> &[u64] {
        &self.shape
    }

    /// Elements.
    pub fn len(&self) -> u64 {
        self.buf.len
    }

    pub fn is_empty(&self) -> bool {
        self.buf.len == 0
    }

    /// Bytes of the elements on the host (`f16` two each, the rest four).
    pub fn nbytes(&self) -> u64 {
        self.buf.len * self.buf.elem.bytes()
    }

    /// Bytes its buffer takes on the device (every element a 32-bit word).
    pub fn device_bytes(&self) -> u64 {
        byte_size(self.buf.elem, self.buf.len)
    }

    /// The same data seen with another shape of the same number of
    /// elements (no copy), or `None` when the counts differ.
    pub fn reshaped(&self, shape: &[u64]) -> Option<DeviceArray> {
        let count = shape.iter().try_fold(1u64, |n, &d| n.checked_mul(d))?;
        (count == self.buf.len).then(|| DeviceArray {
            buf: Arc::clone(&self.buf),
            shape: shape.to_vec(),
        })
    }

    /// Whether both handles share one buffer.
    pub fn same_buffer(&self, other: &DeviceArray) -> bool {
        Arc::ptr_eq(&self.buf, &other.buf)
    }

    pub(super) fn buffer(&self) -> &wgpu::Buffer {
        &self.buf.buffer
    }

    /// Whether `gpu`'s device made this array.
    pub fn is_on(&self, gpu: &Gpu) -> bool {
        self.buf.device == gpu.serial
    }
}

/// What crossed between host and device on one [`Gpu`] since it opened:
/// every upload (inputs of [`Gpu::run`], [`Gpu::rerun`], [`Gpu::upload`],
/// writes of resident buffers) and every read back to the host.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Transfers {
    pub uploads: u64,
    pub upload_bytes: u64,
    pub reads: u64,
    pub read_bytes: u64,
    /// Programs launched on device arrays ([`Gpu::launch`], and every run
    /// made of one).
    pub launches: u64,
}

/// The counters behind [`Gpu::transfers`].
#[derive(Debug, Default)]
pub(super) struct Counters {
    uploads: AtomicU64,
    upload_bytes: AtomicU64,
    reads: AtomicU64,
    read_bytes: AtomicU64,
    launches: AtomicU64,
}

impl Counters {
    pub fn uploaded(&self, bytes: u64) {
        self.uploads.fetch_add(1, Ordering::Relaxed);
        self.upload_bytes.fetch_add(bytes, Ordering::Relaxed);
    }

    pub fn read(&self, bytes: u64) {
        self.reads.fetch_add(1, Ordering::Relaxed);
        self.read_bytes.fetch_add(bytes, Ordering::Relaxed);
    }

    pub fn launched(&self) {
        self.launches.fetch_add(1, Ordering::Relaxed);
    }
}

/// A new device's serial number.
pub(super) fn next_serial() -> u64 {
    static NEXT: AtomicU64 = AtomicU64::new(1);
    NEXT.fetch_add(1, Ordering::Relaxed)
}

const ARRAY_USAGE: wgpu::BufferUsages = wgpu::BufferUsages::STORAGE
    .union(wgpu::BufferUsages::COPY_DST)
    .union(wgpu::BufferUsages::COPY_SRC);

/// What a read back copies into and maps.
const STAGING_USAGE: wgpu::BufferUsages =
    wgpu::BufferUsages::MAP_READ.union(wgpu::BufferUsages::COPY_DST);

impl Gpu {
    /// What crossed between host and device so far (see [`Transfers`]).
    pub fn transfers(&self) -> Transfers {
        let c = &self.counters;
        Transfers {
            uploads: c.uploads.load(Ordering::Relaxed),
            upload_bytes: c.upload_bytes.load(Ordering::Relaxed),
            reads: c.reads.load(Ordering::Relaxed),
            read_bytes: c.read_bytes.load(Ordering::Relaxed),
            launches: c.launches.load(Ordering::Relaxed),
        }
    }

    /// What the device's pool of buffers holds and has given out again.
    pub fn pool_stats(&self) -> crate::PoolStats {
        self.pool.stats()
    }

    /// Frees the buffers the pool holds (arrays alive keep theirs).
    pub fn free_pool(&self) {
        self.pool.clear();
    }

    /// A zeroed array of `elem` with `shape`.
    pub fn zeros(&self, elem: ElemTy, shape: &[u64]) -> Result<DeviceArray, RuntimeError> {
        self.check_health()?;
        self.new_array("array", elem, shape, Contents::Zeros)
    }

    /// An array of `elem` with `shape` holding `bytes`, the elements as the
    /// host holds them (`f16` two bytes each, every other type four; row-major).
    pub fn upload(
        &self,
        elem: ElemTy,
        shape: &[u64],
        bytes: &[u8],
    ) -> Result<DeviceArray, RuntimeError> {
        self.check_health()?;
        self.new_array("array", elem, shape, Contents::Bytes(bytes))
    }

    /// A one-dimensional array holding a host buffer's elements.
    pub fn upload_host(&self, host: &HostBuffer) -> Result<DeviceArray, RuntimeError> {
        self.check_health()?;
        self.host_array("array", host)
    }

    /// A one-dimensional array holding a host buffer's elements; errors name `name`.
    pub(super) fn host_array(
        &self,
        name: &str,
        host: &HostBuffer,
    ) -> Result<DeviceArray, RuntimeError> {
        let bytes = host.bytes();
        let len = host.len() as u64;
        self.new_array(
            name,
            host.elem,
            &[len],
            Contents::Bytes(&bytes[..element_bytes(host.elem, len)]),
        )
    }

    /// Overwrites `dst`'s elements with `bytes` (as [`Gpu::upload`] takes
    /// them); the write lands before the next submission runs, after the
    /// work submitted before it.
    pub fn write_array(&self, dst: &DeviceArray, bytes: &[u8]) -> Result<(), RuntimeError> {
        self.on_device(dst)?;
        let want = element_bytes(dst.elem(), dst.len());
        if bytes.len() != want {
            return Err(RuntimeError::BadPlan(format!(
                "{} bytes written to an array of {} ({want} bytes)",
                bytes.len(),
                describe(dst.elem(), dst.shape())
            )));
        }
        let written = scoped(&self.device, || self.write_bytes(dst.buffer(), bytes));
        let during = || "writing an array".to_string();
        self.checked(during, written, |message| RuntimeError::Buffer {
            name: "array".into(),
            message,
        })
    }

    /// A new array holding `contents`, its buffer from the pool where the
    /// contents allow; errors name `name`.
    pub(super) fn new_array(
        &self,
        name: &str,
        elem: ElemTy,
        shape: &[u64],
        contents: Contents<'_>,
    ) -> Result<DeviceArray, RuntimeError> {
        // The bytes to write, and whether a buffer from the pool will do.
        let (bytes, reusable) = match contents {
            Contents::Zeros => (None, false),
            Contents::Bytes(b) => (Some(b), true),
            Contents::Written => (None, true),
        };
        let len = shape
            .iter()
            .try_fold(1u64, |n, &d| n.checked_mul(d))
            .ok_or_else(|| RuntimeError::BadPlan(format!("an array of shape {shape:?}")))?;
        if let Some(b) = bytes
            && (b.len() as u64) != len.saturating_mul(elem.bytes())
        {
            return Err(RuntimeError::BadPlan(format!(
                "{} bytes given for an array of {}",
                b.len(),
                describe(elem, shape)
            )));
        }
        let size = byte_size(elem, len);
        let limit = self.wgpu_limits.max_buffer_size;
        if size > limit {
            return Err(RuntimeError::BufferTooLarge {
                name: name.into(),
                bytes: size,
                limit,
                limit_name: "max_buffer_size",
            });
        }
        let reused = reusable
            .then(|| self.pool.take(size, ARRAY_USAGE))
            .flatten();
        let buffer = self.made_buffer(name, || {
            let buffer = reused.unwrap_or_else(|| {
                self.device.create_buffer(&wgpu::BufferDescriptor {
                    label: Some(name),
                    size,
                    usage: ARRAY_USAGE,
                    mapped_at_creation: false,
                })
            });
            if let Some(b) = bytes {
                self.write_bytes(&buffer, b);
            }
            buffer
        })?;
        Ok(DeviceArray {
            buf: Arc::new(ArrayBuffer {
                buffer,
                device: self.serial,
                elem,
                len,
                pool: Arc::downgrade(&self.pool),
            }),
            shape: shape.to_vec(),
        })
    }

    /// Queues a write of `bytes` at the start of `buffer`: whole words as
    /// they are, a last partial word padded with zeros (wgpu writes words).
    fn write_bytes(&self, buffer: &wgpu::Buffer, bytes: &[u8]) {
        let whole = bytes.len() / 4 * 4;
        if whole > 0 {
            self.queue.write_buffer(buffer, 0, &bytes[..whole]);
        }
        if whole < bytes.len() {
            let mut tail = [0u8; 4];
            tail[..bytes.len() - whole].copy_from_slice(&bytes[whole..]);
            self.queue.write_buffer(buffer, whole as u64, &tail);
        }
        self.counters.uploaded(bytes.len() as u64);
    }

    /// Fails unless this device made `a`.
    pub(super) fn on_device(&self, a: &DeviceArray) -> Result<(), RuntimeError> {
        if a.is_on(self) {
            return Ok(());
        }
        Err(RuntimeError::OtherDevice(describe(a.elem(), a.shape())))
    }

    /// Reads arrays back to the host, each into its slice of `dst` (exactly
    /// [`DeviceArray::nbytes`] long): one submission copies them all to
    /// staging memory, one wait, then one copy each into `dst`. Waits for
    /// the work that writes them.
    pub fn read_into(
        &self,
        arrays: &[&DeviceArray],
        dst: &mut [&mut [u8]],
    ) -> Result<(), RuntimeError> {
        self.check_health()?;
        self.check_reads(arrays, dst)?;
        let staging = self.staging_for(arrays)?;
        let copied = scoped(&self.device, || {
            let mut encoder = self.device.create_command_encoder(&Default::default());
            for (a, s) in arrays.iter().zip(&staging) {
                encoder.copy_buffer_to_buffer(a.buffer(), 0, s, 0, s.size());
            }
            self.submit([encoder.finish()])
        });
        let during = || "copying arrays for reading back".to_string();
        let index = self.checked(during, copied, |message| RuntimeError::Execution {
            during: during(),
            message,
        })?;
        self.finish_reads(&staging, arrays, dst, index)
    }

    /// Arrays of this device, each read into a slice of its size.
    pub(super) fn check_reads(
        &self,
        arrays: &[&DeviceArray],
        dst: &[&mut [u8]],
    ) -> Result<(), RuntimeError> {
        if arrays.len() != dst.len() {
            return Err(RuntimeError::BadPlan(format!(
                "{} arrays read into {} slices",
                arrays.len(),
                dst.len()
            )));
        }
        for (a, d) in arrays.iter().zip(dst.iter()) {
            self.on_device(a)?;
            if d.len() as u64 != a.nbytes() {
                return Err(RuntimeError::BadPlan(format!(
                    "an array of {} ({} bytes) read into {} bytes",
                    describe(a.elem(), a.shape()),
                    a.nbytes(),
                    d.len()
                )));
            }
        }
        Ok(())
    }

    /// A staging buffer (mappable for reading) the size of each array's buffer.
    pub(super) fn staging_for(
        &self,
        arrays: &[&DeviceArray],
    ) -> Result<Vec<wgpu::Buffer>, RuntimeError> {
        let made = scoped(&self.device, || {
            (arrays.iter())
                .map(|a| {
                    let size = byte_size(a.elem(), a.len());
                    (self.pool.take(size, STAGING_USAGE)).unwrap_or_else(|| {
                        self.device.create_buffer(&wgpu::BufferDescriptor {
                            label: Some("array readback"),
                            size,
                            usage: STAGING_USAGE,
                            mapped_at_creation: false,
                        })
                    })
                })
                .collect::<Vec<_>>()
        });
        let during = || "creating staging buffers for reading back".to_string();
        self.checked(during, made, |message| RuntimeError::Buffer {
            name: "array readback".into(),
            message,
        })
    }

    /// Once submission `index` (which copies each array into its staging
    /// buffer) is done, each staging buffer's bytes into its slice of `dst`.
    pub(super) fn finish_reads(
        &self,
        staging: &[wgpu::Buffer],
        arrays: &[&DeviceArray],
        dst: &mut [&mut [u8]],
        index: wgpu::SubmissionIndex,
    ) -> Result<(), RuntimeError> {
        let (tx, rx) = std::sync::mpsc::channel();
        for (i, s) in staging.iter().enumerate() {
            let tx = tx.clone();
            s.slice(..).map_async(wgpu::MapMode::Read, move |res| {
                let _ = tx.send((i, res));
            });
        }
        drop(tx);
        let during = || "reading arrays back".to_string();
        self.wait(Some(index), during)?;
        for (i, res) in rx.iter() {
            let res = res.map_err(|e| format!("array {i}: {e}"));
            self.checked(during, res, RuntimeError::Readback)?;
        }
        for ((s, a), d) in staging.iter().zip(arrays).zip(dst.iter_mut()) {
            {
                let view = s
                    .slice(..)
                    .get_mapped_range()
                    .map_err(|e| RuntimeError::Readback(e.to_string()))?;
                d.copy_from_slice(&view[..d.len()]);
            }
            s.unmap();
            self.counters.read(a.nbytes());
        }
        for s in staging {
            self.pool.give(s.clone());
        }
        self.check_health()
    }

    /// Reads arrays back as host buffers (one word an element, as
    /// [`HostBuffer`] holds them).
    pub fn read(&self, arrays: &[&DeviceArray]) -> Result<Vec<HostBuffer>, RuntimeError> {
        let mut bytes: Vec<Vec<u8>> = (arrays.iter())
            .map(|a| crate::host::zeroed(a.nbytes(), "reading back"))
            .collect::<Result<_, _>>()?;
        let mut dst: Vec<&mut [u8]> = bytes.iter_mut().map(|b| b.as_mut_slice()).collect();
        self.read_into(arrays, &mut dst)?;
        (arrays.iter().zip(&bytes))
            .map(|(a, b)| {
                Ok(HostBuffer {
                    elem: a.elem(),
                    data: crate::host::host_words(a.elem(), b, a.len())?,
                })
            })
            .collect()
    }
}

/// Bytes of `len` elements of `elem` on the host.
fn element_bytes(elem: ElemTy, len: u64) -> usize {
    (len * elem.bytes()) as usize
}

/// `f32[4, 3]`.
pub(super) fn describe(elem: ElemTy, shape: &[u64]) -> String {
    let dims: Vec<String> = shape.iter().map(|d| d.to_string()).collect();
    format!("{}[{}]", elem.name(), dims.join(", "))
}
