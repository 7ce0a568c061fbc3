//! Differential tests: generated programs (and the examples) compiled and run
//! on the GPU must match the reference interpreter.

use texpr_interp::{Data, Value};
use texpr_tests::r#gen as generator;
use texpr_tests::golden::{inputs, repo_root};
use texpr_tests::gpu::{RunError, compare, gpu, reference, run_program, run_source};
use texpr_tests::sched::small_sizes;

/// Every generated program passes the front end (a generator bug prints
/// the program), and a good share of them compute in `f16`.
#[test]
fn generated_programs_pass_the_front_end() {
    let mut halves = 0;
    for seed in 0..3000 {
        let src = generator::program(seed);
        match texpr_syntax::frontend(&src, &[]) {
            Ok(p) => halves += usize::from(texpr_tests::needs::uses_f16(&p)),
            Err(diags) => {
                let msgs: Vec<String> = diags.iter().map(|d| format!("{d:?}")).collect();
                panic!(
                    "seed {seed}: generated program rejected:\n{src}\n{}",
                    msgs.join("\n")
                );
            }
        }
    }
    assert!(halves > 3000 / 4, "{halves} of 3000 programs hold f16");
}

/// Generated programs evaluate to finite values (what keeps GPU comparisons meaningful).
#[test]
fn generated_programs_evaluate_to_finite_values() {
    for seed in 0..1000 {
        let src = generator::program(seed);
        let p = texpr_syntax::frontend(&src, &[]).expect("checked above");
        let inputs = texpr_interp::random_inputs(&p, seed);
        let outs =
            texpr_interp::eval(&p, &inputs).unwrap_or_else(|e| panic!("seed {seed}: {e:?}\n{src}"));
        for (k, v) in outs.iter().enumerate() {
            if let texpr_interp::Data::F32(x) = &v.data {
                let bad = x.iter().position(|f| !f.is_finite());
                assert_eq!(bad, None, "seed {seed}: output {k} not finite\n{src}");
            }
        }
    }
}

/// Every element of every generated program's outputs is specified and has
/// a finite error bound, so the GPU comparisons below (and `run --check`)
/// compare every element: none passes by comparing fewer.
#[test]
fn generated_programs_have_every_element_compared() {
    for seed in 0..2000 {
        let src = generator::program(seed);
        let p = texpr_syntax::frontend(&src, &[]).expect("checked above");
        let inputs = texpr_interp::random_inputs(&p, seed);
        let refs = reference(&p, &inputs).unwrap_or_else(|e| panic!("seed {seed}: {e:?}"));
        for (r, out) in refs.iter().zip(&p.outputs) {
            let unchecked = (r.bounds.iter())
                .filter(|b| !b.specified || !b.err.is_finite())
                .count();
            assert_eq!(
                unchecked, 0,
                "seed {seed}: {unchecked} elements of `{}` would not be compared\n{src}",
                out.name
            );
        }
    }
}

/// The number of generated programs to run (`TEXPR_DIFF_N`) and the first seed (`TEXPR_DIFF_SEED`).
fn diff_range() -> std::ops::Range<u64> {
    let var = |name: &str, default: u64| {
        std::env::var(name)
            .ok()
            .and_then(|v| v.trim().parse().ok())
            .unwrap_or(default)
    };
    let start = var("TEXPR_DIFF_SEED", 0);
    start..start + var("TEXPR_DIFF_N", 2000)
}

/// Generated programs compile (naga-validated), run on the GPU and match the interpreter.
#[test]
fn generated_programs_match_the_interpreter_on_the_gpu() {
    if gpu().is_none() {
        return;
    }
    let range = diff_range();
    let (mut failures, mut refused, n) = (Vec::new(), Vec::new(), range.end - range.start);
    for seed in range {
        let src = generator::program(seed);
        // The device again for every program: reopened if the last one lost it.
        let Some(gpu) = gpu() else { return };
        match run_source(gpu, &src, &[], seed) {
            Ok(_) => {}
            Err(e) if refused_by_device(&e) => refused.push(seed),
            Err(e) => {
                eprintln!("seed {seed} FAILED: {e}\n{src}");
                failures.push(seed);
            }
        }
    }
    eprintln!(
        "{} of {n} generated programs refused by the device's loop budget (E0316): {refused:?}",
        refused.len()
    );
    assert!(
        refused.len() as u64 <= n / 50,
        "{} of {n} generated programs are over the device's loop budget; the generator should keep most within it",
        refused.len()
    );
    assert!(
        failures.is_empty(),
        "{} of {n} generated programs differ; seeds {failures:?} (rerun one with TEXPR_DIFF_SEED=<seed> TEXPR_DIFF_N=1)",
        failures.len()
    );
}

