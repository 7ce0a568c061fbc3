//! `Gpu::reusable` and `Gpu::rerun`: a module's buffers made once and run
//! again on new inputs give what a fresh `Gpu::run` gives, every time —
//! loops (states in alternating buffers), globals and multi-pass scratch
//! included — and refuse inputs that do not fit the plan.

use texpr::{Options, ScheduleChoice};
use texpr_interp::random_inputs;
use texpr_runtime::{HostBuffer, RuntimeError};
use texpr_tests::golden::repo_root;
use texpr_tests::gpu::gpu;
use texpr_tune::values::to_host;

fn compiled(
    example: &str,
    defines: &[(&str, i64)],
    target: &texpr::Target,
) -> (texpr_ir::Program, texpr::Module) {
    let src = std::fs::read_to_string(repo_root().join("examples").join(example)).unwrap();
    let overrides: Vec<(String, i64)> = defines.iter().map(|(n, v)| (n.to_string(), *v)).collect();
    let program = texpr_syntax::frontend(&src, &overrides).expect("checks");
    let opts = Options {
        target: target.clone(),
        overrides,
        schedule: ScheduleChoice::Heuristic,
    };
    let module = texpr::compile(&program, &opts).expect("compiles").module;
    (program, module)
}

#[test]
fn a_rerun_gives_what_a_fresh_run_gives() {
    let Some(gpu) = gpu() else { return };
    for (example, defines) in texpr_tests::gpu::RUN_SHAPES {
        let (program, module) = compiled(example, defines, gpu.target());
        let first: Vec<HostBuffer> = random_inputs(&program, 1).iter().map(to_host).collect();
        let reusable = gpu.reusable(&module, &first).expect("buffers made");
        for seed in [2, 3, 1] {
            let inputs: Vec<HostBuffer> =
                random_inputs(&program, seed).iter().map(to_host).collect();
            let fresh = gpu.run(&module, &inputs).expect("runs").outputs;
            let again = gpu.rerun(&reusable, &inputs).expect("reruns");
            assert_eq!(again, fresh, "{example}, seed {seed}");
        }
    }
}

#[test]
fn a_rerun_refuses_inputs_that_do_not_fit() {
    let Some(gpu) = gpu() else { return };
    let (program, module) = compiled("saxpy.te", &[("N", 64)], gpu.target());
    let inputs: Vec<HostBuffer> = random_inputs(&program, 1).iter().map(to_host).collect();
    let reusable = gpu.reusable(&module, &inputs).expect("buffers made");
    let short = vec![
        inputs[0].clone(),
        HostBuffer::from_f32(&[1.0; 63]),
        inputs[2].clone(),
    ];
    match gpu.rerun(&reusable, &short) {
        Err(RuntimeError::InputMismatch { name, got_len, .. }) => {
            assert_eq!((name.as_str(), got_len), ("x", 63));
        }
        other => panic!("expected InputMismatch, got {other:?}"),
    }
    match gpu.rerun(&reusable, &inputs[..2]) {
        Err(RuntimeError::InputCount {
            expected: 3,
            got: 2,
        }) => {}
        other => panic!("expected InputCount, got {other:?}"),
    }
}
