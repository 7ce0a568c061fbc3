//! Fresh names for a program's new variables, kept as an index that is
//! rebuilt only when the program's lists of names changed.

use super::Program;
use std::collections::{HashMap, HashSet};

/// The names a program uses, for [`Program::fresh_var`]: rebuilt whenever the
/// program's lists of names changed other than by variables pushed since
/// (which are added as they come). Names are never renamed in place.
#[derive(Clone, Default)]
pub struct NameIndex {
    names: HashSet<String>,
    /// Per base name, a suffix below which every `base_N` is taken.
    next: HashMap<String, u64>,
    /// The lengths of `params`, `inputs`, `globals`, `outputs`, `states` and
    /// `vars` when indexed, and where `vars` lived (a new vector means a rebuild).
    pub(super) seen: [usize; 6],
    pub(super) vars_at: usize,
}

impl NameIndex {
    /// Brings the index up to date with `p`'s names.
    pub(super) fn update(&mut self, p: &Program) {
        let lens = [
            p.params.len(),
            p.inputs.len(),
            p.globals.len(),
            p.outputs.len(),
            p.states.len(),
            p.vars.len(),
        ];
        let vars_at = p.vars.as_ptr() as usize;
        let grown =
            self.seen[..5] == lens[..5] && self.vars_at == vars_at && self.seen[5] <= lens[5];
        if !grown {
            *self = NameIndex::default();
            let top = (p.params.iter().map(|(n, _)| n))
                .chain(p.inputs.iter().map(|i| &i.name))
                .chain(p.globals.iter().map(|g| &g.name))
                .chain(p.outputs.iter().map(|o| &o.name))
                .chain(p.states.iter().map(|s| &s.name));
            self.names.extend(top.cloned());
        }
        let from = if grown { self.seen[5] } else { 0 };
        self.names
            .extend(p.vars[from..].iter().map(|v| v.name.clone()));
        self.seen = lens;
        self.vars_at = vars_at;
    }

    /// The name for a new variable (recorded as taken).
    pub(super) fn fresh(&mut self, base: &str) -> String {
        let mut name = base.to_string();
        if self.names.contains(&name) {
            let k = self.next.entry(base.to_string()).or_insert(1);
            loop {
                name = format!("{base}_{k}");
                *k += 1;
                if !self.names.contains(&name) {
                    break;
                }
            }
        }
        self.names.insert(name.clone());
        name
    }
}

impl PartialEq for NameIndex {
    /// A cache: any two are equal.
    fn eq(&self, _: &NameIndex) -> bool {
        true
    }
}

impl std::fmt::Debug for NameIndex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("NameIndex")
    }
}
