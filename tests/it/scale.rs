//! Programs large in the ways that used to blow up compile time, end to end
//! on the GPU: many chained top-level `let`s under both schedules (read
//! once, or several times each, which fusion must not expand into a tree
//! exponential in the chain), chains reading more inputs than a kernel may
//! bind (fusion stops at each target's limit), and vector literals, which
//! live in a module-scope array (short) or a constant buffer (long, or
//! holding a value WGSL spells with `bitcast`), never copied per read.
//! (Their compile times are in `cargo bench -p texpr --bench compile`;
//! `texprc/tests/chains.rs` bounds a 1,000-let chain's memory and time.)

use texpr::{Options, ScheduleChoice, Target, compile};
use texpr_codegen::BufferRole;
use texpr_interp::accuracy::check_outputs;
use texpr_ir::Program;
use texpr_tests::gpu::{from_host, gpu, reference, run_program_with, to_host};

fn program(src: &str) -> Program {
    texpr_syntax::frontend(src, &[]).unwrap_or_else(|d| panic!("{d:?}"))
}

/// Runs `p` on random inputs under both schedules and compares with the interpreter.
fn matches_on_the_gpu(name: &str, p: &Program) {
    let Some(gpu) = gpu() else { return };
    let inputs = texpr_interp::random_inputs(p, 7);
    let want = reference(p, &inputs).unwrap();
    for choice in [ScheduleChoice::Heuristic, ScheduleChoice::Default] {
        let (got, _) = run_program_with(gpu, p, &inputs, &choice)
            .unwrap_or_else(|e| panic!("{name} ({choice:?}): {e}"));
        let bad = check_outputs(p, &got, &want);
        assert!(bad.is_empty(), "{name} ({choice:?}): {bad:?}");
    }
}

#[test]
fn hundreds_of_chained_lets_match_on_the_gpu() {
    let mut src = String::from("param N = 256\ninput x: f32[N]\nlet t0 = compute N |i| x[i]\n");
    for k in 1..400 {
        let line = match k % 3 {
            0 => format!(
                "let t{k} = compute N |i| (reduce 4 |j| t{}[(i + j) % N]) * 0.25\n",
                k - 1
            ),
            _ => format!("let t{k} = compute N |i| t{}[i] * 0.5 + x[i]\n", k - 1),
        };
        src.push_str(&line);
    }
    src.push_str("output y = compute N |i| t399[i]\n");
    matches_on_the_gpu("400 chained lets", &program(&src));
}

#[test]
fn vector_literals_are_never_copied_per_read() {
    let long: Vec<String> = (0..1000).map(|k| format!("{}.25", k % 97)).collect();
    let src = format!(
        "input x: f32[1000]\nlet c = [{}]\nlet s = [1.5, -2.0, 3.0, 0.5]\nlet w = [inf, 1.0, -inf, 2.0]\n\
         output y = compute 1000 |i| x[i] * c[i] + s[i % 4]\n\
         output z = compute 1000 |i| select(x[i] > 0.0, w[i % 4], s[i % 4])\n",
        long.join(", ")
    );
    let p = program(&src);
    for choice in [ScheduleChoice::Heuristic, ScheduleChoice::Default] {
        let opts = Options {
            schedule: choice.clone(),
            ..Options::default()
        };
        let m = compile(&p, &opts).unwrap().module;
        let mut constants: Vec<u64> = (m.buffers.iter())
            .filter(|b| b.role == BufferRole::Constant)
            .map(|b| b.len)
            .collect();
        constants.sort_unstable();
        assert_eq!(
            constants,
            [4, 1000],
            "{choice:?}: the infinite and the long literal"
        );
        assert!(
            m.wgsl.contains("var<private> c") && !m.wgsl.contains("var lit"),
            "{choice:?}: the short literal is one module-scope array\n{}",
            m.wgsl
        );
        assert!(
            m.wgsl.len() < 40_000,
            "{choice:?}: {} bytes of WGSL",
            m.wgsl.len()
        );
    }
    matches_on_the_gpu("literals", &p);
}

