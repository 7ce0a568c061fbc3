//! Compiling in one call: the hand-built samples of `texpr-opt`, and
//! emission details that only show through the optimizer.

use crate::{Language, Options, Translated, compile, translate};
use texpr_opt::samples;

#[test]
fn every_sample_compiles_and_validates() {
    for (name, p) in samples::all() {
        let c = compile(&p, &Options::default()).unwrap_or_else(|e| panic!("{name}: {e:#?}"));
        assert_eq!(
            c.module.kernels.len(),
            p.globals.len() + p.outputs.len(),
            "{name}"
        );
        assert_eq!(
            c.module.buffers.len(),
            p.inputs.len() + p.globals.len() + p.outputs.len()
        );
        texpr_codegen::validate::validate(&c.module.wgsl, &Default::default()).unwrap();
    }
}

#[test]
fn every_sample_translates_to_every_target() {
    for (name, p) in samples::all() {
        let c = compile(&p, &Options::default()).unwrap();
        for t in [
            Language::Spirv,
            Language::Msl,
            Language::Hlsl,
            Language::Glsl,
        ] {
            match translate(&c.module, t).unwrap_or_else(|e| panic!("{name} {t:?}: {e:#?}")) {
                Translated::Binary(b) => assert_eq!(&b[..4], &0x0723_0203u32.to_le_bytes()),
                Translated::Text(s) => assert!(s.len() > 100, "{name} {t:?}"),
            }
        }
    }
}

/// Integer operations on constants keep WGSL's run-time meaning: naga must
/// not constant-fold `5 / 0`, `i32::MAX + 1` or `-i32::MIN` into an error.
#[test]
fn constant_operands_never_fold_into_errors() {
    use texpr_ir::build::*;
    use texpr_ir::{BinOp, ElemTy};
    use texpr_ir::{Scalar, UnaryOp};
    let mut p = program();
    let i = index(&mut p, "i", 4);
    let c = |x: i32| konst(Scalar::I32(x));
    let div0 = binary(BinOp::Div, c(5), c(0));
    let rem0 = binary(BinOp::Rem, c(5), c(0));
    let ovf = binary(BinOp::Add, c(i32::MAX), c(1));
    let neg = unary(UnaryOp::Neg, c(i32::MIN));
    let mindiv = binary(BinOp::Div, c(i32::MIN), c(-1));
    let sum = [rem0, ovf, neg, mindiv]
        .into_iter()
        .fold(div0, |a, b| binary(BinOp::Add, a, b));
    let body = binary(BinOp::Add, sum, var_value(i));
    output(&mut p, "y", compute(None, 4, i, body));
    let fl = |x: f32| konst(Scalar::F32(x));
    let j = index(&mut p, "j", 2);
    let big = cast(binary(BinOp::Mul, fl(3e38), fl(10.0)), ElemTy::I32);
    output(
        &mut p,
        "z",
        compute(None, 2, j, binary(BinOp::Add, big, var_value(j))),
    );
    let c = compile(&p, &Options::default()).unwrap_or_else(|e| panic!("{e:#?}"));
    assert!(
        c.module.wgsl.contains("bitcast<i32>(0x80000000u)"),
        "{}",
        c.module.wgsl
    );
}