/// Whether the compiler refused the program for this device's loop budget
/// (E0316: lavapipe cuts an invocation's loops short past 65,535 iterations,
/// so such a program cannot run correctly there; the refusal is the right answer).
fn refused_by_device(e: &RunError) -> bool {
    matches!(e, RunError::Compile(text) if text.contains("[E0316]"))
}

/// The last element moved by 1% of its magnitude (at least 0.01), or by 1 for integers.
fn perturb(v: &Value) -> Value {
    let mut v = v.clone();
    match &mut v.data {
        Data::F32(x) => x
            .last_mut()
            .into_iter()
            .for_each(|f| *f += 0.01 * f.abs().max(1.0)),
        Data::I32(x) => x
            .last_mut()
            .into_iter()
            .for_each(|i| *i = i.wrapping_add(1)),
        Data::U32(x) => x
            .last_mut()
            .into_iter()
            .for_each(|u| *u = u.wrapping_add(1)),
        Data::F16(x) => (x.last_mut().into_iter())
            .for_each(|f| *f = half::f16::from_f32(f.to_f32() + 0.01 * f.to_f32().abs().max(1.0))),
        Data::Bool(_) => {}
    }
    v
}

/// The oracle is not vacuous: a GPU output with one element off by 1% is
/// caught in almost every generated program.
#[test]
fn a_perturbed_gpu_result_is_caught() {
    if gpu().is_none() {
        return;
    }
    let (mut caught, n) = (0, 100);
    for seed in 0..n {
        let Some(gpu) = gpu() else { return };
        let src = generator::program(seed);
        let p = texpr_syntax::frontend(&src, &[]).unwrap();
        let inputs = texpr_interp::random_inputs(&p, seed);
        let want = reference(&p, &inputs).unwrap();
        let got = match run_program(gpu, &p, &inputs) {
            Ok((got, _)) => got,
            Err(e) if refused_by_device(&e) => continue,
            Err(e) => panic!("seed {seed}: {e}"),
        };
        assert!(compare("o0", &got[0], &want[0]).is_ok(), "seed {seed}");
        caught += compare("o0", &perturb(&got[0]), &want[0]).is_err() as u32;
    }
    assert!(
        caught >= 85,
        "only {caught} of {n} perturbed outputs were caught"
    );
}

/// Every example compiles, runs on the GPU and matches the interpreter (at
/// small sizes), every element of it compared.
#[test]
fn examples_match_the_interpreter_on_the_gpu() {
    if gpu().is_none() {
        return;
    }
    let examples = match repo_root().join("examples").is_dir() {
        true => inputs("examples", "te"),
        false => Vec::new(),
    };
    if examples.is_empty() {
        eprintln!("no examples/*.te yet: nothing to run");
        return;
    }
    let mut failures = Vec::new();
    for path in examples {
        let src = std::fs::read_to_string(&path).unwrap();
        let overrides = small_sizes(&src);
        let Some(gpu) = gpu() else { return };
        let found = run_source(gpu, &src, &overrides, 1)
            .map_err(|e| e.to_string())
            .and_then(|checks| checks.require_all_compared());
        if let Err(e) = found {
            failures.push(format!("{} (-D {overrides:?}): {e}", path.display()));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// A `let@reg` vector filled inside a reduce loop matches the interpreter
/// (seed 4978's shape). Sizes stay under lavapipe's limit of 65535 loop
/// iterations per invocation: at `reduce 257` with a 257-long fill (66306
/// iterations) llvmpipe silently cuts the loops short.
#[test]
fn let_reg_filled_inside_a_reduce_matches_the_interpreter() {
    let Some(gpu) = gpu() else { return };
    for (n, m) in [(200, 200), (250, 7), (7, 250)] {
        let src = format!(
            "output o0: f32[257] = reduce {n} |i| (let v = fill(2.0, {m}) in fill(1.0, 257))\n"
        );
        if let Err(e) = run_source(gpu, &src, &[], 1) {
            panic!("{src}: {e}");
        }
    }
}
