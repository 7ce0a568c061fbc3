//! The dense CPU reference of `cholesky` and `solve_lower`/`solve_upper`:
//! the textbook algorithms on whole matrices, in `f32` (what a program
//! means; `--check` holds a run to the interpreter's bounds instead,
//! [`super::reference`]).

use super::dense::Matrix;

/// The lower Cholesky factor of `a` (left-looking), reading `a`'s lower
/// triangle only; zero above the diagonal. A non-positive pivot gives NaN
/// (the square root of a negative number), as on every device.
pub fn cholesky(a: &Matrix) -> Matrix {
    let n = a.rows;
    let mut l = Matrix::zeros(n, n);
    for k in 0..n {
        let mut d = a.at(k, k);
        for p in 0..k {
            d -= l.at(k, p) * l.at(k, p);
        }
        let d = d.sqrt();
        l.data[k + k * n] = d;
        for i in k + 1..n {
            let mut s = a.at(i, k);
            for p in 0..k {
                s -= l.at(i, p) * l.at(k, p);
            }
            l.data[i + k * n] = s / d;
        }
    }
    l
}

/// `X` solving `T X = B` by substitution, reading `t` below (or, when
/// `upper`, above) and on its diagonal.
pub fn solve(t: &Matrix, b: &Matrix, upper: bool) -> Matrix {
    let n = t.rows;
    let mut x = Matrix::zeros(n, b.cols);
    let rows: Vec<usize> = if upper {
        (0..n).rev().collect()
    } else {
        (0..n).collect()
    };
    for c in 0..b.cols {
        for (s, &i) in rows.iter().enumerate() {
            let mut v = b.at(i, c);
            for &p in &rows[..s] {
                v -= t.at(i, p) * x.at(p, c);
            }
            x.data[i + c * n] = v / t.at(i, i);
        }
    }
    x
}
