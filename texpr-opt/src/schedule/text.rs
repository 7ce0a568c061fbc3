//! The text form of a [`Schedule`]: one item a line, `#` starts a comment.
//!
//! ```text
//! optimize = off
//! c: tile group=8x8 reg=4x4
//! d: tile group=16x16 reg=4x4 shared=16
//! e: tile group=16x16 reg=8x8 shared=8 pad=1 vec4=on prefetch=on
//! y: rows group=64
//! x: wide_rows group=256
//! z: coarsen group=64 per_thread=16
//! total: multipass parts=4096 group=64
//! norm: multipass parts=4096 group=64 combine=subgroup
//! t: transpose tile=32 rows=8
//! u_next: loop group=256
//! w: default
//! ```
//! `optimize = off` (the baseline program, without the optimizing passes)
//! is written only when it holds; `on` is the default. Every strategy's
//! keys are listed once, in [`FORMS`]: the parser checks them, and
//! [`syntax`] (what `texprc` prints when a schedule file does not parse) is
//! generated from them. Optional keys at their default value are not
//! printed (`combine=serial`).

use super::data::{Combine, Loads, Schedule, Staging, Strategy};
use std::fmt;
use std::str::FromStr;
pub use syntax::syntax;

/// A value a key takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Value {
    /// A positive integer.
    Count,
    /// `AxB`, two positive integers.
    Pair,
    /// The name of one of these combines.
    Combine(&'static [Combine]),
    /// `on` or `off`.
    Switch,
    /// `scalar`, `vec4` or `wide` ([`Loads`]).
    Loads,
}

/// One `key=value` of a strategy.
#[derive(Clone, Copy, Debug)]
pub struct KeySpec {
    pub name: &'static str,
    pub value: Value,
    pub optional: bool,
}

/// A strategy's text form: its name and keys.
#[derive(Clone, Copy, Debug)]
pub struct Form {
    pub name: &'static str,
    pub keys: &'static [KeySpec],
}

const fn key(name: &'static str, value: Value) -> KeySpec {
    KeySpec {
        name,
        value,
        optional: false,
    }
}

const fn optional(name: &'static str, value: Value) -> KeySpec {
    KeySpec {
        optional: true,
        ..key(name, value)
    }
}

/// Every strategy's text form, in the order `texprc` lists them. Adding a
/// strategy: a variant of [`Strategy`], a row here, an arm in
/// [`Strategy::from_form`] and in `Display`.
pub const FORMS: &[Form] = &[
    Form {
        name: "default",
        keys: &[],
    },
    Form {
        name: "coarsen",
        keys: &[
            key("group", Value::Count),
            key("per_thread", Value::Count),
            optional("loads", Value::Loads),
        ],
    },
    Form {
        name: "rows",
        keys: &[key("group", Value::Count), optional("loads", Value::Loads)],
    },
    Form {
        name: "wide_rows",
        keys: &[
            key("group", Value::Count),
            optional(
                "combine",
                Value::Combine(&[Combine::Tree, Combine::Subgroup]),
            ),
        ],
    },
    Form {
        name: "flash",
        keys: &[key("group", Value::Count), optional("split", Value::Count)],
    },
    Form {
        name: "tile",
        keys: &[
            key("group", Value::Pair),
            key("reg", Value::Pair),
            optional("shared", Value::Count),
            optional("pad", Value::Count),
            optional("vec4", Value::Switch),
            optional("prefetch", Value::Switch),
            optional("kstep", Value::Count),
            optional("lanes", Value::Switch),
            optional("loads", Value::Loads),
        ],
    },
    Form {
        name: "multipass",
        keys: &[
            key("parts", Value::Count),
            key("group", Value::Count),
            optional("combine", Value::Combine(&Combine::ALL)),
            optional("loads", Value::Loads),
        ],
    },
    Form {
        name: "gridstride",
        keys: &[
            key("groups", Value::Count),
            key("group", Value::Count),
            optional("chunk", Value::Count),
            optional("width", Value::Count),
            optional("combine", Value::Combine(&Combine::ALL)),
            optional("loads", Value::Loads),
        ],
    },
    Form {
        name: "transpose",
        keys: &[key("tile", Value::Count), key("rows", Value::Count)],
    },
    Form {
        name: "mma",
        keys: &[key("block", Value::Pair), key("group", Value::Count)],
    },
    Form {
        name: "loop",
        keys: &[key("group", Value::Count)],
    },
];

