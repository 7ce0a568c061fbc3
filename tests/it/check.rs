//! Checker tests: typed golden files, diagnostic golden files (one per code at
//! least), the print/parse/check round trip, and the IR verifier.
//!
//! A `.te` file may start with `// overrides: N=16 M=4` to pass `-D` values.

use std::collections::BTreeSet;
use std::path::Path;
use texpr_ir::diag;
use texpr_ir::verify;
use texpr_ir::{self as ir, ExprKind, Program, Term, TermKind, VarId};
use texpr_ir::{ElemTy, TermOp};
use texpr_syntax::check::{canonicalize, strip_spans};
use texpr_syntax::frontend;
use texpr_tests::golden;

/// The `-D` values of a file's `// overrides:` header.
fn overrides(src: &str) -> Vec<(String, i64)> {
    let Some(line) = src.lines().find_map(|l| l.strip_prefix("// overrides:")) else {
        return Vec::new();
    };
    line.split_whitespace()
        .filter_map(|kv| kv.split_once('='))
        .map(|(k, v)| (k.to_string(), v.parse().expect("override value")))
        .collect()
}

fn rel(path: &Path) -> String {
    let root = golden::repo_root();
    path.strip_prefix(&root)
        .unwrap_or(path)
        .display()
        .to_string()
}

fn check_file(path: &Path, src: &str) -> Result<Program, String> {
    frontend(src, &overrides(src)).map_err(|d| diag::render(&rel(path), src, &d))
}

#[test]
fn typed_programs() {
    golden::run_dir(
        "tests/data/check",
        "te",
        "typed",
        |path, src| match check_file(path, src) {
            Ok(p) => texpr_ir::print::program(&p),
            Err(e) => format!("unexpected errors:\n{e}"),
        },
    );
}

#[test]
fn diagnostics() {
    golden::run_dir(
        "tests/data/check-err",
        "te",
        "err",
        |path, src| match check_file(path, src) {
            Ok(p) => format!("unexpectedly checked:\n{}", texpr_ir::print::program(&p)),
            Err(e) => e,
        },
    );
}

/// Every code the checker can report from source has an error file. E0134
/// (nesting too deep) and E0135 (empty vector literal) cannot come from parsed
/// source (the parser rejects both first); unit tests in texpr-syntax cover them.
#[test]
fn every_checker_code_has_an_error_file() {
    let mut seen = BTreeSet::new();
    for path in golden::inputs("tests/data/check-err", "te") {
        let src = std::fs::read_to_string(&path).unwrap();
        if let Err(diags) = frontend(&src, &overrides(&src)) {
            seen.extend(diags.iter().map(|d| d.code));
        }
    }
    let missing: Vec<String> = (101..=145)
        .filter(|&n| n != 134 && n != 135)
        .map(|n| format!("E0{n}"))
        .filter(|c| !seen.contains(c.as_str()))
        .collect();
    assert!(
        missing.is_empty(),
        "codes without an error file: {missing:?}"
    );
}

/// A layout map means what its term form means: the program with every
/// layout replaced by its term evaluates to the same values.
#[test]
fn layout_maps_mean_their_term_form() {
    let src =
        std::fs::read_to_string(golden::repo_root().join("tests/data/check/index_map.te")).unwrap();
    let p = frontend(&src, &[]).unwrap();
    let mut q = p.clone();
    let mut layouts = 0;
    for o in &mut q.outputs {
        o.value.walk_mut(|e| {
            if let ir::ExprKind::Compute { map: Some(m), .. } = &mut e.kind
                && m.layout().is_some()
            {
                m.kind = ir::MapKind::Term(m.term().into_owned());
                layouts += 1;
            }
        });
    }
    assert_eq!(
        layouts, 3,
        "the truncation, the digits and the padded corner"
    );
    let inputs = texpr_interp::random_inputs(&p, 5);
    assert_eq!(
        texpr_interp::eval(&p, &inputs).unwrap(),
        texpr_interp::eval(&q, &inputs).unwrap()
    );
}

fn programs() -> Vec<(String, String)> {
    let mut files = golden::inputs("tests/data/check", "te");
    if golden::repo_root().join("examples").is_dir() {
        files.extend(golden::inputs("examples", "te"));
    }
    files
        .into_iter()
        .map(|p| (rel(&p), std::fs::read_to_string(&p).unwrap()))
        .collect()
}

