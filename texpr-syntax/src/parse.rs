//! Parser entry point: tokens to the surface AST, with error recovery and a nesting limit.
//!
//! The token stream is cut into items at the item keywords (`param`, `input`,
//! `output`, and a `let` that follows a complete operand, outside a loop's
//! `{ ... }` block, whose `let`s belong to the loop), and each item is
//! parsed on its own by the lalrpop grammar (`grammar.lalrpop`). A syntax error
//! ends that item only: the next item is parsed as usual, so one run reports
//! an error per broken item, and recovery never rescans a deep parser stack.
//! The tree keeps every item that parsed.
//!
//! No expression or term deeper than [`MAX_NESTING`] is ever built (see
//! `parse_build.rs`), so later recursive passes are safe on any input.

#[path = "parse_build.rs"]
pub(crate) mod build;
#[path = "parse_dump.rs"]
mod dump;
#[path = "parse_errors.rs"]
mod errors;
#[path = "parse_spans.rs"]
mod spans;

lalrpop_util::lalrpop_mod!(
    #[allow(
        clippy::all,
        unused_qualifications,
        missing_debug_implementations,
        unused
    )]
    grammar
);

use crate::ast::File;
use crate::lexer::{self, Spanned, Token};
use texpr_ir::Diagnostic;

pub use crate::lexer::Comment;
pub use build::MAX_NESTING;
pub use dump::dump;
pub use spans::strip_spans;

/// A parsed file with its comments (for the printer) and diagnostics.
#[derive(Debug)]
pub struct Parsed {
    pub file: File,
    pub comments: Vec<Comment>,
    pub diags: Vec<Diagnostic>,
}

/// Parses a whole source file. Always returns a tree (possibly partial) and
/// every diagnostic found; never panics on any input.
pub fn parse(src: &str) -> (File, Vec<Diagnostic>) {
    let parsed = parse_with_comments(src);
    (parsed.file, parsed.diags)
}

/// [`parse`], also returning the comments (in source order).
pub fn parse_with_comments(src: &str) -> Parsed {
    if let Some(diag) = too_large(src.len()) {
        return Parsed {
            file: File { items: Vec::new() },
            comments: Vec::new(),
            diags: vec![diag],
        };
    }
    let lexed = lexer::lex(src);
    let mut builder = build::Builder::default();
    let mut items = Vec::new();
    let parser = grammar::ItemParser::new();
    let chunks = item_chunks(&lexed.tokens);
    for (k, chunk) in chunks.iter().enumerate() {
        let next = chunks.get(k + 1).and_then(|c| c.first());
        let tokens = chunk.iter().map(|t| Ok::<_, ()>(*t));
        match parser.parse(&mut builder, tokens) {
            Ok(item) => items.push(item),
            Err(err) => builder.diags.extend(errors::syntax_error(src, err, next)),
        }
    }
    let mut diags = lexed.diags;
    diags.append(&mut builder.diags);
    diags.sort_by_key(|d| d.primary_span().map(|s| s.start));
    Parsed {
        file: File { items },
        comments: lexed.comments,
        diags,
    }
}

/// The error for a source too long for 32-bit spans, if it is.
pub fn too_large(len: usize) -> Option<Diagnostic> {
    if u32::try_from(len).is_ok() {
        return None;
    }
    let msg = format!(
        "source is too large ({len} bytes; at most {} are supported)",
        u32::MAX
    );
    Some(Diagnostic::error("E0013", msg))
}

/// The tokens of each item: cut before every item keyword (tokens before the
/// first keyword form a chunk of their own, which fails to parse as an item).
/// A `let` inside a loop's block (a `{` right after the closing `|` of
/// `iterate ... |a, t|`) belongs to the loop; `param`, `input` and `output`
/// never do, so a block left open ends at the next of them.
fn item_chunks<'a, 's>(tokens: &'a [Spanned<'s>]) -> Vec<&'a [Spanned<'s>]> {
    let mut chunks = Vec::new();
    let mut start = 0;
    // For each open `{`, whether it opened a loop's block (else an index map).
    let mut braces: Vec<bool> = Vec::new();
    for (k, t) in tokens.iter().enumerate() {
        let cut = match t.1 {
            Token::Param | Token::Input | Token::Output => true,
            Token::ItemLet => !braces.contains(&true),
            _ => false,
        };
        if cut {
            braces.clear();
            if k > start {
                chunks.push(&tokens[start..k]);
                start = k;
            }
        }
        match t.1 {
            Token::LBrace => braces.push(k > 0 && tokens[k - 1].1 == Token::Bar),
            Token::RBrace => {
                braces.pop();
            }
            _ => {}
        }
    }
    if start < tokens.len() {
        chunks.push(&tokens[start..]);
    }
    chunks
}
