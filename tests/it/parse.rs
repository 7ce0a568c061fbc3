//! Parser and printer golden tests: `tests/data/parse/*.te` against their tree
//! dumps (`.ast`) and canonical forms (`.fmt`), `tests/data/parse-err/*.te`
//! against their rendered diagnostics (`.err`); `fmt` is idempotent and keeps
//! the tree on every golden input and example.

use std::collections::BTreeSet;
use std::path::Path;
use texpr_ir::diag;
use texpr_syntax::parse::{dump, parse, parse_with_comments, strip_spans, too_large};
use texpr_syntax::print;
use texpr_tests::golden;

/// The path as the diagnostics name it: relative to the repository root.
fn rel(path: &Path) -> String {
    let root = golden::repo_root();
    path.strip_prefix(&root)
        .unwrap_or(path)
        .display()
        .to_string()
}

fn dump_or_errors(path: &Path, src: &str) -> String {
    let (file, diags) = parse(src);
    let mut out = dump(&file);
    out.push_str(&diag::render(&rel(path), src, &diags));
    out
}

#[test]
fn golden_trees() {
    golden::run_dir("tests/data/parse", "te", "ast", dump_or_errors);
}

#[test]
fn golden_canonical_forms() {
    golden::run_dir("tests/data/parse", "te", "fmt", |path, src| {
        print::format_source(src).unwrap_or_else(|diags| diag::render(&rel(path), src, &diags))
    });
}

#[test]
fn golden_syntax_errors() {
    golden::run_dir("tests/data/parse-err", "te", "err", |path, src| {
        let (_, diags) = parse(src);
        assert!(!diags.is_empty(), "{}: no diagnostics", rel(path));
        diag::render(&rel(path), src, &diags)
    });
}

/// Every syntax error code has a golden file, except E0013 (a source over
/// 4 GiB), which is tested on its own.
#[test]
fn every_syntax_error_code_is_covered() {
    let mut seen = BTreeSet::new();
    for path in golden::inputs("tests/data/parse-err", "te") {
        let src = std::fs::read_to_string(&path).unwrap();
        seen.extend(parse(&src).1.iter().map(|d| d.code.to_string()));
    }
    let expected: BTreeSet<String> = (1..=14)
        .filter(|n| *n != 13)
        .map(|n| format!("E{n:04}"))
        .collect();
    assert_eq!(seen, expected);
}

#[test]
fn a_source_longer_than_u32_max_is_an_error() {
    let diag = too_large(u32::MAX as usize + 1).expect("an error");
    assert_eq!(diag.code, "E0013");
    assert!(too_large(u32::MAX as usize).is_none());
}

fn golden_and_example_sources() -> Vec<(String, String)> {
    let mut files = golden::inputs("tests/data/parse", "te");
    files.extend(golden::inputs("examples", "te"));
    files
        .iter()
        .map(|p| (rel(p), std::fs::read_to_string(p).unwrap()))
        .collect()
}

#[test]
fn fmt_is_idempotent_and_keeps_the_tree_and_the_comments() {
    for (name, src) in golden_and_example_sources() {
        let first = parse_with_comments(&src);
        assert!(first.diags.is_empty(), "{name}: {:?}", first.diags);
        let once = print::format_source(&src).expect("parses");
        let twice = print::format_source(&once).expect("formatted text parses");
        assert_eq!(once, twice, "{name}: fmt is not idempotent");
        let again = parse_with_comments(&once);
        let (mut a, mut b) = (first.file, again.file);
        strip_spans(&mut a);
        strip_spans(&mut b);
        assert!(a == b, "{name}: fmt changed the tree");
        let texts = |cs: &[texpr_syntax::parse::Comment]| -> Vec<String> {
            cs.iter().map(|c| c.text.clone()).collect()
        };
        assert_eq!(
            texts(&first.comments),
            texts(&again.comments),
            "{name}: comments"
        );
    }
}

#[test]
fn print_without_comments_round_trips() {
    for (name, src) in golden_and_example_sources() {
        let (mut file, _) = parse(&src);
        let printed = print::file(&file);
        let (mut again, diags) = parse(&printed);
        assert!(diags.is_empty(), "{name}: {diags:?}");
        strip_spans(&mut file);
        strip_spans(&mut again);
        assert!(file == again, "{name}: print changed the tree");
        assert!(
            !printed.contains("//"),
            "{name}: comments printed by `file`"
        );
    }
}

#[test]
fn errors_come_with_a_partial_tree() {
    let src = "param N = 4\noutput a = x + + y\noutput b = x\n";
    let (file, diags) = parse(src);
    assert_eq!(diags.len(), 1);
    assert_eq!(
        file.items.len(),
        2,
        "the items around the broken one are kept"
    );
}
