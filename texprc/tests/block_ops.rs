//! The block layer's operations beyond matmul and sums, end to end from
//! `.npy` files: elementwise functions with an outer broadcast, products,
//! variances and standard deviations, and gathers (concatenations, filters,
//! the diagonal, a slice off the tile boundaries), random matrices made
//! on the ranks that own their tiles, and a Cholesky factorization with
//! the solves through it (and an ill-conditioned factor held to its
//! residual bound). Each example runs as
//! threads on 3x2 ranks and under `mpirun` on 2x2 (a product's partials
//! cross ranks by MPI's product; a gather's panels by copies), and its
//! `-o` output is compared with numpy's meaning computed here in `f64`,
//! independently of the block layer. The MPI runs follow the greedy
//! scheduler's plan.

mod block_kit;

use block_kit::*;

/// A matrix computed here, row-major.
struct Want {
    rows: usize,
    cols: usize,
    at: Box<dyn Fn(usize, usize) -> f64>,
}

/// Writes `inputs` (name, rows, cols, data row-major), runs `example` with
/// them as threads on 3x2 ranks and under mpirun on 2x2 ranks, and compares
/// each result with `want` within `rel` of each element's magnitude (and of 1).
fn run_against(
    example_name: &str,
    inputs: &[(&str, usize, usize, Vec<f32>)],
    want: &Want,
    rel: f64,
) {
    let dir = scratch(&format!("ops-{example_name}"));
    let mut files = Vec::new();
    for (name, r, c, xs) in inputs {
        let path = dir.join(format!("{name}.npy"));
        write_npy(&path, &[*r as u64, *c as u64], npyz::Order::C, xs);
        files.push(format!("{name}={}", path.display()));
    }
    let ex = example(example_name);
    for (np, grid) in [(None, "3x2"), (Some(4), "2x2")] {
        let out_dir = dir.join(format!("out-{grid}"));
        let out_str = out_dir.to_string_lossy().into_owned();
        let mut args = vec!["block", &ex, "--run", "--grid", grid, "-o", &out_str];
        for f in &files {
            args.extend(["--input", f]);
        }
        if np.is_some() {
            // Every process plans the same greedy schedule and follows it.
            args.extend(["--scheduler", "greedy"]);
        }
        let report = ok(&run(np, &args));
        if np.is_some() {
            assert!(report.contains("(4 MPI processes)"), "{report}");
        }
        let (shape, order, got) = read_npy(&out_dir.join(format!("{example_name}.npy")));
        assert_eq!(
            shape,
            vec![want.rows as u64, want.cols as u64],
            "{example_name}"
        );
        for i in 0..want.rows {
            for j in 0..want.cols {
                let g = match order {
                    npyz::Order::C => got[i * want.cols + j],
                    npyz::Order::Fortran => got[i + j * want.rows],
                } as f64;
                let w = (want.at)(i, j);
                assert!(
                    (g - w).abs() <= rel * (1.0 + w.abs()),
                    "{example_name} on {grid}, ({i}, {j}): {g} vs {w}"
                );
            }
        }
    }
}

fn matrix(rows: usize, cols: usize, salt: u32) -> (Vec<f32>, impl Fn(usize, usize) -> f64 + Clone) {
    let xs = data(rows * cols, salt);
    let ys = xs.clone();
    (xs, move |i: usize, j: usize| ys[i * cols + j] as f64)
}

#[test]
fn elementwise_functions_and_an_outer_broadcast_match_numpy() {
    let (m, n) = (9, 7);
    let (a, at_a) = matrix(m, n, 1);
    let (b, at_b) = matrix(m, n, 2);
    let (c, at_c) = matrix(m, 1, 3);
    let (r, at_r) = matrix(1, n, 4);
    // numpy: o = c - r; where(a > b, exp(a) ** maximum(b, minimum(a, o)), o)
    let want = Want {
        rows: m,
        cols: n,
        at: Box::new(move |i, j| {
            let o = at_c(i, 0) - at_r(0, j);
            let hi = at_b(i, j).max(at_a(i, j).min(o));
            if at_a(i, j) > at_b(i, j) {
                at_a(i, j).exp().powf(hi)
            } else {
                o
            }
        }),
    };
    let inputs = [
        ("a", m, n, a),
        ("b", m, n, b),
        ("c", m, 1, c),
        ("r", 1, n, r),
    ];
    run_against("elementwise", &inputs, &want, 1e-5);
}

