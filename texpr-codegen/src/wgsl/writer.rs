//! A line-based WGSL function writer with fresh names and uniformity tracking.
//!
//! Every block the writer opens is marked uniform (entered by every
//! invocation of the workgroup alike: loops with constant bounds, conditions
//! on workgroup-uniform values) or not. [`Writer::barrier`] refuses to write a
//! `workgroupBarrier()` inside a non-uniform block, so the emitter cannot put
//! one in non-uniform control flow by mistake.
//!
//! The writer also counts the statements unrolling adds (those written inside
//! a second or later copy of an unrolled body, see [`Writer::enter_copy`]),
//! and keeps marks where a line can be inserted later ([`Writer::mark`],
//! [`Writer::insert_at`]).
//!
//! [`Writer::let_`] reuses a `let` already in scope for the same value
//! (common subexpressions: an index such as `(g * 256 + l) * 16 + t` is
//! written once, not once per read). It reuses only values that cannot
//! change while the function runs: every identifier in the expression is
//! a `let` it wrote, a name declared immutable ([`Writer::immutable`]: the
//! entry point's builtins, read-only buffers, constant `var`s) or a pure
//! builtin function; a subgroup, atomic, workgroup or texture function
//! never is.

use super::lets::{Lets, push_number};
use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};
use texpr_syntax::Diagnostic;

#[derive(Debug, Default)]
pub struct Writer {
    lines: Vec<String>,
    /// Uniformity of each open block, innermost last.
    blocks: Vec<bool>,
    /// For each open block, how often its body runs per invocation (the
    /// product of the trip counts of the loops around it).
    runs: Vec<u64>,
    /// Loop iterations one invocation runs, all loops together (an upper bound).
    iterations: u64,
    next: u32,
    /// Unrolled copies (second or later) open now.
    copies: u32,
    /// Statements written inside them.
    unrolled: u64,
    /// Insertion points: (line index, block depth), shifted as lines are inserted.
    marks: Vec<(usize, usize)>,
    /// For the function body and each open block, innermost last: the
    /// `let` holding each value written there (`ty=expr` to name).
    values: Vec<HashMap<String, String>>,
    /// Names whose value never changes while the function runs, but for
    /// the writer's own `let`s, which are in `lets`.
    fixed: HashSet<String>,
    /// The `let`s written (every one is fixed).
    lets: Lets,
    /// The `let`s whose value could be written anywhere after them (every
    /// name in it fixed): what `inline::single_uses` may move.
    movable: Lets,
}

/// A place in the function where [`Writer::insert_at`] adds lines.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Mark(usize);

impl Writer {
    /// A fresh local name `{base}{N}` (sanitised to a WGSL identifier).
    pub fn fresh(&mut self, base: &str) -> String {
        self.next += 1;
        let plain = base.starts_with(|c: char| c.is_ascii_alphabetic())
            && base.bytes().all(|c| c.is_ascii_alphanumeric() || c == b'_');
        let mut s = match plain {
            true => base.to_string(),
            false => {
                let s: String = base
                    .chars()
                    .map(|c| match c.is_ascii_alphanumeric() || c == '_' {
                        true => c,
                        false => '_',
                    })
                    .collect();
                match s.starts_with(|c: char| c.is_ascii_alphabetic()) {
                    true => s,
                    false => format!("v{s}"),
                }
            }
        };
        s.push('_');
        push_number(&mut s, self.next);
        s
    }

    pub fn line(&mut self, s: impl AsRef<str>) {
        let s = s.as_ref();
        let depth = self.blocks.len() + 1;
        let mut line = String::with_capacity(4 * depth + s.len());
        for _ in 0..depth {
            line.push_str("    ");
        }
        line.push_str(s);
        self.lines.push(line);
        if self.copies > 0 {
            self.unrolled += 1;
        }
    }

    /// Starts copy `k` of an unrolled body: statements of every copy after
    /// the first count as unrolled. Returns what [`Writer::leave_copy`] takes.
    pub fn enter_copy(&mut self, k: u64) -> bool {
        let counted = k > 0;
        self.copies += counted as u32;
        counted
    }

    /// Ends a copy started by [`Writer::enter_copy`].
    pub fn leave_copy(&mut self, counted: bool) {
        self.copies -= counted as u32;
    }

