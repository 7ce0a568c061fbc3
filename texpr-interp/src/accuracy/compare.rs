//! Comparing another device's results with the interpreter's, element by
//! element: each within the tolerance its own error bound allows (integers
//! derived exactly compare exactly); an element without a [`useful`] bound
//! within its spread under random rounding where the statistical tier
//! estimated one (`stochastic`), else, like an unspecified element, counted
//! and not compared, never passed (an element with a finite bound past its
//! output's values is compared within that bound under `--check=rigorous`).

use super::Reference;
use super::bound::Bound;
use crate::{Data, Value};

/// How far an element may be from the interpreter's: twice its bound (both
/// sides round), with a floor for flushed subnormals; an integer by the
/// whole steps its bound allows (0 when derived exactly). `None` when the
/// bound is not finite.
pub fn tolerance(b: Bound, float: bool) -> Option<f64> {
    match b.err {
        e if !e.is_finite() => None,
        e if float => Some(2.0 * e + 1e-30),
        e => Some((2.0 * e).floor()),
    }
}

/// Whether a rigorous bound `err` vouches for anything at an element of
/// value `v` in an output whose largest magnitude is `scale`: it is finite
/// and below both (a bound past every value of its output says nothing of
/// any digit; an output of zeros has no magnitude to compare with, and any
/// finite bound says how near 0 it is). Where it is not, the statistical
/// tier compares the element.
pub fn useful(err: f64, v: f64, scale: f64) -> bool {
    err.is_finite() && (scale == 0.0 || err < v.abs().max(scale))
}

/// How far an element without a rigorous bound may be from the
/// interpreter's value `v` where the statistical tier estimated its spread:
/// four times the largest distance of its runs under random rounding, plus
/// two ulps of `v` (a device rounds once more than a run that came out
/// exact). `None` where the spread is not finite.
pub fn statistical_tolerance(spread: f64, v: f64) -> Option<f64> {
    let ulp = ((v.abs() as f32).next_up() as f64 - v.abs()).max(f32::MIN_POSITIVE as f64);
    spread.is_finite().then_some(4.0 * spread + 2.0 * ulp)
}

/// What comparing one output found.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Checked {
    /// Elements compared (all within their tolerance).
    pub compared: usize,
    /// Of those, the elements without a rigorous bound compared within
    /// their spread under random rounding (the statistical tier).
    pub statistical: usize,
    /// Elements the language leaves unspecified (a non-finite value arose).
    pub unspecified: usize,
    /// Elements without a finite error bound (ill-conditioned).
    pub unbounded: usize,
    /// The largest difference among the compared elements.
    pub largest_diff: f64,
}

impl Checked {
    /// Elements of the output: compared, unspecified and unbounded (an
    /// output that compared without a mismatch has no others).
    pub fn total(&self) -> usize {
        self.compared + self.unspecified + self.unbounded
    }

    /// Whether every element was compared (none unspecified or unbounded):
    /// what a check that vouches for a whole output needs.
    pub fn all_compared(&self) -> bool {
        self.compared == self.total()
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
    /// The worst element's tolerance.
    pub tolerance: f64,
    /// Elements beyond their tolerance.
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
            texpr_ir::diag::count(self.len as u64, "element"),
            self.index,
            self.got,
            self.want,
            self.diff,
            self.tolerance
        )
    }
}

/// One element as a number, and as printed.
fn element(d: &Data, i: usize) -> (f64, String) {
    match d {
        Data::F32(v) => (v[i] as f64, format!("{:?}", v[i])),
        Data::F16(v) => (f64::from(v[i]), format!("{:?}", f64::from(v[i]))),
        Data::I32(v) => (v[i] as f64, format!("{:?}", v[i])),
        Data::U32(v) => (v[i] as f64, format!("{:?}", v[i])),
        Data::Bool(v) => (v[i] as u8 as f64, format!("{:?}", v[i])),
    }
}

/// How another device's element stands against the interpreter's.
enum Verdict {
    /// Within tolerance, this far from it.
    Within(f64),
    /// Within the statistical tier's tolerance, this far from it.
    Statistically(f64),
    /// No finite bound: not compared.
    Unbounded,
    /// Beyond: the difference and the tolerance.
    Beyond(f64, f64),
}

/// Element `g` against `w`, the interpreter's with bound `b`.
fn judge(g: f64, w: f64, b: Bound, float: bool) -> Verdict {
    if !w.is_finite() {
        // A specified non-finite value (an input's, moved): the same one.
        let same = (g.is_nan() && w.is_nan()) || g == w;
        return if same {
            Verdict::Within(0.0)
        } else {
            Verdict::Beyond(f64::INFINITY, 0.0)
        };
    }
    let Some(tol) = tolerance(b, float) else {
        return Verdict::Unbounded;
    };
    let diff = if g == w { 0.0 } else { (g - w).abs() };
    match diff <= tol {
        true => Verdict::Within(diff),
        false if diff.is_nan() => Verdict::Beyond(f64::INFINITY, tol),
        false => Verdict::Beyond(diff, tol),
    }
}

