//! The MPI transport (feature `mpi`): each rank an MPI process, messages as non-blocking MPI calls.
//!
//! The world communicator is split into one communicator per grid row and
//! one per grid column (ranks numbered row-major, so a rank's number in its
//! row is its grid column and in its column its grid row). A row message is
//! `MPI_Ibcast` on the sender's row communicator, a column message on its
//! column communicator, a direct one `MPI_Isend`/`MPI_Irecv` on the world;
//! `MPI_Test` completes them. Buffers: rsmpi ties every request to buffers
//! that outlive an `mpi::request::scope`, so a rank's message words live in
//! two arenas made before the scope (one slot per message it sends or
//! receives, sized from the [`CommPlan`]), and the whole run happens inside
//! [`Mpi::with_transport`].
//!
//! A reduce message on a whole grid row (column) is `MPI_Ireduce` on its
//! communicator (sum, max or min of `f32`s) to the reducing rank; one on
//! part of a row is `MPI_Isend`s to the reducing rank, which combines the
//! partials in rank order ([`super::combine`]).
//!
//! Failures: every rank keeps a receive posted for failure reports from any
//! rank. A failing rank sends its report to all the others and waits (a few
//! seconds at most) for each to acknowledge it; a rank that sees a report
//! fails its next `test` with [`CommError::PeerFailed`].

mod finish;
mod reports;

use super::mpi_words::{as_f32, as_f32_mut, operation};
use super::{CommError, Counters, Transport};
use crate::codes;
use crate::dist::{CommunicatorRank, GridSize};
use crate::exec::comm::{CommPlan, Payload, Route};
use mpi::request::{LocalScope, Request};
use mpi::topology::{Color, SimpleCommunicator};
use mpi::traits::*;
use std::time::Duration;
use texpr_ir::Diagnostic;

/// Tags: chunks, the start and end of the run, failure reports and their acknowledgements.
const DATA: i32 = 1;
const FAILURE: i32 = 2;
const ACK: i32 = 3;
const START: i32 = 4;
const END: i32 = 5;
/// Words of a failure report: the rank, the text's byte count, the text.
const REPORT_WORDS: usize = 512;
static ONE: [u32; 1] = [1];

/// An initialised MPI library (finalised when dropped).
pub struct Mpi {
    _universe: mpi::environment::Universe,
    world: SimpleCommunicator,
}

impl std::fmt::Debug for Mpi {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Mpi(rank {} of {})", self.rank(), self.size())
    }
}

impl Mpi {
    /// Whether an MPI launcher (mpirun, mpiexec, srun) started this process.
    pub fn launched() -> bool {
        ["OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK", "PMI_RANK"]
            .iter()
            .any(|v| std::env::var_os(v).is_some())
    }

    /// Initialises MPI.
    pub fn init() -> Result<Mpi, Diagnostic> {
        let universe = mpi::initialize().ok_or_else(|| {
            Diagnostic::error(
                codes::COMM_FAILED,
                "MPI cannot be initialised (or already was)",
            )
        })?;
        let world = universe.world();
        Ok(Mpi {
            _universe: universe,
            world,
        })
    }

    pub fn rank(&self) -> usize {
        self.world.rank() as usize
    }

    pub fn size(&self) -> usize {
        self.world.size() as usize
    }

    /// Waits until every process of the job has called it (`MPI_Barrier`).
    pub fn barrier(&self) {
        self.world.barrier()
    }

    /// Ends every process of the job (`MPI_Abort`).
    pub fn abort(&self, code: i32) -> ! {
        self.world.abort(code)
    }

