//! Name resolution: the top-level declarations and the stack of local scopes.

use super::{Checker, codes};
use crate::ast::{File, Ident, ItemKind};
use std::collections::BTreeMap;
use texpr_ir::Diagnostic;
use texpr_ir::Span;
use texpr_ir::{Ty, VarId, VarInfo, VarKind};

/// What a top-level name stands for once its item has been checked.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum TopKind {
    Param(i64),
    Input(u32),
    Global(u32),
    /// A loop's final state.
    State(u32),
    Output,
    /// The item failed to check; uses fail silently.
    Poisoned,
}

/// What a local name stands for.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum LocalKind {
    Index(VarId),
    Vector(VarId),
    /// A `let` of a loop's block: a global computed each step.
    Global(u32),
    /// A loop's state: its current value inside the loop, its final value
    /// after a loop nested in a block.
    State(u32),
    /// The `let` value failed to check; uses fail silently.
    Poisoned,
}

#[derive(Clone, Debug)]
pub(crate) struct Local {
    pub name: String,
    pub span: Span,
    pub kind: LocalKind,
}

/// The result of looking a name up.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Resolved {
    Local(LocalKind, Span),
    Top(TopKind, Span),
    /// Declared at the top level, but after the use.
    Later(Span),
    Unknown,
}

#[derive(Debug, Default)]
pub(crate) struct Scopes {
    /// Top-level names checked so far.
    top: BTreeMap<String, (TopKind, Span)>,
    /// Every top-level name of the file, at its first declaration.
    all_top: BTreeMap<String, Span>,
    locals: Vec<Local>,
}

impl Scopes {
    pub fn lookup(&self, name: &str) -> Resolved {
        if let Some(l) = self.locals.iter().rev().find(|l| l.name == name) {
            return Resolved::Local(l.kind, l.span);
        }
        if let Some(&(kind, span)) = self.top.get(name) {
            return Resolved::Top(kind, span);
        }
        match self.all_top.get(name) {
            Some(&span) => Resolved::Later(span),
            None => Resolved::Unknown,
        }
    }

    /// The declared name closest to `name` (at most two edits away), for a hint.
    fn similar(&self, name: &str) -> Option<&str> {
        let locals = self.locals.iter().rev().map(|l| l.name.as_str());
        let names = locals.chain(self.top.keys().map(String::as_str));
        let scored = names
            .filter(|n| *n != "_")
            .map(|n| (edit_distance(name, n), n));
        let best = scored.min_by_key(|&(d, _)| d)?;
        (best.0 <= 2 && best.0 < name.chars().count()).then_some(best.1)
    }

    /// Where a name a new local would shadow is declared, if any.
    fn shadowed(&self, name: &str) -> Option<Span> {
        let local = self.locals.iter().rev().find(|l| l.name == name);
        local
            .map(|l| l.span)
            .or_else(|| self.all_top.get(name).copied())
    }
}

/// The names an item declares: one, or a loop's final states.
pub fn item_names(kind: &ItemKind) -> &[Ident] {
    match kind {
        ItemKind::Param { name, .. }
        | ItemKind::Input { name, .. }
        | ItemKind::Let { name, .. }
        | ItemKind::Output { name, .. } => std::slice::from_ref(name),
        ItemKind::Iterate { names, .. } => names,
    }
}

impl Checker {
    /// Records every top-level name, reporting duplicates and `_`.
    pub(crate) fn collect_top(&mut self, file: &File) {
        for name in file.items.iter().flat_map(|i| item_names(&i.kind)) {
            if name.name == "_" {
                let d = Diagnostic::error(codes::UNDERSCORE, "`_` cannot name a top-level item")
                    .with_primary(name.span, "give this item a name");
                self.diags.push(d);
            } else if let Some(&first) = self.scopes.all_top.get(&name.name) {
                let d = Diagnostic::error(
                    codes::DUPLICATE_NAME,
                    format!("`{}` is declared twice", name.name),
                )
                .with_primary(name.span, "declared again here")
                .with_secondary(first, "first declared here")
                .with_note("each top-level name is declared once");
                self.diags.push(d);
            } else {
                self.scopes.all_top.insert(name.name.clone(), name.span);
            }
        }
    }