/// Element `g` against `v`, which has no rigorous bound but a spread `s`
/// under random rounding.
fn statistically(g: f64, v: f64, s: f64) -> Verdict {
    let Some(tol) = statistical_tolerance(s, v) else {
        return Verdict::Unbounded;
    };
    let diff = if g == v { 0.0 } else { (g - v).abs() };
    match diff <= tol {
        true => Verdict::Statistically(diff),
        false if diff.is_nan() => Verdict::Beyond(f64::INFINITY, tol),
        false => Verdict::Beyond(diff, tol),
    }
}

/// Compares output `name`: every specified element of `got` with `want`'s.
pub fn compare(name: &str, got: &Value, want: &Reference) -> Result<Checked, Mismatch> {
    let w = &want.value;
    let len = w.len();
    let mismatch = |index, got: String, want: String, diff, tolerance, count| Mismatch {
        output: name.to_string(),
        index,
        got,
        want,
        diff,
        tolerance,
        count,
        len,
    };
    if got.elem() != w.elem() || got.len() != len {
        let g = format!("{}[{}]", got.elem().name(), got.len());
        let e = format!("{}[{}]", w.elem().name(), len);
        return Err(mismatch(0, g, e, f64::INFINITY, 0.0, len));
    }
    let float = w.elem().is_float();
    let scale = want.scale();
    let mut seen = Checked::default();
    let mut worst: Option<(usize, f64, f64)> = None;
    let mut bad = 0;
    for (i, &b) in want.bounds.iter().enumerate().take(len) {
        if !b.specified {
            seen.unspecified += 1;
            continue;
        }
        let ((g, _), (v, _)) = (element(&got.data, i), element(&w.data, i));
        // Where the statistical tier ran, it compares the elements no
        // rigorous bound is useful for.
        let verdict = match (want.spread.get(i), judge(g, v, b, float)) {
            (Some(&s), Verdict::Unbounded) => statistically(g, v, s),
            (Some(&s), _) if float && v.is_finite() && !useful(b.err, v, scale) => {
                statistically(g, v, s)
            }
            (_, verdict) => verdict,
        };
        match verdict {
            Verdict::Within(diff) => {
                seen.compared += 1;
                seen.largest_diff = seen.largest_diff.max(diff);
            }
            Verdict::Statistically(diff) => {
                seen.compared += 1;
                seen.statistical += 1;
                seen.largest_diff = seen.largest_diff.max(diff);
            }
            Verdict::Unbounded => seen.unbounded += 1,
            Verdict::Beyond(diff, tol) => {
                bad += 1;
                if worst.is_none_or(|(_, d, _)| diff > d) {
                    worst = Some((i, diff, tol));
                }
            }
        }
    }
    match worst {
        None => Ok(seen),
        Some((i, diff, tol)) => {
            let (g, w) = (element(&got.data, i).1, element(&w.data, i).1);
            Err(mismatch(i, g, w, diff, tol, bad))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reference(values: &[f32], errs: &[f64], spread: &[f64]) -> Reference {
        Reference {
            value: Value::f32(values.to_vec()),
            bounds: (errs.iter())
                .map(|&err| Bound {
                    err,
                    ..Bound::default()
                })
                .collect(),
            spread: spread.to_vec(),
        }
    }

    #[test]
    fn a_bound_past_every_value_of_its_output_is_not_useful() {
        assert!(useful(1e-3, 0.5, 2.0));
        assert!(useful(1.5, 0.01, 2.0), "below the output's largest value");
        assert!(!useful(3.0, 0.5, 2.0));
        assert!(!useful(f64::INFINITY, 0.5, 2.0));
        assert!(useful(1e-30, 0.0, 0.0), "an output of zeros");
    }

    /// With the statistical tier's spread, an element whose bound is not
    /// useful is held to its spread (a wrong value its huge bound would
    /// pass fails); without it, to its bound (`--check=rigorous`).
    #[test]
    fn the_statistical_tier_compares_what_no_useful_bound_vouches_for() {
        let want = reference(&[1.0, 2.0], &[1e-6, 1e19], &[1e-7, 1e-7]);
        let right = Value::f32(vec![1.0, 2.0]);
        let c = compare("u", &right, &want).unwrap();
        assert_eq!((c.compared, c.statistical), (2, 1));
        let wrong = Value::f32(vec![1.0, 2.5]);
        assert!(compare("u", &wrong, &want).is_err());
        let rigorous = Reference {
            spread: Vec::new(),
            ..want
        };
        let c = compare("u", &wrong, &rigorous).unwrap();
        assert_eq!((c.compared, c.statistical), (2, 0));
    }
}