    /// Statements written so far.
    pub fn statements(&self) -> usize {
        self.lines.len()
    }

    /// Statements unrolling has added so far.
    pub fn unrolled(&self) -> u64 {
        self.unrolled
    }

    /// The place after the last line written.
    pub fn mark(&mut self) -> Mark {
        self.marks.push((self.lines.len(), self.blocks.len()));
        Mark(self.marks.len() - 1)
    }

    /// Inserts `s` at `mark` (after anything inserted there before), with
    /// that place's indentation.
    pub fn insert_at(&mut self, mark: Mark, s: impl AsRef<str>) {
        let (at, depth) = self.marks[mark.0];
        let indent = "    ".repeat(depth + 1);
        self.lines.insert(at, format!("{indent}{}", s.as_ref()));
        for m in &mut self.marks {
            if m.0 >= at {
                m.0 += 1;
            }
        }
    }

    /// `let name: ty = expr;` with a fresh name, or the name of a `let` in
    /// scope that already holds this value (see the module docs).
    pub fn let_(&mut self, ty: &str, expr: impl AsRef<str>) -> String {
        let expr = expr.as_ref();
        let mut key = String::with_capacity(ty.len() + 1 + expr.len());
        key.push_str(ty);
        key.push('=');
        key.push_str(expr);
        // Only reusable values are remembered: a value in scope is one.
        if let Some(name) = self.in_scope(&key) {
            return name;
        }
        let reusable = self.is_fixed_expr(expr);
        let name = self.fresh("t");
        self.line(format!("let {name}: {ty} = {expr};"));
        self.lets.insert(self.next);
        if reusable {
            self.movable.insert(self.next);
            self.remember(key, &name);
        }
        name
    }

    /// A `var` holding the constant `value` (naga treats a `let` of a
    /// literal as a constant expression and evaluates arithmetic on it at
    /// compile time); one per scope, never assigned.
    pub fn const_var(&mut self, ty: &str, value: &str) -> String {
        let key = format!("var {ty}={value}");
        if let Some(name) = self.in_scope(&key) {
            return name;
        }
        let name = self.fresh("c");
        self.line(format!("var {name}: {ty} = {value};"));
        self.fixed.insert(name.clone());
        self.remember(key, &name);
        name
    }

    /// Declares that `name`'s value never changes while the function runs.
    pub fn immutable(&mut self, name: &str) {
        self.fixed.insert(name.to_string());
    }

    fn in_scope(&self, key: &str) -> Option<String> {
        self.values.iter().rev().find_map(|m| m.get(key).cloned())
    }

    fn remember(&mut self, key: String, name: &str) {
        if self.values.len() <= self.blocks.len() {
            self.values
                .resize_with(self.blocks.len() + 1, HashMap::default);
        }
        self.values[self.blocks.len()].insert(key, name.to_string());
    }