    /// Every top-level name of the file.
    pub(crate) fn scopes_top_names(&self) -> impl Iterator<Item = String> + '_ {
        self.scopes.all_top.keys().cloned()
    }

    /// Binds a checked top-level name (the first declaration wins).
    pub(crate) fn bind_top(&mut self, name: &Ident, kind: TopKind) {
        if self.scopes.all_top.get(&name.name) == Some(&name.span) {
            self.scopes.top.insert(name.name.clone(), (kind, name.span));
        }
    }

    /// Reports `name` if it would shadow a name in scope (`_` never does).
    fn check_shadow(&mut self, name: &Ident) {
        if name.name == "_" {
            return;
        }
        if let Some(prev) = self.scopes.shadowed(&name.name) {
            let d = Diagnostic::error(
                codes::SHADOWED_NAME,
                format!("`{}` shadows a name in scope", name.name),
            )
            .with_primary(name.span, "declared again here")
            .with_secondary(prev, "already declared here")
            .with_note("local names may not shadow names in scope; pick another name");
            self.diags.push(d);
        }
    }

    /// Binds an index variable ranging over `0..extent`.
    pub(crate) fn push_index(&mut self, name: &Ident, extent: u64) -> VarId {
        self.check_shadow(name);
        let id = self.new_var(name, VarKind::Index { extent });
        self.push_local(name, LocalKind::Index(id));
        id
    }

    /// Binds a name that a loop's block declares: one of its `let`s, a
    /// state inside the loop, or an inner loop's final state.
    pub(crate) fn push_block_name(&mut self, name: &Ident, kind: LocalKind) {
        self.check_shadow(name);
        self.push_local(name, kind);
    }

    /// Binds a name without the shadowing rule (a loop's state inside the
    /// loop, named as the loop's result is outside it).
    pub(crate) fn push_local_unchecked(&mut self, name: &Ident, kind: LocalKind) {
        self.push_local(name, kind);
    }

    /// Binds a `let` vector; `None` when its value failed to check.
    pub(crate) fn push_vector(&mut self, name: &Ident, ty: Option<Ty>) -> Option<VarId> {
        self.push_named_vector(name, ty, "a `let`")
    }

    /// Binds a vector variable (`what` it is, for E0129); `None` when its
    /// value failed to check.
    pub(crate) fn push_named_vector(
        &mut self,
        name: &Ident,
        ty: Option<Ty>,
        what: &str,
    ) -> Option<VarId> {
        if name.name == "_" {
            let d = Diagnostic::error(codes::UNDERSCORE, format!("`_` cannot name {what}"))
                .with_primary(name.span, "give this value a name");
            self.diags.push(d);
        } else {
            self.check_shadow(name);
        }
        let id = ty.map(|ty| self.new_var(name, VarKind::Vector(ty)));
        self.push_local(name, id.map_or(LocalKind::Poisoned, LocalKind::Vector));
        id
    }

    pub(crate) fn pop_local(&mut self) {
        self.scopes.locals.pop();
    }

    pub(crate) fn lookup(&self, name: &str) -> Resolved {
        self.scopes.lookup(name)
    }

    fn push_local(&mut self, name: &Ident, kind: LocalKind) {
        self.scopes.locals.push(Local {
            name: name.name.clone(),
            span: name.span,
            kind,
        });
    }

    fn new_var(&mut self, name: &Ident, kind: VarKind) -> VarId {
        let id = VarId(self.vars.len() as u32);
        self.vars.push(VarInfo {
            name: name.name.clone(),
            kind,
            span: name.span,
        });
        id
    }

    /// The diagnostic for a name that resolves to nothing usable here.
    pub(crate) fn unknown_name(&mut self, name: &Ident, later: Option<Span>) -> super::Reported {
        let d = Diagnostic::error(codes::UNKNOWN_NAME, format!("unknown name `{}`", name.name))
            .with_primary(name.span, "not declared before this use");
        let d = match later {
            Some(decl) => d
                .with_secondary(decl, "declared here, later in the file")
                .with_note("declare a name before its first use"),
            None => match self.scopes.similar(&name.name) {
                Some(s) => d.with_note(format!("a name in scope is similar: `{s}`")),
                None => d,
            },
        };
        self.err(d)
    }
}

/// Levenshtein distance between two short names.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, &cb) in b.iter().enumerate() {
            let cur = row[j + 1];
            row[j + 1] = (prev + usize::from(ca != cb)).min(row[j] + 1).min(cur + 1);
            prev = cur;
        }
    }
    row[b.len()]
}
