//! Tuning and benchmarks, as a library the CLI (`texprc tune`, `texprc
//! bench`) and other hosts call: the search for the fastest schedule of a
//! program on a device ([`search::Tuner`]), its trials (each candidate
//! compiled, checked against the interpreter and timed beside the others,
//! [`trials::Trials`]), the schedule cache that keeps the winner per
//! (program, device) ([`cache::Cache`]), which schedule a host compiles
//! with (pinned, tuned or the heuristic's, [`schedule_source::Chosen`]),
//! the conversions between the interpreter's values and the runtime's
//! buffers ([`values`]), and [`bench`], which times a program's schedules
//! and the hand-written baselines beside the device's roofline.
//!
//! ```no_run
//! use texpr_tune::search::Tuner;
//! use std::time::{Duration, Instant};
//!
//! let gpu = texpr_runtime::Gpu::open_from_env().expect("a GPU adapter");
//! let src = "param N = 4096\ninput x: f32[N]\noutput y: f32[N] = compute N |i| x[i] * 2.0";
//! let program = texpr_syntax::frontend(src, &[]).expect("checks");
//! let mut tuner = Tuner::new(&program, gpu, Vec::new(), (2, 5)).expect("a reference");
//! let baselines = tuner.baselines();
//! let deadline = Instant::now() + Duration::from_secs(30);
//! let found = tuner.search(&baselines, deadline, &mut |t| eprintln!("{}: {}", t.item, t.outcome));
//! if let Some((winner, ms)) = found.best {
//!     println!("{ms:.3} ms\n{winner}");
//! }
//! ```

pub mod bench;
pub mod cache;
pub mod schedule_source;
pub mod search;
pub mod trials;
pub mod values;

pub use cache::{Cache, CacheKey};
pub use search::{Found, Trial, TuneError, Tuner};
pub use trials::{CUTOFF, Outcome, Trials};
