//! What a rendered diagnostic shows of its source: every line longer than
//! [`MAX_LINE`] bytes is cut to a window around the labels on it, with `...`
//! at each cut (as rustc trims long lines), while the `file:line:column`
//! header still counts lines and characters in the original text.
//!
//! [`View`] is a codespan-reporting [`Files`] over the trimmed text; the
//! labels of a diagnostic are moved into it with [`View::span`].

use crate::span::Span;
use codespan_reporting::files::{self, Files, Location};
use std::ops::Range;

/// Lines up to this many bytes are shown whole.
pub(crate) const MAX_LINE: usize = 160;
/// Bytes shown before the first label on a trimmed line (and after the last).
const CONTEXT: usize = 48;
/// What marks a cut.
const ELLIPSIS: &str = "...";

/// One line of the view: where it starts in the view, and which byte of the
/// original text its first shown byte (after any `...`) is.
#[derive(Clone, Copy, Debug)]
struct Line {
    view_start: usize,
    /// The original line's first byte.
    orig_line: usize,
    /// The original byte shown first (after `prefix`).
    orig_shown: usize,
    /// Bytes of `...` before it (0 or 3).
    prefix: usize,
    /// The original bytes shown: `orig_shown..orig_end`.
    orig_end: usize,
    /// Where the original line ends (before its line break).
    body_end: usize,
}

/// The source as a diagnostic shows it.
#[derive(Debug)]
pub struct View<'s> {
    name: &'s str,
    original: &'s str,
    text: String,
    lines: Vec<Line>,
    view_starts: Vec<usize>,
}

impl<'s> View<'s> {
    /// The view of `original` for a diagnostic whose labels cover `spans`.
    pub fn new(name: &'s str, original: &'s str, spans: &[Span]) -> View<'s> {
        let mut text = String::with_capacity(original.len().min(1 << 16));
        let mut lines = Vec::new();
        let mut start = 0;
        for raw in original.split_inclusive('\n') {
            let body_len = raw.trim_end_matches(['\n', '\r']).len();
            let (ws, we) = window(original, start, start + body_len, spans);
            let prefix = if ws > start { ELLIPSIS.len() } else { 0 };
            lines.push(Line {
                view_start: text.len(),
                orig_line: start,
                orig_shown: ws,
                prefix,
                orig_end: we,
                body_end: start + body_len,
            });
            if prefix > 0 {
                text.push_str(ELLIPSIS);
            }
            text.push_str(&original[ws..we]);
            if we < start + body_len {
                text.push_str(ELLIPSIS);
            }
            text.push_str(&raw[body_len..]);
            start += raw.len();
        }
        let view_starts = files::line_starts(&text).collect();
        View {
            name,
            original,
            text,
            lines,
            view_starts,
        }
    }

    /// `span` (of the original) in the view, clipped to what the view shows.
    pub fn span(&self, span: Span) -> Range<usize> {
        let start = self.offset(span.start as usize);
        let end = self.offset(span.end as usize).max(start);
        start..end
    }

    fn offset(&self, orig: usize) -> usize {
        let k = self
            .lines
            .partition_point(|l| l.orig_line <= orig)
            .saturating_sub(1);
        let Some(line) = self.lines.get(k) else {
            return self.text.len();
        };
        if orig < line.orig_shown {
            // Before the window: at the leading `...`.
            return line.view_start;
        }
        let shown = line.view_start + line.prefix;
        if orig <= line.orig_end || line.orig_end == line.body_end {
            return shown + (orig - line.orig_shown);
        }
        // Past the window: after the closing `...` (and any line break).
        let cut = shown + (line.orig_end - line.orig_shown) + ELLIPSIS.len();
        cut + orig.saturating_sub(line.body_end)
    }

    /// The original byte a view byte shows.
    fn original_offset(&self, line: usize, view: usize) -> usize {
        let Some(l) = self.lines.get(line) else {
            return self.original.len();
        };
        let into = view.saturating_sub(l.view_start + l.prefix);
        (l.orig_shown + into).min(l.body_end.max(l.orig_shown))
    }
}

/// The bytes of line `start..end` to show: all of a short line, else a
/// window around the spans that touch it (its start when none does), on
/// character boundaries.
fn window(src: &str, start: usize, end: usize, spans: &[Span]) -> (usize, usize) {
    if end - start <= MAX_LINE {
        return (start, end);
    }
    let touching = spans.iter().filter(|s| {
        let (a, b) = (s.start as usize, s.end as usize);
        a <= end && b >= start
    });
    let (mut lo, mut hi) = (usize::MAX, 0);
    for s in touching {
        lo = lo.min((s.start as usize).max(start));
        hi = hi.max((s.end as usize).min(end));
    }
    let (ws, we) = if lo == usize::MAX {
        (start, start + MAX_LINE)
    } else {
        let ws = lo.saturating_sub(CONTEXT).max(start);
        let shown_hi = hi.max(lo).min(ws + MAX_LINE - CONTEXT);
        (ws, (shown_hi + CONTEXT).min(end))
    };
    let ws = floor_char(src, ws);
    let near = ceil_char(src, (ws + CONTEXT / 4).min(lo).min(end));
    let ws = match src[ws..near.max(ws)].find(' ') {
        // Start after a space near the cut rather than in the middle of a token.
        Some(k) if ws > start => ws + k + 1,
        _ => ws,
    };
    (ws, ceil_char(src, we.min(end)))
}

