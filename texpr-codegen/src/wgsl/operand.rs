//! Operands written bare or in parentheses: whether an expression put in
//! place of a name parses as that one operand (`inline.rs`).
//!
//! Only the forms the writer makes are told apart: atoms (names, literals,
//! calls, constructors, with indexing and member accesses), products of
//! atoms, sums of atoms and products, and anything else; an atom never needs
//! parentheses, a product only beside `+`, `-` or where an operand starts or
//! ends, a sum only where an operand starts (WGSL folds `a - b + c` from the
//! left, so `x - (b + c)` keeps its parentheses), anything else only as a
//! whole operand (`f(_)`, `= _;`, `[_]`).

/// How an expression's top level is built.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Shape {
    /// A name, literal, call, or such with indexing and member accesses.
    Atom,
    /// Atoms joined by `*`, `/`, `%`.
    Product,
    /// Atoms joined by `+`, `-`, `*`, `/`, `%`, at least one `+` or `-`.
    Sum,
    /// Anything else (a unary operator, a comparison, bit operations).
    Other,
}

/// Whether `value`, written bare between `before` and `after`, parses as
/// the one operand it replaces.
pub fn binds_as_written(value: &str, before: &str, after: &str) -> bool {
    let shape = shape(value);
    if shape == Shape::Atom {
        return !value.starts_with(|c: char| c.is_ascii_digit() || c == '-')
            || !after.starts_with('.');
    }
    let before = before.trim_end();
    let after = after.trim_start();
    let closes = after.starts_with([';', ')', ']', ',']);
    let opens = before.ends_with(['(', '[', ','])
        || (before.ends_with('=')
            && !before.ends_with("==")
            && !before.ends_with("!=")
            && !before.ends_with("<=")
            && !before.ends_with(">="));
    if opens && closes {
        return true;
    }
    // A binary operator beside it: ` op ` with a space on both sides.
    let op_before = |ops: &[&str]| {
        ops.iter().any(|op| {
            before
                .strip_suffix(op)
                .is_some_and(|b| b.ends_with(' ') && !b.trim_end().is_empty())
        })
    };
    let op_after = |ops: &[&str]| {
        ops.iter()
            .any(|op| after.strip_prefix(op).is_some_and(|a| a.starts_with(' ')))
    };
    match shape {
        // `x + a * b`, `x - a * b`, `a * b + y`, `a * b / y`.
        Shape::Product => {
            (opens || op_before(&["+", "-"])) && (closes || op_after(&["+", "-", "*", "/", "%"]))
        }
        // `(a + b) - y` is `a + b - y`; `x + (a + b)` is not `x + a + b`.
        Shape::Sum => opens && op_after(&["+", "-"]),
        Shape::Atom | Shape::Other => false,
    }
}

/// The top-level shape of `e`.
fn shape(e: &str) -> Shape {
    let mut parts = top_level(e);
    let mut shape = Shape::Atom;
    match parts.next() {
        Some(first) if atom(first) => {}
        _ => return Shape::Other,
    }
    while let Some(op) = parts.next() {
        match parts.next() {
            Some(operand) if atom(operand) => {}
            _ => return Shape::Other,
        }
        shape = match (shape, op) {
            (Shape::Atom | Shape::Product, "*" | "/" | "%") => Shape::Product,
            (_, "+" | "-" | "*" | "/" | "%") => Shape::Sum,
            _ => return Shape::Other,
        };
    }
    shape
}

/// `e` split at the spaces outside its parentheses and brackets.
fn top_level(e: &str) -> std::vec::IntoIter<&str> {
    let mut parts = Vec::new();
    let (mut depth, mut start) = (0i32, 0);
    for (k, c) in e.bytes().enumerate() {
        match c {
            b'(' | b'[' => depth += 1,
            b')' | b']' => depth -= 1,
            b' ' if depth == 0 => {
                parts.push(&e[start..k]);
                start = k + 1;
            }
            _ => {}
        }
    }
    parts.push(&e[start..]);
    parts.into_iter()
}

