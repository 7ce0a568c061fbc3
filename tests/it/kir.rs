//! Kernel-IR filetests: each `tests/data/kir/*.te` pins one thing the back
//! end does on the IR (value reuse, values written into their one use,
//! unrolling, vector and wide loads, loads shared by a subgroup's lanes,
//! prefetches, `tanh`'s clamped argument), with a header as the optimizer's filetests have
//! (`// target: NAME`, `// schedule: LINE`). The golden `*.kir` beside it
//! holds the kernels as IR text (`texprc compile --emit kir`), then the
//! module's WGSL; bless with `UPDATE_EXPECT=1`. Every file's kernels also
//! pass the IR verifier (in debug builds, on every emit) and naga's
//! validation of the module built from them.

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
