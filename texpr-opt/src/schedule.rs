//! Schedules as data: one [`Strategy`] per item (global or output), printable
//! and parsable, chosen by a heuristic, by `texprc tune`, or pinned by a user.
//!
//! Text form, one item a line (`#` starts a comment):
//! ```text
//! c: tile group=8x8 reg=4x4
//! d: tile group=16x16 reg=4x4 shared=16
//! y: rows group=64
//! x: wide_rows group=256
//! z: coarsen group=64 per_thread=16
//! total: multipass parts=4096 group=64
//! norm: multipass parts=4096 group=64 combine=subgroup
//! w: default
//! ```
//! `multipass` takes an optional `combine=serial|tree|subgroup` ([`Combine`]);
//! `serial` is the default and is printed without `combine=`.
//! An item the schedule does not name gets the default schedule (one element
//! per invocation). A strategy that does not fit its item (the item's shape,
//! the device's limits, or sizes that do not divide) is refused by
//! [`crate::strategy::apply`] with E0210-E0219, naming the item.

use std::fmt;
use std::str::FromStr;

/// How one item root is mapped onto grid, workgroup and thread.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Strategy {
    /// One element per invocation (`crate::distribute`).
    Default,
    /// Each invocation computes `per_thread` consecutive elements; `group`
    /// invocations per workgroup. For elementwise items.
    Coarsen { group: u64, per_thread: u64 },
    /// `compute R |r| BODY`: one invocation per row (all of `BODY`, its
    /// reductions and their epilogue in one invocation), `group` rows per
    /// workgroup. For row-wise reductions (softmax, layernorm, matvec).
    Rows { group: u64 },
    /// `compute R |r| BODY`: one workgroup of `group` invocations per row.
    /// Each scalar `let` of the row is a `let@shared` whose reductions are
    /// workgroup trees (`reduce@group`), and the row's elements (or its final
    /// reduction) are split across the invocations, neighbouring invocations
    /// on neighbouring elements. What GPUs want for long rows (softmax,
    /// layernorm, matvec).
    WideRows { group: u64 },
    /// `compute M |i| compute N |j| S`: workgroups of `group[0] x group[1]`
    /// invocations, each computing a `reg[0] x reg[1]` register tile, operands
    /// loaded once per reduction step into register tiles. With
    /// `shared: Some(KB)` the workgroup first stages each operand's block of
    /// `KB` reduction steps in workgroup memory (`let@shared`, filled by all
    /// invocations, between barriers), and the register tiles load from there:
    /// each operand element is read from global memory once per workgroup
    /// instead of once per invocation.
    Tile {
        group: [u64; 2],
        reg: [u64; 2],
        shared: Option<u64>,
    },
    /// `reduce N |i| E`: `parts` partial folds of `N / parts` terms each, one
    /// per invocation, `group` invocations per workgroup, written to a global
    /// buffer; then one invocation folds the partials (a second kernel).
    ///
    /// `combine` says how a workgroup combines its invocations' folds
    /// ([`Combine`]): with `Tree` or `Subgroup` each workgroup writes one
    /// partial (`parts / group` in all, and no second kernel when
    /// `parts == group`).
    MultiPass {
        parts: u64,
        group: u64,
        combine: Combine,
    },
}

/// How a [`Strategy::MultiPass`] combines the folds of one workgroup's
/// invocations.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Combine {
    /// Not at all: every invocation writes its partial to the global, and
    /// one invocation folds all `parts` of them.
    #[default]
    Serial,
    /// A `reduce@group` tree in workgroup memory: one partial per workgroup.
    Tree,
    /// A `reduce@subgroup`: subgroup operations, then a fold of the
    /// per-subgroup partials; one partial per workgroup. Needs a device with
    /// subgroups.
    Subgroup,
}

impl Combine {
    pub fn name(self) -> &'static str {
        match self {
            Combine::Serial => "serial",
            Combine::Tree => "tree",
            Combine::Subgroup => "subgroup",
        }
    }
}

impl FromStr for Combine {
    type Err = String;
    fn from_str(s: &str) -> Result<Combine, String> {
        match s {
            "serial" => Ok(Combine::Serial),
            "tree" => Ok(Combine::Tree),
            "subgroup" => Ok(Combine::Subgroup),
            _ => Err(format!(
                "unknown `combine={s}` (expected serial, tree or subgroup)"
            )),
        }
    }
}

