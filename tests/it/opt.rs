//! Optimizer filetests: each `tests/data/opt/*.te` is a program whose header
//! names its target (`// target: NAME`, a built-in; `wgpu-default` when
//! absent) and its schedule (`// schedule: LINE`, one line of a schedule
//! file each; the heuristic's when absent). The golden `*.scheduled` beside
//! it holds the schedule chosen and the scheduled TExpr (bless with
//! `UPDATE_EXPECT=1`). Every scheduled program also verifies, compiles for
//! its target, and means what the checked program means in the interpreter
//! (within the tolerance the program allows), and prints as text that checks
//! back to it; together the files use every
//! strategy and every shape.

use std::collections::BTreeSet;
use texpr_opt::schedule::shape::{Shape, classify};
use texpr_syntax::check::canonicalize;
use texpr_tests::golden::{self, header};

fn shape_name(s: Shape<'_>) -> &'static str {
    match s {
        Shape::Contraction { .. } => "contraction",
        Shape::RowReduction { .. } => "row reduction",
        Shape::Fold(_) => "fold",
        Shape::Transpose(_) => "transpose",
        Shape::Elementwise { .. } => "elementwise",
    }
}

#[test]
fn scheduled_programs_match_their_golden_files() {
    let kinds = std::cell::RefCell::new(BTreeSet::new());
    let shapes = std::cell::RefCell::new(BTreeSet::new());
    golden::run_dir("tests/data/opt", "te", "scheduled", |path, src| {
        let name = path.display();
        let (target, choice) = header(src);
        let p = texpr_syntax::frontend(src, &[]).unwrap_or_else(|d| panic!("{name}: {d:#?}"));
        let o = texpr::optimize(&p, &target).unwrap();
        let chosen =
            texpr::choose(&o, &target, &choice).unwrap_or_else(|d| panic!("{name}: {d:#?}"));
        let q = texpr_opt::apply(&o, &target, &chosen.schedule)
            .unwrap_or_else(|d| panic!("{name}: {d:#?}"));
        texpr_ir::verify(&q).unwrap_or_else(|d| panic!("{name}: {d:#?}"));
        texpr_codegen::emit(&q, &target).unwrap_or_else(|d| panic!("{name}: {d:#?}"));
        let inputs = texpr_interp::random_inputs(&p, 1);
        let want = texpr_tests::gpu::reference(&p, &inputs).unwrap();
        let got = texpr_interp::eval(&q, &inputs).unwrap();
        let bad = texpr_interp::accuracy::check_outputs(&p, &got, &want);
        assert!(bad.is_empty(), "{name}: {}", bad[0]);
        let text = texpr_ir::print::program(&q);
        let reread = texpr_syntax::frontend(&text, &[])
            .unwrap_or_else(|d| panic!("{name}: the scheduled text does not check: {d:#?}"));
        assert_eq!(
            canonicalize(&reread),
            canonicalize(&q),
            "{name}: the scheduled program does not round-trip"
        );
        let base = o.program(chosen.schedule.optimize);
        for it in base.items() {
            let root = it.root(base);
            if !root.has_structure() {
                shapes.borrow_mut().insert(shape_name(classify(root)));
            }
        }
        for (_, s) in &chosen.schedule.items {
            let text = s.to_string();
            kinds
                .borrow_mut()
                .insert(text.split(' ').next().unwrap().to_string());
        }
        format!(
            "// schedule on {}:\n{}// scheduled:\n{}",
            target.name,
            chosen.schedule,
            texpr_ir::print::program(&q)
        )
    });
    let kinds: Vec<String> = kinds.into_inner().into_iter().collect();
    let want: Vec<String> = texpr::schedule_syntax()
        .iter()
        .map(|l| l.split(' ').next().unwrap().to_string())
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    assert_eq!(kinds, want, "every strategy has a filetest");
    let shapes: Vec<&str> = shapes.into_inner().into_iter().collect();
    assert_eq!(
        shapes,
        [
            "contraction",
            "elementwise",
            "fold",
            "row reduction",
            "transpose"
        ]
    );
}

/// docs/language.md lists every strategy with the syntax the parser takes.
#[test]
fn the_language_reference_lists_every_strategy() {
    let doc = std::fs::read_to_string(golden::repo_root().join("docs/language.md")).unwrap();
    let doc = doc.replace("\\|", "|");
    for line in texpr::schedule_syntax() {
        assert!(
            doc.contains(&format!("`{line}`")),
            "docs/language.md lacks `{line}`"
        );
    }
}