/// check -> print -> parse -> check gives an equal program (up to spans),
/// and printing is a fixed point.
#[test]
fn print_round_trip() {
    let mut failures = Vec::new();
    for (name, src) in programs() {
        let Ok(p) = frontend(&src, &overrides(&src)) else {
            failures.push(format!("{name}: does not check"));
            continue;
        };
        let text = texpr_ir::print::program(&p);
        match frontend(&text, &[]) {
            Err(d) => failures.push(format!(
                "{name}: printed text fails:\n{}",
                diag::render(&name, &text, &d)
            )),
            Ok(q) if strip_spans(&q) != strip_spans(&p) => {
                failures.push(format!("{name}: programs differ:\n{text}"))
            }
            Ok(q) => assert_eq!(
                texpr_ir::print::program(&q),
                text,
                "{name}: printing is not a fixed point"
            ),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn verify_accepts_every_checked_program() {
    for (name, src) in programs() {
        let p =
            frontend(&src, &overrides(&src)).unwrap_or_else(|_| panic!("{name} does not check"));
        if let Err(d) = verify(&p) {
            panic!(
                "{name}: verify rejects a checked program:\n{}",
                diag::render(&name, &src, &d)
            );
        }
    }
}

const SAXPY: &str = "param N = 64
input a: f32[1]
input x: f32[N]
input y: f32[N]
output out: f32[N] = compute N |i| a[0] * x[i] + y[i]
";

/// The first `Index` node of the output, mutably.
fn first_index(e: &mut ir::Expr) -> Option<&mut ir::Expr> {
    if matches!(e.kind, ExprKind::Index { .. }) {
        return Some(e);
    }
    match &mut e.kind {
        ExprKind::Compute { body, .. } | ExprKind::Reduce { body, .. } => first_index(body),
        ExprKind::Binary(_, a, b) => first_index(a).or_else(|| first_index(b)),
        ExprKind::Broadcast(a) | ExprKind::Cast(a) | ExprKind::Unary(_, a) => first_index(a),
        _ => None,
    }
}

fn codes_of(p: &Program) -> Vec<&'static str> {
    verify(p)
        .err()
        .unwrap_or_default()
        .iter()
        .map(|d| d.code)
        .collect()
}

#[test]
fn verify_rejects_a_wrong_type() {
    let mut p = frontend(SAXPY, &[]).unwrap();
    p.outputs[0].value.ty.elem = ElemTy::I32;
    assert!(codes_of(&p).contains(&"E0150"), "{:?}", codes_of(&p));
    let mut p = frontend(SAXPY, &[]).unwrap();
    p.outputs[0].value.ty.len = 65;
    assert_eq!(codes_of(&p), vec!["E0150"]);
}

#[test]
fn verify_rejects_an_unbound_variable() {
    let mut p = frontend(SAXPY, &[]).unwrap();
    let idx = first_index(&mut p.outputs[0].value).unwrap();
    let ExprKind::Index { index, .. } = &mut idx.kind else {
        unreachable!()
    };
    *index = Term {
        kind: TermKind::Var(VarId(99)),
        span: index.span,
    };
    assert!(codes_of(&p).contains(&"E0151"), "{:?}", codes_of(&p));
    // a variable that exists but is not in scope where it is used
    let mut p = frontend(SAXPY, &[]).unwrap();
    let extra = p.fresh_var("j", ir::VarKind::Index { extent: 1 }, texpr_ir::Span::DUMMY);
    let idx = first_index(&mut p.outputs[0].value).unwrap();
    let ExprKind::Index { index, .. } = &mut idx.kind else {
        unreachable!()
    };
    *index = Term {
        kind: TermKind::Var(extra),
        span: index.span,
    };
    assert!(codes_of(&p).contains(&"E0151"), "{:?}", codes_of(&p));
}

#[test]
fn verify_rejects_an_out_of_bounds_index() {
    let mut p = frontend(SAXPY, &[]).unwrap();
    let idx = first_index(&mut p.outputs[0].value).unwrap();
    let ExprKind::Index { index, .. } = &mut idx.kind else {
        unreachable!()
    };
    let one = Term {
        kind: TermKind::Const(1),
        span: index.span,
    };
    *index = Term {
        kind: TermKind::Binary(TermOp::Add, Box::new(index.clone()), Box::new(one)),
        span: index.span,
    };
    assert_eq!(codes_of(&p), vec!["E0111"]);
}

#[test]
fn verify_rejects_a_global_read_before_it_is_defined() {
    let src = "input x: f32[4]\nlet a = compute 4 |i| x[i] * 2.0\nlet b = compute 4 |i| a[i] + 1.0\noutput y = b\n";
    let mut p = frontend(src, &[]).unwrap();
    p.globals.swap(0, 1);
    assert!(codes_of(&p).contains(&"E0153"), "{:?}", codes_of(&p));
}

#[test]
fn overrides_replace_param_values() {
    let p = frontend(SAXPY, &[("N".to_string(), 4096)]).unwrap();
    assert_eq!(p.params, vec![("N".to_string(), 4096)]);
    assert_eq!(p.outputs[0].value.ty, ir::Ty::new(ElemTy::F32, 4096));
}

/// Swaps the ids of variables `a` and `b` throughout an expression.
fn swap_ids(e: &mut ir::Expr, a: VarId, b: VarId) {
    let sw = |v: &mut VarId| {
        *v = if *v == a {
            b
        } else if *v == b {
            a
        } else {
            *v
        }
    };
    fn term(t: &mut Term, sw: &dyn Fn(&mut VarId)) {
        match &mut t.kind {
            TermKind::Var(v) => sw(v),
            TermKind::Binary(_, x, y) => {
                term(x, sw);
                term(y, sw);
            }
            TermKind::Const(_) => {}
        }
    }
    match &mut e.kind {
        ExprKind::Compute { var, body, .. } | ExprKind::Reduce { var, body, .. } => {
            sw(var);
            swap_ids(body, a, b);
        }
        ExprKind::Index { index, .. } => term(index, &sw),
        ExprKind::Binary(_, x, y) => {
            swap_ids(x, a, b);
            swap_ids(y, a, b);
        }
        _ => {}
    }
}

#[test]
fn canonicalize_renumbers_drops_unused_vars_and_folds() {
    let src = "input x: f32[6]\noutput y = compute 2 |i| compute 3 |j| x[i*3 + j]\n";
    let p = frontend(src, &[]).unwrap();
    // the same program with the two variables' ids swapped and an unused one added
    let mut q = p.clone();
    q.vars.swap(0, 1);
    swap_ids(&mut q.outputs[0].value, VarId(0), VarId(1));
    q.fresh_var(
        "unused",
        ir::VarKind::Index { extent: 4 },
        texpr_ir::Span::DUMMY,
    );
    assert_ne!(strip_spans(&q), strip_spans(&p));
    assert!(verify(&q).is_ok());
    assert_eq!(canonicalize(&q), canonicalize(&p));
    // an unfolded constant sub-term folds as the checker folds it
    let idx = first_index(&mut q.outputs[0].value).unwrap();
    let ExprKind::Index { index, .. } = &mut idx.kind else {
        unreachable!()
    };
    let c = |v| {
        Box::new(Term {
            kind: TermKind::Const(v),
            span: index.span,
        })
    };
    let zero = Term {
        kind: TermKind::Binary(TermOp::Sub, c(2), c(2)),
        span: index.span,
    };
    *index = Term {
        kind: TermKind::Binary(TermOp::Add, Box::new(index.clone()), Box::new(zero)),
        span: index.span,
    };
    let reread = frontend(&texpr_ir::print::program(&q), &[]).unwrap();
    assert_eq!(canonicalize(&reread), canonicalize(&q));
    assert_ne!(canonicalize(&q), canonicalize(&p));
}

/// Mutated programs (a character deleted or replaced, everywhere) never make
/// the front end panic; every diagnostic is coded and points into the source;
/// every mutant that checks is accepted by the verifier and round-trips.
#[test]
fn mutants_are_diagnosed_or_round_trip() {
    let mut checked = 0;
    for (name, src) in programs() {
        let chars: Vec<char> = src.chars().collect();
        for i in (0..chars.len()).step_by(3) {
            for rep in ["", "0", "x", "(", "-", "1.5", "@grid", "i"] {
                let mut m: String = chars[..i].iter().collect();
                m.push_str(rep);
                m.extend(&chars[i + 1..]);
                match frontend(&m, &[]) {
                    Err(diags) => {
                        for d in &diags {
                            assert!(d.code.starts_with("E0"), "{name}: uncoded diagnostic {d}");
                            let end = d.primary_span().map_or(0, |s| s.end as usize);
                            assert!(end <= m.len(), "{name}: span past the end: {d}\n{m}");
                        }
                    }
                    Ok(p) => {
                        checked += 1;
                        assert!(
                            verify(&p).is_ok(),
                            "{name}: verify rejects a checked mutant:\n{m}"
                        );
                        let q = frontend(&texpr_ir::print::program(&p), &[])
                            .unwrap_or_else(|_| panic!("{name}: mutant's text fails:\n{m}"));
                        assert_eq!(
                            strip_spans(&q),
                            strip_spans(&p),
                            "{name}: mutant does not round-trip:\n{m}"
                        );
                    }
                }
            }
        }
    }
    assert!(checked > 100, "too few mutants checked: {checked}");
}

/// The default schedule's output, after every pass, is accepted by the
/// verifier, and the scheduled program prints as text that checks back to it.
#[test]
fn scheduled_programs_verify_and_round_trip() {
    let mut scheduled = 0;
    for (name, src) in programs() {
        let p = frontend(&src, &overrides(&src)).unwrap();
        let limits = texpr_target::Target::default();
        let result = texpr_opt::pipeline::run_with(
            &p,
            &limits,
            &texpr_opt::ScheduleChoice::Heuristic,
            &texpr_opt::accept_all,
            &mut |pass, q| {
                if let Err(d) = verify(q) {
                    let text = texpr_ir::print::program(q);
                    panic!(
                        "{name}: verify fails after {pass}:\n{}",
                        diag::render("scheduled", &text, &d)
                    );
                }
            },
        );
        let Ok(q) = result else { continue };
        scheduled += 1;
        let text = texpr_ir::print::program(&q);
        let reread = frontend(&text, &[])
            .unwrap_or_else(|d| panic!("{name}:\n{}", diag::render("scheduled", &text, &d)));
        assert_eq!(
            canonicalize(&reread),
            canonicalize(&q),
            "{name}: scheduled program does not round-trip:\n{text}"
        );
    }
    assert!(scheduled > 5, "only {scheduled} programs scheduled");
}

/// Programs at the parser's nesting limit, in every shape, check, verify and
/// round-trip on a test thread's ordinary stack.
#[test]
fn programs_at_the_nesting_limit_check_and_round_trip() {
    type Shape = fn(usize) -> String;
    let shapes: [Shape; 7] = [
        |d| format!("output y = {}x{}", "(".repeat(d), " + 1.0)".repeat(d)),
        |d| format!("output y = {}x{}", "max(".repeat(d), ", 1.0)".repeat(d)),
        |d| {
            format!(
                "output y = {}x{}",
                "select(x > 0.0, ".repeat(d),
                ", 1.0)".repeat(d)
            )
        },
        |d| format!("output y = {}x{}", "-(".repeat(d), ")".repeat(d)),
        |d| {
            format!(
                "output y = {}1.0",
                (0..d)
                    .map(|k| format!("reduce 2 |i{k}| "))
                    .collect::<String>()
            )
        },
        |d| {
            format!(
                "output y = {}x[0]",
                (0..d)
                    .map(|k| format!("let a{k} = x in "))
                    .collect::<String>()
            )
        },
        |d| {
            format!(
                "output y = compute 4 |i| x[{}i{}]",
                "(".repeat(d),
                " + 0)".repeat(d)
            )
        },
    ];
    for (n, shape) in shapes.iter().enumerate() {
        let src = |d| format!("input x: f32[4]\n{}\n", shape(d));
        let deepest = (200..=texpr_syntax::parse::MAX_NESTING)
            .rev()
            .find(|&d| texpr_syntax::parse(&src(d)).1.is_empty())
            .expect("some depth parses");
        let text = src(deepest);
        let p = frontend(&text, &[]).unwrap_or_else(|d| panic!("shape {n}: {}", d[0]));
        assert!(verify(&p).is_ok(), "shape {n}");
        let reread = frontend(&texpr_ir::print::program(&p), &[])
            .unwrap_or_else(|d| panic!("shape {n}: {}", d[0]));
        assert_eq!(canonicalize(&reread), canonicalize(&p), "shape {n}");
    }
}