/// A schedule: the strategy of each named item, in order.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Schedule {
    pub items: Vec<(String, Strategy)>,
}

impl Schedule {
    /// The strategy for `item` (the default when not named).
    pub fn get(&self, item: &str) -> Strategy {
        self.items
            .iter()
            .find(|(n, _)| n == item)
            .map(|(_, s)| s.clone())
            .unwrap_or(Strategy::Default)
    }

    /// Sets the strategy for `item`, replacing an earlier one.
    pub fn set(&mut self, item: &str, s: Strategy) {
        match self.items.iter_mut().find(|(n, _)| n == item) {
            Some(slot) => slot.1 = s,
            None => self.items.push((item.to_string(), s)),
        }
    }
}

/// How [`crate::pipeline`] picks the schedule.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum ScheduleChoice {
    /// One element per invocation for every item (the baseline).
    Default,
    /// [`crate::heuristic::heuristic`] from the device's limits.
    #[default]
    Heuristic,
    /// A schedule given by the caller (pinned in a file, or tuned).
    Given(Schedule),
}

impl fmt::Display for Strategy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Strategy::Default => write!(f, "default"),
            Strategy::Coarsen { group, per_thread } => {
                write!(f, "coarsen group={group} per_thread={per_thread}")
            }
            Strategy::Rows { group } => write!(f, "rows group={group}"),
            Strategy::WideRows { group } => write!(f, "wide_rows group={group}"),
            Strategy::Tile { group, reg, shared } => {
                write!(
                    f,
                    "tile group={}x{} reg={}x{}",
                    group[0], group[1], reg[0], reg[1]
                )?;
                match shared {
                    Some(kb) => write!(f, " shared={kb}"),
                    None => Ok(()),
                }
            }
            Strategy::MultiPass {
                parts,
                group,
                combine,
            } => {
                write!(f, "multipass parts={parts} group={group}")?;
                match combine {
                    Combine::Serial => Ok(()),
                    c => write!(f, " combine={}", c.name()),
                }
            }
        }
    }
}

impl fmt::Display for Schedule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (name, s) in &self.items {
            writeln!(f, "{name}: {s}")?;
        }
        Ok(())
    }
}

/// A schedule text that does not parse: the line (1-based) and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScheduleParseError {
    pub line: usize,
    pub message: String,
}

impl fmt::Display for ScheduleParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}: {}", self.line, self.message)
    }
}

impl std::error::Error for ScheduleParseError {}

impl FromStr for Strategy {
    type Err = String;
    fn from_str(s: &str) -> Result<Strategy, String> {
        let mut words = s.split_whitespace();
        let kind = words.next().ok_or("missing strategy")?;
        let mut keys: Vec<(&str, &str)> = Vec::new();
        for w in words {
            let (k, v) = w
                .split_once('=')
                .ok_or_else(|| format!("expected `key=value`, found `{w}`"))?;
            if keys.iter().any(|(k2, _)| *k2 == k) {
                return Err(format!("`{k}` given twice"));
            }
            keys.push((k, v));
        }
        let mut take = |key: &str| -> Result<&str, String> {
            let at = keys
                .iter()
                .position(|(k, _)| *k == key)
                .ok_or_else(|| format!("`{kind}` needs `{key}=`"))?;
            Ok(keys.remove(at).1)
        };
        let strategy = match kind {
            "default" => Strategy::Default,
            "coarsen" => Strategy::Coarsen {
                group: number(take("group")?)?,
                per_thread: number(take("per_thread")?)?,
            },
            "rows" => Strategy::Rows {
                group: number(take("group")?)?,
            },
            "wide_rows" => Strategy::WideRows {
                group: number(take("group")?)?,
            },
            "tile" => Strategy::Tile {
                group: pair(take("group")?)?,
                reg: pair(take("reg")?)?,
                shared: take("shared").ok().map(number).transpose()?,
            },
            "multipass" => Strategy::MultiPass {
                parts: number(take("parts")?)?,
                group: number(take("group")?)?,
                // Optional: `take` fails only when it is not given.
                combine: match take("combine") {
                    Ok(c) => c.parse()?,
                    Err(_) => Combine::Serial,
                },
            },
            other => {
                return Err(format!(
                    "unknown strategy `{other}` (expected default, coarsen, rows, wide_rows, tile or multipass)"
                ));
            }
        };
        match keys.first() {
            Some((k, _)) => Err(format!("`{kind}` has no setting `{k}`")),
            None => Ok(strategy),
        }
    }
}

