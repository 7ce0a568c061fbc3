//! Single-use `let`s written into their use (`texpr_codegen::wgsl::inline`)
//! change nothing naga's IR holds but names: for every example on every
//! built-in target, and for random programs, each kernel parses to the same
//! expressions, local variables and entry point before and after (the
//! unread `let`s the pass drops aside), and the text only shrinks.

use texpr::{Options, ScheduleChoice, Target, compile_source};
use texpr_codegen::validate::validate;
use texpr_codegen::wgsl::inline::{rewrite, single_uses};
use texpr_codegen::written_kernels;
use texpr_tests::{r#gen, golden};

/// Each kind of expression (naga's variant name) with how often it occurs,
/// and the counts of expressions and named local variables, of `wgsl`'s
/// one entry point.
fn census(wgsl: &str, target: &Target) -> (Vec<(String, usize)>, usize, usize) {
    let (module, _) =
        validate(wgsl, &target.features).unwrap_or_else(|d| panic!("{d}\n{}", d.notes.join("\n")));
    assert_eq!(module.entry_points.len(), 1);
    let f = &module.entry_points[0].function;
    let mut kinds: std::collections::BTreeMap<String, usize> = Default::default();
    for (_, e) in f.expressions.iter() {
        let debug = format!("{e:?}");
        let kind = debug
            .split(|c: char| !c.is_alphanumeric())
            .next()
            .unwrap_or_default()
            .to_string();
        *kinds.entry(kind).or_default() += 1;
    }
    // The `var`s the kernel declares (naga adds unnamed ones of its own,
    // such as the short-circuit result of a `&&`, which go with the
    // expression that needs them).
    let named = (f.local_variables.iter())
        .filter(|(_, v)| v.name.is_some())
        .count();
    (kinds.into_iter().collect(), f.expressions.len(), named)
}

/// Checks every kernel of `src` (heuristic schedule) on `target`; returns
/// the lines inlining removed.
fn check(name: &str, src: &str, target: &Target) -> Option<usize> {
    let opts = Options {
        target: target.clone(),
        overrides: vec![],
        schedule: ScheduleChoice::Heuristic,
    };
    // Refused on this target: nothing written.
    let compiled = compile_source(src, &opts).ok()?;
    let (kernels, ..) = written_kernels(&compiled.scheduled, target)
        .unwrap_or_else(|_| panic!("{name}: the kernels emit compiled do not write again"));
    let mut removed = 0;
    for kt in &kernels {
        // Dropping unread lets removes only what they computed.
        let kept = rewrite(&kt.text, &kt.movable, false);
        let (before, after) = (census(&kt.text, target), census(&kept, target));
        assert!(after.1 <= before.1 && after.2 == before.2, "{name}: {kept}");
        let inlined = single_uses(&kt.text, &kt.movable);
        assert_eq!(
            census(&kept, target),
            census(&inlined, target),
            "{name}: inlining changed kernel {} on {:?}:\n{}\n---\n{inlined}",
            kt.kernel.entry_point,
            target.name,
            kt.text
        );
        assert!(inlined.len() <= kt.text.len());
        removed += kt.text.lines().count() - inlined.lines().count();
    }
    Some(removed)
}

#[test]
fn inlining_keeps_every_expression_of_the_examples() {
    let mut removed = 0;
    for path in golden::inputs("examples", "te") {
        let src = std::fs::read_to_string(&path).unwrap();
        let name = path.file_stem().unwrap().to_string_lossy().into_owned();
        for target in ["wgpu-default", "llvmpipe", "nvidia"] {
            let target = Target::builtin(target).unwrap();
            removed += check(&name, &src, &target).expect("the example compiles");
        }
    }
    // It does something: the examples lose thousands of lines.
    assert!(removed > 1000, "only {removed} lines inlined");
}

#[test]
fn inlining_keeps_every_expression_of_random_programs() {
    let target = Target::builtin("llvmpipe").unwrap();
    let mut compiled = 0;
    for seed in 0..60 {
        let src = r#gen::program(seed);
        compiled += check(&format!("seed {seed}"), &src, &target).is_some() as u32;
    }
    assert!(
        compiled >= 50,
        "only {compiled} of 60 random programs compile"
    );
}
