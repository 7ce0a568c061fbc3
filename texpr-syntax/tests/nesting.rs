//! The nesting limit: a program exactly at `MAX_NESTING` parses (and prints and
//! parses back), one level more is error E0012, and 10^5 levels of every
//! nesting shape give E0012 without overflowing a 2 MiB stack.

use texpr_syntax::parse::{MAX_NESTING, parse, strip_spans};
use texpr_syntax::print;

/// A nesting shape: `k` repetitions of `open`/`close` around `core` nest
/// `base + k` levels deep.
struct Shape {
    name: &'static str,
    open: &'static str,
    close: &'static str,
    core: &'static str,
    /// Depth of the core alone (the innermost expression).
    base: usize,
}

const SHAPES: [Shape; 7] = [
    Shape {
        name: "parentheses",
        open: "(",
        close: ")",
        core: "x",
        base: 0,
    },
    Shape {
        name: "unary minus",
        open: "- ",
        close: "",
        core: "x",
        base: 1,
    },
    Shape {
        name: "compute",
        open: "compute 1 |i| ",
        close: "",
        core: "x",
        base: 1,
    },
    Shape {
        name: "reduce",
        open: "reduce max 2 |i| ",
        close: "",
        core: "x",
        base: 1,
    },
    Shape {
        name: "let",
        open: "let a = x in ",
        close: "",
        core: "a",
        base: 1,
    },
    Shape {
        name: "call",
        open: "exp(",
        close: ")",
        core: "x",
        base: 1,
    },
    Shape {
        name: "term parentheses",
        open: "(",
        close: ")",
        core: "i",
        base: 0,
    },
];

/// `output y = ...` with `k` repetitions of the shape around its core.
fn nested(shape: &Shape, k: usize) -> String {
    let inner = format!(
        "{}{}{}",
        shape.open.repeat(k),
        shape.core,
        shape.close.repeat(k)
    );
    if shape.name == "term parentheses" {
        return format!("output y = x[{inner}]\n");
    }
    format!("output y = {inner}\n")
}

/// A left-leaning chain `x + x + ... + x` with `k` operators (depth `k + 1`).
fn plus_chain(k: usize) -> String {
    format!("output y = x{}\n", " + x".repeat(k))
}

/// An index term `x[i + i + ... + i]` with `k` operators (depth `k + 2`:
/// the term, then the index node).
fn index_chain(k: usize) -> String {
    format!("output y = x[i{}]\n", " + i".repeat(k))
}

fn codes(src: &str) -> Vec<&'static str> {
    parse(src).1.iter().map(|d| d.code).collect()
}

/// Parses, prints and parses again; asserts no errors and the same tree.
fn assert_parses_and_round_trips(what: &str, src: &str) {
    let (mut file, diags) = parse(src);
    assert!(diags.is_empty(), "{what}: unexpected {diags:?}");
    let printed = print::file(&file);
    let (mut again, diags) = parse(&printed);
    assert!(diags.is_empty(), "{what}: printed form fails: {diags:?}");
    strip_spans(&mut file);
    strip_spans(&mut again);
    assert!(file == again, "{what}: printed form parses to another tree");
}

fn assert_too_deep(what: &str, src: &str) {
    assert_eq!(
        codes(src),
        vec!["E0012"],
        "{what}: expected exactly one E0012"
    );
}

/// Runs `f` on a thread with a 2 MiB stack (a debug build's frames are large).
fn on_small_stack(f: impl FnOnce() + Send + 'static) {
    std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(f)
        .expect("spawn")
        .join()
        .expect("the test thread panicked (or overflowed its stack)");
}

fn reps_at_limit(shape: &Shape) -> usize {
    MAX_NESTING - shape.base
}

#[test]
fn every_shape_at_the_limit_parses_and_one_more_is_an_error() {
    on_small_stack(|| {
        for shape in &SHAPES {
            let k = reps_at_limit(shape);
            assert_parses_and_round_trips(shape.name, &nested(shape, k));
            assert_too_deep(shape.name, &nested(shape, k + 1));
        }
        assert_parses_and_round_trips("plus chain", &plus_chain(MAX_NESTING - 1));
        assert_too_deep("plus chain", &plus_chain(MAX_NESTING));
        assert_parses_and_round_trips("index chain", &index_chain(MAX_NESTING - 2));
        assert_too_deep("index chain", &index_chain(MAX_NESTING - 1));
    });
}

#[test]
fn a_hundred_thousand_levels_of_every_shape_are_an_error_not_a_crash() {
    on_small_stack(|| {
        const DEEP: usize = 100_000;
        for shape in &SHAPES {
            assert_too_deep(shape.name, &nested(shape, DEEP));
        }
        assert_too_deep("plus chain", &plus_chain(DEEP));
        assert_too_deep("index chain", &index_chain(DEEP));
        let minus_term = format!("output y = x[{}i]\n", "- ".repeat(DEEP));
        assert_too_deep("unary minus in a term", &minus_term);
        let product = format!("param N = 2{}\n", " * 2".repeat(DEEP));
        assert_too_deep("product in a size term", &product);
    });
}

#[test]
fn the_error_points_at_the_node_that_crosses_the_limit() {
    let src = nested(&SHAPES[1], MAX_NESTING);
    let (_, diags) = parse(&src);
    let span = diags[0].primary_span().expect("a primary label");
    // 256 minus signs over `x`: the outermost one is level 257.
    assert_eq!(&src[span.range()], src["output y = ".len()..].trim_end());
}

#[test]
fn deep_but_unclosed_input_is_a_plain_syntax_error() {
    on_small_stack(|| {
        let src = format!("output y = {}x\n", "(".repeat(100_000));
        assert_eq!(codes(&src), vec!["E0011"]);
        let src = format!("output y = {}x\nparam N = 3 +\n", "(".repeat(100_000));
        assert_eq!(codes(&src), vec!["E0010", "E0011"]);
    });
}
