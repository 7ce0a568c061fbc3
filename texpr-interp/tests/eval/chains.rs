//! Long chains of well-conditioned steps as top-level `let`s (issue #25):
//! every element stays specified, with a bound that covers the exact value
//! and grows by a few ulps of the values per step, never by a factor. A
//! chain that does overflow in some order is still unspecified.

use crate::bounds::*;

/// `steps` top-level `let`s over `x: f32[n]`, step `k` computing
/// `compute N |i| STEP` with `{p}` in `step` naming step `k - 1` (`x` first),
/// and an output copying the last one.
fn chain(n: usize, steps: usize, step: &str) -> String {
    let mut src = format!("param N = {n}\ninput x: f32[N]\n");
    let mut prev = "x".to_string();
    for k in 0..steps {
        let body = step.replace("{p}", &prev);
        src += &format!("let a{k} = compute N |i| {body}\n");
        prev = format!("a{k}");
    }
    src + &format!("output y = compute N |i| {prev}[i]\n")
}

/// The exact result of `steps` steps `next(prev, x)` from `x`.
fn exact(x: &[f32], steps: usize, next: impl Fn(&[f64], &[f64], usize) -> f64) -> Vec<f64> {
    let x: Vec<f64> = x.iter().map(|&v| v as f64).collect();
    let mut a = x.clone();
    for _ in 0..steps {
        a = (0..a.len()).map(|i| next(&a, &x, i)).collect();
    }
    a
}

const AVERAGE: &str = "({p}[(i + N - 1) % N] + {p}[i] + {p}[(i + 1) % N]) / 3.0";

fn average(a: &[f64], _: &[f64], i: usize) -> f64 {
    let n = a.len();
    (a[(i + n - 1) % n] + a[i] + a[(i + 1) % n]) / 3.0
}

/// The program: 86 averages of three neighbours, each a division
/// by 3 of a sum. Its bound used to compound the chain's reach by 3 per
/// step (the sum's reach carried into the division, the division's into
/// the next sum) until every element was "unspecified" from step 81 on.
#[test]
fn eighty_six_averages_of_neighbours_stay_specified_with_small_bounds() {
    let steps = 86;
    let p = program(&chain(1024, steps, AVERAGE));
    let ins = inputs(&p);
    let (got, bounds) = reference(&p, &ins, 0);
    let x = ins[0].as_f32().unwrap();
    let want = exact(x, steps, average);
    // Each step adds at most about 6 ulps of the inputs' scale: the sum's
    // two roundings at three terms' magnitudes, divided by 3, and the
    // division's own 3.5.
    let most = 6.0 * steps as f64 * EPS * input_scale(x);
    let largest = assert_sound_and_tight("y", &got, &bounds, &want, most);
    // Relative to each value: a few hundred ulps after 86 steps, where the
    // values are not themselves tiny (an average of many inputs).
    let rel: Vec<f64> = got
        .iter()
        .zip(&bounds)
        .filter(|(v, _)| v.abs() > 0.1)
        .map(|(v, b)| b.err / v.abs() as f64)
        .collect();
    assert!(rel.len() > 256, "{} of 1024 above 0.1", rel.len());
    let worst = rel.iter().copied().fold(0.0, f64::max);
    assert!(
        worst < 2e-4,
        "bound / |value| up to {worst:e} (largest bound {largest:e})"
    );
}

/// 1,000 steps of each well-conditioned kind: sums of neighbours times
/// 0.25 and 0.5, sums divided by constants, products with constants.
#[test]
fn thousand_step_chains_of_well_conditioned_steps_stay_specified() {
    type Step = fn(&[f64], &[f64], usize) -> f64;
    let kinds: [(&str, Step); 4] = [
        (AVERAGE, average),
        (
            "0.25 * {p}[(i + N - 1) % N] + 0.5 * {p}[i] + 0.25 * {p}[(i + 1) % N]",
            |a, _, i| {
                let n = a.len();
                0.25 * a[(i + n - 1) % n] + 0.5 * a[i] + 0.25 * a[(i + 1) % n]
            },
        ),
        ("({p}[i] + {p}[(i + 1) % N]) / 2.0", |a, _, i| {
            (a[i] + a[(i + 1) % a.len()]) / 2.0
        }),
        (
            "{p}[i] / 1.5 + x[i] * 0.75 - {p}[(i + 3) % N] * 0.125",
            |a, x, i| a[i] / 1.5 + x[i] * 0.75 - a[(i + 3) % a.len()] * 0.125,
        ),
    ];
    let steps = 1000;
    for (step, next) in kinds {
        let p = program(&chain(64, steps, step));
        let ins = inputs(&p);
        let (got, bounds) = reference(&p, &ins, 0);
        let x = ins[0].as_f32().unwrap();
        let want = exact(x, steps, next);
        // A few ulps of the inputs' scale per step.
        let most = 3.0 * steps as f64 * EPS * input_scale(x);
        assert_sound_and_tight(step, &got, &bounds, &want, most);
    }
}

/// The rule still holds where an order does overflow: a chain of products
/// whose factors above 1 multiply past `f32::MAX`, and a chain of sums
/// whose terms' magnitudes add up past it.
#[test]
fn chains_that_may_overflow_in_some_order_stay_unspecified() {
    // 100 steps of `* 4.0 * 0.25`: 4^100 if the device multiplies the 4s first.
    let p = program(&chain(8, 100, "{p}[i] * 4.0 * 0.25"));
    let (_, bounds) = reference(&p, &inputs(&p), 0);
    assert!(bounds.iter().all(|b| !b.specified), "{:?}", bounds[0]);
    // 40 steps of `* 4.0 * 0.25` reach 4^40 < f32::MAX at most: specified.
    let p = program(&chain(8, 40, "{p}[i] * 4.0 * 0.25"));
    let (_, bounds) = reference(&p, &inputs(&p), 0);
    assert!(bounds.iter().all(|b| b.specified), "{:?}", bounds[0]);
    // Sums of neighbours without weights: values and magnitudes grow 3^k.
    let p = program(&chain(
        8,
        90,
        "{p}[(i + 7) % N] + {p}[i] - {p}[(i + 1) % N]",
    ));
    let (_, bounds) = reference(&p, &inputs(&p), 0);
    assert!(bounds.iter().all(|b| !b.specified), "{:?}", bounds[0]);
}
