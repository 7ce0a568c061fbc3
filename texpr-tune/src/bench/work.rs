//! What one program does, for the rates of its rows: the operations it
//! performs and the bytes it must move (`texpr_opt::cost::flops` and
//! `min_bytes`), and the device's measured roofline, if any.

use super::roofline::{Roofline, Share};
use super::rows::Outcome;
use texpr_ir::Program;

/// What one program does, and the device's limits, for its rates.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Work {
    pub flops: f64,
    pub bytes: f64,
    pub roofline: Option<Roofline>,
}

impl Work {
    /// The work of `program`, against `roofline`.
    pub fn of(program: &Program, roofline: Option<Roofline>) -> Work {
        Work {
            flops: texpr_opt::cost::flops(program) as f64,
            bytes: texpr_opt::cost::min_bytes(program) as f64,
            roofline,
        }
    }

    /// The share of the binding limit a run of `secs` reaches; `None`
    /// without a roofline or for no work.
    pub fn share(&self, secs: f64) -> Option<Share> {
        (self.roofline?).share(self.flops, self.bytes, secs)
    }
}

/// The figure rates are computed from: the GPU's own, else the wall clock.
pub fn seconds(outcome: &Outcome) -> Option<f64> {
    match outcome {
        Outcome::Measured { timing, .. } => Some(timing.primary().as_secs_f64()),
        _ => None,
    }
}
