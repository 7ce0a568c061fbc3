//! A cursor over one line of kernel-IR text: the tokens `print` writes
//! (names, numbers, types, literals, punctuation), each read or refused
//! with an error at its byte offset in the whole text (E0397).

use super::super::{Lit, Scalar, Ty};
use texpr_ir::{Diagnostic, Span};

pub type R<T> = Result<T, Diagnostic>;

/// The code of every kernel-IR parse error.
pub const CODE: &str = "E0397";

/// A parse error at `start..end` of the text.
pub fn error(start: usize, end: usize, msg: impl Into<String>) -> Diagnostic {
    let msg = msg.into();
    let span = Span {
        start: start.min(u32::MAX as usize) as u32,
        end: end.min(u32::MAX as usize) as u32,
    };
    Diagnostic::error(CODE, format!("kernel IR: {msg}")).with_primary(span, msg)
}

/// A position in one line, `base` the line's offset in the text.
pub struct Cursor<'t> {
    pub line: &'t str,
    pub pos: usize,
    pub base: usize,
}

impl<'t> Cursor<'t> {
    pub fn new(line: &'t str, base: usize) -> Cursor<'t> {
        Cursor { line, pos: 0, base }
    }

    pub fn rest(&self) -> &'t str {
        &self.line[self.pos..]
    }

    pub fn at_end(&self) -> bool {
        self.rest().trim().is_empty()
    }

    /// An error at the token at the current position (a word, or one
    /// character).
    pub fn fail<T>(&self, msg: impl Into<String>) -> R<T> {
        let at = self.base + self.pos;
        let rest = self.rest();
        let word = |c: char| c.is_ascii_alphanumeric() || matches!(c, '_' | '.');
        let len = match rest.find(|c: char| !word(c)) {
            Some(0) | None if rest.is_empty() => 0,
            Some(0) => rest.chars().next().map_or(0, char::len_utf8),
            Some(n) => n,
            None => rest.len(),
        };
        Err(error(at, at + len, msg))
    }

    pub fn skip_ws(&mut self) {
        let n = self.rest().len() - self.rest().trim_start_matches(' ').len();
        self.pos += n;
    }

    /// Eats `s` (after spaces) if it comes next.
    pub fn eat(&mut self, s: &str) -> bool {
        self.skip_ws();
        match self.rest().starts_with(s) {
            true => {
                self.pos += s.len();
                true
            }
            false => false,
        }
    }

    pub fn expect(&mut self, s: &str) -> R<()> {
        match self.eat(s) {
            true => Ok(()),
            false => self.fail(format!("expected `{s}`")),
        }
    }

    /// Everything must have been read.
    pub fn end(&mut self) -> R<()> {
        self.skip_ws();
        match self.at_end() {
            true => Ok(()),
            false => self.fail(format!("unexpected `{}`", self.rest().trim_end())),
        }
    }

