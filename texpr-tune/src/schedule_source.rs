//! Which schedule a host compiles a program with, and where it came from
//! ([`Origin`]): a pinned schedule or the default one where the host asks
//! for it, else the schedule cache's tuned one for the program on the
//! device (keyed by [`cache::key_for`], or found by part of a device's
//! name), else the heuristic's. Reading a pinned schedule's file is the
//! host's: it hands the parsed [`Schedule`] to [`Chosen::pinned`].

use crate::cache::{self, Cache};
use std::fmt;
use texpr::{Schedule, ScheduleChoice};
use texpr_ir::Program;
use texpr_runtime::GpuInfo;

/// Where a schedule came from.
#[derive(Clone, Debug, PartialEq)]
pub enum Origin {
    /// A schedule file the user gave (its name as given).
    Pinned(String),
    /// The default schedule, asked for.
    Default,
    /// The cache: tuned by `texprc tune` for this device.
    Tuned { device: String, median_ms: f64 },
    /// The heuristic (no pinned or tuned schedule).
    Heuristic,
}

impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Origin::Pinned(file) => write!(f, "pinned from {file}"),
            Origin::Default => f.write_str("default"),
            Origin::Tuned { device, median_ms } => {
                write!(f, "tuned for {device} ({median_ms:.3} ms)")
            }
            Origin::Heuristic => f.write_str("heuristic"),
        }
    }
}

/// A schedule choice and where it came from.
#[derive(Clone, Debug, PartialEq)]
pub struct Chosen {
    pub choice: ScheduleChoice,
    pub origin: Origin,
}

/// A device name that matches several devices a program was tuned for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ambiguous {
    /// The name as given.
    pub name: String,
    /// The devices it matches, as the cache names them.
    pub devices: Vec<String>,
}

impl Chosen {
    /// `schedule`, pinned from `from` (a file's name, for messages).
    pub fn pinned(schedule: Schedule, from: String) -> Chosen {
        Chosen {
            choice: ScheduleChoice::Given(schedule),
            origin: Origin::Pinned(from),
        }
    }

    /// The default schedule (one element per invocation), asked for.
    pub fn default_schedule() -> Chosen {
        Chosen {
            choice: ScheduleChoice::Default,
            origin: Origin::Default,
        }
    }

    /// The heuristic's schedule.
    pub fn heuristic() -> Chosen {
        Chosen {
            choice: ScheduleChoice::Heuristic,
            origin: Origin::Heuristic,
        }
    }

    /// `cache`'s tuned schedule of `program` for `device` (`None`: the
    /// device is not known, so the cache is not asked), else the heuristic.
    pub fn tuned_or_heuristic(
        program: &Program,
        device: Option<&GpuInfo>,
        cache: &Cache,
    ) -> Chosen {
        let tuned = device.and_then(|info| {
            let key = cache::key_for(program, info);
            cache.entry(&key).map(|e| (key, e.clone()))
        });
        match tuned {
            Some((key, e)) => Chosen {
                choice: ScheduleChoice::Tuned(e.schedule),
                origin: Origin::Tuned {
                    device: key.device,
                    median_ms: e.median_ms,
                },
            },
            None => Chosen::heuristic(),
        }
    }

    /// For a device known only by (part of) its name, as the cache names
    /// it: the one tuned schedule of `program` in `cache` for a device
    /// whose name contains `name`, else (no name, or no such device) the
    /// heuristic; [`Ambiguous`] where several devices match.
    pub fn tuned_named_or_heuristic(
        program: &Program,
        name: Option<&str>,
        cache: &Cache,
    ) -> Result<Chosen, Ambiguous> {
        let Some(name) = name else {
            return Ok(Chosen::heuristic());
        };
        let found = cache.find(&cache::program_hash(program), name);
        match found.as_slice() {
            [] => Ok(Chosen::heuristic()),
            [(key, e)] => Ok(Chosen {
                choice: ScheduleChoice::Tuned(e.schedule.clone()),
                origin: Origin::Tuned {
                    device: key.device.clone(),
                    median_ms: e.median_ms,
                },
            }),
            many => Err(Ambiguous {
                name: name.to_string(),
                devices: many.iter().map(|(k, _)| k.device.clone()).collect(),
            }),
        }
    }
}
