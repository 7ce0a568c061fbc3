//! The environment the passes share: string keys to values, every key documented here.
//!
//! | key | set by | meaning |
//! |---|---|---|
//! | `fuse` | user (default `true`) | run the fusion passes |
//! | `fuse.max_operands` | user (default 7) | most operands of one fused body (each is a storage buffer; 8 per stage minus the output) |
//! | `op.meta` | `annotate` | one line per op: `%reg op: commutative,associative,elementwise` |
//! | `passes.run` | pipeline | the passes run so far, in order |
//! | `stats.broadcasts_inserted` | `explicit_broadcast` | broadcasts made explicit |
//! | `stats.cse_merged` | `cse` | ops merged with an equal earlier op |
//! | `stats.stats_expanded` | `expand_stats` | variances and standard deviations expanded into two passes |
//! | `stats.dce_removed` | `dce` and the fusion passes | ops removed as dead |
//! | `stats.fused_elementwise` | `fuse_elementwise` | fused ops made |
//! | `stats.fused_epilogues` | `fuse_epilogue` | elementwise epilogues fused into a matmul |

use std::collections::BTreeMap;
use std::fmt;

pub const FUSE: &str = "fuse";
pub const FUSE_MAX_OPERANDS: &str = "fuse.max_operands";
pub const OP_META: &str = "op.meta";
pub const PASSES_RUN: &str = "passes.run";
pub const BROADCASTS_INSERTED: &str = "stats.broadcasts_inserted";
pub const CSE_MERGED: &str = "stats.cse_merged";
pub const STATS_EXPANDED: &str = "stats.stats_expanded";
pub const DCE_REMOVED: &str = "stats.dce_removed";
pub const FUSED_ELEMENTWISE: &str = "stats.fused_elementwise";
pub const FUSED_EPILOGUES: &str = "stats.fused_epilogues";

#[derive(Clone, Debug, PartialEq)]
pub enum EnvValue {
    Bool(bool),
    Int(i64),
    Lines(Vec<String>),
}

/// String keys to values, iterated in key order.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Env {
    entries: BTreeMap<String, EnvValue>,
}

impl Env {
    pub fn new() -> Env {
        Env::default()
    }
    pub fn set(&mut self, key: &str, v: EnvValue) {
        self.entries.insert(key.to_string(), v);
    }
    pub fn get(&self, key: &str) -> Option<&EnvValue> {
        self.entries.get(key)
    }
    pub fn bool_or(&self, key: &str, default: bool) -> bool {
        match self.get(key) {
            Some(EnvValue::Bool(b)) => *b,
            _ => default,
        }
    }
    pub fn int_or(&self, key: &str, default: i64) -> i64 {
        match self.get(key) {
            Some(EnvValue::Int(v)) => *v,
            _ => default,
        }
    }
    /// Adds `n` to an integer counter (starting at 0).
    pub fn add(&mut self, key: &str, n: i64) {
        let v = self.int_or(key, 0) + n;
        self.set(key, EnvValue::Int(v));
    }
    /// Appends a line to a list.
    pub fn push_line(&mut self, key: &str, line: String) {
        match self
            .entries
            .entry(key.to_string())
            .or_insert(EnvValue::Lines(Vec::new()))
        {
            EnvValue::Lines(v) => v.push(line),
            other => *other = EnvValue::Lines(vec![line]),
        }
    }
}

impl fmt::Display for Env {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (k, v) in &self.entries {
            match v {
                EnvValue::Bool(b) => writeln!(f, "{k} = {b}")?,
                EnvValue::Int(i) => writeln!(f, "{k} = {i}")?,
                EnvValue::Lines(ls) => {
                    writeln!(f, "{k} =")?;
                    for l in ls {
                        writeln!(f, "  {l}")?;
                    }
                }
            }
        }
        Ok(())
    }
}
