//! A stable-Rust fuzz loop over the front end: deterministic mutations of the
//! example programs (and a few seeds of its own), each run through
//! `texpr_syntax::frontend` under `catch_unwind`. No input may panic; every
//! parse diagnostic must carry a syntax code and a span inside the source; an
//! input that parses cleanly must print and parse back to the same tree, and
//! formatting it (with its comments) must be idempotent.
//!
//! `TEXPR_FUZZ_N` sets the number of inputs (default 100 000); a failure names
//! the case number, which reproduces it.

use std::panic::{AssertUnwindSafe, catch_unwind};
use texpr_syntax::parse::{parse, strip_spans};
use texpr_tests::golden;

const DEFAULT_CASES: usize = 100_000;

const SEEDS: [&str; 4] = [
    "param N = 64\ninput x: f32[N]\noutput y = compute N |i| x[i] * 2.0 + 1\n",
    "// softmax\nparam R = 4\nparam C = 8\ninput x: f32[R*C]\n\
     output y: f32[R*C] = compute R |r|\n  let m = reduce max C |j| x[r*C + j] in\n  \
     let s = reduce C |j| exp(x[r*C + j] - m) in\n  compute C |j| exp(x[r*C + j] - m) / s\n",
    "param N = 16\ninput a: i32[N]\ninput b: u32[N]\n/* block */ let@global t = fill(-1i, N)\n\
     output o = compute@grid 4 {k < 8 -> (k % 4) * 4 + k / 4} |g| compute@group 4 |l|\n  \
     select(a[g*4 + l] < 0, f32(b[l]), -inf) + [1.0, 2e-3, 3.5f, 4][l] + broadcast(x[0] else 0.0, 1)\n",
    "param N = 8\ninput x: f32[N]\noutput s = reduce@group + N |i| let@reg v = x[N - 1 - i] in \
     max(v, 0.0) * pow(v, 2.0) % fma(v, v, 1.0)\noutput p = reduce * N |i| -x[i]\n",
];

#[rustfmt::skip]
const TOKENS: [&str; 48] = [
    "param ", "input ", "output ", "let ", " in ", "compute ", "reduce ", " else ", "fill(",
    "broadcast(", "inf", "max", "min", "x", "_", "N", "(", ")", "[", "]", "{", "}", "|", ",", ":",
    "=", "->", "+", "-", "*", "/", "%", "<", "<=", ">=", "==", "!=", "@grid", "@reg", "@", "/*",
    "//", "\n", "99999999999999999999999", "1e999", "1.", "3u", "λ",
];

/// Bytes a flip writes.
const BYTES: &[u8] = b" ()[]{}|,:=+-*/%<>@.0123456789eiuf_xN\n\xff";

/// xorshift64*: small, fast, and the same sequence everywhere.
struct Rng(u64);

impl Rng {
    fn new(case: usize) -> Rng {
        Rng((case as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next() % n as u64) as usize
        }
    }
}

fn corpus() -> Vec<String> {
    let mut programs: Vec<String> = SEEDS.iter().map(|s| s.to_string()).collect();
    let examples = golden::repo_root().join("examples");
    if examples.is_dir() {
        for path in golden::inputs("examples", "te") {
            programs.push(std::fs::read_to_string(path).unwrap());
        }
    }
    programs
}

/// A token-sized piece of `src` starting near `at`: a word, or one symbol.
fn token_at(src: &[u8], at: usize) -> &[u8] {
    let word = |c: &u8| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'.' | b'@');
    let start = at.min(src.len().saturating_sub(1));
    let len = src[start..].iter().take_while(|c| word(c)).count().max(1);
    &src[start..(start + len).min(src.len())]
}

/// A deep burst: `k` repetitions of a nesting prefix (and its closers).
fn burst(rng: &mut Rng) -> Vec<u8> {
    let k = [1, 10, 255, 256, 257, 300, 1000][rng.below(7)];
    let (open, core, close) = [
        ("(", "x", ")"),
        ("- ", "x", ""),
        ("compute 1 |i| ", "x[i]", ""),
        ("let a = x in ", "a", ""),
        ("x + ", "x", ""),
        ("exp(", "x", ")"),
        ("", "i", " + i"),
    ][rng.below(7)];
    let closers = if rng.below(4) == 0 { 0 } else { k };
    format!("{}{core}{}", open.repeat(k), close.repeat(closers)).into_bytes()
}