#[test]
fn chained_lets_each_read_three_times_match_on_the_gpu() {
    // Each step reads the one before three times (a smoothing stencil whose
    // `tanh` ends the chain of sums, so every element stays specified).
    let mut src = String::from("param N = 64\ninput x: f32[N]\n");
    let mut prev = "x".to_string();
    for k in 0..300 {
        src += &format!(
            "let a{k} = compute N |i| tanh({prev}[i] * 0.5 + {prev}[(i + 1) % N] * 0.25 + {prev}[(i + N - 1) % N] * 0.25 + 0.1)\n"
        );
        prev = format!("a{k}");
    }
    src += &format!("output y = compute N |i| {prev}[i]\n");
    let p = program(&src);
    let opts = Options::default();
    let m = compile(&p, &opts).unwrap().module;
    // Fused in runs of two (9 recomputations per element would be over 4):
    // a1, a3, ..., a297 and y.
    assert_eq!(m.kernels.len(), 150);
    matches_on_the_gpu("300 lets read three times", &p);
}

/// `n` chained lets, the `k`th also reading input `xk`: fused whole, one
/// kernel would bind `n + 1` buffers.
fn reading_inputs(n: usize) -> Program {
    let mut src = String::from("param N = 256\n");
    for k in 0..n {
        src += &format!("input x{k}: f32[N]\n");
    }
    src += "let a0 = compute N |i| x0[i] * 2.0\n";
    for k in 1..n {
        src += &format!("let a{k} = compute N |i| a{}[i] * 0.5 + x{k}[i]\n", k - 1);
    }
    src += &format!("output y = compute N |i| a{}[i] + 1.0\n", n - 1);
    program(&src)
}

/// With the heuristic, every built-in target's kernels bind at most its
/// storage buffers per stage (8, 32, 96), with fewer kernels than the
/// baseline's: fusion goes up to the limit and stops. The modules the
/// device here can bind run and match the interpreter; the rest (an H100's
/// 96 buffers) are checked in the interpreter, scheduled as compiled.
#[test]
fn fusion_keeps_every_kernel_within_its_targets_storage_buffers() {
    let p = reading_inputs(40);
    let inputs = texpr_interp::random_inputs(&p, 3);
    let want = reference(&p, &inputs).unwrap();
    for name in ["wgpu-default", "llvmpipe", "nvidia"] {
        let target = Target::builtin(name).unwrap();
        let limit = target.limits.max_storage_buffers_per_stage as usize;
        let opts = Options {
            target: target.clone(),
            ..Options::default()
        };
        let c = compile(&p, &opts).unwrap_or_else(|d| panic!("{name}: {d:#?}"));
        let most = c
            .module
            .kernels
            .iter()
            .map(|k| k.bindings.len())
            .max()
            .unwrap();
        assert!(most <= limit, "{name}: a kernel binds {most} > {limit}");
        assert!(
            c.module.kernels.len() <= 40usize.div_ceil(limit - 2) + 1,
            "{name}: {} kernels for a limit of {limit}",
            c.module.kernels.len()
        );
        let scheduled = texpr_interp::eval(&c.scheduled, &inputs).unwrap();
        let bad = check_outputs(&p, &scheduled, &want);
        assert!(bad.is_empty(), "{name}, scheduled: {bad:?}");
        let Some(gpu) = gpu() else { continue };
        if most > gpu.target().limits.max_storage_buffers_per_stage as usize {
            continue;
        }
        let hosts: Vec<_> = inputs.iter().map(to_host).collect();
        let r = gpu
            .run(&c.module, &hosts)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        let got: Vec<_> = r.outputs.iter().map(from_host).collect();
        let bad = check_outputs(&p, &got, &want);
        assert!(bad.is_empty(), "{name}, on the GPU: {bad:?}");
    }
}
