//! The check catches a wrong element (issue #41): on the factorizations,
//! the solve, adi's recurrences and a long stencil from examples/, the
//! GPU's output passes `--check`'s tiers with every element compared, and
//! the same output with one element moved by 1e-3 of its value, or by 10
//! ulps where the element is well conditioned (its tolerance below 10
//! ulps), fails.

use texpr::ScheduleChoice;
use texpr_interp::accuracy::{Reference, compare, statistical_tolerance, tolerance, useful};
use texpr_interp::{Value, random_inputs};
use texpr_tests::golden::repo_root;
use texpr_tests::gpu::{gpu, reference, run_program_with};

/// Example `name` with the `-D`s `defines`, run on the GPU under the
/// heuristic schedule: its first output and the interpreter's reference,
/// with the statistical tier's spread where some bound is not useful (as
/// `--check` runs it).
fn gpu_and_reference(name: &str, defines: &[(&str, i64)]) -> Option<(Value, Reference)> {
    let gpu = gpu()?;
    let path = repo_root().join("examples").join(format!("{name}.te"));
    let src = std::fs::read_to_string(path).unwrap();
    let defines: Vec<(String, i64)> = defines.iter().map(|(k, v)| (k.to_string(), *v)).collect();
    let p = texpr_syntax::frontend(&src, &defines).unwrap();
    let inputs = random_inputs(&p, 7);
    let mut want = reference(&p, &inputs).unwrap();
    texpr_interp::accuracy::add_spread(&p, &inputs, &mut want).unwrap();
    let (mut got, _) = run_program_with(gpu, &p, &inputs, &ScheduleChoice::Heuristic).unwrap();
    Some((got.remove(0), want.remove(0)))
}

/// `v` with element `i` replaced by `x`.
fn with(v: &Value, i: usize, x: f32) -> Value {
    let mut xs = v.as_f32().unwrap().to_vec();
    xs[i] = x;
    Value::f32(xs)
}

/// `x` moved by `n` ulps away from 0.
fn ulps(x: f32, n: u32) -> f32 {
    f32::from_bits(x.to_bits() + n)
}

#[test]
fn one_element_off_by_a_thousandth_or_by_ten_ulps_fails_the_check() {
    let cases: [(&str, &[(&str, i64)]); 6] = [
        ("adi", &[("N", 32), ("T", 4)]),
        ("lu", &[("N", 48)]),
        ("cholesky", &[("N", 48)]),
        ("ludcmp", &[("N", 48)]),
        ("trisolv", &[("N", 64)]),
        ("jacobi2d", &[("N", 32), ("T", 100)]),
    ];
    for (name, defines) in cases {
        let Some((got, want)) = gpu_and_reference(name, defines) else {
            return;
        };
        let ok = compare(name, &got, &want).unwrap_or_else(|m| panic!("{name}: {m}"));
        assert!(ok.all_compared(), "{name}: {ok:?}");
        let (g, w) = (got.as_f32().unwrap(), want.value.as_f32().unwrap());
        // Each element's tolerance in its tier.
        let scale = want.scale();
        let tol = |i: usize| match useful(want.bounds[i].err, w[i] as f64, scale) {
            true => tolerance(want.bounds[i], true).unwrap(),
            false => statistical_tolerance(want.spread[i], w[i] as f64).unwrap(),
        };
        // The largest element, moved by a thousandth of itself.
        let big = (0..w.len())
            .max_by(|&a, &b| w[a].abs().total_cmp(&w[b].abs()))
            .unwrap();
        assert!(
            tol(big) < 1e-3 * w[big].abs() as f64,
            "{name}: {}",
            tol(big)
        );
        let off = with(&got, big, g[big] * (1.0 + 1e-3));
        assert!(compare(name, &off, &want).is_err(), "{name}: 1e-3 at {big}");
        // Every well-conditioned nonzero element, moved by 10 ulps.
        let ulp = |i: usize| (ulps(w[i], 1) - w[i]).abs() as f64;
        let fine: Vec<usize> = (0..w.len())
            .filter(|&i| w[i] != 0.0 && tol(i) < 10.0 * ulp(i))
            .collect();
        for &i in fine.iter().step_by(fine.len().div_ceil(16).max(1)) {
            let off = with(&got, i, ulps(w[i], 10));
            assert!(
                compare(name, &off, &want).is_err(),
                "{name}: 10 ulps at {i}"
            );
        }
        eprintln!(
            "{name}: {} of {} elements within 10 ulps",
            fine.len(),
            w.len()
        );
    }
}

/// An ill-conditioned Cholesky (the example's `A = M M^T / N + I` with the
/// identity scaled down to 5e-4): some elements have no finite rigorous
/// bound. The statistical tier compares them within their spread under
/// random rounding, and still catches one of them off by 1e-3.
#[test]
fn the_statistical_tier_compares_ill_conditioned_elements_and_catches_a_thousandth() {
    let Some(gpu) = gpu() else {
        return;
    };
    let path = repo_root().join("examples").join("cholesky.te");
    let src = std::fs::read_to_string(path).unwrap();
    let src = src.replace("select(i == j, 1.0, 0.0)", "select(i == j, 0.0005, 0.0)");
    let p = texpr_syntax::frontend(&src, &[("N".to_string(), 20)]).unwrap();
    let inputs = random_inputs(&p, 1);
    let mut want = reference(&p, &inputs).unwrap();
    let (got, _) = run_program_with(gpu, &p, &inputs, &ScheduleChoice::Heuristic).unwrap();
    let rigorous = compare("L", &got[0], &want[0]).unwrap();
    assert!(rigorous.unbounded > 0, "{rigorous:?}");
    texpr_interp::accuracy::add_spread(&p, &inputs, &mut want).unwrap();
    let tiers = compare("L", &got[0], &want[0]).unwrap();
    assert!(tiers.all_compared(), "{tiers:?}");
    // The unbounded elements, and any whose finite bound is past every value.
    assert!(tiers.statistical >= rigorous.unbounded, "{tiers:?}");
    let w = want[0].value.as_f32().unwrap();
    let stat: Vec<usize> = (0..w.len())
        .filter(|&i| !want[0].bounds[i].err.is_finite() && w[i] != 0.0)
        .collect();
    assert!(!stat.is_empty());
    for &i in &stat {
        let tol = texpr_interp::accuracy::statistical_tolerance(want[0].spread[i], w[i] as f64);
        assert!(tol.unwrap() < 1e-3 * w[i].abs() as f64, "{i}: {tol:?}");
        let off = with(&got[0], i, got[0].as_f32().unwrap()[i] * (1.0 + 1e-3));
        assert!(compare("L", &off, &want[0]).is_err(), "1e-3 at {i}");
    }
}
