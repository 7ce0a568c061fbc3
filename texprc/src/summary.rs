//! A one-line look at an output vector: its type, first values, sum, min and max.

use texpr_interp::Value;

/// How many leading values the summary shows.
const SHOWN: usize = 6;

/// `name: f32[1024] = [0.5, -1, ...]  sum 3.25  min -1  max 0.99`
pub fn line(name: &str, v: &Value) -> String {
    let xs = v.to_f64();
    let is_int = !v.elem().is_float();
    let show = |x: f64| number(x, is_int);
    let mut first: Vec<String> = xs.iter().take(SHOWN).map(|&x| show(x)).collect();
    if xs.len() > SHOWN {
        first.push("...".into());
    }
    let finite: Vec<f64> = xs.iter().copied().filter(|x| !x.is_nan()).collect();
    let sum: f64 = finite.iter().sum();
    let min = finite.iter().copied().fold(f64::INFINITY, f64::min);
    let max = finite.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let mut out = format!(
        "{name}: {}[{}] = [{}]  sum {}  min {}  max {}",
        v.elem().name(),
        v.len(),
        first.join(", "),
        number(sum, is_int),
        show(min),
        show(max)
    );
    let nans = xs.len() - finite.len();
    if nans > 0 {
        out.push_str(&format!("  nan {nans}"));
    }
    out
}

/// How many elements were compared out of how many, the largest
/// difference, then what was not compared: elements the language leaves
/// unspecified (a non-finite value arose on the way) and elements without a
/// finite error bound. `ok (1024 of 1024 elements compared, largest
/// difference 1.2e-7)` only when every element was compared; where the
/// statistical tier compared some, how many of each tier (`1000 rigorously,
/// 24 statistically`).
pub fn checked(c: &texpr_interp::accuracy::Checked) -> String {
    let mut of = format!(
        "{} of {} compared",
        c.compared,
        texpr_ir::diag::count(c.total() as u64, "element")
    );
    if c.statistical > 0 {
        of += &format!(
            ": {} rigorously, {} statistically",
            c.compared - c.statistical,
            c.statistical
        );
    }
    let largest = number(c.largest_diff, false);
    let mut out = match (c.all_compared(), c.compared) {
        (true, _) => format!("ok ({of}, largest difference {largest})"),
        (false, 0) => format!("NOT CHECKED ({of})"),
        (false, _) => format!("incomplete ({of}, largest difference {largest})"),
    };
    if c.unspecified > 0 {
        out += &format!(
            "; {} unspecified (a non-finite value arose: inf or NaN), not compared",
            c.unspecified
        );
    }
    if c.unbounded > 0 {
        out += &format!(
            "; {} without an error bound (ill-conditioned, or f16), not compared",
            c.unbounded
        );
    }
    out
}

/// A number for people: integers exactly, floats to about six significant digits.
fn number(x: f64, is_int: bool) -> String {
    if is_int && x.is_finite() {
        return format!("{x:.0}");
    }
    if !x.is_finite() || x == 0.0 {
        return format!("{x}");
    }
    let a = x.abs();
    if !(1e-4..1e6).contains(&a) {
        return format!("{x:.5e}");
    }
    let digits = (5 - a.log10().floor() as i32).max(0) as usize;
    let s = format!("{x:.digits$}");
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summarises_floats_and_ints() {
        let v = Value::f32(vec![0.5, -1.0, 2.25]);
        assert_eq!(
            line("y", &v),
            "y: f32[3] = [0.5, -1, 2.25]  sum 1.75  min -1  max 2.25"
        );
        let w = Value::i32((1..=8).collect());
        assert_eq!(
            line("n", &w),
            "n: i32[8] = [1, 2, 3, 4, 5, 6, ...]  sum 36  min 1  max 8"
        );
    }

    #[test]
    fn checks_say_how_many_elements_were_compared() {
        use texpr_interp::accuracy::Checked;
        let all = Checked {
            compared: 4,
            largest_diff: 1.5e-7,
            ..Checked::default()
        };
        assert_eq!(
            checked(&all),
            "ok (4 of 4 elements compared, largest difference 1.50000e-7)"
        );
        let some = Checked {
            compared: 1,
            unspecified: 2,
            unbounded: 1,
            largest_diff: 0.0,
            ..Checked::default()
        };
        assert_eq!(
            checked(&some),
            "incomplete (1 of 4 elements compared, largest difference 0); 2 unspecified (a non-finite value arose: inf or NaN), not compared; 1 without an error bound (ill-conditioned, or f16), not compared"
        );
        let tiers = Checked {
            compared: 4,
            statistical: 1,
            largest_diff: 1.5e-7,
            ..Checked::default()
        };
        assert_eq!(
            checked(&tiers),
            "ok (4 of 4 elements compared: 3 rigorously, 1 statistically, largest difference 1.50000e-7)"
        );
        let none = Checked {
            unspecified: 3,
            ..Checked::default()
        };
        assert!(
            checked(&none).starts_with("NOT CHECKED (0 of 3 elements compared); 3 unspecified")
        );
    }

    #[test]
    fn numbers_stay_short() {
        assert_eq!(number(1.0 / 3.0, false), "0.333333");
        assert_eq!(number(123456.7, false), "123457");
        assert_eq!(number(1e-7, false), "1.00000e-7");
        assert_eq!(number(f64::NEG_INFINITY, false), "-inf");
        assert_eq!(number(f64::NAN, false), "NaN");
    }
}
