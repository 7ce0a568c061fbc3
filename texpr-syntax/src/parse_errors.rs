//! Syntax errors: lalrpop's parse errors as rustc-like coded diagnostics.
//!
//! "expected one of `]`, `+`, an operator, found `|`" with the span of the
//! offending token; an item cut short by the next item keyword says "found
//! `param`" at that keyword; the end of the file says "found end of input".

use crate::lexer::{Spanned, Token};
use lalrpop_util::ParseError;
use texpr_ir::Diagnostic;
use texpr_ir::Span;

pub type Error<'s> = ParseError<usize, Token<'s>, ()>;

/// The diagnostic for a failed item parse; `None` when the offending token is
/// one the lexer already reported. `next` is the token after the item's tokens.
pub fn syntax_error(src: &str, err: Error<'_>, next: Option<&Spanned<'_>>) -> Option<Diagnostic> {
    match err {
        ParseError::UnrecognizedToken {
            token: (l, tok, r),
            expected,
        } => unexpected_token(src, tok, l, r, &expected),
        ParseError::UnrecognizedEof { location, expected } => match next {
            Some(&(l, tok, r)) => unexpected_token(src, tok, l, r, &expected),
            None => Some(unexpected_eof(location, &expected)),
        },
        ParseError::ExtraToken { token: (l, tok, r) } => unexpected_token(src, tok, l, r, &[]),
        ParseError::InvalidToken { location } => {
            unexpected_token(src, Token::Error, location, location, &[])
        }
        ParseError::User { error: () } => None,
    }
}

fn unexpected_token(
    src: &str,
    tok: Token<'_>,
    l: usize,
    r: usize,
    expected: &[String],
) -> Option<Diagnostic> {
    if tok == Token::Error {
        return None;
    }
    let found = format!("`{}`", shorten(src.get(l..r).unwrap_or("?")));
    let msg = message(expected, &found);
    let mut diag =
        Diagnostic::error("E0010", msg).with_primary(Span::new(l, r), "unexpected token");
    let is_comparison = matches!(
        tok,
        Token::Lt | Token::Le | Token::Gt | Token::Ge | Token::EqEq | Token::Ne
    );
    if is_comparison && !expected.iter().any(|e| COMPARISONS.contains(&e.as_str())) {
        diag = diag.with_note("comparisons do not chain; parenthesise one of them");
    }
    let is_open = matches!(tok, Token::Compute | Token::Reduce | Token::Let);
    if is_open
        && expected.iter().any(|e| e == "Ident")
        && !expected.iter().any(|e| e == "\"compute\"")
    {
        diag = diag.with_note("`compute`, `reduce` and `let` must be parenthesised as an operand");
    }
    Some(diag)
}

fn unexpected_eof(location: usize, expected: &[String]) -> Diagnostic {
    let msg = message(expected, "end of input");
    Diagnostic::error("E0011", msg).with_primary(Span::new(location, location), "input ends here")
}

fn shorten(text: &str) -> String {
    const MAX: usize = 32;
    match text.char_indices().nth(MAX) {
        Some((i, _)) => format!("{}...", &text[..i]),
        None => text.to_string(),
    }
}

fn message(expected: &[String], found: &str) -> String {
    let names = describe(&complete(expected));
    match names.as_slice() {
        [] => format!("unexpected {found}"),
        [one] => format!("expected {one}, found {found}"),
        many => format!("expected one of {}, found {found}", many.join(", ")),
    }
}

/// Terminals that can start an operand, reported together as "expression"
/// (with `compute`, `reduce` and `let`, which may start one where no
/// operator precedes).
const OPERAND_START: [&str; 13] = [
    "Ident",
    "\"!\"",
    "Int",
    "Float",
    "Half",
    "\"inf\"",
    "\"(\"",
    "\"[\"",
    "\"-\"",
    "\"fill\"",
    "\"broadcast\"",
    "\"max\"",
    "\"min\"",
];
const EXPR_ONLY_START: [&str; 3] = ["\"compute\"", "\"reduce\"", "\"let\""];
/// Terminals that can start a term, reported together as "term".
const TERM_START: [&str; 4] = ["Ident", "Int", "\"(\"", "\"-\""];
/// Terminals that can start a literal, reported together as "literal".
const LIT_START: [&str; 5] = ["Int", "Float", "Half", "\"inf\"", "\"-\""];
/// Arithmetic operators, reported together as "an operator".
const OPERATORS: [&str; 5] = ["\"+\"", "\"-\"", "\"*\"", "\"/\"", "\"%\""];
const COMPARISONS: [&str; 6] = ["\"<\"", "\"<=\"", "\">\"", "\">=\"", "\"==\"", "\"!=\""];
/// `&&` and `||`, reported with the operators.
const LOGICAL: [&str; 2] = ["\"&&\"", "\"||\""];

/// Adds `*`, `/` and `%` where `+` and `-` are expected: the operand before
/// them was already reduced, but one of these could have extended it.
fn complete(expected: &[String]) -> Vec<String> {
    let mut all = expected.to_vec();
    let has = |t: &str| expected.iter().any(|e| e == t);
    if has("\"+\"") && has("\"-\"") {
        for op in ["\"*\"", "\"/\"", "\"%\""] {
            if !has(op) {
                all.push(op.to_string());
            }
        }
    }
    all
}

/// Human names for lalrpop's expected terminals, grouped and deduplicated.
fn describe(expected: &[String]) -> Vec<String> {
    let has = |t: &str| expected.iter().any(|e| e == t);
    let expr = OPERAND_START.iter().all(|t| has(t));
    let term = !expr && TERM_START.iter().all(|t| has(t));
    let lit = !expr && !term && LIT_START.iter().all(|t| has(t));
    let ops = !expr && !lit && OPERATORS.iter().all(|t| has(t));
    let compare = ops && (COMPARISONS.iter().chain(&LOGICAL)).any(|t| has(t));
    let mut names: Vec<String> = Vec::new();
    if expr {
        names.push("expression".to_string());
    }
    if term {
        names.push("term".to_string());
    }
    if lit {
        names.push("literal".to_string());
    }
    for e in expected {
        let e = e.as_str();
        let grouped = (expr && (OPERAND_START.contains(&e) || EXPR_ONLY_START.contains(&e)))
            || (term && TERM_START.contains(&e))
            || (lit && LIT_START.contains(&e))
            || (ops
                && (OPERATORS.contains(&e) || COMPARISONS.contains(&e) || LOGICAL.contains(&e)));
        let name = terminal_name(e);
        if !grouped && !names.contains(&name) {
            names.push(name);
        }
    }
    if ops {
        let kind = if compare {
            "an operator"
        } else {
            "an arithmetic operator"
        };
        names.push(kind.to_string());
    }
    names
}

fn terminal_name(t: &str) -> String {
    match t {
        "Ident" => "identifier".to_string(),
        "Int" => "integer literal".to_string(),
        "Float" => "float literal".to_string(),
        "Half" => "f16 literal".to_string(),
        "Level" => "level (`@...`)".to_string(),
        "ItemLet" => "`let`".to_string(),
        quoted => format!("`{}`", quoted.trim_matches('"')),
    }
}
