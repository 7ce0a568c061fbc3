//! A line-based WGSL function writer with fresh names and uniformity tracking.
//!
//! Every block the writer opens is marked uniform (entered by every
//! invocation of the workgroup alike: loops with constant bounds, conditions
//! on workgroup-uniform values) or not. [`Writer::barrier`] refuses to write a
//! `workgroupBarrier()` inside a non-uniform block, so the emitter cannot put
//! one in non-uniform control flow by mistake.

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
}

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
    fn fresh_names_are_identifiers() {
        let mut w = Writer::default();
        assert_eq!(w.fresh("__x"), "v__x_1");
        assert_eq!(w.fresh("i"), "i_2");
    }
}
