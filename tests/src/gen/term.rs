//! Index terms the checker can prove in bounds (and guarded ones that need not be).

use super::rng::Rng;

/// An index variable in scope: its name and extent (`0..extent`).
#[derive(Clone, Debug)]
pub struct Var {
    pub name: String,
    pub extent: u64,
}

/// A term in `0..len` over the variables in scope, provable by interval analysis.
pub fn in_bounds(rng: &mut Rng, vars: &[Var], len: u64) -> String {
    let fits: Vec<&Var> = vars.iter().filter(|v| v.extent <= len).collect();
    match rng.below(6) {
        0 | 1 if !fits.is_empty() => {
            let v = rng.pick(&fits);
            match rng.below(3) {
                0 => v.name.clone(),
                1 => format!("{} - 1 - {}", len, v.name),
                _ => {
                    let slack = (len - v.extent) as i64;
                    format!("{} + {}", v.name, rng.range(0, slack))
                }
            }
        }
        2 if vars.len() >= 2 => pair(rng, vars, len),
        3 | 4 if !vars.is_empty() => {
            let v = rng.pick(vars);
            let a = rng.range(1, 7);
            let c = rng.range(0, 9);
            format!("({} * {a} + {c}) % {len}", v.name)
        }
        _ => rng.below(len).to_string(),
    }
}

/// `i * m + j` when the extents allow it, else a wrapped sum.
fn pair(rng: &mut Rng, vars: &[Var], len: u64) -> String {
    let i = rng.below(vars.len() as u64) as usize;
    let j = (i + 1 + rng.below(vars.len() as u64 - 1) as usize) % vars.len();
    let (a, b) = (&vars[i], &vars[j]);
    if a.extent.saturating_mul(b.extent) <= len {
        format!("{} * {} + {}", a.name, b.extent, b.name)
    } else {
        format!("({} + {}) % {len}", a.name, b.name)
    }
}

/// A term that may fall outside `0..len` (for `v[t] else c`).
pub fn maybe_out(rng: &mut Rng, vars: &[Var], len: u64) -> String {
    let off = rng.range(-4, 4) + if rng.chance(0.3) { len as i64 } else { 0 };
    let base = match vars.is_empty() {
        true => return off.to_string(),
        false => rng.pick(vars).name.clone(),
    };
    match off {
        0 => format!("{base} * 2"),
        o if o < 0 => format!("{base} - {}", -o),
        o => format!("{base} + {o}"),
    }
}
