//! Tokens of the block-program text form.

use crate::codes;
use texpr_ir::{Diagnostic, Span};

#[derive(Clone, Debug, PartialEq)]
pub enum Tok {
    /// `%name` (without the `%`)
    Reg(String),
    /// `$3`
    Arg(u32),
    /// `$acc`
    Acc,
    Ident(String),
    Int(u64),
    Float(f64),
    /// One of `= , : [ ] { } ( ) . - ..`
    Punct(&'static str),
    Eof,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Token {
    pub tok: Tok,
    pub span: Span,
}

const PUNCT: [&str; 11] = ["..", "=", ",", ":", "[", "]", "{", "}", "(", ")", "-"];

/// Splits `src` into tokens; the first bad character is an error.
pub fn lex(src: &str) -> Result<Vec<Token>, Diagnostic> {
    let b = src.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let start = i;
        let c = b[i];
        if c.is_ascii_whitespace() {
            i += 1;
            continue;
        }
        if b[i..].starts_with(b"//") {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
            continue;
        }
        let tok = if c == b'%' || c == b'$' {
            i += 1;
            let w = word(b, &mut i);
            sigil(c, w, start, i)?
        } else if c.is_ascii_digit() {
            number(src, &mut i, start)?
        } else if c.is_ascii_alphabetic() || c == b'_' {
            // `512x384`: an `x` right after a number is a separator.
            if c == b'x' && after_number(&out, start) {
                i += 1;
                Tok::Ident("x".into())
            } else {
                Tok::Ident(word(b, &mut i).to_string())
            }
        } else if c == b'.' && !b[i..].starts_with(b"..") {
            i += 1;
            Tok::Punct(".")
        } else if let Some(p) = PUNCT.iter().find(|p| b[i..].starts_with(p.as_bytes())) {
            i += p.len();
            Tok::Punct(p)
        } else {
            let ch = src[i..].chars().next().unwrap_or('?');
            return Err(
                Diagnostic::error(codes::BAD_CHAR, format!("unexpected character `{ch}`"))
                    .with_primary(Span::new(i, i + ch.len_utf8()), "not part of any token"),
            );
        };
        out.push(Token {
            tok,
            span: Span::new(start, i),
        });
    }
    out.push(Token {
        tok: Tok::Eof,
        span: Span::new(b.len(), b.len()),
    });
    Ok(out)
}

fn after_number(out: &[Token], start: usize) -> bool {
    out.last()
        .is_some_and(|t| matches!(t.tok, Tok::Int(_)) && t.span.end as usize == start)
}

fn word<'a>(b: &'a [u8], i: &mut usize) -> &'a str {
    let start = *i;
    while *i < b.len() && (b[*i].is_ascii_alphanumeric() || b[*i] == b'_') {
        *i += 1;
    }
    std::str::from_utf8(&b[start..*i]).unwrap_or("")
}

fn sigil(c: u8, w: &str, start: usize, end: usize) -> Result<Tok, Diagnostic> {
    let span = Span::new(start, end);
    let bad =
        |m: &str| Diagnostic::error(codes::EXPECTED, m.to_string()).with_primary(span, "here");
    match (c, w) {
        (b'%', "") => Err(bad("expected a register name after `%`")),
        (b'%', w) => Ok(Tok::Reg(w.to_string())),
        (_, "acc") => Ok(Tok::Acc),
        (_, w) => w
            .parse()
            .map(Tok::Arg)
            .map_err(|_| bad("expected `$acc` or an operand number like `$0`")),
    }
}

fn number(src: &str, i: &mut usize, start: usize) -> Result<Tok, Diagnostic> {
    let b = src.as_bytes();
    let digits = |i: &mut usize| {
        while *i < b.len() && b[*i].is_ascii_digit() {
            *i += 1;
        }
    };
    digits(i);
    let mut float = false;
    if *i + 1 < b.len() && b[*i] == b'.' && b[*i + 1].is_ascii_digit() {
        float = true;
        *i += 1;
        digits(i);
    }
    if *i < b.len() && (b[*i] == b'e' || b[*i] == b'E') {
        let mut j = *i + 1;
        if j < b.len() && (b[j] == b'-' || b[j] == b'+') {
            j += 1;
        }
        if j < b.len() && b[j].is_ascii_digit() {
            float = true;
            *i = j;
            digits(i);
        }
    }
    let text = &src[start..*i];
    let bad = || {
        Diagnostic::error(
            codes::BAD_NUMBER,
            format!("number `{text}` is out of range"),
        )
        .with_primary(Span::new(start, *i), "here")
    };
    if float {
        text.parse().map(Tok::Float).map_err(|_| bad())
    } else {
        text.parse().map(Tok::Int).map_err(|_| bad())
    }
}
