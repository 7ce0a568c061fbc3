//! The interpreter's lane path (a `compute`'s elements evaluated together,
//! node by node) gives what its scalar path gives element by element: the
//! same values and the same error bounds, bit for bit, on generated
//! programs (loops, `select`s, folds with dependent counts, `iterate`
//! inside `compute`) and on every example.

use texpr_interp::{Value, accuracy, eval, eval_by_element, footprint, random_inputs};

/// The examples are evaluated with each size parameter at most [`SIDE`],
/// where this many element operations suffice, and skipped above it.
const EXAMPLE_OPS: u64 = 6_000_000;
const SIDE: i64 = 32;

/// Overrides of an example's `param N = <literal>` lines above [`SIDE`].
fn smaller(src: &str) -> Vec<(String, i64)> {
    src.lines()
        .filter_map(|l| l.strip_prefix("param ")?.split_once(" = "))
        .filter_map(|(name, v)| Some((name.trim().to_string(), v.trim().parse::<i64>().ok()?)))
        .filter(|&(_, v)| v > SIDE)
        .map(|(name, _)| (name, SIDE))
        .collect()
}

fn agree(p: &texpr_ir::Program, inputs: &[Value], what: &str) {
    match (eval(p, inputs), eval_by_element(p, inputs)) {
        (Ok(a), Ok(b)) => {
            for (k, (x, y)) in a.iter().zip(&b).enumerate() {
                assert_eq!(x.bits(), y.bits(), "{what}: output {k}'s values");
            }
        }
        (Err(_), Err(_)) => return,
        (a, b) => panic!("{what}: the lane path gave {a:?}, the scalar path {b:?}"),
    }
    let lanes = accuracy::reference(p, inputs).expect("evaluates");
    let each = accuracy::reference_by_element(p, inputs).expect("evaluates");
    for (k, (x, y)) in lanes.iter().zip(&each).enumerate() {
        assert_eq!(
            x.value.bits(),
            y.value.bits(),
            "{what}: output {k}'s values with bounds"
        );
        for (i, (a, b)) in x.bounds.iter().zip(&y.bounds).enumerate() {
            assert_eq!(
                format!("{a:?}"),
                format!("{b:?}"),
                "{what}: output {k}[{i}]'s bound"
            );
        }
    }
}

#[test]
fn the_lane_path_gives_the_scalar_paths_values_and_bounds_on_generated_programs() {
    let mut with_loops = 0;
    for seed in 0..400 {
        let src = texpr_tests::r#gen::program(seed);
        let p = texpr_syntax::frontend(&src, &[])
            .unwrap_or_else(|d| panic!("seed {seed} does not check: {d:?}\n{src}"));
        if footprint(&p).ops > 2_000_000 {
            continue;
        }
        with_loops += usize::from(src.contains("iterate"));
        agree(&p, &random_inputs(&p, seed), &format!("seed {seed}\n{src}"));
    }
    assert!(with_loops > 20, "only {with_loops} programs with loops");
}

#[test]
fn the_lane_path_gives_the_scalar_paths_values_and_bounds_on_the_examples() {
    let dir = texpr_tests::golden::repo_root().join("examples");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("examples/")
        .map(|e| e.expect("an entry").path())
        .filter(|f| f.extension().is_some_and(|x| x == "te"))
        .collect();
    files.sort();
    let mut compared = 0;
    for f in &files {
        let src = std::fs::read_to_string(f).expect("readable");
        let p =
            texpr_syntax::frontend(&src, &smaller(&src)).unwrap_or_else(|d| panic!("{f:?}: {d:?}"));
        if footprint(&p).ops > EXAMPLE_OPS {
            continue;
        }
        agree(&p, &random_inputs(&p, 1), &f.display().to_string());
        compared += 1;
    }
    assert_eq!(compared, files.len(), "examples compared");
}

#[test]
fn the_lane_path_gives_the_scalar_paths_values_and_bounds_where_lanes_differ() {
    // Each output exercises one way lanes part: an `iterate` of two states
    // whose count is the lane's index; a fold of the lane's own length; a
    // `select` whose condition may flip within its bounds (both operands
    // needed); `let`s with and without the lane's index and a guarded read
    // out of bounds in some lanes; integer division by zero and conversions;
    // a `compute` of more lanes than one run of them (`LANES`) holds.
    let src = "input x: f32[64]\ninput y: f32[64]\n\
        output a = compute 64 |j| iterate j from (0.0, 1.0) |s, w, k| (s + x[k] * w, w * 0.5 + y[j])\n\
        output b = compute 64 |i| reduce i |p| x[p] * y[i - p]\n\
        output c = compute 64 |i| select(x[i] * 3.0 >= 0.75, x[i] + 1.0, y[(i + 1) % 64] * 2.0)\n\
        output d = compute 8 |i| compute 8 |j| let m = x[i] * 2.0 in let q = y[i * 8 + j] in \
            select(j > i, m + q, x[j * 8 + i - 1] else 0.5)\n\
        output e = compute 64 |i| f32(i32(x[i] * 100.0) / (i32(i) - 3)) + f32(u32(i) % 5)\n\
        output f = compute 2500 |i| let q = x[i % 64] * f32(i) in \
            select(i % 7 == 0, q + (iterate i % 5 from 0.5 |s| s * q), y[i / 40])\n";
    let p = texpr_syntax::frontend(src, &[]).unwrap_or_else(|d| panic!("{d:?}"));
    let mut inputs = random_inputs(&p, 3);
    // Conditions on the edge: `x[i] * 3.0 >= 0.75` at x = 0.25.
    if let Value {
        data: texpr_interp::Data::F32(x),
    } = &mut inputs[0]
    {
        x[5] = 0.25;
        x[9] = 0.25;
    }
    agree(&p, &inputs, "lanes that differ");
}
