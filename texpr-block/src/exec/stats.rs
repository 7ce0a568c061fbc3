//! What one rank did and measured: the counters each rank reports at the end of a run.

use super::comm::COUNTER_WORDS;

/// What one rank did and measured.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RankStats {
    pub shards: u64,
    pub copies: u64,
    /// Distinct block bodies compiled.
    pub kernels: u64,
    /// Bytes of chunk messages sent and received, counted at the transport's calls.
    pub sent: u64,
    pub received: u64,
    /// Time spent waiting for messages.
    pub wait_ns: u64,
    /// Time in its tasks (launching kernels, device copies, host writes of
    /// received tiles, waiting for its device's reads), less the waits for
    /// messages and the posting of messages within them.
    pub compute_ns: u64,
    /// Time posting and completing messages while not waiting for one.
    pub comm_ns: u64,
    /// Most bytes of chunks and panels held at once.
    pub peak: u64,
    /// Bytes of the compiled bodies' scratch buffers.
    pub scratch: u64,
    /// Time spent compiling block bodies.
    pub compile_ns: u64,
    /// Wall time of the rank's run, from loading its inputs to its result.
    pub run_ns: u64,
    /// Matrices whose tiles it held, each in one device allocation.
    pub matrices: u64,
    /// Buffers its device allocated: one per matrix, panel and partial.
    pub buffers: u64,
}

impl RankStats {
    fn fields(&self) -> [u64; 14] {
        [
            self.shards,
            self.copies,
            self.kernels,
            self.sent,
            self.received,
            self.wait_ns,
            self.peak,
            self.scratch,
            self.compile_ns,
            self.run_ns,
            self.matrices,
            self.buffers,
            self.compute_ns,
            self.comm_ns,
        ]
    }

    /// The stats as message words (two per field, low word first).
    pub fn to_words(&self) -> Vec<u32> {
        let mut w: Vec<u32> = self
            .fields()
            .iter()
            .flat_map(|&x| [x as u32, (x >> 32) as u32])
            .collect();
        w.resize(COUNTER_WORDS, 0);
        w
    }

    pub fn from_words(w: &[u32]) -> RankStats {
        let f = |k: usize| u64::from(w[2 * k]) | (u64::from(w[2 * k + 1]) << 32);
        RankStats {
            shards: f(0),
            copies: f(1),
            kernels: f(2),
            sent: f(3),
            received: f(4),
            wait_ns: f(5),
            peak: f(6),
            scratch: f(7),
            compile_ns: f(8),
            run_ns: f(9),
            matrices: f(10),
            buffers: f(11),
            compute_ns: f(12),
            comm_ns: f(13),
        }
    }
}