    /// Runs `f` with this process's transport for the messages of `plan` on `grid`.
    pub fn with_transport<R>(
        &self,
        plan: &CommPlan,
        grid: GridSize,
        f: impl FnOnce(&mut dyn Transport) -> R,
    ) -> R {
        let me = self.rank();
        let at = grid.index_of(CommunicatorRank(me));
        let split = |c: usize| {
            self.world
                .split_by_color(Color::with_value(c as i32))
                .expect("every rank has a color")
        };
        let row = split(at.row());
        let col = split(grid.rows() + at.col());
        let sizes: Vec<Option<usize>> = plan
            .messages
            .iter()
            .map(|m| match &m.reduce {
                // The reducing rank of a collective: its partial, then the result.
                Some(_) if m.from == me && m.route != Route::Direct => Some(2 * m.len),
                Some(spec) if m.from == me => Some(m.len * (spec.members.len() - 1)),
                _ => m.involves(me).then_some(m.len),
            })
            .collect();
        let mut arena = vec![0u32; sizes.iter().flatten().sum()];
        let mut reports_in = vec![0u32; REPORT_WORDS * self.size()];
        let mut report_out = vec![0u32; REPORT_WORDS];
        let mut acks = vec![0u32; self.size()];
        let comms = Comms {
            world: &self.world,
            row: &row,
            col: &col,
            grid,
        };
        mpi::request::scope(|scope| {
            let mut t = MpiTransport {
                scope,
                comms,
                plan,
                me,
                slots: slots(&mut arena, &sizes),
                pending: (0..plan.messages.len()).map(|_| Vec::new()).collect(),
                pending_f: (0..plan.messages.len()).map(|_| Vec::new()).collect(),
                parts: std::collections::BTreeMap::new(),
                combined: std::collections::BTreeMap::new(),
                received: vec![None; plan.messages.len()],
                complete: vec![false; plan.messages.len()],
                counters: Counters::default(),
                report_bufs: reports_in.chunks_mut(REPORT_WORDS).map(Some).collect(),
                report_in: None,
                report_out: Some(&mut report_out),
                reporters: Vec::new(),
                acks: acks
                    .iter_mut()
                    .map(|a| Some(std::slice::from_mut(a)))
                    .collect(),
                acked: Vec::new(),
                ack_sends: Vec::new(),
            };
            t.watch_reports();
            let out = f(&mut t);
            t.close();
            out
        })
    }
}

/// The arena cut into one slot per message of this rank (`None` for the others').
fn slots<'a>(mut arena: &'a mut [u32], sizes: &[Option<usize>]) -> Vec<Option<&'a mut [u32]>> {
    let mut out = Vec::with_capacity(sizes.len());
    for size in sizes {
        out.push(size.map(|n| {
            let (slot, rest) = std::mem::take(&mut arena).split_at_mut(n);
            arena = rest;
            slot
        }));
    }
    out
}

#[derive(Clone, Copy)]
struct Comms<'c> {
    world: &'c SimpleCommunicator,
    row: &'c SimpleCommunicator,
    col: &'c SimpleCommunicator,
    grid: GridSize,
}

type Req<'a, 's> = Request<'a, [u32], &'s LocalScope<'a>>;
type ReqF<'a, 's> = Request<'a, [f32], &'s LocalScope<'a>>;

impl std::fmt::Debug for MpiTransport<'_, '_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "MpiTransport(rank {}, {:?})", self.me, self.counters)
    }
}

/// One process's end of the MPI job.
pub struct MpiTransport<'a, 's> {
    scope: &'s LocalScope<'a>,
    comms: Comms<'a>,
    plan: &'a CommPlan,
    me: usize,
    slots: Vec<Option<&'a mut [u32]>>,
    pending: Vec<Vec<Req<'a, 's>>>,
    /// Reduce requests (on `f32`s).
    pending_f: Vec<Vec<ReqF<'a, 's>>>,
    /// At the reducing rank of a reduce by sends: the partials so far, by rank.
    parts: std::collections::BTreeMap<usize, Vec<(usize, Vec<u32>)>>,
    /// At the reducing rank of a reduce: the combined partials.
    combined: std::collections::BTreeMap<usize, Vec<u32>>,
    received: Vec<Option<&'a [u32]>>,
    complete: Vec<bool>,
    counters: Counters,
    /// One buffer per possible report; the next free one is posted.
    report_bufs: Vec<Option<&'a mut [u32]>>,
    report_in: Option<Req<'a, 's>>,
    report_out: Option<&'a mut Vec<u32>>,
    /// Failure reports received: rank and text.
    reporters: Vec<(usize, String)>,
    /// Buffers for other ranks' acknowledgements of this rank's report.
    acks: Vec<Option<&'a mut [u32]>>,
    /// Reporters this rank has acknowledged.
    acked: Vec<usize>,
    ack_sends: Vec<Req<'a, 's>>,
}

