//! Cooperative matrices (tensor cores): the configurations a device runs
//! `C = A B + C` in, one subgroup a matrix, as an adapter lists them
//! (wgpu's `Adapter::cooperative_matrix_properties()`, from Vulkan's
//! `vkGetPhysicalDeviceCooperativeMatrixPropertiesKHR` with subgroup scope
//! and sizes 8 or 16) and as WGSL spells them (`coop_mat8x8`,
//! `coop_mat16x16<T, A|B|C>`, `enable wgpu_cooperative_matrix;`).
//!
//! Text form (the target key `cooperative_matrix`): `none`, or
//! configurations separated by commas, each `MxNxK AB>CR`, e.g.
//! `16x16x16 f16>f32` (f16 operands, an f32 accumulator and result).

use std::fmt;

/// The element type of a cooperative matrix.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum CoopScalar {
    F16,
    F32,
    I32,
    U32,
}

impl CoopScalar {
    pub const ALL: [CoopScalar; 4] = [
        CoopScalar::F16,
        CoopScalar::F32,
        CoopScalar::I32,
        CoopScalar::U32,
    ];

    /// The element type WGSL names `name` (`f16`, ...), if a matrix holds it.
    pub fn named(name: &str) -> Option<CoopScalar> {
        CoopScalar::ALL.into_iter().find(|c| c.name() == name)
    }

    /// The WGSL name.
    pub fn name(self) -> &'static str {
        match self {
            CoopScalar::F16 => "f16",
            CoopScalar::F32 => "f32",
            CoopScalar::I32 => "i32",
            CoopScalar::U32 => "u32",
        }
    }
}

/// One configuration: `A` is `m x k`, `B` is `k x n`, `C` and the result
/// `m x n`; `ab` the operands' element type, `cr` the accumulator's and
/// the result's.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct CoopMatrix {
    pub m: u32,
    pub n: u32,
    pub k: u32,
    pub ab: CoopScalar,
    pub cr: CoopScalar,
}

impl fmt::Display for CoopMatrix {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (m, n, k) = (self.m, self.n, self.k);
        write!(f, "{m}x{n}x{k} {}>{}", self.ab.name(), self.cr.name())
    }
}

impl CoopMatrix {
    /// Reads `MxNxK AB>CR`.
    pub fn parse(s: &str) -> Result<CoopMatrix, String> {
        let bad =
            || format!("`{s}` is not a configuration `MxNxK AB>CR` (e.g. `16x16x16 f16>f32`)");
        let (shape, types) = s.trim().split_once(' ').ok_or_else(bad)?;
        let dims: Vec<u32> = (shape.split('x'))
            .map(|d| d.parse().map_err(|_| bad()))
            .collect::<Result<_, _>>()?;
        let [m, n, k] = dims[..] else {
            return Err(bad());
        };
        let (ab, cr) = types.trim().split_once('>').ok_or_else(bad)?;
        let scalar = |name: &str| {
            (CoopScalar::ALL.into_iter())
                .find(|c| c.name() == name.trim())
                .ok_or_else(|| {
                    format!(
                        "unknown element type `{}` (f16, f32, i32, u32)",
                        name.trim()
                    )
                })
        };
        if [m, n, k].contains(&0) {
            return Err(bad());
        }
        Ok(CoopMatrix {
            m,
            n,
            k,
            ab: scalar(ab)?,
            cr: scalar(cr)?,
        })
    }
}

/// `none`, or configurations separated by commas, each once, kept sorted.
pub fn parse_list(v: &str) -> Result<Vec<CoopMatrix>, String> {
    if v.trim() == "none" {
        return Ok(Vec::new());
    }
    let mut out = Vec::new();
    for item in v.split(',') {
        let c = CoopMatrix::parse(item)?;
        if out.contains(&c) {
            return Err(format!("configuration `{c}` given twice"));
        }
        out.push(c);
    }
    out.sort();
    Ok(out)
}

/// The text form of `list` (`none` when empty).
pub fn format_list(list: &[CoopMatrix]) -> String {
    match list.is_empty() {
        true => "none".into(),
        false => (list.iter().map(ToString::to_string))
            .collect::<Vec<_>>()
            .join(", "),
    }
}

/// The size `s` of the largest square configuration `s x s x s` in
/// `list` (WGSL spells `8x8` and `16x16`) for operands of element type
/// `ab` and an accumulator of `cr` (named as WGSL names them: `f16`, ...)
/// that divides each of `dims`: what a contraction block runs in, or
/// `None`.
pub fn square_config(list: &[CoopMatrix], ab: &str, cr: &str, dims: &[u64]) -> Option<u32> {
    let (ab, cr) = (CoopScalar::named(ab)?, CoopScalar::named(cr)?);
    (list.iter())
        .filter(|c| c.m == c.n && c.n == c.k && matches!(c.m, 8 | 16))
        .filter(|c| (c.ab, c.cr) == (ab, cr))
        .filter(|c| dims.iter().all(|d| d % u64::from(c.m) == 0))
        .map(|c| c.m)
        .max()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn configurations_read_back_what_they_print() {
        let list = parse_list("16x16x16 f16>f32, 8x8x8 f32>f32, 16x16x16 f16>f16").unwrap();
        assert_eq!(list.len(), 3);
        assert_eq!(
            format_list(&list),
            "8x8x8 f32>f32, 16x16x16 f16>f16, 16x16x16 f16>f32"
        );
        assert_eq!(parse_list(&format_list(&list)).unwrap(), list);
        assert_eq!(parse_list("none").unwrap(), []);
        assert_eq!(format_list(&[]), "none");
    }

    #[test]
    fn malformed_configurations_are_refused_with_the_reason() {
        for (text, says) in [
            ("16x16 f16>f32", "MxNxK"),
            ("16x16x16 f16", "MxNxK"),
            ("16x16x16 bf16>f32", "unknown element type `bf16`"),
            ("0x16x16 f16>f32", "MxNxK"),
            ("16x16x16 f16>f32, 16x16x16 f16>f32", "given twice"),
        ] {
            let e = parse_list(text).unwrap_err();
            assert!(e.contains(says), "{text}: {e}");
        }
    }
}
