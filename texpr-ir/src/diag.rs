//! Diagnostics: a stable code, a message, labelled spans and notes, rendered like rustc's.
//!
//! Every error any stage of texpr reports to a user is a [`Diagnostic`]. Codes
//! are allocated in ranges per stage and never reused:
//!
//! | range   | stage |
//! |---------|-------|
//! | E0001-E0099 | lexer and parser |
//! | E0100-E0199 | checker (names, types, lengths, bounds, levels) |
//! | E0200-E0299 | scheduling and optimisation (`texpr-opt`) |
//! | E0300-E0399 | code generation and device limits (`texpr-codegen`) |
//! | E0400-E0499 | runtime (`texpr-codegen`'s wgpu runtime) |
//! | E0500-E0599 | block-matrix layer (`texpr-block`) |
//! | E0600-E0699 | target descriptions (`texpr-target`) |
//! | E0900-E0999 | command line and files (`texprc`) |
//!
//! Messages are lower case without a trailing period.

use crate::diag_view::View;
use crate::span::Span;
use codespan_reporting::diagnostic::{Diagnostic as CsDiagnostic, Label as CsLabel};
use codespan_reporting::term;
use std::fmt;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Severity {
    Error,
    Warning,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Label {
    pub span: Span,
    pub message: String,
    /// The primary label marks where the problem is; secondary ones give context.
    pub primary: bool,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    pub severity: Severity,
    /// Stable code, e.g. `"E0101"`.
    pub code: &'static str,
    pub message: String,
    pub labels: Vec<Label>,
    pub notes: Vec<String>,
}

impl Diagnostic {
    pub fn error(code: &'static str, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            severity: Severity::Error,
            code,
            message: message.into(),
            labels: Vec::new(),
            notes: Vec::new(),
        }
    }

    pub fn warning(code: &'static str, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            severity: Severity::Warning,
            ..Diagnostic::error(code, message)
        }
    }

    /// Adds the primary label.
    pub fn with_primary(mut self, span: Span, message: impl Into<String>) -> Diagnostic {
        self.labels.push(Label {
            span,
            message: message.into(),
            primary: true,
        });
        self
    }

    pub fn with_secondary(mut self, span: Span, message: impl Into<String>) -> Diagnostic {
        self.labels.push(Label {
            span,
            message: message.into(),
            primary: false,
        });
        self
    }

    pub fn with_note(mut self, note: impl Into<String>) -> Diagnostic {
        self.notes.push(note.into());
        self
    }

    /// The span of the primary label, if any.
    pub fn primary_span(&self) -> Option<Span> {
        self.labels.iter().find(|l| l.primary).map(|l| l.span)
    }

    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }

    /// For rendering against `view`: labels moved into the view, every text
    /// cut to [`MAX_TEXT`] characters.
    fn to_codespan(&self, view: &View<'_>) -> CsDiagnostic<()> {
        let base = match self.severity {
            Severity::Error => CsDiagnostic::error(),
            Severity::Warning => CsDiagnostic::warning(),
        };
        let labels = self
            .labels
            .iter()
            .map(|l| {
                let range = view.span(l.span);
                let label = if l.primary {
                    CsLabel::primary((), range)
                } else {
                    CsLabel::secondary((), range)
                };
                label.with_message(shorten(&l.message))
            })
            .collect();
        base.with_code(self.code)
            .with_message(shorten(&self.message))
            .with_labels(labels)
            .with_notes(self.notes.iter().map(|n| shorten(n)).collect())
    }
}

impl fmt::Display for Diagnostic {
    /// A one-line form without source: `error[E0101]: unknown name `x``.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let sev = match self.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
        };
        write!(f, "{sev}[{}]: {}", self.code, self.message)
    }
}

impl std::error::Error for Diagnostic {}

/// Renders diagnostics against their source, like rustc, without colour
/// (deterministic; used by golden tests and by `texprc` when not on a terminal).
pub fn render(file_name: &str, source: &str, diags: &[Diagnostic]) -> String {
    render_with(file_name, source, diags, false)
}

/// `n` and `noun`, in the plural unless `n` is 1: "1 element", "3 elements".
pub fn count(n: impl Into<u64>, noun: &str) -> String {
    count_as(n, noun, &format!("{noun}s"))
}

/// [`count`] with the plural given: `count_as(n, "body", "bodies")`.
pub fn count_as(n: impl Into<u64>, one: &str, many: &str) -> String {
    match n.into() {
        1 => format!("1 {one}"),
        n => format!("{n} {many}"),
    }
}

/// At most this many diagnostics are rendered per file; a last line counts the rest.
pub const MAX_SHOWN: usize = 20;
/// Messages, labels and notes longer than this many characters are cut.
pub(crate) const MAX_TEXT: usize = 400;

/// `text`, cut to [`MAX_TEXT`] characters with `...`.
fn shorten(text: &str) -> String {
    match text.char_indices().nth(MAX_TEXT) {
        Some((i, _)) => format!("{}...", &text[..i]),
        None => text.to_string(),
    }
}

/// Renders with ANSI colours when `color` is set: the first [`MAX_SHOWN`]
/// diagnostics, each showing long lines trimmed around its labels
/// (`diag_view`), then how many more there were.
pub fn render_with(file_name: &str, source: &str, diags: &[Diagnostic], color: bool) -> String {
    let config = term::Config::default();
    let mut out = String::new();
    for d in diags.iter().take(MAX_SHOWN) {
        // Clamp spans that point past the end (e.g. at end of input).
        let mut d = d.clone();
        let len = source.len() as u32;
        for l in &mut d.labels {
            l.span.start = l.span.start.min(len);
            l.span.end = l.span.end.min(len).max(l.span.start);
        }
        let spans: Vec<Span> = d.labels.iter().map(|l| l.span).collect();
        let view = View::new(file_name, source, &spans);
        let cs = d.to_codespan(&view);
        let text = if color {
            let mut buf = term::termcolor::Buffer::ansi();
            let _ = term::emit_to_write_style(&mut buf, &config, &view, &cs);
            String::from_utf8_lossy(buf.as_slice()).into_owned()
        } else {
            let mut buf = String::new();
            let _ = term::emit_to_string(&mut buf, &config, &view, &cs);
            buf
        };
        out.push_str(&text);
    }
    if let Some(hidden) = diags.get(MAX_SHOWN..) {
        out.push_str(&hidden_line(hidden));
    }
    out
}

/// "note: 64 more errors and 1 more warning not shown (at most 20 per file)".
fn hidden_line(hidden: &[Diagnostic]) -> String {
    let errors = hidden.iter().filter(|d| d.is_error()).count();
    let warnings = hidden.len() - errors;
    let count = |n: usize, what: &str| match n {
        1 => format!("1 more {what}"),
        n => format!("{n} more {what}s"),
    };
    let parts: Vec<String> = [(errors, "error"), (warnings, "warning")]
        .iter()
        .filter(|(n, _)| *n > 0)
        .map(|&(n, what)| count(n, what))
        .collect();
    format!(
        "note: {} not shown (at most {MAX_SHOWN} diagnostics are shown per file)\n",
        parts.join(" and ")
    )
}
