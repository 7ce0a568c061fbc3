//! The logos lexer: source text to tokens with byte spans, comments kept aside.
//!
//! [`lex`] never fails: a bad character becomes a [`Token::Error`] plus a coded
//! diagnostic (E0001..E0009), a malformed number becomes a well-formed token
//! with a placeholder value plus a diagnostic, so the parser can go on.
//! Comments are not tokens; they are collected in [`Lexed::comments`] for the
//! printer (`texprc fmt` keeps them).

use logos::{Lexer, Logos, Skip};
use texpr_ir::Diagnostic;
use texpr_ir::Span;

/// Suffix of an integer literal: `3`, `3i`, `3u`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IntSuffix {
    None,
    I32,
    U32,
}

/// An integer literal token (always non-negative; `-` is a separate token).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IntLit {
    pub value: i64,
    pub suffix: IntSuffix,
}

/// A comment as written, `// ...` (without the line break) or `/* ... */`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Comment {
    pub span: Span,
    pub text: String,
}

/// What the lexer collects besides tokens.
#[derive(Default, Debug)]
pub struct Extras {
    pub comments: Vec<Comment>,
    pub diags: Vec<Diagnostic>,
}

/// Error kind for input that matches no token (an unknown character).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct UnknownChar;

#[derive(Logos, Clone, Copy, Debug, PartialEq)]
#[logos(extras = Extras, error = UnknownChar)]
#[logos(skip r"[ \t\r\n\f]+")]
pub enum Token<'s> {
    #[token("param")]
    Param,
    #[token("input")]
    Input,
    #[token("output")]
    Output,
    /// `let` inside an expression (`let v = e in e`).
    #[token("let")]
    Let,
    /// `let` starting a top-level item; made from [`Token::Let`] by [`lex`]
    /// when the previous token ends an operand (or there is none).
    ItemLet,
    #[token("in")]
    In,
    #[token("compute")]
    Compute,
    #[token("reduce")]
    Reduce,
    #[token("else")]
    Else,
    #[token("fill")]
    Fill,
    #[token("broadcast")]
    Broadcast,
    #[token("inf")]
    Inf,
    #[token("max")]
    Max,
    #[token("min")]
    Min,
    /// `lse`, the log-sum-exp fold after `reduce`.
    #[token("lse")]
    Lse,
    #[token("iterate")]
    Iterate,
    #[token("from")]
    From,
    #[token("yield")]
    Yield,
    #[token("with")]
    With,
    #[regex("[A-Za-z_][A-Za-z0-9_]*")]
    Ident(&'s str),
    /// `@grid`, `@shared`, ...: the name after `@`.
    #[regex("@[A-Za-z_][A-Za-z0-9_]*", |lex| &lex.slice()[1..])]
    Level(&'s str),
    #[regex("[0-9]", number)]
    Number,
    Int(IntLit),
    Float(f64),
    /// A float literal with the `h` suffix (`1.5h`): an `f16`.
    Half(f64),
    #[token("(")]
    LParen,
    #[token(")")]
    RParen,
    #[token("[")]
    LBracket,
    #[token("]")]
    RBracket,
    #[token("{")]
    LBrace,
    #[token("}")]
    RBrace,
    #[token("|")]
    Bar,
    #[token(",")]
    Comma,
    #[token(":")]
    Colon,
    #[token("=")]
    Assign,
    #[token("->")]
    Arrow,
    #[token("+")]
    Plus,
    #[token("-")]
    Minus,
    #[token("*")]
    Star,
    #[token("/")]
    Slash,
    #[token("%")]
    Percent,
    #[token("<")]
    Lt,
    #[token("<=")]
    Le,
    #[token(">")]
    Gt,
    #[token(">=")]
    Ge,
    #[token("==")]
    EqEq,
    #[token("!=")]
    Ne,
    #[token("&&")]
    AndAnd,
    #[token("||")]
    OrOr,
    #[token("!")]
    Bang,
    #[regex("//[^\n]*", line_comment, allow_greedy = true)]
    LineComment,
    #[token("/*", block_comment)]
    BlockComment,
    /// Input the lexer could not read (already reported).
    Error,
}

impl Token<'_> {
    /// Whether this token can end an operand (so a following `let` starts an item).
    fn ends_operand(self) -> bool {
        matches!(
            self,
            Token::Ident(_)
                | Token::Int(_)
                | Token::Float(_)
                | Token::Half(_)
                | Token::Inf
                | Token::RParen
                | Token::RBracket
                | Token::RBrace
                | Token::Error
        )
    }

    /// Whether a `let` after this token starts an item: after a complete
    /// operand (an item ends there), at the start of a loop's block (`{`; an
    /// index map's body never starts with `let`), or at the start of input.
    fn before_item(self) -> bool {
        self.ends_operand() || self == Token::LBrace
    }
}

