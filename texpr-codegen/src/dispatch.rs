//! Folding a grid of `G` workgroups into x / y / z within the device's
//! workgroups-per-dimension limit.
//!
//! `[x, y, z]` with `x*y*z >= G`, `x` as large as allowed, then `y`; the
//! kernel recomputes the linear id `wid.x + wid.y*x + wid.z*x*y` and, when
//! `x*y*z > G`, guards the excess workgroups' writes.

use texpr_ir::{Diagnostic, Span};

/// The dispatch for `groups` workgroups, or E0305 when even x*y*z cannot hold it.
pub fn fold(groups: u64, max_per_dim: u32, span: Span) -> Result<[u32; 3], Diagnostic> {
    let max = max_per_dim.max(1) as u64;
    let x = groups.min(max);
    let rest = groups.div_ceil(x);
    let y = rest.min(max);
    let z = rest.div_ceil(y);
    if z > max {
        return Err(Diagnostic::error(
            "E0305",
            format!("{groups} workgroups do not fit in a dispatch of {max} x {max} x {max}"),
        )
        .with_primary(span, "this grid is too large for the device"));
    }
    Ok([x as u32, y as u32, z as u32])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folds_into_y_and_z() {
        let s = Span::DUMMY;
        assert_eq!(fold(65535, 65535, s).unwrap(), [65535, 1, 1]);
        assert_eq!(fold(65536, 65535, s).unwrap(), [65535, 2, 1]);
        assert_eq!(fold(1000, 10, s).unwrap(), [10, 10, 10]);
        assert_eq!(fold(1001, 10, s).unwrap_err().code, "E0305");
    }
}
