//! Literals that read back as the same value and type: `3u`, `0.1`,
//! `1.5h`, `inf`, and a NaN as `(0.0 / 0.0)`.

use crate::Scalar;

/// A scalar constant as a literal that reads back as the same value and type.
pub(crate) fn scalar(s: Scalar) -> String {
    match s {
        Scalar::F32(v) => float(v),
        Scalar::F16(v) if v.is_finite() => format!("{:?}h", f64::from(v)),
        Scalar::F16(v) => format!("f16({})", float(f32::from(v))),
        Scalar::I32(v) => v.to_string(),
        Scalar::U32(v) => format!("{v}u"),
    }
}

fn float(v: f32) -> String {
    if v.is_nan() {
        return "(0.0 / 0.0)".to_string();
    }
    if v.is_infinite() {
        return if v > 0.0 { "inf" } else { "-inf" }.to_string();
    }
    let s = format!("{v:?}");
    match s.find('e') {
        Some(e) if !s[..e].contains('.') => format!("{}.0{}", &s[..e], &s[e..]),
        _ => s,
    }
}
