//! The MPI transport's failure reports: a receive kept posted for a report
//! from any rank, reports sent to every other rank with their
//! acknowledgements awaited, and the acknowledgements this rank sends.

use super::super::AckWait;
use super::super::mpi_words::{decode_report, encode_report};
use super::{ACK, CommError, FAILURE, MpiTransport, ONE, Req};
use mpi::traits::*;
use std::time::{Duration, Instant};

impl<'a, 's> MpiTransport<'a, 's> {
    /// Posts the receive of the next failure report from any rank.
    pub(super) fn watch_reports(&mut self) {
        let Some(buf) = self.report_bufs.iter_mut().find_map(Option::take) else {
            return;
        };
        let any = self.comms.world.any_process();
        self.report_in = Some(any.immediate_receive_into_with_tag(self.scope, buf, FAILURE));
    }

    /// Fails when a failure report has arrived.
    pub(super) fn check_reports(&mut self) -> Result<(), CommError> {
        while let Some(req) = self.report_in.take() {
            match req.test_with_data() {
                Ok((_, words)) => {
                    self.reporters.push(decode_report(words));
                    self.watch_reports();
                }
                Err(req) => {
                    self.report_in = Some(req);
                    break;
                }
            }
        }
        match self.reporters.first() {
            Some((rank, text)) => Err(CommError::PeerFailed {
                rank: *rank,
                text: text.clone(),
            }),
            None => Ok(()),
        }
    }

    /// Sends this rank's failure report to every other rank and waits, at most
    /// `ack.limit`, until all but `ack.silent` of them have acknowledged it.
    pub(super) fn send_report(&mut self, text: &str, ack: AckWait) {
        let Some(out) = self.report_out.take() else {
            return;
        };
        encode_report(out, self.me, text);
        let words: &'a [u32] = out;
        let n = self.comms.world.size() as usize;
        let others: Vec<usize> = (0..n).filter(|&r| r != self.me).collect();
        let (mut sends, mut acks): (Vec<Req<'a, 's>>, Vec<Req<'a, 's>>) = (Vec::new(), Vec::new());
        for &r in &others {
            let p = self.comms.world.process_at_rank(r as i32);
            sends.push(p.immediate_send_with_tag(self.scope, words, FAILURE));
            if let Some(buf) = self.acks[r].take() {
                acks.push(p.immediate_receive_into_with_tag(self.scope, buf, ACK));
            }
        }
        let start = Instant::now();
        while acks.len() > ack.silent && start.elapsed() < ack.limit {
            sends = sends.into_iter().filter_map(|r| r.test().err()).collect();
            acks = acks.into_iter().filter_map(|r| r.test().err()).collect();
            // Another rank failed too: it waits for this rank's word.
            if self.check_reports().is_err() {
                self.acknowledge_reports();
            }
            std::thread::sleep(Duration::from_millis(1));
        }
        // The caller ends the job next; requests still open are left to it.
        std::mem::forget(sends);
        std::mem::forget(acks);
    }

    /// Acknowledges every failure report received and not yet acknowledged.
    pub(super) fn acknowledge_reports(&mut self) {
        let one: &'a [u32] = &ONE;
        for k in 0..self.reporters.len() {
            let rank = self.reporters[k].0;
            if self.acked.contains(&rank) {
                continue;
            }
            self.acked.push(rank);
            let p = self.comms.world.process_at_rank(rank as i32);
            self.ack_sends
                .push(p.immediate_send_with_tag(self.scope, one, ACK));
        }
    }
}
