//! Integer-to-float conversion at f32's rounding edges. WGSL lets a device
//! give either of the two f32 values adjacent to an integer f32 cannot
//! hold; the interpreter rounds to nearest, and `--check` must accept the
//! other neighbour too, and refuse values further off.

use texpr_interp::accuracy::check_outputs;
use texpr_interp::{Data, Value};
use texpr_tests::gpu::{gpu, reference, run_program};

/// Integers around f32's spacing changes and halfway points.
pub(crate) fn edges() -> Vec<i64> {
    let mut v = Vec::new();
    for base in [1i64 << 24, 1 << 25, 1 << 31, 1 << 32] {
        for d in [
            -129, -128, -127, -65, -64, -63, -1, 0, 1, 2, 3, 63, 64, 65, 127, 128, 129,
        ] {
            v.push(base + d);
        }
    }
    v.push(4294967167); // 2^32 - 129: nearest is 4294967040, a GPU may give 2^32
    v
}

/// The two f32 values adjacent to `x` (equal where `x` is one).
pub(crate) fn neighbours(x: i64) -> (f64, f64) {
    let near = x as f32 as f64;
    let step = |f: f32, up: bool| {
        f64::from(f32::from_bits(if up {
            f.to_bits() + 1
        } else {
            f.to_bits() - 1
        }))
    };
    match (near - x as f64).partial_cmp(&0.0) {
        Some(std::cmp::Ordering::Less) => (near, step(near as f32, near >= 0.0)),
        Some(std::cmp::Ordering::Greater) => (step(near as f32, near < 0.0), near),
        _ => (near, near),
    }
}

fn check(src: &str, input: Value, values: &[i64]) {
    let Some(gpu) = gpu() else { return };
    let p = texpr_syntax::frontend(src, &[]).unwrap();
    let inputs = vec![input];
    let want = reference(&p, &inputs).unwrap();
    let (got, _) = run_program(gpu, &p, &inputs).unwrap();
    let Data::F32(y) = &got[0].data else {
        panic!("f32 output")
    };
    for (&x, &g) in values.iter().zip(y) {
        let (lo, hi) = neighbours(x);
        assert!(
            f64::from(g) == lo || f64::from(g) == hi,
            "f32({x}) gave {g}: neither {lo} nor {hi}"
        );
    }
    let bad = check_outputs(&p, &got, &want);
    assert!(bad.is_empty(), "the check refuses a neighbour: {bad:?}");
    // And it refuses a value five steps from the nearest: its tolerance is
    // twice one rounding's bound (both sides round), under four steps.
    let mut off = y.clone();
    let at = (values.iter())
        .position(|&x| neighbours(x).0 != neighbours(x).1)
        .unwrap();
    off[at] = f32::from_bits((values[at] as f32).to_bits() + 5);
    let bad = check_outputs(&p, &[Value::f32(off)], &want);
    assert_eq!(bad.len(), 1, "a value five steps away passes the check");
}

#[test]
fn u32_to_f32_at_the_rounding_edges_is_either_neighbour() {
    let values: Vec<i64> = edges()
        .into_iter()
        .filter(|&x| (0..=u32::MAX as i64).contains(&x))
        .collect();
    let src = format!(
        "param N = {}\ninput x: u32[N]\noutput y: f32[N] = compute N |i| f32(x[i])\n",
        values.len()
    );
    let input = Value::u32(values.iter().map(|&x| x as u32).collect());
    check(&src, input, &values);
}

#[test]
fn i32_to_f32_at_the_rounding_edges_is_either_neighbour() {
    let values: Vec<i64> = (edges().into_iter())
        .flat_map(|x| [x, -x])
        .filter(|&x| (i32::MIN as i64..=i32::MAX as i64).contains(&x))
        .collect();
    let src = format!(
        "param N = {}\ninput x: i32[N]\noutput y: f32[N] = compute N |i| f32(x[i])\n",
        values.len()
    );
    let input = Value::i32(values.iter().map(|&x| x as i32).collect());
    check(&src, input, &values);
}