    /// Whether `expr` always gives the same value: literals, fixed names,
    /// swizzles, and calls of functions other than subgroup, atomic,
    /// workgroup, quad and texture ones.
    fn is_fixed_expr(&self, expr: &str) -> bool {
        let b = expr.as_bytes();
        let mut i = 0;
        while i < b.len() {
            let c = b[i];
            if c.is_ascii_digit() {
                // A literal, with any suffix or exponent (`2.5e-3f`, `16u`).
                while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'.') {
                    i += 1;
                }
                continue;
            }
            if !(c.is_ascii_alphabetic() || c == b'_') {
                i += 1;
                continue;
            }
            let start = i;
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                i += 1;
            }
            let word = &expr[start..i];
            let swizzle = start > 0 && b[start - 1] == b'.';
            let next = expr[i..].trim_start().as_bytes().first().copied();
            // `f(..)`, or a generic type's constructor `vec4<f32>(..)`
            // (`x < y` is a comparison of `x`, which must be fixed).
            let generic = word.starts_with("vec")
                || word.starts_with("mat")
                || matches!(word, "array" | "bitcast");
            let call = next == Some(b'(') || (next == Some(b'<') && generic);
            let ok = swizzle
                || matches!(
                    word,
                    "f32" | "i32" | "u32" | "f16" | "bool" | "true" | "false"
                )
                || (call && !IMPURE_CALLS.iter().any(|p| word.starts_with(p)))
                || self.lets.contains(word)
                || self.fixed.contains(word);
            if !ok {
                return false;
            }
        }
        true
    }

    /// Opens `header {`; `uniform` says whether every invocation enters it alike.
    pub fn open(&mut self, header: impl AsRef<str>, uniform: bool) {
        self.line(format!("{} {{", header.as_ref()));
        self.blocks.push(uniform);
        self.runs.push(self.body_runs());
    }

    /// Forgets the values remembered in blocks deeper than the open ones.
    fn forget_closed(&mut self) {
        self.values.truncate(self.blocks.len() + 1);
    }

    /// Opens a loop of at most `trips` iterations (counted towards
    /// [`Writer::iterations`]).
    pub fn open_loop(&mut self, header: impl AsRef<str>, uniform: bool, trips: u64) {
        let runs = self.body_runs().saturating_mul(trips);
        self.iterations = self.iterations.saturating_add(runs);
        self.line(format!("{} {{", header.as_ref()));
        self.blocks.push(uniform);
        self.runs.push(runs);
    }

    pub fn close(&mut self) {
        self.blocks.pop();
        self.runs.pop();
        self.forget_closed();
        self.line("}");
    }

    /// How often the innermost open block's body runs per invocation.
    fn body_runs(&self) -> u64 {
        self.runs.last().copied().unwrap_or(1)
    }

    /// Loop iterations one invocation runs in everything written so far.
    pub fn iterations(&self) -> u64 {
        self.iterations
    }

    /// Writes `workgroupBarrier();`, or an internal error (E0391) when any
    /// enclosing block is not uniform.
    pub fn barrier(&mut self) -> Result<(), Diagnostic> {
        if self.blocks.iter().any(|u| !u) {
            return Err(Diagnostic::error(
                "E0391",
                "internal error: a barrier would stand in non-uniform control flow",
            ));
        }
        // A barrier straight after another (same block, no insertion point
        // between them) adds nothing.
        let indent = "    ".repeat(self.blocks.len() + 1);
        let again = self
            .lines
            .last()
            .is_some_and(|l| l.strip_prefix(&indent) == Some("workgroupBarrier();"));
        let marked = self.marks.iter().any(|(at, _)| *at == self.lines.len());
        if !again || marked {
            self.line("workgroupBarrier();");
        }
        Ok(())
    }

    /// Whether every open block is entered by all invocations alike.
    pub fn uniform(&self) -> bool {
        self.blocks.iter().all(|u| *u)
    }

    /// Whether any block is open.
    pub fn nested(&self) -> bool {
        !self.blocks.is_empty()
    }

    /// `let name: ty = expr;` for an expression holding a subgroup
    /// operation, or an internal error (E0391) when any enclosing block is
    /// not uniform (every invocation of a subgroup must reach it alike).
    pub fn subgroup_let(&mut self, ty: &str, expr: impl AsRef<str>) -> Result<String, Diagnostic> {
        if self.blocks.iter().any(|u| !u) {
            return Err(Diagnostic::error(
                "E0391",
                "internal error: a subgroup operation would stand in non-uniform control flow",
            ));
        }
        let name = self.fresh("t");
        self.line(format!("let {name}: {ty} = {};", expr.as_ref()));
        self.lets.insert(self.next);
        Ok(name)
    }

    /// The function body written so far, and its movable `let`s.
    pub fn finish(self) -> (Vec<String>, Lets) {
        debug_assert!(self.blocks.is_empty());
        (self.lines, self.movable)
    }
}