/// Tokens as `(start, token, end)` triples, the form the parser reads.
pub type Spanned<'s> = (usize, Token<'s>, usize);

/// The result of lexing a whole source.
#[derive(Debug, Default)]
pub struct Lexed<'s> {
    pub tokens: Vec<Spanned<'s>>,
    pub comments: Vec<Comment>,
    pub diags: Vec<Diagnostic>,
}

/// Lexes `src` completely. Never panics; errors are in [`Lexed::diags`].
pub fn lex(src: &str) -> Lexed<'_> {
    let mut lexer = Token::lexer(src);
    // A leading byte order mark is not part of the program (spans still
    // count it, so they stay byte offsets into the file).
    if src.starts_with('\u{feff}') {
        lexer.bump('\u{feff}'.len_utf8());
    }
    let mut tokens: Vec<Spanned<'_>> = Vec::new();
    while let Some(result) = lexer.next() {
        let range = lexer.span();
        let tok = match result {
            Ok(Token::Let) if tokens.last().is_none_or(|t| t.1.before_item()) => Token::ItemLet,
            Ok(tok) => tok,
            Err(UnknownChar) => {
                let diag = unknown_char(lexer.slice(), Span::new(range.start, range.end));
                lexer.extras.diags.push(diag);
                Token::Error
            }
        };
        tokens.push((range.start, tok, range.end));
    }
    let extras = lexer.extras;
    Lexed {
        tokens,
        comments: extras.comments,
        diags: extras.diags,
    }
}

fn unknown_char(text: &str, span: Span) -> Diagnostic {
    if text == "@" {
        return Diagnostic::error("E0008", "expected a level name after `@`")
            .with_primary(span, "no level name")
            .with_note("levels are `@grid`, `@group`, `@subgroup`, `@thread`, `@global`, `@shared` and `@reg`");
    }
    let ch = text.chars().next().unwrap_or('?');
    Diagnostic::error(
        "E0001",
        format!("unknown character `{}`", ch.escape_debug()),
    )
    .with_primary(span, "not part of any token")
}

fn line_comment<'s>(lex: &mut Lexer<'s, Token<'s>>) -> Skip {
    let range = lex.span();
    let text = lex.slice().trim_end().to_string();
    lex.extras.comments.push(Comment {
        span: Span::new(range.start, range.start + text.len()),
        text,
    });
    Skip
}

fn block_comment<'s>(lex: &mut Lexer<'s, Token<'s>>) -> Skip {
    let start = lex.span().start;
    match lex.remainder().find("*/") {
        Some(pos) => {
            lex.bump(pos + 2);
            let end = lex.span().end;
            let text = lex.slice().to_string();
            lex.extras.comments.push(Comment {
                span: Span::new(start, end),
                text,
            });
        }
        None => {
            lex.bump(lex.remainder().len());
            let diag = Diagnostic::error("E0002", "unterminated block comment")
                .with_primary(Span::new(start, start + 2), "comment starts here")
                .with_note("a `/* ... */` comment must be closed with `*/`; comments do not nest");
            lex.extras.diags.push(diag);
        }
    }
    Skip
}

/// Reads a number starting at the current digit: `12`, `3u`, `1.5`, `1e-3`, `2.0f`.
fn number<'s>(lex: &mut Lexer<'s, Token<'s>>) -> Token<'s> {
    let start = lex.span().start;
    let scan = scan_number(&lex.source()[start..]);
    lex.bump(scan.len - 1);
    let span = Span::new(start, start + scan.len);
    let text = lex.slice();
    let (tok, err) = number_token(text, &scan);
    if let Some((code, msg, label)) = err {
        let diag = Diagnostic::error(code, msg).with_primary(span, label);
        lex.extras.diags.push(diag);
    }
    tok
}

/// Where the parts of a number end (byte offsets from its start).
#[derive(Debug)]
struct NumberScan {
    /// End of the digits before any `.`.
    int_end: usize,
    /// Whether a `.` or an exponent was read.
    is_float: bool,
    /// A `.` not followed by a digit was read.
    bad_dot: bool,
    /// End of the numeric part (where the suffix starts).
    num_end: usize,
    /// End of the whole token (after the suffix).
    len: usize,
}

