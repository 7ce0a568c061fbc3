//! Transports: how a rank's messages travel. The executor is the same for all of them.
//!
//! A transport knows the run's [`CommPlan`] and moves its messages by index:
//! the sender posts a message's words, each receiver posts its receive, and
//! both test for completion (which also makes progress). Posting never
//! blocks. Bytes are counted at the calls that move them: a sender counts a
//! message once per receiver (a broadcast's root too), a receiver once when
//! it arrives. [`local::LocalTransport`] connects ranks that run as threads
//! of one process; `mpi::MpiTransport` (feature `mpi`) connects MPI processes.
//!
//! A reduce message combines its members' partials (`f32` words) with its
//! [`crate::air::Agg`]: [`combine`] in ascending rank order where the
//! transport does the arithmetic, MPI's reduce where it does.
//!
//! Failures: a rank that fails tells the others ([`Transport::report_failure`]);
//! from then on their `test` returns [`CommError::PeerFailed`] naming it.

pub mod local;
#[cfg(feature = "mpi")]
pub mod mpi;
#[cfg(feature = "mpi")]
pub mod mpi_words;

use super::comm::{CommPlan, Payload};

/// Bytes counted at the transport's calls, per kind of message.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counters {
    /// Chunk messages (the plan's transfers): bytes sent and received.
    pub sent: u64,
    pub received: u64,
    /// The end of the run (result shares, counters, done): bytes sent and received.
    pub end_sent: u64,
    pub end_received: u64,
}

impl Counters {
    /// Counts message `id` of `plan` as sent by this rank (a reduce: this
    /// rank's partial, unless it is the reducing rank).
    pub fn count_sent(&mut self, plan: &CommPlan, id: usize) {
        let m = &plan.messages[id];
        match m.payload {
            Payload::Chunk(_) => self.sent += m.bytes_sent(),
            Payload::Reduce(_) => self.sent += m.bytes_received(),
            _ => self.end_sent += m.bytes_sent(),
        }
    }
    /// Counts message `id` of `plan` as received by this rank (a reduce:
    /// the other members' partials, at the reducing rank).
    pub fn count_received(&mut self, plan: &CommPlan, id: usize) {
        let m = &plan.messages[id];
        match (&m.payload, &m.reduce) {
            (Payload::Reduce(_), Some(spec)) => {
                self.received += m.bytes_received() * (spec.members.len() as u64 - 1)
            }
            (Payload::Chunk(_), _) => self.received += m.bytes_received(),
            _ => self.end_received += m.bytes_received(),
        }
    }
}

/// Why a transport cannot go on.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CommError {
    /// Another rank reported that it failed.
    #[error("rank {rank} failed: {text}")]
    PeerFailed { rank: usize, text: String },
    /// The transport itself failed.
    #[error("communication failed: {0}")]
    Broken(String),
}

/// Moves a run's messages between ranks.
pub trait Transport {
    /// This rank.
    fn rank(&self) -> usize;
    /// Posts message `id` (this rank is its sender) with its words.
    fn post_send(&mut self, id: usize, data: &[u32]) -> Result<(), CommError>;
    /// Posts the receive of message `id` (this rank is one of its receivers).
    fn post_receive(&mut self, id: usize) -> Result<(), CommError>;
    /// Posts this rank's partial `data` to reduce message `id` (this rank is
    /// one of its members); at the reducing rank, `data` once complete is the
    /// combination of every member's partial.
    fn post_reduce(&mut self, id: usize, data: &[u32]) -> Result<(), CommError>;
    /// Makes progress; whether posted message `id` is complete here (a
    /// receiver has its words, a sender's words have left). Fails when
    /// another rank reported a failure.
    fn test(&mut self, id: usize) -> Result<bool, CommError>;
    /// The words of received message `id` (after `test` said it is complete).
    fn data(&self, id: usize) -> &[u32];
    /// Waits up to `at_most` for something to happen (nothing to do until then).
    fn idle(&mut self, at_most: std::time::Duration);
    /// Bytes moved so far.
    fn counters(&self) -> Counters;
    /// Tells every other rank this one failed; returns once all but
    /// `ack.silent` of them have acknowledged (a hung rank never does), or
    /// after `ack.limit`.
    fn report_failure(&mut self, text: &str, ack: AckWait);
    /// Tells rank `failed` that this rank has seen its failure report.
    fn acknowledge(&mut self, failed: usize);
}

/// The partials of a reduce, `(rank, words)` in ascending rank order,
/// combined in that order with `agg` (`f32` words in, `f32` words out).
pub fn combine(agg: crate::air::Agg, parts: &[(usize, Vec<u32>)]) -> Vec<u32> {
    let mut acc: Vec<f32> = parts[0].1.iter().map(|&w| f32::from_bits(w)).collect();
    for (_, words) in &parts[1..] {
        for (a, &w) in acc.iter_mut().zip(words) {
            *a = agg.combine(*a, f32::from_bits(w));
        }
    }
    acc.iter().map(|x| x.to_bits()).collect()
}

/// How long a failing rank waits for the others to acknowledge its report.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AckWait {
    /// The longest wait.
    pub limit: std::time::Duration,
    /// How many ranks may never answer (a hung one).
    pub silent: usize,
}