impl<'a, 's> MpiTransport<'a, 's> {
    /// The process of rank `r` on the communicator a message of `route` from `from` uses.
    fn root_rank(&self, route: Route, from: usize) -> i32 {
        let at = self.comms.grid.index_of(CommunicatorRank(from));
        match route {
            Route::Row => at.col() as i32,
            Route::Col => at.row() as i32,
            Route::Direct => from as i32,
        }
    }

    fn communicator(&self, route: Route) -> &'a SimpleCommunicator {
        match route {
            Route::Row => self.comms.row,
            Route::Col => self.comms.col,
            Route::Direct => self.comms.world,
        }
    }

    fn slot(&mut self, id: usize) -> Result<&'a mut [u32], CommError> {
        self.slots[id]
            .take()
            .ok_or_else(|| CommError::Broken(format!("message {id} posted twice")))
    }

    /// Tests every request of message `id`; whether all are done.
    fn test_requests(&mut self, id: usize) -> bool {
        let m = &self.plan.messages[id];
        let reducing = m.reduce.is_some() && m.from == self.me;
        let receiving = m.reduce.is_none() && m.from != self.me;
        let mut left = Vec::new();
        for req in std::mem::take(&mut self.pending[id]) {
            match req.test_with_data() {
                Ok((_, words)) if receiving => self.received[id] = Some(words),
                Ok((status, words)) if reducing => self
                    .parts
                    .entry(id)
                    .or_default()
                    .push((status.source_rank() as usize, words.to_vec())),
                Ok(_) => {}
                Err(req) => left.push(req),
            }
        }
        let mut left_f = Vec::new();
        for req in std::mem::take(&mut self.pending_f[id]) {
            match req.test_with_data() {
                Ok((_, values)) if reducing => {
                    let words = values.iter().map(|x| x.to_bits()).collect();
                    self.combined.insert(id, words);
                }
                Ok(_) => {}
                Err(req) => left_f.push(req),
            }
        }
        let done = left.is_empty() && left_f.is_empty();
        if done && reducing && !self.combined.contains_key(&id) {
            let spec = m.reduce.as_ref().expect("a reduce");
            let mut parts = self.parts.remove(&id).unwrap_or_default();
            parts.sort_by_key(|(r, _)| *r);
            self.combined.insert(id, super::combine(spec.agg, &parts));
        }
        self.pending[id] = left;
        self.pending_f[id] = left_f;
        done
    }

    /// Ends the transport after a successful run: the report receive is cancelled.
    fn close(&mut self) {
        if let Some(req) = self.report_in.take() {
            req.cancel();
            req.wait_without_status();
        }
        for req in self.ack_sends.drain(..) {
            req.wait_without_status();
        }
    }
}

impl<'a, 's> Transport for MpiTransport<'a, 's> {
    fn rank(&self) -> usize {
        self.me
    }

    fn post_send(&mut self, id: usize, data: &[u32]) -> Result<(), CommError> {
        let m = &self.plan.messages[id];
        let (route, to, tag) = (m.route, m.to.clone(), tag_of(m.payload));
        let slot = self.slot(id)?;
        slot.copy_from_slice(data);
        let comm = self.communicator(route);
        let reqs = match route {
            Route::Direct => {
                let words: &'a [u32] = slot;
                to.iter()
                    .map(|&r| {
                        comm.process_at_rank(r as i32)
                            .immediate_send_with_tag(self.scope, words, tag)
                    })
                    .collect()
            }
            _ => {
                let root = comm.process_at_rank(self.root_rank(route, self.me));
                vec![root.immediate_broadcast_into(self.scope, slot)]
            }
        };
        self.pending[id] = reqs;
        self.counters.count_sent(self.plan, id);
        Ok(())
    }

