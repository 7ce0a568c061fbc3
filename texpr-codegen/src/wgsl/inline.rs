//! Single-use `let`s written into their use: a finished kernel's text with
//! fewer statements and tokens for naga (and a driver) to parse.
//!
//! The writer names every operation (`let t_5: f32 = t_3 * t_4;`). A `let`
//! whose value cannot change while the function runs (the writer's
//! *movable* lets: every name in it immutable, every call pure, see
//! `Writer::let_`) and that is read exactly once, by a statement of the same
//! block (not a block header, not a nested block, which could run it again),
//! is written into that statement instead, in parentheses unless the
//! operators around it bind it as written (`a * b` into `x + _`). Chains of
//! such `let`s fold into one expression, up to [`MAX_NESTING`] levels. A
//! movable `let` nothing reads (an index a wide load made unneeded) is
//! dropped.
//!
//! This changes nothing naga's IR holds but names and unused expressions:
//! a WGSL `let` names an expression, it does not copy it, so the inlined
//! module has the same expressions (in another order) and the same
//! statements, less the dropped `let`s.

use super::lets::Lets;
use super::operand::binds_as_written;
use rustc_hash::{FxHashMap, FxHashSet};

/// How deep inlined expressions nest in one another (naga's parser limits
/// recursion; a reader limits patience).
pub const MAX_NESTING: u32 = 6;

/// Longest expression built by inlining, in bytes.
const MAX_LEN: usize = 160;

/// `text` with each single-use movable `let` written into its use, and
/// the movable `let`s nothing reads dropped.
pub fn single_uses(text: &str, movable: &Lets) -> String {
    rewrite(text, movable, true)
}

/// `text` with the movable `let`s nothing reads dropped, and, when
/// `inline_uses`, each single-use one written into its use.
pub fn rewrite(text: &str, movable: &Lets, inline_uses: bool) -> String {
    if movable.is_empty() {
        return text.to_string();
    }
    let lines: Vec<&str> = text.lines().collect();
    // Each line's block depth; a blank line belongs to any.
    let depths: Vec<usize> = lines
        .iter()
        .map(|l| match l.bytes().all(|c| c == b' ') {
            true => usize::MAX,
            false => depth(l),
        })
        .collect();
    // Where each movable let is defined, and its uses: (line, count).
    let mut defs: Vec<(&str, usize)> = Vec::new();
    let mut uses: FxHashMap<&str, (usize, u32)> = FxHashMap::default();
    for (k, line) in lines.iter().enumerate() {
        let defined = definition(line).map(|(name, _)| name);
        if let Some(name) = defined.filter(|n| movable.contains(n)) {
            defs.push((name, k));
        }
        for (word, _) in words(line) {
            if Some(word) != defined && movable.contains(word) {
                uses.entry(word).or_insert((k, 0)).1 += 1;
            }
        }
    }
    // Lets nothing reads are dropped, last first, so that what only they
    // read goes too.
    let mut dead: FxHashSet<usize> = FxHashSet::default();
    for &(name, at) in defs.iter().rev() {
        if uses.get(name).is_some_and(|u| u.1 > 0) {
            continue;
        }
        dead.insert(at);
        let (_, value) = definition(lines[at]).expect("a definition");
        for (word, _) in words(value) {
            if let Some(u) = uses.get_mut(word) {
                u.1 -= 1;
            }
        }
    }
    // The lets to inline: one use, later in the same block, in a statement;
    // and the lines that use them. (A use first seen in a dropped line
    // leaves another: not inlined.)
    let mut inline: FxHashSet<&str> = FxHashSet::default();
    let mut users: FxHashSet<usize> = FxHashSet::default();
    for &(name, at) in &defs {
        let Some(&(used, 1)) = uses.get(name) else {
            continue;
        };
        if dead.contains(&used) || !inline_uses {
            continue;
        }
        let d = depths[at];
        let same_block = used > at
            && depths[used] == d
            && depths[at + 1..used].iter().all(|&e| e >= d)
            && lines[used].ends_with(';');
        if same_block {
            inline.insert(name);
            users.insert(used);
        }
    }
    // Substitute in order: a let's value, with what it reads inlined, waits
    // for its one use.
    let mut pending: FxHashMap<&str, String> = FxHashMap::default();
    let mut out = String::with_capacity(text.len());
    let mut line_buf = String::new();
    for (k, &line) in lines.iter().enumerate() {
        if dead.contains(&k) {
            continue;
        }
        let line = match users.contains(&k) {
            true => {
                line_buf.clear();
                substitute(line, &mut pending, &mut line_buf);
                line_buf.as_str()
            }
            false => line,
        };
        if let Some((name, value)) = definition(line)
            && let Some(&name) = inline.get(name)
            && nesting(value) < MAX_NESTING
            && value.len() <= MAX_LEN
        {
            pending.insert(name, value.to_string());
            continue;
        }
        out.push_str(line);
        out.push('\n');
    }
    debug_assert!(pending.is_empty(), "an inlined let lost its use");
    out
}

