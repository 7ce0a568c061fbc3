//! Differential tests: generated programs (and the examples) compiled and run
//! on the GPU must match the reference interpreter.

use texpr_tests::r#gen as generator;

/// Every generated program passes the front end (a generator bug prints the program).
#[test]
fn generated_programs_pass_the_front_end() {
    for seed in 0..3000 {
        let src = generator::program(seed);
        if let Err(diags) = texpr_syntax::frontend(&src, &[]) {
            let msgs: Vec<String> = diags.iter().map(|d| format!("{d:?}")).collect();
            panic!(
                "seed {seed}: generated program rejected:\n{src}\n{}",
                msgs.join("\n")
            );
        }
    }
}

/// Generated programs evaluate to finite values (what keeps GPU comparisons meaningful).
#[test]
fn generated_programs_evaluate_to_finite_values() {
    for seed in 0..1000 {
        let src = generator::program(seed);
        let p = texpr_syntax::frontend(&src, &[]).expect("checked above");
        let inputs = texpr_interp::random_inputs(&p, seed);
        let outs = texpr_interp::eval(&p, &inputs)
            .unwrap_or_else(|e| panic!("seed {seed}: {e:?}\n{src}"));
        for (k, v) in outs.iter().enumerate() {
            if let texpr_interp::Data::F32(x) = &v.data {
                let bad = x.iter().position(|f| !f.is_finite());
                assert_eq!(bad, None, "seed {seed}: output {k} not finite\n{src}");
            }
        }
    }
}