    /// A run of characters satisfying `ok` (at least one).
    pub fn word(&mut self, what: &str, ok: impl Fn(char) -> bool) -> R<&'t str> {
        self.skip_ws();
        let rest = self.rest();
        let n = rest.find(|c: char| !ok(c)).unwrap_or(rest.len());
        if n == 0 {
            return self.fail(format!("expected {what}"));
        }
        self.pos += n;
        Ok(&rest[..n])
    }

    /// A name: letters, digits and `_`.
    pub fn ident(&mut self) -> R<&'t str> {
        self.word("a name", |c| c.is_ascii_alphanumeric() || c == '_')
    }

    /// An unsigned decimal number.
    pub fn number<T: std::str::FromStr>(&mut self) -> R<T> {
        self.skip_ws();
        let start = self.pos;
        let digits = self.word("a number", |c| c.is_ascii_digit())?;
        digits.parse().map_err(|_| {
            let at = self.base + start;
            error(at, at + digits.len(), format!("`{digits}` is out of range"))
        })
    }

    /// A type: `f32`, `vec4<u64>`.
    pub fn ty(&mut self) -> R<Ty> {
        self.skip_ws();
        if self.eat("vec") {
            let width: u8 = self.number()?;
            if !(2..=4).contains(&width) {
                return self.fail(format!("a vector of {width} is not a type"));
            }
            self.expect("<")?;
            let s = self.scalar()?;
            self.expect(">")?;
            return Ok(Ty::vec(s, width));
        }
        Ok(Ty::scalar(self.scalar()?))
    }

    pub fn scalar(&mut self) -> R<Scalar> {
        self.skip_ws();
        let start = self.pos;
        let name = self.ident()?;
        let all = [
            Scalar::F32,
            Scalar::F16,
            Scalar::I32,
            Scalar::U32,
            Scalar::Bool,
            Scalar::U64,
        ];
        match all.into_iter().find(|s| s.name() == name) {
            Some(s) => Ok(s),
            None => {
                self.pos = start;
                self.fail(format!("`{name}` is not a scalar type"))
            }
        }
    }

    /// Whether a literal starts here.
    pub fn at_lit(&mut self) -> bool {
        self.skip_ws();
        let r = self.rest();
        r.starts_with("bitcast<")
            || r.starts_with("(-")
            || r.starts_with("true")
            || r.starts_with("false")
            || r.starts_with("infh")
            || r.starts_with("NaNh")
            || r.starts_with(|c: char| c.is_ascii_digit())
    }

    /// A constant as `wgsl::lit` prints it.
    pub fn lit(&mut self) -> R<Lit> {
        self.skip_ws();
        if self.eat("bitcast<f32>(") {
            let bits = self.hex_u32()?;
            self.expect(")")?;
            return Ok(Lit::F32(f32::from_bits(bits)));
        }
        if self.eat("bitcast<i32>(") {
            let bits = self.hex_u32()?;
            self.expect(")")?;
            return Ok(Lit::I32(bits as i32));
        }
        if self.eat("true") {
            return Ok(Lit::Bool(true));
        }
        if self.eat("false") {
            return Ok(Lit::Bool(false));
        }
        if self.eat("(-") {
            let l = self.unsigned_lit(true)?;
            self.expect(")")?;
            return Ok(l);
        }
        self.unsigned_lit(false)
    }

    /// `0x0000abcdu`.
    fn hex_u32(&mut self) -> R<u32> {
        self.expect("0x")?;
        self.skip_ws();
        let start = self.pos;
        let digits = self.word("hex digits", |c| c.is_ascii_hexdigit())?;
        self.expect("u")?;
        u32::from_str_radix(digits, 16).map_err(|_| {
            let at = self.base + start;
            error(at, at + digits.len(), "hex literal out of range")
        })
    }

    /// A number with its suffix (`1.5f`, `2h`, `3i`, `4u`, `0x01000000u`),
    /// negated when `neg`.
    fn unsigned_lit(&mut self, neg: bool) -> R<Lit> {
        self.skip_ws();
        self.skip_ws();
        let start = self.pos;
        if !neg && self.rest().starts_with("0x") {
            return Ok(Lit::U32(self.hex_u32()?));
        }
        let body = self.word("a literal", |c| {
            c.is_ascii_alphanumeric() || matches!(c, '.' | '+' | '-')
        })?;
        let bad = |what: &str| {
            let at = self.base + start;
            Err(error(
                at,
                at + body.len(),
                format!("`{body}` is not {what}"),
            ))
        };
        let Some(suffix) = body.chars().last() else {
            return bad("a literal");
        };
        let digits = &body[..body.len() - 1];
        let lit = match suffix {
            'f' => digits.parse::<f32>().ok().map(|x| Lit::F32(neg_f(x, neg))),
            'h' => {
                (digits.parse::<f32>().ok()).map(|x| Lit::F16(half::f16::from_f32(neg_f(x, neg))))
            }
            'i' => (digits.parse::<i64>().ok())
                .map(|x| if neg { -x } else { x })
                .and_then(|x| i32::try_from(x).ok())
                .map(Lit::I32),
            'u' if !neg => digits.parse::<u32>().ok().map(Lit::U32),
            _ => None,
        };
        match lit {
            Some(l) => Ok(l),
            None => bad("a literal (`1.5f`, `2h`, `-3i`, `4u`)"),
        }
    }
}

fn neg_f(x: f32, neg: bool) -> f32 {
    if neg { -x } else { x }
}