/// `let NAME: TY = VALUE;` → (NAME, VALUE).
fn definition(line: &str) -> Option<(&str, &str)> {
    let rest = line.trim_start_matches(' ').strip_prefix("let ")?;
    let colon = rest.bytes().position(|c| c == b':')?;
    let eq = colon + rest[colon..].bytes().position(|c| c == b'=')?;
    let value = rest[eq + 1..].trim_start().strip_suffix(';')?;
    Some((&rest[..colon], value))
}

/// The deepest nesting of parentheses in `value`.
fn nesting(value: &str) -> u32 {
    let (mut d, mut most) = (0u32, 0u32);
    for c in value.bytes() {
        match c {
            b'(' => {
                d += 1;
                most = most.max(d);
            }
            b')' => d = d.saturating_sub(1),
            _ => {}
        }
    }
    most
}

/// Block depth: the writer indents by four spaces a level.
fn depth(line: &str) -> usize {
    (line.len() - line.trim_start_matches(' ').len()) / 4
}

/// The identifiers of `line` (not literals, not after a `.`), with their
/// byte offsets.
fn words(line: &str) -> impl Iterator<Item = (&str, usize)> {
    let b = line.as_bytes();
    let mut i = 0;
    std::iter::from_fn(move || {
        while i < b.len() {
            let c = b[i];
            if c.is_ascii_alphabetic() || c == b'_' {
                let start = i;
                while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                    i += 1;
                }
                if start > 0 && b[start - 1] == b'.' {
                    continue;
                }
                return Some((&line[start..i], start));
            }
            if c.is_ascii_digit() {
                while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'.') {
                    i += 1;
                }
                continue;
            }
            i += 1;
        }
        None
    })
}

/// Writes `line` into `out` with each name in `pending` replaced by its
/// value (and removed from `pending`).
fn substitute(line: &str, pending: &mut FxHashMap<&str, String>, out: &mut String) {
    let mut last = 0;
    for (word, at) in words(line) {
        let Some(value) = pending.remove(word) else {
            continue;
        };
        out.push_str(&line[last..at]);
        let end = at + word.len();
        if binds_as_written(&value, &line[..at], &line[end..]) {
            out.push_str(&value);
        } else {
            out.push('(');
            out.push_str(&value);
            out.push(')');
        }
        last = end;
    }
    out.push_str(&line[last..]);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn movable(names: &[&str]) -> Lets {
        Lets::of(names.iter().copied())
    }

    #[test]
    fn chains_fold_into_their_use() {
        let text = "fn f() {\n    let t_1: f32 = a * b;\n    let t_2: f32 = c * d;\n    let t_3: f32 = t_1 + t_2;\n    acc = acc + t_3;\n}\n";
        let got = single_uses(text, &movable(&["t_1", "t_2", "t_3"]));
        assert_eq!(got, "fn f() {\n    acc = acc + (a * b + c * d);\n}\n");
    }

    #[test]
    fn what_stays() {
        // Two uses; a use in a loop; a use in a block header; a let not movable.
        let text = "fn f() {
    let t_1: f32 = a * b;
    let t_2: f32 = t_1 + t_1;
    let t_3: i32 = i * 4i;
    for (var j: i32 = 0i; j < 4i; j = j + 1i) {
        s[j] = t_3;
    }
    let t_4: i32 = n * 2i;
    if (t_4 < 8i) {
        s[0] = 1.0f;
    }
    let t_5: f32 = subgroupAdd(x);
    s[1] = t_5;
    s[2] = t_2;
}
";
        let got = single_uses(text, &movable(&["t_1", "t_2", "t_3", "t_4"]));
        let want = text
            .replace("    let t_2: f32 = t_1 + t_1;\n", "")
            .replace("s[2] = t_2;", "s[2] = t_1 + t_1;");
        assert_eq!(got, want);
    }

    #[test]
    fn what_nothing_reads_goes() {
        let text = "fn f() {\n    let t_1: f32 = a * b;\n    let t_2: f32 = t_1 + c;\n    let t_3: i32 = i * 2i;\n    let t_4: i32 = t_3 + 1i;\n    s[0] = t_3;\n}\n";
        let all = movable(&["t_1", "t_2", "t_3", "t_4"]);
        let want = "fn f() {\n    let t_3: i32 = i * 2i;\n    s[0] = t_3;\n}\n";
        assert_eq!(rewrite(text, &all, false), want);
        assert_eq!(single_uses(text, &all), want);
        // Not movable: kept.
        assert_eq!(single_uses(text, &movable(&["t_3"])), text);
    }

    #[test]
    fn nesting_is_bounded() {
        let mut text = String::from("fn f() {\n    let t_0: f32 = (a);\n");
        for k in 1..=20 {
            text += &format!("    let t_{k}: f32 = (t_{}) * (b);\n", k - 1);
        }
        text += "    s[0] = t_20;\n}\n";
        let names: Vec<String> = (0..=20).map(|k| format!("t_{k}")).collect();
        let names: Vec<&str> = names.iter().map(|s| s.as_str()).collect();
        let got = single_uses(&text, &movable(&names));
        assert!(got.lines().count() > 4, "{got}");
        for line in got.lines() {
            let (_, value) = definition(line).unwrap_or(("", ""));
            assert!(nesting(value) <= MAX_NESTING, "{line}");
        }
    }
}
