//! Plain-Rust references of the factorization and graph examples
//! (`examples/lu.te`, `ludcmp.te`, `floyd_warshall.te`), in `f64`, written
//! as the textbooks and PolyBench write them, independently of the programs
//! (`examples.rs` compares them with the interpreter).

/// `A = A0 + N I` (row-major), the matrix the LU examples factor.
fn dominant(n: usize, a0: &[f64]) -> Vec<f64> {
    let mut a = a0.to_vec();
    for i in 0..n {
        a[i * n + i] += n as f64;
    }
    a
}

/// The LU factorization without pivoting of `a` in place (PolyBench's
/// `lu`): the strict lower triangle holds `L` (unit diagonal), the rest `U`.
fn factor(n: usize, a: &mut [f64]) {
    for i in 0..n {
        for j in 0..i {
            for k in 0..j {
                a[i * n + j] -= a[i * n + k] * a[k * n + j];
            }
            a[i * n + j] /= a[j * n + j];
        }
        for j in i..n {
            for k in 0..i {
                a[i * n + j] -= a[i * n + k] * a[k * n + j];
            }
        }
    }
}

/// `examples/lu.te`: the factors of `A0 + N I`, `L` below the diagonal.
pub fn lu(n: usize, a0: &[f64]) -> Vec<f64> {
    let mut a = dominant(n, a0);
    factor(n, &mut a);
    a
}

/// `examples/ludcmp.te`: `x` solving `(A0 + N I) x = b` (PolyBench's
/// `ludcmp`: the factors, then forward and back substitution).
pub fn ludcmp(n: usize, a0: &[f64], b: &[f64]) -> Vec<f64> {
    let mut a = dominant(n, a0);
    factor(n, &mut a);
    let mut y = vec![0.0; n];
    for i in 0..n {
        y[i] = b[i] - (0..i).map(|j| a[i * n + j] * y[j]).sum::<f64>();
    }
    let mut x = vec![0.0; n];
    for i in (0..n).rev() {
        let w = y[i] - (i + 1..n).map(|j| a[i * n + j] * x[j]).sum::<f64>();
        x[i] = w / a[i * n + i];
    }
    x
}

/// `examples/floyd_warshall.te`: shortest path lengths, the edge `i -> j`
/// weighing `|W[i, j]| + 1` (0 on the diagonal).
pub fn floyd_warshall(n: usize, w: &[f64]) -> Vec<f64> {
    let mut d: Vec<f64> = (0..n * n)
        .map(|ij| match ij / n == ij % n {
            true => 0.0,
            false => w[ij].abs() + 1.0,
        })
        .collect();
    for k in 0..n {
        for i in 0..n {
            for j in 0..n {
                d[i * n + j] = d[i * n + j].min(d[i * n + k] + d[k * n + j]);
            }
        }
    }
    d
}
