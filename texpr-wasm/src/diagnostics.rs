//! Diagnostics as JavaScript sees them: structured objects (code, severity,
//! message, labels with their positions, notes) and the text the command
//! line prints for them.

use serde_json::{Value as Json, json};
use texpr_ir::diag::MAX_SHOWN;
use texpr_ir::{Diagnostic, Severity, Span};

/// The name diagnostics are rendered under (the CLI's is the file's path).
pub const SOURCE_NAME: &str = "input.te";

/// `diags` about `source`: `{diagnostics: [...], rendered, hidden}`: the
/// first [`MAX_SHOWN`] diagnostics (the CLI shows as many), each
/// `{severity, code, message, labels: [{primary, message, start, end,
/// line, column, end_line, end_column}], notes}`, and how many more there
/// were. `start` and `end` are UTF-16 offsets (what JavaScript strings
/// index), `line` and `column` 1-based, the column in characters (as the
/// CLI's `line:column`). `rendered` is the CLI's text without colour.
///
/// Time is linear in the source: one pass indexes its lines, and each
/// label then costs a binary search and a walk of its own line.
pub fn report(source: &str, diags: &[Diagnostic]) -> (Json, String, usize) {
    let shown = &diags[..diags.len().min(MAX_SHOWN)];
    let lines = Lines::new(source);
    let list: Vec<Json> = shown.iter().map(|d| to_json(&lines, d)).collect();
    let rendered = texpr_ir::diag::render(SOURCE_NAME, source, diags);
    (Json::Array(list), rendered, diags.len() - shown.len())
}

fn to_json(lines: &Lines<'_>, d: &Diagnostic) -> Json {
    let labels: Vec<Json> = (d.labels.iter())
        .map(|l| {
            let Span { start, end } = l.span;
            let (start, end) = (lines.clamp(start), lines.clamp(end.max(start)));
            let (line, column, start16) = lines.position(start);
            let (end_line, end_column, end16) = lines.position(end);
            json!({
                "primary": l.primary,
                "message": l.message,
                "start": start16,
                "end": end16,
                "line": line,
                "column": column,
                "end_line": end_line,
                "end_column": end_column,
            })
        })
        .collect();
    json!({
        "severity": match d.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
        },
        "code": d.code,
        "message": d.message,
        "labels": labels,
        "notes": d.notes,
    })
}

/// The start of every line of a source, in bytes and in UTF-16 units.
struct Lines<'s> {
    source: &'s str,
    /// `(byte, utf16)` offsets of each line's first character.
    starts: Vec<(usize, usize)>,
}

impl<'s> Lines<'s> {
    fn new(source: &'s str) -> Lines<'s> {
        let mut starts = vec![(0, 0)];
        let mut utf16 = 0;
        for (at, c) in source.char_indices() {
            utf16 += c.len_utf16();
            if c == '\n' {
                starts.push((at + 1, utf16));
            }
        }
        Lines { source, starts }
    }

    /// `at` within the source and on a character boundary (spans at the
    /// end of input may point past it).
    fn clamp(&self, at: u32) -> usize {
        let mut at = (at as usize).min(self.source.len());
        while !self.source.is_char_boundary(at) {
            at -= 1;
        }
        at
    }

    /// The 1-based line and column (in characters) of byte `at`, and `at`
    /// in UTF-16 units.
    fn position(&self, at: usize) -> (usize, usize, usize) {
        let line = self.starts.partition_point(|&(start, _)| start <= at) - 1;
        let (start, start16) = self.starts[line];
        let before = &self.source[start..at];
        let utf16: usize = before.chars().map(char::len_utf16).sum();
        (line + 1, before.chars().count() + 1, start16 + utf16)
    }
}

/// An error of the JavaScript API's own (codes in [`crate::codes`]), about
/// no source position.
pub fn api_error(code: &'static str, message: impl Into<String>) -> Diagnostic {
    Diagnostic::error(code, message)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_are_lines_columns_and_utf16_offsets() {
        let src = "// é\nparam N = x\n";
        let at = src.find('x').unwrap();
        let d = Diagnostic::error("E0101", "unknown name `x`")
            .with_primary(Span::new(at, at + 1), "here");
        let (list, rendered, _) = report(src, &[d]);
        let label = &list[0]["labels"][0];
        assert_eq!(
            (label["line"].as_u64(), label["column"].as_u64()),
            (Some(2), Some(11))
        );
        // `é` is two bytes and one UTF-16 unit.
        assert_eq!(label["start"].as_u64(), Some(at as u64 - 1));
        assert_eq!(list[0]["code"], "E0101");
        assert!(
            rendered.contains("error[E0101]: unknown name `x`"),
            "{rendered}"
        );
        assert!(rendered.contains("input.te:2:11"), "{rendered}");
    }

    #[test]
    fn spans_past_the_end_are_clamped() {
        let d = Diagnostic::error("E0001", "end").with_primary(Span::new(50, 60), "here");
        let (list, _, _) = report("ab", &[d]);
        assert_eq!(list[0]["labels"][0]["start"].as_u64(), Some(2));
    }

    #[test]
    fn at_most_the_clis_count_is_listed_and_the_rest_counted() {
        let src = "x\n".repeat(100);
        let diags: Vec<Diagnostic> = (0..100)
            .map(|i| {
                Diagnostic::error("E0101", "unknown")
                    .with_primary(Span::new(2 * i, 2 * i + 1), "here")
            })
            .collect();
        let (list, rendered, hidden) = report(&src, &diags);
        assert_eq!(list.as_array().map(Vec::len), Some(MAX_SHOWN));
        assert_eq!(hidden, 100 - MAX_SHOWN);
        assert_eq!(list[19]["labels"][0]["line"].as_u64(), Some(20));
        assert!(rendered.contains("80 more errors not shown"), "{rendered}");
    }

    /// Positions on later lines agree with a scan from the start, across
    /// multi-byte and surrogate-pair characters.
    #[test]
    fn the_line_index_agrees_with_a_scan() {
        let src = "a\u{e9}b\n\u{1F600}x\n\nyz\u{e9}\n";
        let lines = Lines::new(src);
        for (at, _) in src.char_indices().chain([(src.len(), ' ')]) {
            let before = &src[..at];
            let line = before.matches('\n').count() + 1;
            let col = before[before.rfind('\n').map_or(0, |i| i + 1)..]
                .chars()
                .count()
                + 1;
            assert_eq!(
                lines.position(at),
                (line, col, before.encode_utf16().count()),
                "at {at}"
            );
        }
    }
}
