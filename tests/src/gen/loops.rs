//! Loops for the generator: an `iterate` of one or two states over a few
//! steps, its block's `let`s and results drawn like any expression (a
//! result now and then an update in place of part of its state), the
//! step an index variable of the body, and now and then a loop inside it;
//! and `iterate` inside an expression, over one or two scalar states, its
//! count sometimes an enclosing index.
//!
//! Float states are clamped to `[-4, 4]` at every step (as products are), so
//! a loop's values stay finite and comparable however many steps it runs;
//! integer states wrap exactly.

use std::fmt::Write as _;

use super::elem::E;
use super::expr::{Env, Gen, Ty, VecInfo};

/// A value of type `ty` bounded for another step: float ones clamped.
fn bounded(ty: Ty, e: String) -> String {
    match ty.0 {
        E::F32 | E::F16 => format!("min(max({e}, -4.0), 4.0)"),
        _ => e,
    }
}

impl Gen {
    /// A loop item (`let` of its states) written to `out` at indentation
    /// `ind`; `env` gains its final states. `nest`: whether its block may
    /// hold a loop of its own.
    pub fn loop_item(&mut self, out: &mut String, env: &mut Env, ind: usize, nest: bool) {
        let pad = " ".repeat(ind);
        let steps = self.rng.below(5);
        let n_states = 1 + self.rng.below(2) as usize;
        let mut states: Vec<(String, Ty)> = Vec::new();
        let mut inits = Vec::new();
        for _ in 0..n_states {
            let ty = self.state_ty(env);
            let name = self.fresh("s");
            // An existing vector of the type as it is, else an expression.
            let same: Vec<String> = (env.vecs.iter())
                .filter(|v| v.elem == ty.0 && v.len == ty.1)
                .map(|v| v.name.clone())
                .collect();
            let init = match same.is_empty() || self.rng.chance(0.4) {
                true => bounded(ty, self.expr(ty, env, 2)),
                false => self.rng.pick(&same).clone(),
            };
            states.push((name, ty));
            inits.push(init);
        }
        let step = self.fresh("t");
        let mut body = env.with_var(&step, steps.max(1));
        for (name, ty) in &states {
            body.vecs.push(VecInfo {
                name: name.clone(),
                elem: ty.0,
                len: ty.1,
                exact: !ty.0.is_float(),
            });
        }
        let tuple = |xs: Vec<String>| match xs.len() {
            1 => xs[0].clone(),
            _ => format!("({})", xs.join(", ")),
        };
        let names = tuple(states.iter().map(|s| s.0.clone()).collect());
        let inits = tuple(inits);
        let binders: Vec<String> = states.iter().map(|s| s.0.clone()).collect();
        let _ = writeln!(
            out,
            "{pad}let {names} = iterate {steps} from {inits} |{}, {step}| {{",
            binders.join(", ")
        );
        // The block: lets (perhaps an inner loop), then the results.
        let mut lets: Vec<(String, Ty)> = Vec::new();
        for _ in 0..self.rng.below(3) {
            if nest && self.rng.chance(0.2) {
                self.loop_item(out, &mut body, ind + 4, false);
                continue;
            }
            let ty = match self.rng.chance(0.6) {
                true => states[self.rng.below(states.len() as u64) as usize].1,
                false => self.state_ty(&body),
            };
            let name = self.fresh("b");
            let value = bounded(ty, self.expr(ty, &body, 3));
            let _ = writeln!(out, "{pad}    let {name} = {value}");
            body.vecs.push(VecInfo {
                name: name.clone(),
                elem: ty.0,
                len: ty.1,
                exact: !ty.0.is_float(),
            });
            lets.push((name, ty));
        }
        let results: Vec<String> = (states.iter())
            .map(|(name, ty)| {
                if self.rng.chance(0.3) {
                    return self.update(name, *ty, &body, &step);
                }
                let named: Vec<&String> = (lets.iter())
                    .filter(|(_, t)| t == ty)
                    .map(|(n, _)| n)
                    .collect();
                match named.is_empty() || self.rng.chance(0.5) {
                    true => bounded(*ty, self.expr(*ty, &body, 3)),
                    false => (*self.rng.pick(&named)).clone(),
                }
            })
            .collect();
        let _ = writeln!(out, "{pad}    yield {}", tuple(results));
        let _ = writeln!(out, "{pad}}}");
        for (name, ty) in states {
            env.vecs.push(VecInfo {
                name,
                elem: ty.0,
                len: ty.1,
                exact: !ty.0.is_float(),
            });
        }
    }

    /// State `name`'s result as an update in place: one element, half the
    /// state or all of it, from a place that moves with the step `step`
    /// and stays inside the state.
    fn update(&mut self, name: &str, ty: Ty, body: &Env, step: &str) -> String {
        let len = *self.rng.pick(&[1, (ty.1 / 2).max(1), ty.1]);
        let value = bounded((ty.0, len), self.expr((ty.0, len), body, 3));
        let room = ty.1 - len + 1;
        let at = match room {
            1 => "0".to_string(),
            _ => format!(
                "({step} * {} + {}) % {room}",
                1 + self.rng.below(3),
                self.rng.below(room)
            ),
        };
        format!("{name} with [{at}] = {value}")
    }

    /// A scalar of type `ty` computed by a loop inside the expression: one
    /// or two scalar states (the first of type `ty`), a few steps or a count
    /// over an enclosing index, next values drawn like any expression.
    pub(super) fn iterate_expr(&mut self, ty: Ty, env: &Env, depth: u32) -> String {
        let mut n = *self.rng.pick(&[0, 1, 2, 3, 5, 8]);
        while !env.fits(n) && n > 1 {
            n /= 2;
        }
        let (count, n) = match self.dependent_count(env, true) {
            Some((count, max)) if max <= 16 && env.fits(max) => (count, max),
            _ => (n.to_string(), n),
        };
        let k = 1 + self.rng.below(2);
        let states: Vec<(String, Ty)> = (0..k)
            .map(|j| {
                let st = if j == 0 { ty } else { (self.elem(), 1) };
                (self.fresh("s"), st)
            })
            .collect();
        let inits: Vec<String> = (states.iter())
            .map(|(_, st)| bounded(*st, self.expr(*st, env, depth - 1)))
            .collect();
        let step = self.fresh("t");
        let mut body = env.with_var(&step, n.max(1));
        for (name, st) in &states {
            body.vecs.push(VecInfo {
                name: name.clone(),
                elem: st.0,
                len: 1,
                exact: !st.0.is_float(),
            });
        }
        let nexts: Vec<String> = (states.iter())
            .map(|(_, st)| bounded(*st, self.expr(*st, &body, depth - 1)))
            .collect();
        let tuple = |xs: Vec<String>| match xs.len() {
            1 => xs[0].clone(),
            _ => format!("({})", xs.join(", ")),
        };
        let binders: Vec<String> = states.iter().map(|s| s.0.clone()).collect();
        format!(
            "(iterate {count} from {} |{}, {step}| {})",
            tuple(inits),
            binders.join(", "),
            tuple(nexts)
        )
    }

    /// A state's type: mostly one a vector in scope has, small.
    fn state_ty(&mut self, env: &Env) -> Ty {
        let small: Vec<Ty> = (env.vecs.iter())
            .filter(|v| v.len <= 257)
            .map(|v| (v.elem, v.len))
            .collect();
        match small.is_empty() || self.rng.chance(0.3) {
            true => (self.elem(), *self.rng.pick(&[1, 3, 8, 17, 64])),
            false => *self.rng.pick(&small),
        }
    }
}
