//! The local transport: ranks that run as threads of one process, with a mailbox each.
//!
//! A send copies the message's words into the mailbox of every receiver (a
//! broadcast is a send to each member, counted as MPI counts it); a receive
//! takes them out. A failure report is seen by every rank's next `test`.

use super::{CommError, Counters, Transport};
use crate::exec::comm::CommPlan;
use std::collections::BTreeMap;
use std::sync::{Condvar, Mutex, MutexGuard};
use std::time::Duration;

/// The partials of one reduce message: `(rank, words)`.
type Partials = Vec<(usize, Vec<u32>)>;

/// What the ranks of one process share: their mailboxes and failure reports.
#[derive(Debug)]
pub struct Hub<'p> {
    plan: &'p CommPlan,
    boxes: Vec<Mutex<BTreeMap<usize, Vec<u32>>>>,
    /// The partials posted to each reduce message, by member rank.
    partials: Mutex<BTreeMap<usize, Partials>>,
    failures: Mutex<Vec<(usize, String)>>,
    /// Signalled whenever a mailbox or the failures change.
    changed: Condvar,
    /// The mutex `changed` waits with.
    gate: Mutex<u64>,
}

impl<'p> Hub<'p> {
    pub fn new(plan: &'p CommPlan, n_ranks: usize) -> Hub<'p> {
        Hub {
            plan,
            boxes: (0..n_ranks).map(|_| Mutex::new(BTreeMap::new())).collect(),
            partials: Mutex::new(BTreeMap::new()),
            failures: Mutex::new(Vec::new()),
            changed: Condvar::new(),
            gate: Mutex::new(0),
        }
    }

    /// The transport of rank `rank`.
    pub fn transport(&self, rank: usize) -> LocalTransport<'_, 'p> {
        LocalTransport {
            hub: self,
            rank,
            arrived: BTreeMap::new(),
            counters: Counters::default(),
            reduced: std::collections::BTreeSet::new(),
        }
    }

    fn notify(&self) {
        *lock(&self.gate) += 1;
        self.changed.notify_all();
    }
}

/// A lock that survives a panicked holder (its data is plain words).
fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// One rank's end of a [`Hub`].
#[derive(Debug)]
pub struct LocalTransport<'h, 'p> {
    hub: &'h Hub<'p>,
    rank: usize,
    arrived: BTreeMap<usize, Vec<u32>>,
    counters: Counters,
    /// Reduce messages this rank has posted its partial to.
    reduced: std::collections::BTreeSet<usize>,
}

impl Transport for LocalTransport<'_, '_> {
    fn rank(&self) -> usize {
        self.rank
    }

    fn post_send(&mut self, id: usize, data: &[u32]) -> Result<(), CommError> {
        let m = &self.hub.plan.messages[id];
        for &r in &m.to {
            lock(&self.hub.boxes[r]).insert(id, data.to_vec());
        }
        self.counters.count_sent(self.hub.plan, id);
        self.hub.notify();
        Ok(())
    }

    fn post_receive(&mut self, _id: usize) -> Result<(), CommError> {
        Ok(())
    }

    fn post_reduce(&mut self, id: usize, data: &[u32]) -> Result<(), CommError> {
        lock(&self.hub.partials)
            .entry(id)
            .or_default()
            .push((self.rank, data.to_vec()));
        self.reduced.insert(id);
        if self.hub.plan.messages[id].from != self.rank {
            self.counters.count_sent(self.hub.plan, id);
        }
        self.hub.notify();
        Ok(())
    }

    fn test(&mut self, id: usize) -> Result<bool, CommError> {
        if let Some((rank, text)) = lock(&self.hub.failures)
            .iter()
            .find(|(r, _)| *r != self.rank)
        {
            return Err(CommError::PeerFailed {
                rank: *rank,
                text: text.clone(),
            });
        }
        let m = &self.hub.plan.messages[id];
        if let Some(spec) = &m.reduce {
            if m.from != self.rank || self.arrived.contains_key(&id) {
                return Ok(self.reduced.contains(&id));
            }
            let mut all = lock(&self.hub.partials);
            let parts = all.entry(id).or_default();
            if parts.len() < spec.members.len() {
                return Ok(false);
            }
            parts.sort_by_key(|(r, _)| *r);
            let words = super::combine(spec.agg, parts);
            drop(all);
            self.counters.count_received(self.hub.plan, id);
            self.arrived.insert(id, words);
            return Ok(true);
        }
        if m.from == self.rank || self.arrived.contains_key(&id) {
            return Ok(true);
        }
        let Some(words) = lock(&self.hub.boxes[self.rank]).remove(&id) else {
            return Ok(false);
        };
        self.counters.count_received(self.hub.plan, id);
        self.arrived.insert(id, words);
        Ok(true)
    }

    fn data(&self, id: usize) -> &[u32] {
        self.arrived.get(&id).map_or(&[], Vec::as_slice)
    }

    fn idle(&mut self, at_most: Duration) {
        let gate = lock(&self.hub.gate);
        let _ = self.hub.changed.wait_timeout(gate, at_most);
    }

    fn counters(&self) -> Counters {
        self.counters
    }

    fn report_failure(&mut self, text: &str, _ack: super::AckWait) {
        lock(&self.hub.failures).push((self.rank, text.to_string()));
        self.hub.notify();
    }

    fn acknowledge(&mut self, _failed: usize) {}
}
