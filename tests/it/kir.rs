//! Kernel-IR filetests: each `tests/data/kir/*.te` pins one thing the back
//! end does on the IR (value reuse, values written into their one use,
//! unrolling, vector and wide loads, loads shared by a subgroup's lanes,
//! prefetches, `tanh`'s clamped argument), with a header as the optimizer's filetests have
//! (`// target: NAME`, `// schedule: LINE`). The golden `*.kir` beside it
//! holds the kernels as IR text (`texprc compile --emit kir`), then the
//! module's WGSL; bless with `UPDATE_EXPECT=1`. Every file's kernels also
//! pass the IR verifier (after lowering and each kir pass) and naga's
//! validation of the module built from them. Every example's kernels and
//! every golden's read back (`kir::parse`) and print as they were.

use texpr_tests::golden::{self, header};

#[test]
fn kernels_match_their_golden_ir_and_wgsl() {
    golden::run_dir("tests/data/kir", "te", "kir", |path, src| {
        let name = path.display();
        let (target, schedule) = header(src);
        let p = texpr_syntax::frontend(src, &[]).unwrap_or_else(|d| panic!("{name}: {d:#?}"));
        let opts = texpr::Options {
            target: target.clone(),
            schedule,
            ..texpr::Options::default()
        };
        let compiled = texpr::compile(&p, &opts).unwrap_or_else(|d| panic!("{name}: {d:#?}"));
        let ir = texpr_codegen::emit::kir_text(&compiled.scheduled, &target)
            .unwrap_or_else(|d| panic!("{name}: {d:#?}"));
        format!(
            "# schedule\n{}\n{ir}\n// ---- WGSL\n{}",
            compiled.schedule, compiled.module.wgsl
        )
    });
}

/// The kernels of every example (default and heuristic schedules, every
/// built-in target), printed, read back, verified and printed again: the
/// same text (`kir::parse` reads all `kir::print` writes).
#[test]
fn every_example_kernel_prints_and_parses_back() {
    let dir = golden::repo_root().join("examples");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "te"))
        .collect();
    files.sort();
    let mut kernels = 0;
    for path in &files {
        let src = std::fs::read_to_string(path).unwrap();
        let p = texpr_syntax::frontend(&src, &[]).unwrap_or_else(|d| panic!("{path:?}: {d:#?}"));
        for target in ["wgpu-default", "llvmpipe", "nvidia"] {
            let target = texpr::Target::builtin(target).unwrap();
            for schedule in [
                texpr::ScheduleChoice::Default,
                texpr::ScheduleChoice::Heuristic,
            ] {
                let opts = texpr::Options {
                    target: target.clone(),
                    schedule,
                    ..texpr::Options::default()
                };
                let Ok(compiled) = texpr::compile(&p, &opts) else {
                    continue;
                };
                for k in &compiled.module.kir {
                    round_trip(&texpr_codegen::kir::print::kernel(k), &format!("{path:?}"));
                    kernels += 1;
                }
            }
        }
    }
    assert!(kernels > 100, "only {kernels} kernels");
}

/// The kernels of every golden `tests/data/kir/*.kir` read back and printed
/// as they are written there.
#[test]
fn golden_kernel_ir_parses_back() {
    for path in golden::inputs("tests/data/kir", "kir") {
        let text = std::fs::read_to_string(&path).unwrap();
        let ir = text.split("// ---- WGSL").next().unwrap();
        let start = ir.find("\nkernel ").expect("a kernel");
        for k in ir[start + 1..]
            .split("\n\n")
            .filter(|k| !k.trim().is_empty())
        {
            round_trip(&format!("{}\n", k.trim_end()), &format!("{path:?}"));
        }
    }
}

/// `text` (one kernel) reads back, verifies and prints as `text`.
fn round_trip(text: &str, what: &str) {
    use texpr_codegen::kir;
    let k = kir::parse::kernel(text).unwrap_or_else(|d| panic!("{what}: {d:#?}\n{text}"));
    let errs = kir::verify(&k);
    assert!(errs.is_empty(), "{what}: {errs:?}\n{text}");
    let again = kir::print::kernel(&k);
    assert!(again == text, "{what}:\n{}", golden::diff(text, &again));
}