fn floor_char(s: &str, mut i: usize) -> usize {
    while i > 0 && !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

fn ceil_char(s: &str, mut i: usize) -> usize {
    while i < s.len() && !s.is_char_boundary(i) {
        i += 1;
    }
    i
}

impl<'a> Files<'a> for View<'a> {
    type FileId = ();
    type Name = &'a str;
    type Source = &'a str;

    fn name(&'a self, (): ()) -> Result<&'a str, files::Error> {
        Ok(self.name)
    }

    fn source(&'a self, (): ()) -> Result<&'a str, files::Error> {
        Ok(&self.text)
    }

    fn line_index(&'a self, (): (), byte_index: usize) -> Result<usize, files::Error> {
        Ok(self
            .view_starts
            .binary_search(&byte_index)
            .unwrap_or_else(|next| next - 1))
    }

    fn line_range(&'a self, (): (), line_index: usize) -> Result<Range<usize>, files::Error> {
        let at = |i: usize| match i.cmp(&self.view_starts.len()) {
            std::cmp::Ordering::Less => Ok(self.view_starts[i]),
            std::cmp::Ordering::Equal => Ok(self.text.len()),
            std::cmp::Ordering::Greater => Err(files::Error::LineTooLarge {
                given: i,
                max: self.view_starts.len() - 1,
            }),
        };
        Ok(at(line_index)?..at(line_index + 1)?)
    }

    /// Line and column in the original text.
    fn location(&'a self, (): (), byte_index: usize) -> Result<Location, files::Error> {
        let line = self.line_index((), byte_index)?;
        let orig = self.original_offset(line, byte_index);
        let line_start = self
            .lines
            .get(line)
            .map_or(self.original.len(), |l| l.orig_line);
        let column = files::column_index(self.original, line_start..self.original.len(), orig);
        Ok(Location {
            line_number: line + 1,
            column_number: column + 1,
        })
    }
}

#[cfg(test)]
mod tests {
    use crate::diag::{Diagnostic, render};
    use crate::span::Span;

    fn one(src: &str, span: Span) -> String {
        let d = Diagnostic::error("E0001", "here").with_primary(span, "this");
        render("f.te", src, &[d])
    }

    #[test]
    fn short_lines_are_shown_whole() {
        let out = one("let a = 1\nlet b = 2\n", Span::new(14, 15));
        assert!(
            out.contains("f.te:2:5") && out.contains("2 │ let b = 2\n"),
            "{out}"
        );
    }

    #[test]
    fn a_long_line_shows_a_window_with_the_true_column() {
        let src = format!("{}XY{}\n", "é".repeat(400), "z".repeat(400));
        let at = src.find('X').unwrap();
        let out = one(&src, Span::new(at, at + 2));
        assert!(out.contains("f.te:1:401"), "{out}");
        let shown = out.lines().find(|l| l.starts_with("1 │")).unwrap();
        assert!(shown.contains("...é") && shown.contains("XYzz") && shown.ends_with("..."));
        assert!(shown.chars().count() < 2 * super::MAX_LINE, "{shown}");
        let caret = out.lines().find(|l| l.contains('^')).unwrap();
        let x_col = shown.chars().position(|c| c == 'X').unwrap();
        assert_eq!(caret.chars().position(|c| c == '^'), Some(x_col), "{out}");
    }

    #[test]
    fn a_span_past_the_window_ends_at_the_cut() {
        let src = format!("{}\n", "a".repeat(5000));
        let out = one(&src, Span::new(10, 4990));
        assert!(out.len() < 1200, "{out}");
        assert!(out.contains("f.te:1:11"), "{out}");
    }

    #[test]
    fn ends_of_input_and_crlf_lines_are_located() {
        let src = format!("x\r\n{}\r\n", "b".repeat(300));
        let end = src.len();
        let out = one(&src, Span::new(end, end));
        assert!(out.contains("f.te:3:1"), "{out}");
        let out = one(&src, Span::new(250, 251));
        assert!(out.contains("f.te:2:248"), "{out}");
        assert!(one("", Span::new(0, 0)).contains("f.te:1:1"));
    }
}