/// The keys of one strategy as written, checked against its [`Form`].
struct Keys<'s> {
    kind: &'s str,
    given: Vec<(&'s str, &'s str)>,
}

impl<'s> Keys<'s> {
    fn get(&self, key: &str) -> Option<&'s str> {
        self.given.iter().find(|(k, _)| *k == key).map(|(_, v)| *v)
    }

    /// A required key's value (present: [`FORMS`] was checked first).
    fn required(&self, key: &str) -> Result<&'s str, String> {
        self.get(key)
            .ok_or_else(|| format!("`{}` needs `{key}=`", self.kind))
    }

    fn count(&self, key: &str) -> Result<u64, String> {
        number(self.required(key)?)
    }

    fn pair(&self, key: &str) -> Result<[u64; 2], String> {
        pair(self.required(key)?)
    }

    /// An optional `on|off` key (off when absent).
    fn switch(&self, key: &str) -> Result<bool, String> {
        match self.get(key) {
            None | Some("off") => Ok(false),
            Some("on") => Ok(true),
            Some(v) => Err(format!("`{key}` is `on` or `off`, not `{v}`")),
        }
    }

    /// The optional `loads=` (`vec4` when absent).
    fn loads(&self) -> Result<Loads, String> {
        match self.get("loads") {
            None => Ok(Loads::Vec4),
            Some(v) => (Loads::ALL.into_iter().find(|l| l.name() == v))
                .ok_or_else(|| format!("`loads` is scalar, vec4 or wide, not `{v}`")),
        }
    }

    /// A tile's optional staging: `shared=KB [pad=P] [vec4=on [prefetch=on]]`.
    fn staging(&self) -> Result<Option<Staging>, String> {
        let Some(kb) = self.get("shared").map(number).transpose()? else {
            let staging_keys = ["pad", "vec4", "prefetch"];
            return match staging_keys.into_iter().find(|k| self.get(k).is_some()) {
                Some(k) => Err(format!("`{k}=` stages operands: it needs `shared=`")),
                None => Ok(None),
            };
        };
        let (vec4, prefetch) = (self.switch("vec4")?, self.switch("prefetch")?);
        if prefetch && !vec4 {
            return Err("`prefetch=on` loads the blocks' runs ahead: it needs `vec4=on`".into());
        }
        Ok(Some(Staging {
            kb,
            pad: self.get("pad").map_or(Ok(0), number)?,
            vec4,
            prefetch,
        }))
    }

    /// The optional `combine=` (`absent` when absent), one of those the
    /// strategy's form takes.
    fn combine(&self, absent: Combine) -> Result<Combine, String> {
        let c: Combine = self.get("combine").map_or(Ok(absent), str::parse)?;
        let form = FORMS.iter().find(|f| f.name == self.kind);
        let takes = form.and_then(|f| f.keys.iter().find(|k| k.name == "combine"));
        match takes.map(|k| k.value) {
            Some(Value::Combine(these)) if !these.contains(&c) => {
                let names: Vec<&str> = these.iter().map(|c| c.name()).collect();
                Err(format!(
                    "`{}` takes `combine={}`, not `{}`",
                    self.kind,
                    names.join("|"),
                    c.name()
                ))
            }
            _ => Ok(c),
        }
    }
}