fn number(s: &str) -> Result<u64, String> {
    match s.parse::<u64>() {
        Ok(n) if n >= 1 => Ok(n),
        _ => Err(format!("expected a positive integer, found `{s}`")),
    }
}

fn pair(s: &str) -> Result<[u64; 2], String> {
    let (a, b) = s
        .split_once('x')
        .ok_or_else(|| format!("expected `AxB`, found `{s}`"))?;
    Ok([number(a)?, number(b)?])
}

impl FromStr for Schedule {
    type Err = ScheduleParseError;
    fn from_str(text: &str) -> Result<Schedule, ScheduleParseError> {
        let mut sched = Schedule::default();
        for (i, line) in text.lines().enumerate() {
            let err = |message: String| ScheduleParseError {
                line: i + 1,
                message,
            };
            let line = line.split('#').next().unwrap_or("").trim();
            if line.is_empty() {
                continue;
            }
            let (name, rest) = line
                .split_once(':')
                .ok_or_else(|| err("expected `item: strategy`".into()))?;
            let name = name.trim();
            if name.is_empty() || !name.chars().all(|c| c.is_alphanumeric() || c == '_') {
                return Err(err(format!("`{name}` is not an item name")));
            }
            if sched.items.iter().any(|(n, _)| n == name) {
                return Err(err(format!("`{name}` is scheduled twice")));
            }
            let s = rest.parse::<Strategy>().map_err(err)?;
            sched.items.push((name.to_string(), s));
        }
        Ok(sched)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_round_trips() {
        let text = "c: tile group=8x8 reg=4x4\nd: tile group=16x16 reg=4x4 shared=16\ny: rows group=64\nx: wide_rows group=256\nz: coarsen group=64 per_thread=16\nt: multipass parts=4096 group=64\nu: multipass parts=64 group=64 combine=tree\nv: multipass parts=128 group=32 combine=subgroup\nw: default\n";
        let s: Schedule = text.parse().expect("parses");
        assert_eq!(s.items.len(), 9);
        assert_eq!(
            s.get("v"),
            Strategy::MultiPass {
                parts: 128,
                group: 32,
                combine: Combine::Subgroup
            }
        );
        assert_eq!(s.to_string(), text);
        assert_eq!(s.get("nobody"), Strategy::Default);
    }

    #[test]
    fn serial_combine_is_the_default_and_prints_as_before() {
        let s: Schedule = "t: multipass parts=64 group=8 combine=serial\n"
            .parse()
            .unwrap();
        assert_eq!(s.to_string(), "t: multipass parts=64 group=8\n");
        let old: Schedule = "t: multipass parts=64 group=8\n".parse().unwrap();
        assert_eq!(old, s);
    }

    #[test]
    fn bad_text_says_which_line_and_why() {
        let cases = [
            ("c tile", 1, "expected `item: strategy`"),
            ("# x\nc: tiles group=1x1 reg=1x1", 2, "unknown strategy"),
            ("c: tile group=8 reg=1x1", 1, "expected `AxB`"),
            ("c: rows group=0", 1, "positive integer"),
            ("c: rows", 1, "needs `group=`"),
            ("c: tile group=8x8 reg=1x1 shared=0", 1, "positive integer"),
            ("c: rows group=4 reg=2", 1, "no setting `reg`"),
            ("c: rows group=4\nc: default", 2, "scheduled twice"),
            (
                "c: default\nt: multipass parts=8 group=4 combine=warp",
                2,
                "unknown `combine=warp`",
            ),
            (
                "t: multipass parts=8 group=4 combine=",
                1,
                "expected serial, tree or subgroup",
            ),
            (
                "t: multipass parts=8 group=4 combine=tree combine=tree",
                1,
                "given twice",
            ),
            ("t: rows group=4 combine=tree", 1, "no setting `combine`"),
        ];
        for (text, line, msg) in cases {
            let e = text.parse::<Schedule>().expect_err(text);
            assert_eq!(e.line, line, "{text}");
            assert!(e.message.contains(msg), "{text}: {}", e.message);
        }
    }
}
