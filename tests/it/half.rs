//! `f16` on the GPU (lavapipe has `shader-f16`): code generation writes
//! `enable f16;` and `array<f16>` bindings, the runtime packs two a word.
//! Every element of `+ - * /`, conversions to `f16`, moves and picks, an
//! `f16` sum (the heuristic folds it in another order) and a fold of `f16`
//! products widened to `f32`, is compared within its bound in binary16
//! ulps; what rounds once (a product, a conversion, a pick) equals
//! the interpreter bit for bit under every schedule. A device without
//! `shader-f16` refuses the program (E0395).

use texpr::{Options, ScheduleChoice, compile};
use texpr_tests::gpu::{check_program_with, gpu, run_program_with};

const SRC: &str = "param N = 999\n\
    input x: f16[N]\n\
    input y: f16[N]\n\
    input w: f32[N]\n\
    output prod = compute N |i| x[i] * y[i]\n\
    output affine = compute N |i| x[i] * 3.0 + y[i] / 4.0h\n\
    output narrowed = compute N |i| f16(w[i] * 300.0)\n\
    output picked = compute N |i| select(x[i] < y[i], -x[i], abs(y[i]))\n\
    output dot = reduce N |i| f32(x[i]) * f32(y[i])\n\
    output top = reduce max N |i| x[i]\n\
    output total = reduce N |i| x[i] * y[i]\n";

#[test]
fn f16_programs_match_the_interpreter_on_the_gpu() {
    let Some(gpu) = gpu() else { return };
    assert!(gpu.target().features.shader_f16, "lavapipe has shader-f16");
    let p = texpr_syntax::frontend(SRC, &[]).unwrap();
    for choice in [ScheduleChoice::Default, ScheduleChoice::Heuristic] {
        let m = compile(
            &p,
            &Options {
                target: gpu.target().clone(),
                schedule: choice.clone(),
                ..Options::default()
            },
        )
        .unwrap()
        .module;
        assert!(m.wgsl.contains("enable f16;\n"), "{}", m.wgsl);
        assert!(m.wgsl.contains("array<f16>"), "{}", m.wgsl);
        for seed in [1, 2] {
            let checks = check_program_with(gpu, &p, seed, &choice)
                .unwrap_or_else(|e| panic!("{choice:?} seed {seed}: {e}"));
            let compared: Vec<(&str, usize)> = checks
                .outputs
                .iter()
                .map(|(n, c)| (n.as_str(), c.compared))
                .collect();
            assert_eq!(compared.iter().find(|c| c.0 == "dot").unwrap().1, 1);
            assert_eq!(compared.iter().find(|c| c.0 == "top").unwrap().1, 1);
            assert_eq!(compared.iter().find(|c| c.0 == "total").unwrap().1, 1);
            for name in ["prod", "affine", "narrowed", "picked"] {
                assert_eq!(
                    compared.iter().find(|c| c.0 == name).unwrap().1,
                    999,
                    "{name}"
                );
            }
            let inputs = texpr_interp::random_inputs(&p, seed);
            let (got, _) = run_program_with(gpu, &p, &inputs, &choice).unwrap();
            let want = texpr_interp::eval(&p, &inputs).unwrap();
            for k in [0, 2, 3] {
                assert_eq!(got[k].elem(), texpr_ir::ElemTy::F16);
                assert_eq!(
                    got[k].bits(),
                    want[k].bits(),
                    "{} under {choice:?}",
                    p.outputs[k].name
                );
            }
        }
    }
}

#[test]
fn a_device_without_shader_f16_refuses_f16() {
    let p = texpr_syntax::frontend(SRC, &[]).unwrap();
    let webgpu = texpr::Target::builtin("webgpu").unwrap();
    assert!(!webgpu.features.shader_f16);
    let errs = compile(
        &p,
        &Options {
            target: webgpu,
            ..Options::default()
        },
    )
    .unwrap_err();
    assert_eq!(errs[0].code, "E0395", "{errs:#?}");
}

/// `loads=vec4` moves `f16` four at a time (`array<vec4<f16>>` bindings, an
/// elementwise body on `vec4<f16>` values) and `loads=scalar` one at a
/// time; both equal the interpreter bit for bit (every operation rounds
/// once, as it does one element at a time).
#[test]
fn f16_loads_are_vectorised_where_the_schedule_asks() {
    let src = "param N = 4096\ninput x: f16[N]\ninput y: f16[N]\n\
               output z = compute N |i| x[i] * 2.0 + y[i]\n";
    let p = texpr_syntax::frontend(src, &[]).unwrap();
    let target = texpr::Target::builtin("llvmpipe").unwrap();
    for (loads, view) in [("vec4", "array<vec4<f16>>"), ("scalar", "array<f16>")] {
        let text = format!("z: coarsen group=64 per_thread=8 loads={loads}");
        let choice = ScheduleChoice::Given(text.parse().unwrap());
        let opts = Options {
            target: target.clone(),
            schedule: choice.clone(),
            ..Options::default()
        };
        let wgsl = compile(&p, &opts).unwrap().module.wgsl;
        assert!(wgsl.contains(&format!("b0_x: {view};")), "{loads}:\n{wgsl}");
        let Some(gpu) = gpu() else { continue };
        let inputs = texpr_interp::random_inputs(&p, 3);
        let (got, _) = run_program_with(gpu, &p, &inputs, &choice).unwrap();
        let want = texpr_interp::eval(&p, &inputs).unwrap();
        assert_eq!(got[0].bits(), want[0].bits(), "loads={loads}");
    }
}