impl Strategy {
    /// The strategy of form `kind` from its checked keys.
    fn from_form(keys: &Keys<'_>) -> Result<Strategy, String> {
        Ok(match keys.kind {
            "default" => Strategy::Default,
            "coarsen" => Strategy::Coarsen {
                group: keys.count("group")?,
                per_thread: keys.count("per_thread")?,
                loads: keys.loads()?,
            },
            "rows" => Strategy::Rows {
                group: keys.count("group")?,
                loads: keys.loads()?,
            },
            "wide_rows" => Strategy::WideRows {
                group: keys.count("group")?,
                combine: keys.combine(Combine::Tree)?,
            },
            "flash" => Strategy::Flash {
                group: keys.count("group")?,
                split: keys.get("split").map_or(Ok(1), number)?,
            },
            "tile" => Strategy::Tile {
                group: keys.pair("group")?,
                reg: keys.pair("reg")?,
                shared: keys.staging()?,
                kstep: keys.get("kstep").map(number).transpose()?,
                lanes: match (keys.switch("lanes")?, keys.get("kstep")) {
                    (true, None) => {
                        return Err("`lanes=on` shares register rows loaded `kstep` at a time: it needs `kstep=`".into());
                    }
                    (on, _) => on,
                },
                loads: keys.loads()?,
            },
            "multipass" => Strategy::MultiPass {
                parts: keys.count("parts")?,
                group: keys.count("group")?,
                combine: keys.combine(Combine::Serial)?,
                loads: keys.loads()?,
            },
            "gridstride" => Strategy::GridStride {
                groups: keys.count("groups")?,
                group: keys.count("group")?,
                chunk: keys.get("chunk").map_or(Ok(1), number)?,
                width: match keys.get("width").map_or(Ok(4), number)? {
                    w @ (4 | 8) => w,
                    w => return Err(format!("`width` is 4 or 8, not {w}")),
                },
                combine: keys.combine(Combine::Serial)?,
                loads: keys.loads()?,
            },
            "transpose" => Strategy::Transpose {
                tile: keys.count("tile")?,
                rows: keys.count("rows")?,
            },
            "mma" => Strategy::Mma {
                block: keys.pair("block")?,
                group: keys.count("group")?,
            },
            "loop" => Strategy::Loop {
                group: keys.count("group")?,
            },
            other => unreachable!("`{other}` is in FORMS but has no constructor"),
        })
    }
}

impl FromStr for Combine {
    type Err = String;
    fn from_str(s: &str) -> Result<Combine, String> {
        Combine::ALL
            .into_iter()
            .find(|c| c.name() == s)
            .ok_or_else(|| format!("unknown `combine={s}` (expected serial, tree or subgroup)"))
    }
}

impl FromStr for Strategy {
    type Err = String;
    fn from_str(s: &str) -> Result<Strategy, String> {
        let mut words = s.split_whitespace();
        let kind = words.next().ok_or("missing strategy")?;
        let form = FORMS.iter().find(|f| f.name == kind).ok_or_else(|| {
            let names: Vec<&str> = FORMS.iter().map(|f| f.name).collect();
            format!("unknown strategy `{kind}` (expected {})", names.join(", "))
        })?;
        let mut given: Vec<(&str, &str)> = Vec::new();
        for w in words {
            let (k, v) = w
                .split_once('=')
                .ok_or_else(|| format!("expected `key=value`, found `{w}`"))?;
            if given.iter().any(|(k2, _)| *k2 == k) {
                return Err(format!("`{k}` given twice"));
            }
            if !form.keys.iter().any(|spec| spec.name == k) {
                return Err(format!("`{kind}` has no setting `{k}`"));
            }
            given.push((k, v));
        }
        if let Some(missing) = form
            .keys
            .iter()
            .find(|spec| !spec.optional && !given.iter().any(|(k, _)| *k == spec.name))
        {
            return Err(format!("`{kind}` needs `{}=`", missing.name));
        }
        Strategy::from_form(&Keys { kind, given })
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

impl fmt::Display for Schedule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if !self.optimize {
            writeln!(f, "optimize = off")?;
        }
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
            if !line.contains(':')
                && let Some((key, value)) = line.split_once('=')
            {
                sched.optimize = setting(key.trim(), value.trim()).map_err(err)?;
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

/// `optimize = on|off`, the one schedule-wide setting.
fn setting(key: &str, value: &str) -> Result<bool, String> {
    match (key, value) {
        ("optimize", "on") => Ok(true),
        ("optimize", "off") => Ok(false),
        ("optimize", v) => Err(format!("`optimize` is `on` or `off`, not `{v}`")),
        (k, _) => Err(format!(
            "unknown setting `{k}` (the one setting is `optimize = on|off`)"
        )),
    }
}

mod print;
mod syntax;
#[cfg(test)]
mod tests;