/// Prefixes of the functions whose result depends on more than their
/// arguments: which invocations run them, or memory others write.
const IMPURE_CALLS: [&str; 6] = [
    "subgroup",
    "atomic",
    "workgroup",
    "quad",
    "texture",
    "storage",
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn barriers_only_in_uniform_blocks() {
        let mut w = Writer::default();
        w.open("for (var s = 4; s > 0; s = s / 2)", true);
        assert!(w.barrier().is_ok());
        w.open("if (l < s)", false);
        assert_eq!(w.barrier().unwrap_err().code, "E0391");
        assert_eq!(
            w.subgroup_let("f32", "subgroupAdd(x)").unwrap_err().code,
            "E0391"
        );
        w.close();
        assert!(w.subgroup_let("f32", "subgroupAdd(x)").is_ok());
        w.close();
        assert_eq!(w.finish().0.len(), 6);
    }

    #[test]
    fn loop_iterations_multiply_through_nesting() {
        let mut w = Writer::default();
        w.open_loop("for (a)", true, 257);
        w.open("if (c)", false);
        w.open_loop("for (b)", true, 257);
        w.close();
        w.close();
        w.close();
        w.open_loop("for (c)", true, 10);
        w.close();
        assert_eq!(w.iterations(), 257 + 257 * 257 + 10);
    }

    #[test]
    fn unrolled_copies_and_marks() {
        let mut w = Writer::default();
        w.line("a");
        let m = w.mark();
        w.open("if (c)", true);
        let inner = w.mark();
        let first = w.enter_copy(0);
        w.line("x0");
        w.leave_copy(first);
        let second = w.enter_copy(1);
        w.line("x1");
        w.line("y1");
        w.leave_copy(second);
        w.close();
        assert_eq!(w.unrolled(), 2);
        w.insert_at(m, "m1");
        w.insert_at(m, "m2");
        w.insert_at(inner, "i1");
        let (lines, _) = w.finish();
        let text: Vec<&str> = lines.iter().map(|l| l.as_str()).collect();
        assert_eq!(
            text,
            [
                "    a",
                "    m1",
                "    m2",
                "    if (c) {",
                "        i1",
                "        x0",
                "        x1",
                "        y1",
                "    }"
            ]
        );
    }

    #[test]
    fn a_value_in_scope_is_written_once() {
        let mut w = Writer::default();
        w.immutable("g");
        w.immutable("b0_x");
        let a = w.let_("i32", "g * 256i + 1i");
        assert_eq!(w.let_("i32", "g * 256i + 1i"), a);
        // Another type is another value.
        assert_ne!(w.let_("u32", "g * 256i + 1i"), a);
        let read = w.let_("f32", "b0_x[clamp(g, 0i, 7i)]");
        assert_eq!(w.let_("f32", "b0_x[clamp(g, 0i, 7i)]"), read);
        w.open("if (g > 0i)", true);
        let inner = w.let_("i32", format!("{a} * 2i"));
        assert_eq!(w.let_("i32", "g * 256i + 1i"), a, "outer values reach in");
        w.close();
        assert_ne!(
            w.let_("i32", format!("{a} * 2i")),
            inner,
            "inner ones end with their block"
        );
        let c = w.const_var("i32", "2048i");
        assert_eq!(w.const_var("i32", "2048i"), c);
        assert_eq!(
            w.let_("i32", format!("{a} % {c}")),
            w.let_("i32", format!("{a} % {c}"))
        );
    }

    #[test]
    fn values_that_may_change_are_written_again() {
        let mut w = Writer::default();
        w.immutable("l");
        w.line("var acc_1: f32 = 0.0f;");
        let twice = |w: &mut Writer, e: &str| w.let_("f32", e) != w.let_("f32", e);
        assert!(twice(&mut w, "acc_1 + 1.0f"), "a var");
        assert!(
            twice(&mut w, "b0_out[l]"),
            "a buffer not declared read-only"
        );
        assert!(twice(&mut w, "s0_tile[l]"), "workgroup memory");
        assert!(twice(&mut w, "subgroupAdd(f32(l))"), "a subgroup operation");
        assert!(twice(&mut w, "atomicLoad(&a_2)"), "an atomic");
        assert!(twice(&mut w, "acc_1 < 1.0f"), "a var compared");
        assert!(
            twice(&mut w, "select(0.0f, 1.0f, acc_1<l)"),
            "a var compared"
        );
        // Pure builtins, literals with suffixes and swizzles are fixed.
        assert!(!twice(&mut w, "max(f32(l), 2.5e-3f) + vec4<f32>(1.0f).x"));
    }

    #[test]
    fn fresh_names_are_identifiers() {
        let mut w = Writer::default();
        assert_eq!(w.fresh("__x"), "v__x_1");
        assert_eq!(w.fresh("i"), "i_2");
    }
}