    fn post_receive(&mut self, id: usize) -> Result<(), CommError> {
        let m = &self.plan.messages[id];
        let (route, from, tag) = (m.route, m.from, tag_of(m.payload));
        let slot = self.slot(id)?;
        let comm = self.communicator(route);
        let root = comm.process_at_rank(self.root_rank(route, from));
        let req = match route {
            Route::Direct => root.immediate_receive_into_with_tag(self.scope, slot, tag),
            _ => root.immediate_broadcast_into(self.scope, slot),
        };
        self.pending[id] = vec![req];
        Ok(())
    }

    fn post_reduce(&mut self, id: usize, data: &[u32]) -> Result<(), CommError> {
        let m = &self.plan.messages[id];
        let (route, root, len) = (m.route, m.from, m.len);
        let spec = m.reduce.clone().expect("a reduce message");
        let slot = self.slot(id)?;
        if route == Route::Direct {
            if self.me == root {
                self.parts
                    .entry(id)
                    .or_default()
                    .push((root, data.to_vec()));
                let others = spec.members.iter().filter(|&&r| r != root);
                let mut rest: &'a mut [u32] = slot;
                for &r in others {
                    let (part, tail) = std::mem::take(&mut rest).split_at_mut(len);
                    rest = tail;
                    let p = self.comms.world.process_at_rank(r as i32);
                    self.pending[id]
                        .push(p.immediate_receive_into_with_tag(self.scope, part, DATA));
                }
            } else {
                slot.copy_from_slice(data);
                let words: &'a [u32] = slot;
                let p = self.comms.world.process_at_rank(root as i32);
                self.pending[id].push(p.immediate_send_with_tag(self.scope, words, DATA));
                self.counters.count_sent(self.plan, id);
            }
            return Ok(());
        }
        let comm = self.communicator(route);
        let at = comm.process_at_rank(self.root_rank(route, root));
        let op = operation(spec.agg);
        if self.me == root {
            let (send, recv) = slot.split_at_mut(len);
            send.copy_from_slice(data);
            let send: &'a [u32] = send;
            let req = at.immediate_reduce_into_root(self.scope, as_f32(send), as_f32_mut(recv), op);
            self.pending_f[id].push(req);
        } else {
            slot.copy_from_slice(data);
            let send: &'a [u32] = slot;
            self.pending_f[id].push(at.immediate_reduce_into(self.scope, as_f32(send), op));
            self.counters.count_sent(self.plan, id);
        }
        Ok(())
    }

    fn test(&mut self, id: usize) -> Result<bool, CommError> {
        self.check_reports()?;
        if self.complete[id] {
            return Ok(true);
        }
        if !self.test_requests(id) {
            return Ok(false);
        }
        self.complete[id] = true;
        let m = &self.plan.messages[id];
        if (m.reduce.is_some()) == (m.from == self.me) {
            self.counters.count_received(self.plan, id);
        }
        Ok(true)
    }

    fn data(&self, id: usize) -> &[u32] {
        match self.combined.get(&id) {
            Some(words) => words,
            None => self.received[id].unwrap_or(&[]),
        }
    }

    fn idle(&mut self, at_most: Duration) {
        std::thread::sleep(at_most);
    }

    fn counters(&self) -> Counters {
        self.counters
    }

    fn report_failure(&mut self, text: &str, ack: super::AckWait) {
        self.send_report(text, ack)
    }

    fn acknowledge(&mut self, _failed: usize) {
        self.acknowledge_reports()
    }
}

/// The tag of a direct message: one per phase of the run.
fn tag_of(payload: Payload) -> i32 {
    match payload {
        Payload::Chunk(_) | Payload::Reduce(_) => DATA,
        Payload::Ready | Payload::Go => START,
        Payload::Result | Payload::Partials | Payload::Counters | Payload::Done => END,
    }
}
