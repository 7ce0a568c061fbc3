//! Comparing GPU results with the interpreter's: integers exactly (when exact),
//! floats within a tolerance derived from the program ([`super::bound`]).

use crate::{Data, Value};

use super::bound::Est;

/// How far a GPU element may be from the interpreter's.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Tolerance {
    pub abs: f64,
}

impl Tolerance {
    /// From an output's error estimate: twice the bound (both sides round), a
    /// floor for flushed subnormals; integers exactly unless derived from floats
    /// (a truncation within `err` of its argument is off by at most `2 * err`).
    pub fn of(est: Est, float: bool) -> Tolerance {
        let e = est.err;
        let abs = if !e.is_finite() {
            f64::INFINITY
        } else if float {
            2.0 * e + 1e-30
        } else {
            (2.0 * e).floor()
        };
        Tolerance { abs }
    }
}

/// The worst element of an output that differs beyond its tolerance.
#[derive(Clone, Debug, PartialEq)]
pub struct Mismatch {
    pub output: String,
    pub index: usize,
    pub got: String,
    pub want: String,
    pub diff: f64,
    pub tolerance: f64,
    /// Elements beyond the tolerance.
    pub count: usize,
    pub len: usize,
}

impl std::fmt::Display for Mismatch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "output `{}`: {} of {} differ; worst at [{}]: gpu {} vs interpreter {} (|diff| {:e}, tolerance {:e})",
            self.output,
            self.count,
            texpr_syntax::diag::count(self.len as u64, "element"),
            self.index,
            self.got,
            self.want,
            self.diff,
            self.tolerance
        )
    }
}

/// Pairs of (gpu, interpreter) elements as numbers, with their printed forms.
fn elements(got: &Value, want: &Value) -> Option<Vec<(f64, f64, String, String)>> {
    fn zip<T: Copy + std::fmt::Debug>(
        a: &[T],
        b: &[T],
        num: impl Fn(T) -> f64,
    ) -> Vec<(f64, f64, String, String)> {
        a.iter()
            .zip(b)
            .map(|(&x, &y)| (num(x), num(y), format!("{x:?}"), format!("{y:?}")))
            .collect()
    }
    Some(match (&got.data, &want.data) {
        (Data::F32(a), Data::F32(b)) => zip(a, b, |x| x as f64),
        (Data::I32(a), Data::I32(b)) => zip(a, b, |x| x as f64),
        (Data::U32(a), Data::U32(b)) => zip(a, b, |x| x as f64),
        _ => return None,
    })
}

/// Both NaN, the same infinity, or within `tol`.
fn close(g: f64, w: f64, tol: f64) -> bool {
    (g.is_nan() && w.is_nan()) || g == w || (g - w).abs() <= tol
}

/// Compares output `name`; the error names the worst element.
pub fn compare(name: &str, got: &Value, want: &Value, tol: Tolerance) -> Result<(), Mismatch> {
    let len = want.len();
    let mismatch = |index, g: String, w: String, diff, count| Mismatch {
        output: name.to_string(),
        index,
        got: g,
        want: w,
        diff,
        tolerance: tol.abs,
        count,
        len,
    };
    let pairs = match elements(got, want) {
        Some(p) if got.len() == want.len() => p,
        _ => {
            let (g, w) = (
                format!("{:?}[{}]", got.elem(), got.len()),
                format!("{:?}[{}]", want.elem(), want.len()),
            );
            return Err(mismatch(0, g, w, f64::INFINITY, want.len()));
        }
    };
    let bad: Vec<(usize, f64)> = pairs
        .iter()
        .enumerate()
        .filter(|(_, (g, w, _, _))| !close(*g, *w, tol.abs))
        .map(|(i, (g, w, _, _))| {
            (
                i,
                if (g - w).is_nan() {
                    f64::INFINITY
                } else {
                    (g - w).abs()
                },
            )
        })
        .collect();
    let Some(&(worst, diff)) = bad.iter().max_by(|a, b| a.1.total_cmp(&b.1)) else {
        return Ok(());
    };
    let (_, _, g, w) = &pairs[worst];
    Err(mismatch(worst, g.clone(), w.clone(), diff, bad.len()))
}