fn mutate(src: &mut Vec<u8>, others: &[String], rng: &mut Rng) {
    let at = rng.below(src.len() + 1);
    match rng.below(7) {
        0 if !src.is_empty() => {
            let i = at.min(src.len() - 1);
            src[i] = BYTES[rng.below(BYTES.len())];
        }
        1 => {
            let end = (at + 1 + rng.below(16)).min(src.len());
            src.drain(at.min(end)..end);
        }
        2 => {
            let end = (at + 1 + rng.below(32)).min(src.len());
            let copy = src[at.min(end)..end].to_vec();
            src.splice(at..at, copy);
        }
        3 => {
            let other = others[rng.below(others.len())].as_bytes();
            let piece = token_at(other, rng.below(other.len())).to_vec();
            src.splice(at..at, piece);
        }
        4 => {
            let other = others[rng.below(others.len())].as_bytes();
            let start = rng.below(other.len());
            let end = (start + rng.below(200)).min(other.len());
            src.splice(at..at, other[start..end].to_vec());
        }
        5 => src.splice(at..at, burst(rng)).for_each(drop),
        _ => src
            .splice(at..at, TOKENS[rng.below(TOKENS.len())].bytes())
            .for_each(drop),
    }
}

/// The input of case `case`: a program from the corpus with 1 to 4 mutations.
fn input(case: usize, corpus: &[String]) -> String {
    let mut rng = Rng::new(case);
    let mut bytes = corpus[rng.below(corpus.len())].clone().into_bytes();
    for _ in 0..1 + rng.below(4) {
        mutate(&mut bytes, corpus, &mut rng);
    }
    String::from_utf8_lossy(&bytes).into_owned()
}

/// Everything that must hold for one input; an `Err` says what did not.
fn check(src: &str) -> Result<(), String> {
    let (mut file, diags) = parse(src);
    for d in &diags {
        let span = d.primary_span().ok_or(format!("no primary span: {d}"))?;
        if !d.code.starts_with("E00") || span.end as usize > src.len() || span.start > span.end {
            return Err(format!("bad diagnostic {d} at {span:?}"));
        }
    }
    if diags.is_empty() {
        let printed = texpr_syntax::print::file(&file);
        let (mut again, diags) = parse(&printed);
        strip_spans(&mut file);
        strip_spans(&mut again);
        if !diags.is_empty() || file != again {
            return Err(format!(
                "printed form does not parse back:\n{printed}\n{diags:?}"
            ));
        }
        let once = texpr_syntax::print::format_source(src).map_err(|d| format!("{d:?}"))?;
        let twice = texpr_syntax::print::format_source(&once).map_err(|d| format!("{d:?}"))?;
        if once != twice {
            return Err(format!("fmt is not idempotent:\n{once}\nthen:\n{twice}"));
        }
    }
    let _ = texpr_syntax::frontend(src, &[]);
    Ok(())
}

fn cases() -> usize {
    std::env::var("TEXPR_FUZZ_N")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(DEFAULT_CASES)
}

fn run() {
    let corpus = corpus();
    let mut failures = Vec::new();
    for case in 0..cases() {
        let src = input(case, &corpus);
        let outcome = catch_unwind(AssertUnwindSafe(|| check(&src)));
        let problem = match outcome {
            Ok(Ok(())) => continue,
            Ok(Err(msg)) => msg,
            Err(_) => "panicked".to_string(),
        };
        failures.push(format!("case {case}: {problem}\ninput: {src:?}"));
        if failures.len() >= 5 {
            break;
        }
    }
    assert!(
        failures.is_empty(),
        "the front end failed:\n{}",
        failures.join("\n\n")
    );
}

#[test]
fn mutated_programs_never_break_the_front_end() {
    // The stack a binary's main thread gets; parse alone needs far less.
    std::thread::Builder::new()
        .stack_size(8 << 20)
        .spawn(run)
        .expect("spawn")
        .join()
        .expect("fuzz thread");
}
