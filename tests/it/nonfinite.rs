//! Non-finite values on the GPU (docs/language.md, "Non-finite values"):
//! float-to-int conversions of NaN and infinities agree with the
//! interpreter on every device (llvmpipe assumes no NaN exists: `x != x` is
//! false there), moved non-finite inputs come back unchanged, and elements
//! where a non-finite value arises are unspecified: counted, not compared.

use texpr::ScheduleChoice;
use texpr_interp::Value;
use texpr_interp::accuracy::{Checked, check_report};
use texpr_ir::Program;
use texpr_tests::gpu::{gpu, reference, run_program_with};

fn program(src: &str) -> Program {
    texpr_syntax::frontend(src, &[]).unwrap_or_else(|d| panic!("{src}: {d:?}"))
}

/// Inputs of `f32[n]`: NaNs, infinities, huge, tiny and plain values in turn.
fn hostile(n: usize) -> Value {
    let kinds = [
        f32::NAN,
        f32::INFINITY,
        f32::NEG_INFINITY,
        3.0e9,
        -3.0e9,
        2.5,
        -7.75,
        1e-40,
        -0.0,
        f32::from_bits(0x7fc0_1234),
        f32::MAX,
    ];
    Value::f32((0..n).map(|i| kinds[i % kinds.len()]).collect())
}

/// Runs `p` on `inputs` under both the default and the heuristic schedule;
/// every output must match the interpreter (specified elements within their
/// bounds). Returns what comparing each output found, per schedule.
fn run_both(p: &Program, inputs: &[Value]) -> Option<Vec<Vec<Checked>>> {
    let gpu = gpu()?;
    let want = reference(p, inputs).unwrap();
    let mut found = Vec::new();
    for choice in [ScheduleChoice::Default, ScheduleChoice::Heuristic] {
        let (got, _) =
            run_program_with(gpu, p, inputs, &choice).unwrap_or_else(|e| panic!("{choice:?}: {e}"));
        let report = check_report(p, &got, &want);
        let checked = report
            .into_iter()
            .map(|r| r.unwrap_or_else(|m| panic!("{choice:?}: {m}")))
            .collect();
        found.push(checked);
    }
    Some(found)
}

#[test]
fn conversions_of_nan_and_infinity_agree_on_the_gpu() {
    let p = program(
        "input x: f32[77]\n\
         output a = compute 77 |i| i32(x[i])\n\
         output b = compute 77 |i| u32(x[i])\n\
         output c = compute 77 |i| i32(x[i]) + i32(u32(x[76 - i]))",
    );
    let Some(found) = run_both(&p, &[hostile(77)]) else {
        return;
    };
    for checked in found {
        for c in checked {
            assert_eq!((c.compared, c.unspecified, c.largest_diff), (77, 0, 0.0));
        }
    }
}

#[test]
fn moved_non_finite_inputs_come_back_unchanged() {
    let p = program(
        "input x: f32[33]\n\
         let t = compute 33 |i| x[32 - i]\n\
         output y = compute 33 |i| t[32 - i]\n\
         output z = compute 33 |i| select(i < 20, x[i], 1.5)",
    );
    let Some(found) = run_both(&p, &[hostile(33)]) else {
        return;
    };
    for checked in found {
        assert!(checked.iter().all(|c| c.compared == 33), "{checked:?}");
    }
}

#[test]
fn elements_where_a_non_finite_value_arises_are_unspecified() {
    // Division by zero, overflow, inf - inf, NaN arithmetic and a comparison
    // of NaN: those elements are unspecified; the finite rest is compared.
    let p = program(
        "input x: f32[44]\n\
         input z: f32[44]\n\
         output q = compute 44 |i| x[i] / z[i]\n\
         output o = compute 44 |i| x[i] * 1e30 * 1e30\n\
         output s = compute 44 |i| select(x[i] > 0.0, 1.0, 2.0)\n\
         output r = reduce 44 |i| abs(x[i])",
    );
    let z = Value::f32((0..44).map(|i| [0.0, 2.0, -0.5, 4.0][i % 4]).collect());
    let inputs = [hostile(44), z];
    let want = reference(&p, &inputs).unwrap();
    let unspecified: Vec<usize> = want.iter().map(|r| r.unspecified()).collect();
    // q: the 16 NaN or infinite x, the 7 zero divisors of a finite x, and
    // f32::MAX / -0.5, which overflows; o: every element, since a device may
    // compute `1e30 * 1e30` first (llvmpipe does); s: the NaN and infinite
    // x; r: one sum of them all.
    assert_eq!(unspecified, [24, 44, 16, 1], "{unspecified:?}");
    let Some(found) = run_both(&p, &inputs) else {
        return;
    };
    for checked in found {
        let counts: Vec<(usize, usize)> = checked
            .iter()
            .map(|c| (c.compared, c.unspecified))
            .collect();
        assert_eq!(counts, [(20, 24), (0, 44), (28, 16), (0, 1)]);
    }
}

/// A `select` takes its bound from the operand it picks: NaN arithmetic in
/// the operand it does not pick leaves the element specified and bounded,
/// and the GPU's value is compared with it.
#[test]
fn nan_arithmetic_in_the_operand_a_select_does_not_pick_is_compared() {
    let p = program(
        "input x: f32[44]\n\
         output y = compute 44 |i| select(x[i] == x[i], x[i] + 1.0, x[(i + 1) % 44] * 2.0)",
    );
    let inputs = [hostile(44)];
    let want = reference(&p, &inputs).unwrap();
    // The NaN and infinite x[i] (16 of 44) are unspecified; every other
    // element picks x[i] + 1.0, 8 of them beside a NaN x[i + 1] (they had
    // no bound when the other operand's counted).
    let own = texpr_interp::accuracy::compare("y", &want[0].value, &want[0]).unwrap();
    assert_eq!((own.compared, own.unspecified, own.unbounded), (28, 16, 0));
    let Some(found) = run_both(&p, &inputs) else {
        return;
    };
    for checked in found {
        let c = checked[0];
        assert_eq!((c.compared, c.unspecified, c.unbounded), (28, 16, 0));
    }
}

/// A prefix max whose guards give `-inf` (max's identity): every `-inf` is
/// absorbed, so every element is specified and compared, under both
/// schedules.
#[test]
fn a_prefix_max_over_minus_infinity_guards_compares_every_element() {
    let p = program(
        "param N = 1000\ninput x: f32[N]\n\
         output y = compute N |i| reduce max N |j| x[i - j] else -inf",
    );
    let x = texpr_interp::random_inputs(&p, 3);
    let Some(found) = run_both(&p, &x) else {
        return;
    };
    for checked in found {
        assert_eq!((checked[0].compared, checked[0].unspecified), (1000, 0));
    }
}
