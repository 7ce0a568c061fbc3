//! Outputs written with levels by hand: grid / group / thread computes, group
//! reductions, `let@shared` and `let@reg` (the scheduler keeps legal levels).

use super::expr::{Env, Gen, Ty, VecInfo};

/// Invocations per workgroup that every device allows.
const MAX_GROUP: u64 = 256;

impl Gen {
    /// An expression of type `ty` whose outer levels are written out.
    pub fn leveled(&mut self, ty: Ty, env: &Env) -> String {
        let (elem, len) = ty;
        let m = self.group_size(len);
        let n = len / m;
        let g = self.fresh("g");
        let outer = env.with_var(&g, n);
        match self.rng.below(4) {
            0 => {
                let k = *self.rng.pick(&[2, 3, 8, 16, 64]);
                let r = self.fresh("r");
                let grid = env.with_var(&g, len);
                let body = self.expr((elem, 1), &grid.with_var(&r, k), 2);
                format!("compute@grid {len} |{g}| reduce@group {k} |{r}| {body}")
            }
            1 => {
                let (l, s, l2) = (self.fresh("l"), self.fresh("s"), self.fresh("l"));
                let se = self.elem();
                let value = self.expr((se, 1), &outer.with_var(&l, m), 2);
                let mut inner = outer.clone();
                inner.vecs.push(VecInfo {
                    name: s.clone(),
                    elem: se,
                    len: m,
                    exact: !se.is_float(),
                });
                let body = self.expr((elem, 1), &inner.with_var(&l2, m), 2);
                format!(
                    "compute@grid {n} |{g}| let@shared {s} = compute@group {m} |{l}| {value} in compute@group {m} |{l2}| {body}"
                )
            }
            2 => {
                let (l, r) = (self.fresh("l"), self.fresh("r"));
                let k = *self.rng.pick(&[1, 3, 7]);
                let body = self.expr((elem, 1), &outer.with_var(&l, m).with_var(&r, k), 2);
                format!(
                    "compute@grid {n} |{g}| compute@group {m} |{l}| reduce@thread {k} |{r}| {body}"
                )
            }
            _ => {
                let l = self.fresh("l");
                let body = self.expr((elem, 1), &outer.with_var(&l, m), 3);
                format!("compute@grid {n} |{g}| compute@group {m} |{l}| {body}")
            }
        }
    }

    /// A divisor of `len` no larger than [`MAX_GROUP`].
    fn group_size(&mut self, len: u64) -> u64 {
        let divisors: Vec<u64> = (1..=len.min(MAX_GROUP))
            .filter(|d| len.is_multiple_of(*d))
            .collect();
        *self.rng.pick(&divisors)
    }
}