#[test]
fn products_variances_and_deviations_match_numpy() {
    let (m, n) = (9, 7);
    let (a, at_a) = matrix(m, n, 5);
    let g = {
        let at_a = at_a.clone();
        move |i: usize, j: usize| (at_a(i, j).tanh() * 0.25).exp()
    };
    let mean = |xs: &[f64]| xs.iter().sum::<f64>() / xs.len() as f64;
    let var = move |xs: &[f64]| {
        let mu = mean(xs);
        xs.iter().map(|x| (x - mu).powi(2)).sum::<f64>() / xs.len() as f64
    };
    let all: Vec<f64> = (0..m)
        .flat_map(|i| (0..n).map(move |j| (i, j)))
        .map(|(i, j)| at_a(i, j))
        .collect();
    let std_all = var(&all).sqrt();
    let prod_all: f64 = (0..m)
        .flat_map(|i| (0..n).map(move |j| (i, j)))
        .map(|(i, j)| g(i, j))
        .product();
    // numpy: var(a, axis=1)[:, None] / std(a) * prod(g) + prod(g, axis=0)[None, :]
    let want = Want {
        rows: m,
        cols: n,
        at: Box::new(move |i, j| {
            let row: Vec<f64> = (0..n).map(|k| at_a(i, k)).collect();
            let col_prod: f64 = (0..m).map(|k| g(k, j)).product();
            var(&row) / std_all * prod_all + col_prod
        }),
    };
    run_against("stats", &[("a", m, n, a)], &want, 1e-5);
}

#[test]
fn concatenations_filters_diagonals_and_ragged_slices_match_numpy() {
    let (m, n) = (10, 7);
    let (a, at_a) = matrix(m, n, 6);
    let (b, at_b) = matrix(5, n, 7);
    // numpy: c = vstack(a, b); f = c[2:13, 1:6][[0, 1, 2, 7, 3, 10, 10]];
    // y = hstack(f, diag(c)[:, None], a.T[:, [9, 0, 4]])
    let c = move |i: usize, j: usize| if i < m { at_a(i, j) } else { at_b(i - m, j) };
    let keep = [0, 1, 2, 7, 3, 10, 10];
    let cols_kept = [9, 0, 4];
    let want = Want {
        rows: 7,
        cols: 9,
        at: Box::new(move |i, j| match j {
            0..5 => c(keep[i] + 2, j + 1),
            5 => c(i, i),
            _ => c(cols_kept[j - 6], i),
        }),
    };
    // A gather moves values: exact.
    run_against("gathers", &[("a", m, n, a), ("b", 5, n, b)], &want, 0.0);
}

#[test]
fn random_matrices_made_on_their_owners_match_the_generator() {
    use texpr_block::exec::random::random_element;
    let (m, n, k) = (9, 6, 4);
    let (a, at_a) = matrix(m, n, 8);
    // numpy: a @ w + 0.01 * n, w and n the generator's matrices of seeds 7 and 11
    let want = Want {
        rows: m,
        cols: k,
        at: Box::new(move |i, j| {
            let dot: f64 = (0..n)
                .map(|p| at_a(i, p) * random_element(7, p, j) as f64)
                .sum();
            dot + 0.01 * random_element(11, i, j) as f64
        }),
    };
    run_against("random", &[("a", m, n, a)], &want, 1e-5);
}

#[test]
fn comparisons_as_masks_and_every_axis_of_the_new_reductions_match_numpy() {
    let (m, n) = (8, 5);
    let (a, at_a) = matrix(m, n, 9);
    let (b, at_b) = matrix(m, n, 10);
    let mask = |c: bool| if c { 1.0 } else { 0.0 };
    let var = |xs: &[f64]| {
        let mu = xs.iter().sum::<f64>() / xs.len() as f64;
        xs.iter().map(|x| (x - mu).powi(2)).sum::<f64>() / xs.len() as f64
    };
    let all_b: Vec<f64> = (0..m)
        .flat_map(|i| (0..n).map(move |j| (i, j)))
        .map(|(i, j)| at_b(i, j))
        .collect();
    let va = var(&all_b);
    // numpy: ((a<b) + (a<=b) - (a>=b)*(a==a) + (a!=b) + var(a, axis=0)) * std(b, axis=0)
    //        + prod(where(a<b, a, b), axis=1)[:, None] + var(b) - std(a, axis=1)[:, None]
    let want = Want {
        rows: m,
        cols: n,
        at: Box::new(move |i, j| {
            let (x, y) = (at_a(i, j), at_b(i, j));
            let masks = mask(x < y) + mask(x <= y) - mask(x >= y) * mask(x == x) + mask(x != y);
            let col_a: Vec<f64> = (0..m).map(|k| at_a(k, j)).collect();
            let col_b: Vec<f64> = (0..m).map(|k| at_b(k, j)).collect();
            let pr: f64 = (0..n).map(|k| at_a(i, k).min(at_b(i, k))).product();
            let row_a: Vec<f64> = (0..n).map(|k| at_a(i, k)).collect();
            (masks + var(&col_a)) * var(&col_b).sqrt() + pr + va - var(&row_a).sqrt()
        }),
    };
    run_against("masks", &[("a", m, n, a), ("b", m, n, b)], &want, 1e-5);
}

