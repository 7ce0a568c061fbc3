//! The end of a run: every rank's counters (and, when asked, its part of the result) to the source rank.
//!
//! After its tasks, each rank sends its [`RankStats`] (and its [`LocalPart`]
//! of the result when the result is gathered) to the source rank, which
//! answers every rank with a done word once it has them all; until then
//! every rank keeps watching for failure reports, so a rank that fails late
//! still stops the others.

use super::comm::Payload;
use super::dense::Matrix;
use super::device::TileDevice;
use super::job::Job;
use super::local_part::{LocalPart, assemble};
use super::outbox::{Outbox, RankError, values_of, words_of};
use super::rank::RankOutcome;
use super::stats::RankStats;
use super::transport::Transport;
use crate::graph::NodeId;
use std::collections::BTreeMap;

/// What the source rank learns at the end: every rank's stats, and the
/// whole result when it was gathered.
#[derive(Clone, Debug, PartialEq)]
pub struct Gathered {
    pub stats: Vec<RankStats>,
    pub result: Option<Matrix>,
    /// Every partial the ranks recorded (`Job::record`), by node.
    pub partials: BTreeMap<NodeId, Vec<f32>>,
}

/// The end of rank `me`'s run: on the source rank, everything gathered.
pub fn finish_run(
    job: &Job<'_>,
    me: usize,
    outcome: &RankOutcome,
    dev: &mut dyn TileDevice,
    tr: &mut dyn Transport,
) -> Result<Option<Gathered>, RankError> {
    let comm = &job.comm;
    let mut outbox = Outbox::over(comm, me, comm.end.clone()).with_watchdog(job.watchdog);
    let source = job.source();
    let find = |payload, from| comm.find(payload, from);
    if me != source {
        if let Some(id) = find(Payload::Result, me) {
            outbox.send_words(id, words_of(&outcome.part.data));
        }
        if let Some(id) = find(Payload::Partials, me) {
            outbox.send_words(id, words_of(&outcome.partials));
        }
        if let Some(id) = find(Payload::Counters, me) {
            outbox.send_words(id, outcome.stats.to_words());
        }
        outbox.drain(comm, dev, tr)?;
        return Ok(None);
    }
    let d = job.distribution(job.p.ret)?;
    let mut stats = vec![outcome.stats; job.n_ranks()];
    let mut parts = vec![outcome.part.clone()];
    let mut partials = BTreeMap::new();
    record(job, me, &outcome.partials, &mut partials);
    for r in (0..job.n_ranks()).filter(|&r| r != me) {
        if let Some(id) = find(Payload::Result, r) {
            outbox.wait(comm, id, dev, tr)?;
            parts.push(LocalPart::from_data(
                &d,
                job.position(r),
                values_of(tr.data(id)),
            ));
        }
        if let Some(id) = find(Payload::Partials, r) {
            outbox.wait(comm, id, dev, tr)?;
            record(job, r, &values_of(tr.data(id)), &mut partials);
        }
        if let Some(id) = find(Payload::Counters, r) {
            outbox.wait(comm, id, dev, tr)?;
            stats[r] = RankStats::from_words(tr.data(id));
        }
    }
    if let Some(id) = find(Payload::Done, me) {
        outbox.send_words(id, vec![1]);
    }
    outbox.drain(comm, dev, tr)?;
    let result = job.gather.then(|| assemble(&d, &parts));
    Ok(Some(Gathered {
        stats,
        result,
        partials,
    }))
}

/// Rank `r`'s recorded partials (`values`, one after another) by node.
fn record(job: &Job<'_>, r: usize, values: &[f32], into: &mut BTreeMap<NodeId, Vec<f32>>) {
    let mut at = 0;
    for &(node, len) in job.record.get(r).into_iter().flatten() {
        if let Some(v) = values.get(at..at + len) {
            into.insert(node, v.to_vec());
        }
        at += len;
    }
}

/// Waits until every rank is ready to start (each tells the source rank,
/// which answers go), so that the run's clock starts on all ranks together.
pub fn start_together(
    job: &Job<'_>,
    me: usize,
    dev: &mut dyn TileDevice,
    tr: &mut dyn Transport,
) -> Result<(), RankError> {
    let comm = &job.comm;
    let mut outbox = Outbox::over(comm, me, comm.start.clone()).with_watchdog(job.watchdog);
    if me == job.source() {
        for r in (0..job.n_ranks()).filter(|&r| r != me) {
            if let Some(id) = comm.find(Payload::Ready, r) {
                outbox.wait(comm, id, dev, tr)?;
            }
        }
        if let Some(id) = comm.find(Payload::Go, me) {
            outbox.send_words(id, vec![1]);
        }
    } else if let Some(id) = comm.find(Payload::Ready, me) {
        outbox.send_words(id, vec![1]);
    }
    outbox.drain(comm, dev, tr)
}
