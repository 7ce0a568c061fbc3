//! Buffers kept for reuse: a caching allocator, as CuPy's memory pool.
//!
//! Making a buffer costs the driver an allocation, and wgpu clears every new
//! buffer before its first use (it cannot know that a kernel writes all of
//! it). A chain of calls on device arrays makes and drops arrays of the same
//! sizes over and over, and every read back makes a staging buffer of the
//! size it reads. So the buffers of dropped arrays, and staging buffers once
//! read, go to the device's [`Pool`], and the next buffer of the same byte
//! size and usage is taken from it.
//!
//! - Only buffers whose contents nobody reads before writing them are taken
//!   from the pool: [`crate::Gpu::launch`]'s outputs (a compiled program
//!   writes its outputs whole; [`crate::Gpu::run`]'s start zeroed), uploads (written before any use) and staging buffers (a copy
//!   fills each before it is mapped). [`crate::Gpu::zeros`] makes a new,
//!   cleared buffer.
//! - A buffer given back may still be used by submitted work: wgpu keeps it
//!   alive, and the queue orders the next user's writes after that work.
//! - The pool holds at most [`POOL_BYTES`] in at most [`POOL_BUFFERS`]
//!   buffers: beyond, the buffers given back longest ago are freed, and a
//!   buffer larger than that is never kept. So a process that goes through
//!   many sizes keeps its memory flat (without the count, 1,500 sizes of a
//!   small program grew the process by 55 MiB rather than 13: small
//!   buffers kept across the driver's memory blocks hold the blocks).
//! - The pool belongs to one device: a buffer returns only while its device
//!   is open ([`std::sync::Weak`]), and a reopened device starts empty.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::Mutex;

/// The most bytes a device's pool keeps.
pub const POOL_BYTES: u64 = 16 << 20;

/// The most buffers a device's pool keeps: a process going through many
/// sizes would otherwise keep many small buffers scattered over the
/// driver's memory blocks, holding whole blocks alive.
pub const POOL_BUFFERS: usize = 32;

/// What identifies interchangeable buffers: byte size and usage bits.
type Key = (u64, u32);

/// Buffers given back and not yet taken, by key and by age.
#[derive(Debug, Default)]
pub(super) struct Pool {
    free: Mutex<Free>,
}

#[derive(Debug, Default)]
struct Free {
    /// Every buffer held, by the order it was given back.
    by_age: BTreeMap<u64, (Key, wgpu::Buffer)>,
    /// The ages of the buffers of each key.
    by_key: HashMap<Key, BTreeSet<u64>>,
    held: u64,
    next: u64,
    /// Buffers taken from the pool since the device opened.
    reused: u64,
}

/// How much a pool holds and has given out (see [`crate::Gpu::pool_stats`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PoolStats {
    /// Buffers held for reuse, and their bytes.
    pub buffers: u64,
    pub bytes: u64,
    /// Buffers made again from the pool rather than allocated.
    pub reused: u64,
}

fn key_of(size: u64, usage: wgpu::BufferUsages) -> Key {
    (size, usage.bits())
}

impl Pool {
    /// A buffer of `size` bytes and `usage` given back before (the most
    /// recently given back), or `None`.
    pub fn take(&self, size: u64, usage: wgpu::BufferUsages) -> Option<wgpu::Buffer> {
        let mut free = self.free.lock().unwrap_or_else(|p| p.into_inner());
        let key = key_of(size, usage);
        let ages = free.by_key.get_mut(&key)?;
        let age = ages.pop_last()?;
        if ages.is_empty() {
            free.by_key.remove(&key);
        }
        let (_, buffer) = free.by_age.remove(&age)?;
        free.held -= size;
        free.reused += 1;
        Some(buffer)
    }

    /// Keeps `buffer` for reuse, freeing the oldest buffers held beyond
    /// [`POOL_BYTES`] or [`POOL_BUFFERS`] (a buffer larger than
    /// [`POOL_BYTES`] is freed at once).
    pub fn give(&self, buffer: wgpu::Buffer) {
        let size = buffer.size();
        if size > POOL_BYTES {
            return;
        }
        let mut free = self.free.lock().unwrap_or_else(|p| p.into_inner());
        let key = key_of(size, buffer.usage());
        let age = free.next;
        free.next += 1;
        free.by_age.insert(age, (key, buffer));
        free.by_key.entry(key).or_default().insert(age);
        free.held += size;
        while free.held > POOL_BYTES || free.by_age.len() > POOL_BUFFERS {
            let Some((age, (key, old))) = free.by_age.pop_first() else {
                break;
            };
            free.held -= old.size();
            if let Some(ages) = free.by_key.get_mut(&key) {
                ages.remove(&age);
                if ages.is_empty() {
                    free.by_key.remove(&key);
                }
            }
        }
    }

    /// Frees every buffer held.
    pub fn clear(&self) {
        let mut free = self.free.lock().unwrap_or_else(|p| p.into_inner());
        free.by_age.clear();
        free.by_key.clear();
        free.held = 0;
    }

    pub fn stats(&self) -> PoolStats {
        let free = self.free.lock().unwrap_or_else(|p| p.into_inner());
        PoolStats {
            buffers: free.by_age.len() as u64,
            bytes: free.held,
            reused: free.reused,
        }
    }
}