/// Whether `e` is one operand: a literal, or a name or a type's constructor
/// followed by calls, indexing and member accesses, with its parentheses
/// and brackets balanced and nothing outside them but those.
fn atom(e: &str) -> bool {
    let b = e.as_bytes();
    let Some(&c) = b.first() else {
        return false;
    };
    if c.is_ascii_digit() {
        return b.iter().all(|c| c.is_ascii_alphanumeric() || *c == b'.');
    }
    if c == b'(' {
        // A parenthesised literal such as `(-5i)`.
        return closes_at_end(e);
    }
    if !(c.is_ascii_alphabetic() || c == b'_') {
        return false;
    }
    let mut i = 0;
    while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
        i += 1;
    }
    // A template list straight after the name (`vec4<f32>`, `array<f32, 4>`).
    if i < b.len() && b[i] == b'<' {
        let Some(close) = e[i..].find('>') else {
            return false;
        };
        i += close + 1;
    }
    while i < b.len() {
        match b[i] {
            b'(' | b'[' => {
                let Some(len) = group_len(&e[i..]) else {
                    return false;
                };
                i += len;
            }
            b'.' => {
                i += 1;
                let start = i;
                while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                    i += 1;
                }
                if i == start {
                    return false;
                }
            }
            _ => return false,
        }
    }
    true
}

/// The length of the bracketed group `e` starts with, through its closing bracket.
fn group_len(e: &str) -> Option<usize> {
    let mut d = 0i32;
    for (k, c) in e.bytes().enumerate() {
        match c {
            b'(' | b'[' => d += 1,
            b')' | b']' => {
                d -= 1;
                if d == 0 {
                    return Some(k + 1);
                }
            }
            _ => {}
        }
    }
    None
}

/// Whether the group `e` opens with closes at its last byte.
fn closes_at_end(e: &str) -> bool {
    group_len(e) == Some(e.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapes() {
        assert_eq!(shape("t_5"), Shape::Atom);
        assert_eq!(shape("b0_a[t_74].x"), Shape::Atom);
        assert_eq!(shape("select(a, b, c < d)"), Shape::Atom);
        assert_eq!(shape("vec4<f32>(x, y, z, w)"), Shape::Atom);
        assert_eq!(shape("(-5i)"), Shape::Atom);
        assert_eq!(shape("2.5e3f"), Shape::Atom);
        assert_eq!(shape("t_97 * t_171"), Shape::Product);
        assert_eq!(shape("l * 64i + j_646"), Shape::Sum);
        assert_eq!(shape("a < b"), Shape::Other);
        assert_eq!(shape("-x"), Shape::Other);
        assert_eq!(shape("(a) + (b)"), Shape::Sum);
        assert_eq!(shape("(a + b)"), Shape::Atom);
        assert_eq!(shape("f(a, b) * c"), Shape::Product);
        assert_eq!(shape("(t_71 + t_66) * 64i"), Shape::Product);
        assert_eq!(shape("a *  b"), Shape::Other);
        assert_eq!(shape("a<b"), Shape::Other);
        assert_eq!(shape("a >> 3u"), Shape::Other);
        assert_eq!(shape("(i)&7i"), Shape::Other);
    }

    #[test]
    fn parentheses_only_where_needed() {
        // Products into sums, sums where they start an operand.
        assert!(binds_as_written("a * b", "x + ", ";"));
        assert!(binds_as_written("a * b", "x - ", " + y;"));
        assert!(!binds_as_written("a * b", "x * ", ";"));
        assert!(!binds_as_written("a * b", "x / ", ";"));
        assert!(!binds_as_written("a + b", "x + ", ";"));
        assert!(!binds_as_written("a + b", "x - ", ";"));
        assert!(binds_as_written("a + b", "let t: f32 = ", " - y;"));
        assert!(!binds_as_written("a + b", "let t: f32 = ", " * y;"));
        assert!(binds_as_written("a < b", "select(x, y, ", ");"));
        assert!(!binds_as_written("a < b", "x == ", ";"));
        assert!(!binds_as_written("a + b", "x == ", ";"));
        assert!(!binds_as_written("a < b", "x <= ", ";"));
        assert!(!binds_as_written("-a", "x - ", ";"));
        assert!(binds_as_written("b0_a[i]", "x * ", ".x;"));
        assert!(!binds_as_written("2i", "x * ", ".x;"));
    }
}
