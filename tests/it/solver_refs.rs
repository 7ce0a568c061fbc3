//! Plain-Rust references of the factorization and graph examples
//! (`examples/lu.te`, `ludcmp.te`, `floyd_warshall.te`) and of `adi.te`, in `f64`, written
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

/// PolyBench's adi in its own loop order (`u` row-major n x n, `t` steps,
/// DX = DY = 1/n, DT = 1/t): the reference examples/adi.te must match.
pub fn adi(n: usize, t: usize, u0: &[f64]) -> Vec<f64> {
    let mut u = u0.to_vec();
    let (mut v, mut p, mut q) = (vec![0.0; n * n], vec![0.0; n * n], vec![0.0; n * n]);
    let (dx, dt) = (1.0 / n as f64, 1.0 / t as f64);
    let (mul1, mul2) = (2.0 * dt / (dx * dx), dt / (dx * dx));
    let (a, b, c) = (-mul1 / 2.0, 1.0 + mul1, -mul1 / 2.0);
    let (d, e, f) = (-mul2 / 2.0, 1.0 + mul2, -mul2 / 2.0);
    for _ in 0..t {
        for i in 1..n - 1 {
            v[i] = 1.0;
            p[i * n] = 0.0;
            q[i * n] = v[i];
            for j in 1..n - 1 {
                let den = a * p[i * n + j - 1] + b;
                p[i * n + j] = -c / den;
                q[i * n + j] = (-d * u[j * n + i - 1] + (1.0 + 2.0 * d) * u[j * n + i]
                    - f * u[j * n + i + 1]
                    - a * q[i * n + j - 1])
                    / den;
            }
            v[(n - 1) * n + i] = 1.0;
            for j in (1..n - 1).rev() {
                v[j * n + i] = p[i * n + j] * v[(j + 1) * n + i] + q[i * n + j];
            }
        }
        for i in 1..n - 1 {
            u[i * n] = 1.0;
            p[i * n] = 0.0;
            q[i * n] = u[i * n];
            for j in 1..n - 1 {
                let den = d * p[i * n + j - 1] + e;
                p[i * n + j] = -f / den;
                q[i * n + j] = (-a * v[(i - 1) * n + j] + (1.0 + 2.0 * a) * v[i * n + j]
                    - c * v[(i + 1) * n + j]
                    - d * q[i * n + j - 1])
                    / den;
            }
            u[i * n + n - 1] = 1.0;
            for j in (1..n - 1).rev() {
                u[i * n + j] = p[i * n + j] * u[i * n + j + 1] + q[i * n + j];
            }
        }
    }
    u
}