fn scan_number(s: &str) -> NumberScan {
    let b = s.as_bytes();
    let digits = |from: usize| from + b[from..].iter().take_while(|c| c.is_ascii_digit()).count();
    let int_end = digits(0);
    let (mut i, mut is_float, mut bad_dot) = (int_end, false, false);
    if b.get(i) == Some(&b'.') {
        is_float = true;
        let end = digits(i + 1);
        bad_dot = end == i + 1;
        i = end;
    }
    if matches!(b.get(i), Some(b'e' | b'E')) {
        let sign = usize::from(matches!(b.get(i + 1), Some(b'+' | b'-')));
        if b.get(i + 1 + sign).is_some_and(|c| c.is_ascii_digit()) {
            is_float = true;
            i = digits(i + 1 + sign);
        }
    }
    let num_end = i;
    let len = i + b[i..]
        .iter()
        .take_while(|c| c.is_ascii_alphanumeric() || **c == b'_')
        .count();
    NumberScan {
        int_end,
        is_float,
        bad_dot,
        num_end,
        len,
    }
}

type NumError = Option<(&'static str, String, &'static str)>;

fn number_token<'s>(text: &str, scan: &NumberScan) -> (Token<'s>, NumError) {
    let suffix = &text[scan.num_end..];
    if scan.is_float || suffix == "f" || suffix == "h" {
        return float_token(&text[..scan.num_end], suffix, scan);
    }
    let value = text[..scan.int_end].parse::<i64>();
    let (suffix_kind, mut err) = match suffix {
        "" => (IntSuffix::None, None),
        "i" => (IntSuffix::I32, None),
        "u" => (IntSuffix::U32, None),
        other => (IntSuffix::None, bad_suffix(other, "integer")),
    };
    let value = value.unwrap_or_else(|_| {
        err = err.clone().or(Some((
            "E0003",
            "integer literal is too large".to_string(),
            "does not fit in 64 bits",
        )));
        0
    });
    let tok = Token::Int(IntLit {
        value,
        suffix: suffix_kind,
    });
    (tok, err)
}

fn float_token<'s>(num: &str, suffix: &str, scan: &NumberScan) -> (Token<'s>, NumError) {
    if scan.bad_dot {
        let msg = "malformed float literal: expected digits after `.`".to_string();
        return (
            Token::Float(0.0),
            Some(("E0004", msg, "write `1.0`, not `1.`")),
        );
    }
    if !suffix.is_empty() && suffix != "f" && suffix != "h" {
        return (Token::Float(0.0), bad_suffix(suffix, "float"));
    }
    if suffix == "h" {
        return half_token(num);
    }
    match num.parse::<f64>() {
        Ok(x) if (x as f32).is_infinite() || !x.is_finite() => {
            let msg = "float literal is out of range for f32".to_string();
            let label = "larger than f32's largest value, 3.4028235e38";
            (Token::Float(0.0), Some(("E0006", msg, label)))
        }
        Ok(x) if x != 0.0 && x as f32 == 0.0 => {
            let msg = "float literal is out of range for f32".to_string();
            let label =
                "closer to 0 than f32's smallest positive value, about 1.4e-45 (it would be 0)";
            (Token::Float(0.0), Some(("E0006", msg, label)))
        }
        Ok(x) => (Token::Float(x), None),
        Err(_) => {
            let msg = "malformed float literal".to_string();
            (Token::Float(0.0), Some(("E0004", msg, "not a number")))
        }
    }
}

/// `1.5h`: an `f16` literal, which must round to a finite `f16` and not to
/// zero unless it is zero.
fn half_token<'s>(num: &str) -> (Token<'s>, NumError) {
    let Ok(x) = num.parse::<f64>() else {
        let msg = "malformed float literal".to_string();
        return (Token::Half(0.0), Some(("E0004", msg, "not a number")));
    };
    let h = half::f16::from_f64(x);
    if h.is_infinite() || !x.is_finite() {
        let msg = "float literal is out of range for f16".to_string();
        let label = "larger than f16's largest value, 65504";
        return (Token::Half(0.0), Some(("E0006", msg, label)));
    }
    if x != 0.0 && h == half::f16::ZERO {
        let msg = "float literal is out of range for f16".to_string();
        let label = "closer to 0 than f16's smallest positive value, about 6e-8 (it would be 0)";
        return (Token::Half(0.0), Some(("E0006", msg, label)));
    }
    (Token::Half(x), None)
}

fn bad_suffix(suffix: &str, kind: &str) -> NumError {
    if suffix.eq_ignore_ascii_case("e") {
        let msg = "malformed float literal: expected digits in the exponent".to_string();
        return Some(("E0004", msg, "write e.g. `1e-3`"));
    }
    let msg = format!("invalid suffix `{suffix}` on {kind} literal");
    let label = if kind == "integer" {
        "the suffix must be `i`, `u` or `f`"
    } else {
        "the suffix must be `f`"
    };
    Some(("E0005", msg, label))
}
