//! Golden shaders: every `examples/*.te` compiles with default options (for
//! an example that needs a feature the default target lacks, such as
//! `f16`, for the first built-in target with it: `needs::default_target`)
//! to the WGSL checked in as `shaders/NAME.wgsl` (bless with
//! `UPDATE_EXPECT=1`), and every checked-in shader parses and validates
//! with naga.

use texpr::{Options, compile};
use texpr_tests::{golden, needs};

#[test]
fn examples_compile_to_the_golden_shaders() {
    let shaders = golden::repo_root().join("shaders");
    let mut failures = Vec::new();
    let examples = golden::inputs("examples", "te");
    assert!(!examples.is_empty());
    for path in &examples {
        let src = std::fs::read_to_string(path).unwrap();
        let stem = path.file_stem().unwrap().to_string_lossy().into_owned();
        let p = texpr_syntax::frontend(&src, &[]).unwrap_or_else(|d| panic!("{stem}: {d:#?}"));
        let opts = Options {
            target: needs::default_target(&p),
            ..Options::default()
        };
        match compile(&p, &opts) {
            Ok(c) => {
                if let Err(msg) =
                    golden::compare(&shaders.join(format!("{stem}.wgsl")), &c.module.wgsl)
                {
                    failures.push(msg);
                }
            }
            Err(ds) => failures.push(format!(
                "{stem} does not compile:\n{}",
                texpr_ir::diag::render(&format!("{stem}.te"), &src, &ds)
            )),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn every_checked_in_shader_validates() {
    let files = golden::inputs("shaders", "wgsl");
    assert!(!files.is_empty(), "no shaders checked in");
    for path in files {
        let wgsl = std::fs::read_to_string(&path).unwrap();
        // Every feature a shader may use (`f16` among them); the WGSL's own
        // `enable` directives say which it does.
        let all = texpr_target::Target::builtin("nvidia")
            .expect("a built-in")
            .features;
        if let Err(d) = texpr_codegen::validate::validate(&wgsl, &all) {
            panic!("{}: {}\n{}", path.display(), d, d.notes.join("\n"));
        }
    }
}

/// Tensor cores: `examples/matmul_f16.te` for `nvidia` (which lists
/// NVIDIA's cooperative-matrix configurations) is the WGSL checked in as
/// `shaders/nvidia/matmul_f16.wgsl`: `coop_mat16x16` multiply-adds that
/// naga validates.
#[test]
fn matmul_f16_for_nvidia_is_the_golden_tensor_core_shader() {
    let path = golden::repo_root().join("examples/matmul_f16.te");
    let src = std::fs::read_to_string(&path).unwrap();
    let opts = Options {
        target: texpr_target::Target::builtin("nvidia").expect("a built-in"),
        ..Options::default()
    };
    let c = texpr::compile_source(&src, &opts).unwrap_or_else(|d| panic!("{d:#?}"));
    assert!(
        c.module.wgsl.contains("coopMultiplyAdd("),
        "{}",
        c.module.wgsl
    );
    let want = golden::repo_root().join("shaders/nvidia/matmul_f16.wgsl");
    golden::compare(&want, &c.module.wgsl).unwrap_or_else(|e| panic!("{e}"));
}

/// No module uses a cooperative-matrix shape or type its target does not
/// list: every example, on `nvidia` and on copies of it that list only
/// `8x8x8 f16>f32` or only `16x16x16 f16>f16`, declares only `coop_mat`s of
/// a listed configuration (operands of its `AB` type, accumulators of its
/// `CR` type); where none fits (an f32 accumulation on the last) the
/// contraction falls back to SIMD tiles.
#[test]
fn no_module_uses_a_cooperative_matrix_its_target_does_not_list() {
    use texpr_target::{Target, coop};
    let nvidia = Target::builtin("nvidia").expect("a built-in");
    let only = |list: &str| {
        let mut t = nvidia.clone();
        t.features.cooperative_matrix = coop::parse_list(list).expect("a list");
        t
    };
    let targets = [
        nvidia.clone(),
        only("8x8x8 f16>f32"),
        only("16x16x16 f16>f16"),
    ];
    let mut used = [0usize; 3];
    for path in golden::inputs("examples", "te") {
        let src = std::fs::read_to_string(&path).unwrap();
        let p = texpr_syntax::frontend(&src, &[]).unwrap();
        for (k, target) in targets.iter().enumerate() {
            let opts = Options {
                target: target.clone(),
                ..Options::default()
            };
            let wgsl = compile(&p, &opts)
                .unwrap_or_else(|d| panic!("{d:#?}"))
                .module
                .wgsl;
            for decl in wgsl.split("coop_mat").skip(1) {
                // `16x16<f16,A>` ...
                let (shape, rest) = decl.split_once('<').expect("a coop_mat type");
                let (scalar, rest) = rest.split_once(',').expect("a scalar");
                let role = &rest[..1];
                let n: u32 = shape.split('x').next().unwrap().parse().expect("a size");
                let listed = target.features.cooperative_matrix.iter().any(|c| {
                    let ty = if role == "C" { c.cr } else { c.ab };
                    (c.m, c.n, c.k) == (n, n, n) && ty.name() == scalar
                });
                assert!(
                    listed,
                    "{}: coop_mat{shape}<{scalar},{role}> on {}",
                    path.display(),
                    target.features.cooperative_matrix.len()
                );
            }
            used[k] += usize::from(wgsl.contains("coopMultiplyAdd("));
        }
    }
    // Tensor cores where a configuration fits (matmul_f16, mlp_f16), and
    // the fallback where none does.
    assert!(used[0] >= 2 && used[1] >= 2, "{used:?}");
    assert_eq!(used[2], 0, "an f32 accumulation in f16 tensor cores");
}
