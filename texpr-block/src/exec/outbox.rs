//! A rank's messages in flight: posted in the run's order, waited for with progress on all.
//!
//! A rank posts its messages (sends and receives alike) strictly in the
//! order of the [`CommPlan`]: receives at once, a send once its words are on
//! the host (an input tile at once, a computed tile when its read-back from
//! the device completes). While a rank waits for a message it keeps posting
//! what became ready, polling its device's reads and the transport, so no
//! rank ever waits on another that waits on it.

use super::comm::CommPlan;
use super::device::{ReadId, TileDevice};
use super::transport::{CommError, Transport};
use std::collections::BTreeMap;
use std::time::{Duration, Instant};
use texpr_ir::Diagnostic;

/// Why a rank stops.
#[derive(Clone, Debug, PartialEq)]
pub enum RankError {
    /// This rank failed.
    Own(Diagnostic),
    /// Another rank reported a failure.
    Peer { rank: usize, text: String },
}

impl From<Diagnostic> for RankError {
    fn from(d: Diagnostic) -> RankError {
        RankError::Own(d)
    }
}

impl From<CommError> for RankError {
    fn from(e: CommError) -> RankError {
        match e {
            CommError::PeerFailed { rank, text } => RankError::Peer { rank, text },
            CommError::Broken(msg) => {
                RankError::Own(Diagnostic::error(crate::codes::COMM_FAILED, msg))
            }
        }
    }
}

/// The messages of one rank and the state of each.
#[derive(Debug)]
pub struct Outbox {
    me: usize,
    /// This rank's messages, in the plan's order.
    queue: Vec<usize>,
    /// How many of `queue` are posted.
    posted: usize,
    /// Words of sends not yet posted.
    ready: BTreeMap<usize, Vec<u32>>,
    /// Sends whose words are being read back from the device.
    reading: BTreeMap<usize, ReadId>,
    /// Time spent waiting for messages.
    pub waited: Duration,
    /// Time spent posting messages while not waiting for one ([`Outbox::pump`]).
    pub posting: Duration,
    /// The longest wait without progress before this rank gives up (E0564).
    watchdog: Duration,
}

impl Outbox {
    /// Rank `me`'s messages among `ids`.
    pub fn over(plan: &CommPlan, me: usize, ids: std::ops::Range<usize>) -> Outbox {
        let queue = ids.filter(|&id| plan.messages[id].involves(me)).collect();
        Outbox {
            me,
            queue,
            posted: 0,
            ready: BTreeMap::new(),
            reading: BTreeMap::new(),
            waited: Duration::ZERO,
            posting: Duration::ZERO,
            watchdog: super::job::DEFAULT_WATCHDOG,
        }
    }

    /// The same outbox, giving up after `limit` without progress.
    pub fn with_watchdog(mut self, limit: Duration) -> Outbox {
        self.watchdog = limit;
        self
    }

    /// The error of a wait that saw no progress for the watchdog's time.
    fn hung(&self, what: String) -> RankError {
        RankError::Own(Diagnostic::error(
            crate::codes::NO_PROGRESS,
            format!(
                "no progress for {:.1} s {what}: some rank hangs (stopped, or stuck in its device)",
                self.watchdog.as_secs_f64()
            ),
        )
        .with_note("--watchdog SECONDS sets how long a rank waits without progress"))
    }

    /// The words of send `id` are ready.
    pub fn send_words(&mut self, id: usize, words: Vec<u32>) {
        self.ready.insert(id, words);
    }

    /// The words of send `id` come from a device read.
    pub fn send_read(&mut self, id: usize, read: ReadId) {
        self.reading.insert(id, read);
    }

    /// Posts every message that can be posted now, in order.
    pub fn pump(
        &mut self,
        plan: &CommPlan,
        dev: &mut dyn TileDevice,
        tr: &mut dyn Transport,
    ) -> Result<(), RankError> {
        let start = Instant::now();
        let pumped = self.pump_progress(plan, dev, tr).map(|_| ());
        self.posting += start.elapsed();
        pumped
    }

