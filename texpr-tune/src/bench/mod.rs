//! Benchmarks, as a library the CLI (`texprc bench`) and other hosts call:
//! compile time (parse to validated WGSL) and GPU time of programs for
//! their schedules — `default`, `heuristic`, `tuned` (the schedule cache's
//! entry for the program on the device, if tuning made one) and any the
//! caller pins — with the work they do and the data they must move
//! ([`Work`]) and the device's roofline ([`roofline`]: copy bandwidth and
//! FMA throughput, measured first by the same harness).
//!
//! Every time comes from the runtime's timing harness (`Gpu::prepare`,
//! `Gpu::time`): pipelines made and inputs uploaded first, then warm-ups,
//! then the median of the runs; the rows of one program are timed together,
//! their runs interleaved ([`measure`]). The suite ([`suite_jobs`]: every
//! example, `axpb` and the loop examples' [`unrolled`] chains, at the sizes
//! of a [`Scale`]) runs the hand-written WGSL baselines of
//! `shaders/baselines/` beside the programs they compute, through the same
//! harness. A schedule that fails to compile or run is a row's
//! [`Outcome::Failed`]; the other rows go on. Reading files, printing and
//! charts are the host's.

pub mod roofline;
mod rows;
mod suite;
pub mod unrolled;
mod work;

pub use roofline::{Roofline, Share};
pub use rows::{Outcome, Pinned, Row, Runs, Series, measure, one_line, runtime_text};
pub use suite::{CPU, GPU, Job, JobSource, Scale, baselines_of, suite_jobs};
pub use work::{Work, seconds};
