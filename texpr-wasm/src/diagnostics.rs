//! Diagnostics as JavaScript sees them: structured objects (code, severity,
//! message, labels with their positions, notes) and the text the command
//! line prints for them.

use serde_json::{Value as Json, json};
use texpr_syntax::{Diagnostic, Severity, Span};

/// The name diagnostics are rendered under (the CLI's is the file's path).
pub const SOURCE_NAME: &str = "input.te";

/// `diags` about `source`: `{diagnostics: [...], rendered}`, each diagnostic
/// `{severity, code, message, labels: [{primary, message, start, end,
/// line, column, end_line, end_column}], notes}`. `start` and `end` are
/// UTF-16 offsets (what JavaScript strings index), `line` and `column`
/// 1-based, the column in characters (as the CLI's `line:column`).
/// `rendered` is the CLI's text without colour.
pub fn report(source: &str, diags: &[Diagnostic]) -> (Json, String) {
    let list: Vec<Json> = diags.iter().map(|d| to_json(source, d)).collect();
    let rendered = texpr_syntax::diag::render(SOURCE_NAME, source, diags);
    (Json::Array(list), rendered)
}

fn to_json(source: &str, d: &Diagnostic) -> Json {
    let labels: Vec<Json> = (d.labels.iter())
        .map(|l| {
            let Span { start, end } = l.span;
            let (start, end) = (clamp(source, start), clamp(source, end.max(start)));
            let (line, column) = line_column(source, start);
            let (end_line, end_column) = line_column(source, end);
            json!({
                "primary": l.primary,
                "message": l.message,
                "start": utf16(source, start),
                "end": utf16(source, end),
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

/// `at` within `source` and on a character boundary (spans at the end of
/// input may point past it).
fn clamp(source: &str, at: u32) -> usize {
    let mut at = (at as usize).min(source.len());
    while !source.is_char_boundary(at) {
        at -= 1;
    }
    at
}

/// The 1-based line and column (in characters) of byte `at`.
fn line_column(source: &str, at: usize) -> (usize, usize) {
    let before = &source[..at];
    let line = before.matches('\n').count() + 1;
    let start = before.rfind('\n').map_or(0, |i| i + 1);
    (line, before[start..].chars().count() + 1)
}

/// Byte `at` as an offset in UTF-16 code units.
fn utf16(source: &str, at: usize) -> usize {
    source[..at].encode_utf16().count()
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
        let (list, rendered) = report(src, &[d]);
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
        let (list, _) = report("ab", &[d]);
        assert_eq!(list[0]["labels"][0]["start"].as_u64(), Some(2));
    }
}