/// A `let@reg` vector filled inside a reduce loop: the accumulator is
/// initialised once before the reduce loop, the let's fill loop has its own
/// variable and bound, and the reduce loop keeps its full bound (the seed-4978
/// case, whose wrong GPU result came from lavapipe's loop limiter, not from here).
#[test]
fn let_reg_inside_a_reduce_keeps_the_reduce_loop_intact() {
    let src = "output o0: f32[257] = reduce 257 |i| (let v = fill(2.0, 257) in fill(1.0, 257))\n";
    // The optimizer deletes the dead `let`: the default schedule keeps it.
    let optimized = crate::compile_source(src, &Options::default()).unwrap();
    assert!(!optimized.module.wgsl.contains("array<f32, 257>"));
    let baseline = Options {
        schedule: crate::ScheduleChoice::Default,
        ..Options::default()
    };
    let c = crate::compile_source(src, &baseline).unwrap();
    let w = &c.module.wgsl;
    let pos = |needle: &str| {
        w.find(needle)
            .unwrap_or_else(|| panic!("no `{needle}` in\n{w}"))
    };
    // The names carry numbers the kernel's builder gives: read them.
    let name = |prefix: &str| {
        let at = pos(prefix) + prefix.rfind(' ').unwrap() + 1;
        let len = w[at..].find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'));
        w[at..at + len.unwrap()].to_string()
    };
    let (acc_v, i_v) = (name("var acc_"), name("for (var i_"));
    let acc = pos(&format!("var {acc_v}: f32 = 0.0f;"));
    let reduce = pos(&format!(
        "for (var {i_v}: i32 = 0i; {i_v} < 257i; {i_v} = {i_v} + 1i) {{"
    ));
    let arr = pos(": array<f32, 257>;");
    let fill = pos("< 257i; e_");
    let add = pos(&format!("{acc_v} = {acc_v} + 1.0f;"));
    assert!(
        acc < reduce && reduce < arr && arr < fill && fill < add,
        "{w}"
    );
    assert_eq!(w.matches(&format!("{acc_v} = ")).count(), 1, "{w}");
    assert_eq!(w.matches(&format!("{i_v} = {i_v} + 1i")).count(), 1, "{w}");
}

/// `reduce@subgroup`: subgroup operations in uniform control flow, lane 0's
/// partials in workgroup memory sized for subgroups of one invocation, and
/// naga validates the module (with the subgroup capability); without
/// subgroups, E0317 names the reduction.
#[test]
fn reduce_at_subgroup_emits_subgroup_operations_or_a_coded_error() {
    let src = "input x: f32[1024]\n\
               input k: i32[256]\n\
               output s: f32[16] = compute@grid 16 |g| reduce@subgroup 64 |l| x[g*64 + l]\n\
               output v: f32[8] = compute@grid 4 |g| reduce@subgroup 32 |l| compute@thread 2 |j| x[g*64 + l*2 + j]\n\
               output m: i32[2] = compute@grid 2 |g| reduce@subgroup max 100 |l| k[g*100 + l]\n";
    let with = Options {
        target: texpr_target::Target {
            features: texpr_target::Features {
                subgroup_size: Some((8, 8)),
                ..Default::default()
            },
            ..Default::default()
        },
        ..Options::default()
    };
    let c = crate::compile_source(src, &with).unwrap_or_else(|e| panic!("{e:#?}"));
    let w = &c.module.wgsl;
    texpr_codegen::validate::validate(w, &with.target.features).unwrap();
    assert!(texpr_codegen::validate::validate(w, &Default::default()).is_err());
    assert_eq!(w.matches("subgroupAdd(").count(), 3, "{w}");
    assert_eq!(w.matches("subgroupMax(").count(), 1, "{w}");
    assert!(
        w.contains("@builtin(subgroup_invocation_id) sgl: u32"),
        "{w}"
    );
    // Lane 0 writes the partials (the condition a value of its own).
    assert!(w.contains(": bool = sgl == 0u;"), "{w}");
    assert!(
        w.contains("array<f32, 64>") && w.contains("array<i32, 100>"),
        "{w}"
    );
    assert!(!w.contains("enable subgroups"), "{w}");
    assert_eq!(c.module.kernels[2].workgroup_size, [100, 1, 1]);
    // SPIR-V (what lavapipe runs) translates.
    assert!(matches!(
        translate(&c.module, Language::Spirv),
        Ok(Translated::Binary(_))
    ));
    let errs = crate::compile_source(src, &Options::default()).unwrap_err();
    assert_eq!(errs.len(), 3, "{errs:#?}");
    assert!(errs.iter().all(|d| d.code == "E0317"), "{errs:#?}");
    let at = src.find("reduce@subgroup 64").unwrap();
    assert_eq!(errs[0].labels[0].span.start as usize, at);
}
