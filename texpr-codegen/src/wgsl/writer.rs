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
}

/// A place in the function where [`Writer::insert_at`] adds lines.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Mark(usize);

impl Writer {
    /// A fresh local name `{base}{N}` (sanitised to a WGSL identifier).
    pub fn fresh(&mut self, base: &str) -> String {
        self.next += 1;
        let mut s: String = base
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '_' {
                    c
                } else {
                    '_'
                }
            })
            .collect();
        if s.is_empty() || s.starts_with('_') || s.starts_with(|c: char| c.is_ascii_digit()) {
            s.insert(0, 'v');
        }
        format!("{s}_{}", self.next)
    }

    pub fn line(&mut self, s: impl AsRef<str>) {
        let indent = "    ".repeat(self.blocks.len() + 1);
        self.lines.push(format!("{indent}{}", s.as_ref()));
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

    /// `let name: ty = expr;` with a fresh name.
    pub fn let_(&mut self, ty: &str, expr: impl AsRef<str>) -> String {
        let name = self.fresh("t");
        self.line(format!("let {name}: {ty} = {};", expr.as_ref()));
        name
    }

    /// Opens `header {`; `uniform` says whether every invocation enters it alike.
    pub fn open(&mut self, header: impl AsRef<str>, uniform: bool) {
        self.line(format!("{} {{", header.as_ref()));
        self.blocks.push(uniform);
        self.runs.push(self.body_runs());
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
        self.line("workgroupBarrier();");
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
        Ok(self.let_(ty, expr))
    }

    /// The function body written so far.
    pub fn finish(self) -> Vec<String> {
        debug_assert!(self.blocks.is_empty());
        self.lines
    }
}

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
        assert_eq!(w.finish().len(), 6);
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
        let lines = w.finish();
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
    fn fresh_names_are_identifiers() {
        let mut w = Writer::default();
        assert_eq!(w.fresh("__x"), "v__x_1");
        assert_eq!(w.fresh("i"), "i_2");
    }
}
