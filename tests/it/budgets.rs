//! Per-invocation budgets: no kernel holds more function memory (arrays and
//! register vectors) than `DeviceLimits::max_private_elements`, or gains more
//! statements by unrolling than `max_unrolled_statements` - for the examples,
//! 2,000 generated programs and the NVIDIA reproducer, under the heuristic
//! and the default schedule, for a GPU's limits and lavapipe's. Past a
//! budget the code generator keeps bodies in loops or refuses (E0318,
//! E0319), naming the item. Golden shaders stay within a line budget.

use texpr::{DeviceLimits, ScheduleChoice, Target};
use texpr_codegen::{KernelStats, emit_with_stats};
use texpr_ir::Diagnostic;
use texpr_ir::Program;
use texpr_tests::r#gen as generator;
use texpr_tests::golden::{inputs, repo_root};
use texpr_tests::gpu::{check_program_with, gpu};

/// Lines a golden shader (`shaders/*.wgsl`, all kernels of an example) may have.
const GOLDEN_LINE_BUDGET: usize = 1000;

fn devices() -> [(&'static str, Target); 2] {
    let cpu = Target::builtin("llvmpipe").unwrap();
    [("gpu", Target::default()), ("cpu", cpu)]
}

/// The portable target with other limits.
fn with_limits(limits: DeviceLimits) -> Target {
    Target {
        limits,
        ..Target::default()
    }
}

/// Schedules `p` and emits it, with each kernel's costs.
fn emit(
    p: &Program,
    target: &Target,
    choice: &ScheduleChoice,
) -> Result<Vec<(KernelStats, String)>, Vec<Diagnostic>> {
    let o = texpr::optimize(p, target)?;
    let chosen = texpr::choose(&o, target, choice)?;
    let scheduled = texpr_opt::apply(&o, target, &chosen.schedule)?;
    let (module, stats) = emit_with_stats(&scheduled, target)?;
    let texts = kernel_texts(&module.wgsl);
    Ok(stats.into_iter().zip(texts).collect())
}

/// The text of each kernel in a module (as `// kernel N: ...` starts it).
fn kernel_texts(wgsl: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for line in wgsl.lines() {
        if line.starts_with("// kernel ") {
            out.push(String::new());
        }
        if let Some(k) = out.last_mut() {
            k.push_str(line);
            k.push('\n');
        }
    }
    out
}

/// The largest function-scope array a kernel's text declares
/// (`var NAME: array<T, N>` inside the entry point), read from the text.
fn largest_declared_array(kernel: &str) -> u64 {
    kernel
        .lines()
        .filter(|l| l.starts_with("    ") && l.trim_start().starts_with("var "))
        .filter_map(|l| l.split_once(": array<").map(|(_, rest)| rest))
        .filter_map(|rest| rest.split_once(", ").map(|(_, n)| n))
        .filter_map(|n| n.split(['>', ' ']).next()?.parse::<u64>().ok())
        .max()
        .unwrap_or(0)
}

/// What went over a budget in `p`, or refusals other than E0318/E0319
/// (which are left to the tests of the limits they come from).
fn over_budget(label: &str, p: &Program) -> Vec<String> {
    let mut bad = Vec::new();
    for (device, limits) in devices() {
        for choice in [ScheduleChoice::Heuristic, ScheduleChoice::Default] {
            let at = format!("{label} ({device}, {choice:?})");
            match emit(p, &limits, &choice) {
                Ok(kernels) => bad.extend(kernels.iter().filter_map(|(k, text)| {
                    let array = largest_declared_array(text);
                    let over = k.private_elements > limits.limits.max_private_elements
                        || array > k.private_elements
                        || k.unrolled_statements > limits.limits.max_unrolled_statements;
                    over.then(|| format!("{at}: {k:?}, an array of {array} in its text"))
                })),
                Err(ds) => bad.extend(
                    ds.iter()
                        .filter(|d| d.code == "E0318" || d.code == "E0319")
                        .map(|d| format!("{at}: {}: {}", d.code, d.message)),
                ),
            }
        }
    }
    bad
}

#[test]
fn no_kernel_of_the_examples_exceeds_the_budgets() {
    let mut bad = Vec::new();
    for path in inputs("examples", "te") {
        let src = std::fs::read_to_string(&path).unwrap();
        let p = texpr_syntax::frontend(&src, &[]).unwrap();
        bad.extend(over_budget(&path.display().to_string(), &p));
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

#[test]
fn no_kernel_of_2000_generated_programs_exceeds_the_budgets() {
    let mut bad = Vec::new();
    for seed in 0..2000 {
        let p = texpr_syntax::frontend(&generator::program(seed), &[]).unwrap();
        bad.extend(over_budget(&format!("seed {seed}"), &p));
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

#[test]
fn golden_shaders_stay_within_a_line_budget() {
    let shaders = inputs("shaders", "wgsl");
    assert!(!shaders.is_empty());
    for path in shaders {
        let lines = std::fs::read_to_string(&path).unwrap().lines().count();
        assert!(
            lines <= GOLDEN_LINE_BUDGET,
            "{} has {lines} lines; the budget is {GOLDEN_LINE_BUDGET}",
            path.display()
        );
    }
}

fn reproducer() -> Program {
    let path = repo_root().join("tests/data/repro/nvidia/register_arrays_device_lost.te");
    texpr_syntax::frontend(&std::fs::read_to_string(path).unwrap(), &[]).unwrap()
}

/// The kernel that lost an H100 (64 copies of an `array<f32, 64>`, 1,249
/// lines): within the budgets, one array copy of each register vector read
/// at run-time indices, and right on the GPU.
#[test]
fn the_nvidia_register_array_kernel_compiles_within_the_budgets() {
    let p = reproducer();
    assert_eq!(
        over_budget("register_arrays_device_lost", &p),
        Vec::<String>::new()
    );
    let limits = Target::default();
    for choice in [ScheduleChoice::Heuristic, ScheduleChoice::Default] {
        let kernels = emit(&p, &limits, &choice).unwrap();
        let copies: usize = kernels
            .iter()
            .map(|(_, text)| text.matches("var tile_").count())
            .sum();
        assert!(copies <= 4, "{choice:?}: {copies} register-vector copies");
        // It held 64 copies of an `array<f32, 64>` and more (over 4,096).
        let held = kernels.iter().map(|(k, _)| k.private_elements).max();
        assert!(held <= Some(512), "{choice:?}: {held:?} elements");
    }
    let Some(gpu) = gpu() else { return };
    for choice in [ScheduleChoice::Heuristic, ScheduleChoice::Default] {
        if let Err(e) = check_program_with(gpu, &p, 1, &choice) {
            panic!("{choice:?}: {e}");
        }
    }
}

/// A `let@reg` array past the memory budget goes to a scratch buffer of the
/// kernel (one slot per invocation) and gives the same results.
#[test]
fn a_let_over_the_memory_budget_is_kept_in_a_global_buffer() {
    let src = "input x: f32[3000]\noutput y: f32[2] = compute@grid 1 |g| compute@group 2 |l| let@reg v = compute@thread 3000 |i| x[i] * f32(l + 1) in reduce@thread 3000 |i| v[2999 - i]";
    let p = texpr_syntax::frontend(src, &[]).unwrap();
    let limits = Target::default();
    let kernels = emit(&p, &limits, &ScheduleChoice::Default).unwrap();
    let (stats, text) = &kernels[0];
    assert!(
        stats.private_elements <= limits.limits.max_private_elements,
        "{stats:?}"
    );
    assert!(
        text.contains("var<storage, read_write> b0_y_v_spill: array<f32>"),
        "{text}"
    );
    assert!(!text.contains("array<f32, 3000>"), "{text}");
    let Some(gpu) = gpu() else { return };
    check_program_with(gpu, &p, 4, &ScheduleChoice::Default).unwrap();
}

/// What cannot leave function memory (a scratch buffer of over 2^31
/// elements, for a million invocations) is refused, naming it.
#[test]
fn a_let_over_the_memory_budget_that_cannot_move_is_refused_naming_it() {
    let src = "input x: f32[3000]\noutput y: f32[1024000] = compute@grid 4000 |g| compute@group 256 |l| let@reg v = compute@thread 3000 |i| x[i] * f32(l) in reduce@thread 3000 |i| v[i]";
    let p = texpr_syntax::frontend(src, &[]).unwrap();
    let errs = emit(&p, &Target::default(), &ScheduleChoice::Default).unwrap_err();
    let d = errs.iter().find(|d| d.code == "E0318").expect("E0318");
    assert!(d.message.contains("3000 elements"), "{}", d.message);
    let label = &d.labels[0];
    assert_eq!(label.message, "array `v` of 3000 elements");
    assert!(src[label.span.start as usize..].starts_with("compute@thread 3000"));
    // A device with room for it compiles it.
    let roomy = with_limits(DeviceLimits {
        max_private_elements: 4096,
        ..DeviceLimits::default()
    });
    assert!(emit(&p, &roomy, &ScheduleChoice::Default).is_ok());
}

/// With no unrolling allowed, everything that can stay in a loop does:
/// the kernels add no unrolled statement and still compute the same.
#[test]
fn without_an_unrolling_budget_bodies_stay_in_loops() {
    let src = std::fs::read_to_string(repo_root().join("examples/attention.te")).unwrap();
    let small = [("S", 5), ("T", 7), ("D", 3)].map(|(n, v)| (n.to_string(), v));
    let p = texpr_syntax::frontend(&src, &small).unwrap();
    let tight = with_limits(DeviceLimits {
        max_unrolled_statements: 0,
        ..DeviceLimits::default()
    });
    for choice in [ScheduleChoice::Heuristic, ScheduleChoice::Default] {
        let kernels = emit(&p, &tight, &choice).unwrap();
        assert!(
            kernels.iter().all(|(k, _)| k.unrolled_statements == 0),
            "{kernels:?}"
        );
        let roomy = emit(&p, &Target::default(), &choice).unwrap();
        let lines = |ks: &[(KernelStats, String)]| ks.iter().map(|(k, _)| k.lines).sum::<usize>();
        assert!(lines(&kernels) < lines(&roomy), "{choice:?}");
    }
    let Some(gpu) = gpu() else { return };
    let p = texpr_syntax::frontend(&src, &small).unwrap();
    let mut target = gpu.target().clone();
    target.limits.max_unrolled_statements = 0;
    let opts = texpr::Options {
        target,
        ..Default::default()
    };
    let module = texpr::compile(&p, &opts).unwrap().module;
    let inputs = texpr_interp::random_inputs(&p, 3);
    let want = texpr_interp::accuracy::reference(&p, &inputs).unwrap();
    let hosts: Vec<_> = inputs.iter().map(texpr_tests::gpu::to_host).collect();
    let got = gpu.run(&module, &hosts).unwrap();
    let got: Vec<_> = got
        .outputs
        .iter()
        .map(texpr_tests::gpu::from_host)
        .collect();
    let bad = texpr_interp::accuracy::check_outputs(&p, &got, &want);
    assert!(bad.is_empty(), "{bad:?}");
}