    /// [`Outbox::pump`]; whether anything moved (a read completed, a message posted).
    fn pump_progress(
        &mut self,
        plan: &CommPlan,
        dev: &mut dyn TileDevice,
        tr: &mut dyn Transport,
    ) -> Result<bool, RankError> {
        let mut moved = false;
        let reads: Vec<(usize, ReadId)> = self.reading.iter().map(|(&i, &r)| (i, r)).collect();
        for (id, read) in reads {
            if let Some(values) = dev.try_read(read)? {
                self.reading.remove(&id);
                self.ready.insert(id, words_of(&values));
                moved = true;
            }
        }
        while let Some(&id) = self.queue.get(self.posted) {
            let m = &plan.messages[id];
            if m.reduce.is_some() {
                let Some(words) = self.ready.remove(&id) else {
                    break;
                };
                tr.post_reduce(id, &words)?;
            } else if m.from == self.me {
                let Some(words) = self.ready.remove(&id) else {
                    break;
                };
                tr.post_send(id, &words)?;
            } else {
                tr.post_receive(id)?;
            }
            self.posted += 1;
            moved = true;
        }
        Ok(moved)
    }

    /// Waits until message `id` is complete on this rank, keeping everything moving.
    pub fn wait(
        &mut self,
        plan: &CommPlan,
        id: usize,
        dev: &mut dyn TileDevice,
        tr: &mut dyn Transport,
    ) -> Result<(), RankError> {
        let start = Instant::now();
        dev.flush()?;
        let mut nap = Nap::default();
        let mut progress = Instant::now();
        loop {
            if self.pump_progress(plan, dev, tr)? {
                progress = Instant::now();
            }
            if self.is_posted(id) && tr.test(id)? {
                break;
            }
            if progress.elapsed() > self.watchdog {
                let m = &plan.messages[id];
                let what = if m.from == self.me {
                    format!("sending message {id} to rank {:?}", m.to)
                } else {
                    format!("waiting for message {id} from rank {}", m.from)
                };
                return Err(self.hung(what));
            }
            tr.idle(nap.next());
        }
        self.waited += start.elapsed();
        Ok(())
    }

    fn is_posted(&self, id: usize) -> bool {
        self.queue[..self.posted].binary_search(&id).is_ok()
    }

    /// Waits until every message of this rank is posted and complete.
    pub fn drain(
        &mut self,
        plan: &CommPlan,
        dev: &mut dyn TileDevice,
        tr: &mut dyn Transport,
    ) -> Result<(), RankError> {
        for k in 0..self.queue.len() {
            let id = self.queue[k];
            self.wait(plan, id, dev, tr)?;
        }
        Ok(())
    }

    /// Waits for a device read, keeping messages moving meanwhile.
    pub fn read(
        &mut self,
        plan: &CommPlan,
        read: ReadId,
        dev: &mut dyn TileDevice,
        tr: &mut dyn Transport,
    ) -> Result<Vec<f32>, RankError> {
        let mut nap = Nap::default();
        let mut progress = Instant::now();
        loop {
            if let Some(v) = dev.try_read(read)? {
                return Ok(v);
            }
            if self.pump_progress(plan, dev, tr)? {
                progress = Instant::now();
            }
            if progress.elapsed() > self.watchdog {
                return Err(self.hung("waiting for a read from its device".into()));
            }
            tr.idle(nap.next());
        }
    }
}

/// How long to idle between polls: from 20 µs, doubling up to 1 ms, so a
/// short wait answers fast and a long one costs the CPU (which the device
/// may share) little.
#[derive(Debug)]
struct Nap(Duration);

impl Default for Nap {
    fn default() -> Nap {
        Nap(Duration::from_micros(20))
    }
}

impl Nap {
    fn next(&mut self) -> Duration {
        let now = self.0;
        self.0 = (self.0 * 2).min(Duration::from_millis(1));
        now
    }
}

/// `f32` values as the transport's words.
pub fn words_of(values: &[f32]) -> Vec<u32> {
    values.iter().map(|x| x.to_bits()).collect()
}

/// The transport's words as `f32` values.
pub fn values_of(words: &[u32]) -> Vec<f32> {
    words.iter().map(|&w| f32::from_bits(w)).collect()
}
