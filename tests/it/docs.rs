//! The language reference documents every diagnostic code the compiler can
//! report: each code written in the sources of the crates appears in
//! docs/language.md, by itself or inside a range `EXXXX-EYYYY`.

use std::collections::BTreeSet;
use std::path::Path;
use texpr_tests::golden::repo_root;

/// Every `"E0123"` string literal in the `.rs` files under `dir`.
fn codes_in(dir: &Path, out: &mut BTreeSet<u32>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            codes_in(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            let text = std::fs::read_to_string(&path).unwrap();
            out.extend(codes(&text, "\"E", "\""));
        }
    }
}

/// The numbers of the codes in `text` written between `open` and `close`
/// (four digits after the `E`).
fn codes<'t>(text: &'t str, open: &'t str, close: &'t str) -> impl Iterator<Item = u32> + 't {
    text.match_indices(open).filter_map(move |(at, _)| {
        let rest = &text[at + open.len()..];
        let digits = rest.get(..4)?;
        let n = digits.parse().ok()?;
        (digits.bytes().all(|b| b.is_ascii_digit()) && rest[4..].starts_with(close)).then_some(n)
    })
}

/// The codes docs/language.md names: `E0123` anywhere, and every code of a
/// range `E0150-E0153` that opens a table row (a range in prose, such as a
/// stage's `E0100-E0199`, documents nothing).
fn documented(doc: &str) -> BTreeSet<u32> {
    let mut out = BTreeSet::new();
    for line in doc.lines() {
        let row = line.starts_with("| E");
        for word in line.split(|c: char| !(c.is_ascii_alphanumeric() || c == '-')) {
            let ends: Vec<u32> = word
                .split('-')
                .filter_map(|w| w.strip_prefix('E')?.parse().ok())
                .collect();
            match ends.as_slice() {
                [one] => {
                    out.insert(*one);
                }
                [lo, hi] if row => out.extend(*lo..=*hi),
                _ => {}
            }
        }
    }
    out
}

#[test]
fn every_diagnostic_code_is_documented() {
    let root = repo_root();
    let mut used = BTreeSet::new();
    for krate in [
        "texpr-ir",
        "texpr-syntax",
        "texpr-opt",
        "texpr-codegen",
        "texpr-block",
        "texpr-interp",
        "texprc",
        "texpr-wasm",
    ] {
        codes_in(&root.join(krate).join("src"), &mut used);
    }
    let doc = std::fs::read_to_string(root.join("docs/language.md")).unwrap();
    let named = documented(&doc);
    let missing: Vec<String> = used
        .iter()
        .filter(|c| !named.contains(c))
        .map(|c| format!("E{c:04}"))
        .collect();
    assert!(used.len() > 140, "only {} codes found", used.len());
    assert!(
        missing.is_empty(),
        "codes missing from docs/language.md: {missing:?}"
    );
}