/// `A = 0.05 M M^T` (as `cholesky.air` and `spd_solve.air` make it) and its
/// lower Cholesky factor, in `f64`, row-major.
fn spd_and_factor(at_m: &dyn Fn(usize, usize) -> f64, n: usize, k: usize) -> (Vec<f64>, Vec<f64>) {
    let mut a = vec![0.0; n * n];
    for i in 0..n {
        for j in 0..n {
            a[i * n + j] = 0.05 * (0..k).map(|p| at_m(i, p) * at_m(j, p)).sum::<f64>();
        }
    }
    let mut l = vec![0.0; n * n];
    for j in 0..n {
        let d = a[j * n + j] - (0..j).map(|p| l[j * n + p] * l[j * n + p]).sum::<f64>();
        l[j * n + j] = d.sqrt();
        for i in j + 1..n {
            let s = a[i * n + j] - (0..j).map(|p| l[i * n + p] * l[j * n + p]).sum::<f64>();
            l[i * n + j] = s / l[j * n + j];
        }
    }
    (a, l)
}

#[test]
fn a_cholesky_factor_by_tiles_matches_numpy() {
    let (n, k) = (10, 20);
    let (m, at_m) = matrix(n, k, 11);
    // numpy: np.linalg.cholesky(0.05 * m @ m.T)
    let (_, l) = spd_and_factor(&at_m, n, k);
    let want = Want {
        rows: n,
        cols: n,
        at: Box::new(move |i, j| l[i * n + j]),
    };
    run_against("cholesky", &[("m", n, k, m)], &want, 1e-4);
}

#[test]
fn a_solve_through_the_factor_and_its_transposed_view_matches_numpy() {
    let (n, k, r) = (10, 20, 3);
    let (m, at_m) = matrix(n, k, 12);
    let (b, at_b) = matrix(n, r, 13);
    // numpy: np.linalg.solve(0.05 * m @ m.T, b), by forward then back substitution here
    let (_, l) = spd_and_factor(&at_m, n, k);
    let mut x = vec![0.0; n * r];
    for c in 0..r {
        let mut y = vec![0.0; n];
        for i in 0..n {
            y[i] = (at_b(i, c) - (0..i).map(|p| l[i * n + p] * y[p]).sum::<f64>()) / l[i * n + i];
        }
        for i in (0..n).rev() {
            let s: f64 = (i + 1..n).map(|p| l[p * n + i] * x[p * r + c]).sum();
            x[i * r + c] = (y[i] - s) / l[i * n + i];
        }
    }
    let want = Want {
        rows: n,
        cols: r,
        at: Box::new(move |i, j| x[i * r + j]),
    };
    run_against("spd_solve", &[("m", n, k, m), ("b", n, r, b)], &want, 1e-4);
}

#[test]
fn factorizations_and_solves_pass_check_under_mpirun_on_4_and_6_ranks() {
    for name in ["cholesky", "spd_solve"] {
        let ex = example(name);
        for (np, grid, source) in [(4, "2x2", "1,0"), (6, "3x2", "2,1")] {
            let args = [
                "block",
                &ex,
                "--run",
                "--check",
                "--grid",
                grid,
                "--source-rank",
                source,
                "-D",
                "N=24",
                "-D",
                "K=48",
                "--tile",
                "5",
            ];
            let report = ok(&run(Some(np), &args));
            assert!(
                report.contains(&format!("({np} MPI processes)")),
                "{report}"
            );
            assert!(report.contains("): ok\n"), "{name} on {grid}: {report}");
        }
    }
}

#[test]
fn an_ill_conditioned_factor_passes_its_residual_check() {
    // The Kac-Murdock-Szego matrix a_ij = 0.9999^|i - j| (condition number
    // about 2e6 at order 96), factored in tiles of 40: blocks of 32 and 8,
    // each inverted, so the rows below a diagonal block are products with
    // an inverse. The residual A - L L^T stays within Cholesky's
    // backward-error bound all the same.
    let n: usize = 96;
    let a: Vec<f32> = (0..n * n)
        .map(|k| 0.9999f64.powi((k / n).abs_diff(k % n) as i32) as f32)
        .collect();
    let dir = scratch("ill-conditioned");
    let path = dir.join("a.npy");
    write_npy(&path, &[n as u64, n as u64], npyz::Order::C, &a);
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap();
    let air = root.join("tools/scalapack/cholesky.air");
    let input = format!("a={}", path.display());
    let mut devices = vec!["cpu"];
    if have_gpu() {
        devices.push("gpu");
    }
    for device in devices {
        let args = [
            "block",
            air.to_str().unwrap(),
            "-D",
            "N=96",
            "--tile",
            "40",
            "--grid",
            "2x2",
            "--run",
            "--check",
            "--device",
            device,
            "--input",
            &input,
        ];
        let report = ok(&run(None, &args));
        assert!(
            report.contains("check: 9216 of 9216 elements compared, each residual")
                && report.contains("): ok\n"),
            "{device}: {report}"
        );
    }
}
