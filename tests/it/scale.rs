//! Programs large in the ways that used to blow up compile time, end to end
//! on the GPU: many chained top-level `let`s under both schedules, and vector
//! literals, which live in a module-scope array (short) or a constant buffer
//! (long, or holding a value WGSL spells with `bitcast`), never copied per
//! read. (Their compile times are in `cargo bench -p texpr --bench compile`.)

use texpr::{Options, ScheduleChoice, compile};
use texpr_codegen::BufferRole;
use texpr_interp::accuracy::check_outputs;
use texpr_syntax::ir::Program;
use texpr_tests::gpu::{gpu, reference, run_program_with};

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
