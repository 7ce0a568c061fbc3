//! Expressions of a requested type, built top-down with a depth and work budget.

use super::elem::E;
use super::rng::Rng;
use super::term::{self, Var};

/// Product of the extents on one path (interpreter work per element).
const WORK_CAP: u64 = 20_000;

/// A vector in scope; `exact` when last-bit differences cannot occur in it
/// (inputs and integer values), so conditions and casts may read it.
#[derive(Clone, Debug)]
pub struct VecInfo {
    pub name: String,
    pub elem: E,
    pub len: u64,
    pub exact: bool,
}

#[derive(Clone, Debug, Default)]
pub struct Env {
    pub vecs: Vec<VecInfo>,
    pub vars: Vec<Var>,
    pub params: Vec<(String, u64)>,
    pub work: u64,
}

impl Env {
    pub fn with_var(&self, name: &str, extent: u64) -> Env {
        let mut env = self.clone();
        env.vars.push(Var {
            name: name.to_string(),
            extent,
        });
        env.work = self.work.max(1) * extent;
        env
    }

    pub(super) fn fits(&self, n: u64) -> bool {
        self.work.max(1) * n <= WORK_CAP
    }
}

/// An element type and a length.
pub type Ty = (E, u64);

#[derive(Debug)]
pub struct Gen {
    pub rng: Rng,
    names: u32,
    /// Whether `f16` values may be drawn.
    f16: bool,
}

impl Gen {
    pub fn new(seed: u64, f16: bool) -> Gen {
        Gen {
            rng: Rng::new(seed),
            names: 0,
            f16,
        }
    }

    pub fn elem(&mut self) -> E {
        match self.rng.below(4) {
            0 | 1 if self.f16 && self.rng.chance(0.3) => E::F16,
            0 | 1 => E::F32,
            2 => E::I32,
            _ => E::U32,
        }
    }

    pub(super) fn fresh(&mut self, base: &str) -> String {
        self.names += 1;
        format!("{base}{}", self.names)
    }

    /// An expression of type `ty`.
    pub fn expr(&mut self, ty: Ty, env: &Env, depth: u32) -> String {
        if depth == 0 {
            return self.leaf(ty, env);
        }
        match self.rng.below(16) {
            0..=3 if ty.1 > 1 || self.rng.chance(0.15) => self.compute(ty, env, depth),
            0..=3 => self.reduce(ty, env, depth),
            4 | 5 if ty.1 == 1 && self.rng.chance(0.3) => self.iterate_expr(ty, env, depth),
            4 | 5 => self.reduce(ty, env, depth),
            6 | 7 => self.let_in(ty, env, depth),
            8..=10 => self.binary(ty, env, depth),
            11 | 12 => self.call(ty, env, depth),
            13 => self.select(ty, env, depth),
            14 => self.cast(ty, env, depth),
            _ => self.leaf(ty, env),
        }
    }

    fn compute(&mut self, ty: Ty, env: &Env, depth: u32) -> String {
        let (elem, len) = ty;
        let i = self.fresh("i");
        let divisors: Vec<u64> = (2..len).filter(|d| len % d == 0).collect();
        if !divisors.is_empty() && self.rng.chance(0.4) {
            let n = *self.rng.pick(&divisors);
            let m = len / n;
            if !env.fits(n) {
                return self.leaf(ty, env);
            }
            let body = self.expr((elem, m), &env.with_var(&i, n), depth - 1);
            let map = match self.rng.chance(0.5) {
                true => {
                    let k = self.fresh("k");
                    format!(" {{{k} -> ({k} % {n}) * {m} + {k} / {n}}}")
                }
                false => String::new(),
            };
            return format!("(compute {n}{map} |{i}| {body})");
        }
        let extra = if self.rng.chance(0.2) {
            self.rng.range(1, 3) as u64
        } else {
            0
        };
        let n = len + extra;
        if !env.fits(n) {
            return self.leaf(ty, env);
        }
        let k = self.fresh("k");
        let map = match (extra, self.rng.below(3)) {
            (0, 0) => format!(" {{{k} -> {} - 1 - {k}}}", len),
            (0, _) => String::new(),
            (_, 0) => format!(" {{{k} < {len} -> {len} - 1 - {k}}}"),
            (_, _) => format!(" {{{k} < {len} -> {k}}}"),
        };
        let size = self.size_text(n, env);
        let body = self.expr((elem, 1), &env.with_var(&i, n), depth - 1);
        format!("(compute {size}{map} |{i}| {body})")
    }

    /// `n`, or a param whose value is `n`.
    fn size_text(&mut self, n: u64, env: &Env) -> String {
        match env.params.iter().find(|p| p.1 == n) {
            Some((name, _)) if self.rng.chance(0.7) => name.clone(),
            _ => n.to_string(),
        }
    }

    fn reduce(&mut self, ty: Ty, env: &Env, depth: u32) -> String {
        let i = self.fresh("i");
        let ops: &[&str] = match ty.0 {
            E::F32 => &["", "+ ", "max ", "min ", "* ", "lse "],
            // An f16 product fold has no error bound yet (never compared).
            E::F16 => &["", "+ ", "max ", "min "],
            _ => &["", "+ ", "max ", "min ", "* "],
        };
        let op = *self.rng.pick(ops);
        let mul_f32 = op == "* " && ty.0 == E::F32;
        // f16 overflows past 65504: short folds of clamped terms.
        let half = ty.0 == E::F16;
        let sizes: &[u64] = if mul_f32 {
            &[1, 2, 3, 4]
        } else if half {
            &[1, 2, 3, 5, 7, 13, 16]
        } else {
            &[1, 2, 3, 5, 7, 13, 16, 64, 257]
        };
        let mut n = *self.rng.pick(sizes);
        while !env.fits(n) && n > 1 {
            n /= 2;
        }
        // A count over an enclosing index (a triangular loop): `n` its largest.
        // (A `max`, `min` or `lse` of no step gives an infinite identity:
        // their counts are at least 1.)
        let may_be_empty = matches!(op, "" | "+ " | "* ");
        let (count, n) = match self.dependent_count(env, may_be_empty) {
            Some((count, max)) if !mul_f32 && env.fits(max) => (count, max),
            _ => (n.to_string(), n),
        };
        let body = self.expr(ty, &env.with_var(&i, n), depth - 1);
        let body = if mul_f32 {
            format!("min(max({body}, -2.0), 2.0)")
        } else if half {
            format!("min(max({body}, -4.0), 4.0)")
        } else {
            body
        };
        format!("(reduce {op}{count} |{i}| {body})")
    }

    /// Sometimes, a `reduce` count over an index variable in scope, and its
    /// largest value (at least 1); a count that may be 0 only when allowed.
    pub(super) fn dependent_count(
        &mut self,
        env: &Env,
        may_be_empty: bool,
    ) -> Option<(String, u64)> {
        let vars: Vec<&Var> = env.vars.iter().filter(|v| v.extent >= 2).collect();
        if vars.is_empty() || !self.rng.chance(0.25) {
            return None;
        }
        let v = (*self.rng.pick(&vars)).clone();
        let e = v.extent;
        let forms = if may_be_empty { 4 } else { 2 };
        Some(match self.rng.below(forms) {
            0 => (format!("{} + 1", v.name), e),
            1 => (format!("{e} - {}", v.name), e),
            2 => (v.name.clone(), e - 1),
            _ => (format!("{} - 1 - {}", e, v.name), e - 1),
        })
    }

    fn let_in(&mut self, ty: Ty, env: &Env, depth: u32) -> String {
        let v = self.fresh("v");
        let elem = self.elem();
        let len = match self.rng.below(3) {
            0 => 1,
            1 => ty.1,
            _ => *self.rng.pick(&[2, 3, 7, 13]),
        };
        let value = self.expr((elem, len), env, depth - 1);
        let mut inner = env.clone();
        inner.vecs.push(VecInfo {
            name: v.clone(),
            elem,
            len,
            exact: !elem.is_float(),
        });
        let body = self.expr(ty, &inner, depth - 1);
        format!("(let {v} = {value} in {body})")
    }

    /// The length of an operand of an elementwise operation of length `len`.
    fn operand_len(&mut self, len: u64) -> u64 {
        if len > 1 && self.rng.chance(0.25) {
            1
        } else {
            len
        }
    }

    /// An operand of an elementwise operation of type `ty` (maybe broadcast).
    fn operand(&mut self, ty: Ty, env: &Env, depth: u32) -> String {
        let len = self.operand_len(ty.1);
        self.expr((ty.0, len), env, depth)
    }

    fn binary(&mut self, ty: Ty, env: &Env, depth: u32) -> String {
        let ops: &[&str] = match ty.0 {
            E::F32 => &["+", "-", "*", "/", "+", "-", "*", "%", "lit"],
            // An f16 remainder has no error bound yet.
            E::F16 => &["+", "-", "*", "/", "+", "-", "*", "lit"],
            _ => &["+", "-", "*", "/", "%", "lit"],
        };
        let op = *self.rng.pick(ops);
        if op == "lit" || (ty.0 == E::F32 && op == "%") {
            // An unsuffixed literal takes the other operand's type.
            let a = self.expr(ty, env, depth - 1);
            return match op {
                // A float remainder jumps by the divisor where the quotient
                // crosses an integer (WGSL's division may round across it):
                // kept below 1 in magnitude, every device agrees.
                "%" => format!("(min(max({a}, -1.4), 1.4) % 1.5)"),
                _ if ty.0 == E::F16 => format!("({a} * {}.0)", self.rng.range(1, 5)),
                _ => format!("({a} * {})", self.rng.range(1, 5)),
            };
        }
        let (la, lb) = match self.rng.chance(0.5) {
            true => (self.operand_len(ty.1), ty.1),
            false => (ty.1, self.operand_len(ty.1)),
        };
        let a = self.expr((ty.0, la), env, depth - 1);
        let b = self.expr((ty.0, lb), env, depth - 1);
        match (ty.0, op) {
            (E::F32 | E::F16, "/") => format!("({a} / (abs({b}) + 1.0))"),
            (E::F16, "*") => format!("min(max({a} * {b}, -64.0), 64.0)"),
            _ => format!("({a} {op} {b})"),
        }
    }

    fn call(&mut self, ty: Ty, env: &Env, depth: u32) -> String {
        let a = self.expr(ty, env, depth - 1);
        if !ty.0.is_float() {
            return match self.rng.below(4) {
                0 => format!("abs({a})"),
                1 if ty.0 == E::I32 => format!("(-({a}))"),
                k => {
                    let b = self.operand(ty, env, depth - 1);
                    let f = if k == 2 { "max" } else { "min" };
                    format!("{f}({a}, {b})")
                }
            };
        }
        match self.rng.below(13) {
            0 => format!("exp(min({a}, 4.0))"),
            1 => format!("log(abs({a}) + 1.0)"),
            2 => format!("sqrt(abs({a}))"),
            3 => format!("rsqrt(abs({a}) + 1.0)"),
            4 => format!("tanh({a})"),
            5 => format!("sin(min(max({a}, -3.0), 3.0))"),
            6 => format!("cos(min(max({a}, -3.0), 3.0))"),
            7 => format!("abs({a})"),
            8 => format!("(-({a}))"),
            k => {
                let b = self.operand(ty, env, depth - 1);
                match k {
                    9 => format!("max({a}, {b})"),
                    10 => format!("min({a}, {b})"),
                    11 => format!("pow(abs({a}) + 0.5, min(max({b}, -2.0), 2.0))"),
                    _ => {
                        let c = self.operand(ty, env, depth - 1);
                        format!("fma({a}, {b}, {c})")
                    }
                }
            }
        }
    }

    fn select(&mut self, ty: Ty, env: &Env, depth: u32) -> String {
        let cond = self.condition(ty.1, env, depth);
        let a = self.operand(ty, env, depth - 1);
        let b = self.expr(ty, env, depth - 1);
        format!("select({cond}, {a}, {b})")
    }

    /// A condition of length `len` (or 1) over exact values: a comparison,
    /// or `&&`, `||`, `!` of them.
    fn condition(&mut self, len: u64, env: &Env, depth: u32) -> String {
        let compare = |g: &mut Gen| {
            let ce = g.elem();
            let (l1, l2) = (g.operand_len(len), g.operand_len(len));
            let c1 = g.exact((ce, l1), env, depth - 1);
            let c2 = g.exact((ce, l2), env, depth - 1);
            let cmp = *g.rng.pick(&["<", "<=", ">", ">=", "==", "!="]);
            format!("{c1} {cmp} {c2}")
        };
        let c = compare(self);
        match self.rng.below(8) {
            0 => format!("{c} && {}", compare(self)),
            1 => format!("{c} || {}", compare(self)),
            2 => format!("!({c})"),
            3 => format!("!({c}) && ({} || {})", compare(self), compare(self)),
            _ => c,
        }
    }

    /// A value without rounding differences: integers, or exact float leaves.
    fn exact(&mut self, ty: Ty, env: &Env, depth: u32) -> String {
        match ty.0 {
            E::F32 | E::F16 => {
                let exact_env = Env {
                    vecs: env.vecs.iter().filter(|v| v.exact).cloned().collect(),
                    ..env.clone()
                };
                self.leaf(ty, &exact_env)
            }
            _ => self.expr(ty, env, depth.min(2)),
        }
    }

    fn cast(&mut self, ty: Ty, env: &Env, depth: u32) -> String {
        match ty.0 {
            // Widening is exact; narrowing rounds once.
            E::F32 if self.f16 && self.rng.chance(0.3) => {
                let a = self.expr((E::F16, ty.1), env, depth - 1);
                format!("f32({a})")
            }
            E::F16 if self.rng.chance(0.5) => {
                let a = self.expr((E::F32, ty.1), env, depth - 1);
                format!("f16(min(max({a}, -1000.0), 1000.0))")
            }
            float if float.is_float() => {
                let (src, m) = if self.rng.chance(0.5) {
                    (E::I32, "1024i")
                } else {
                    (E::U32, "1024u")
                };
                let a = self.expr((src, ty.1), env, depth - 1);
                format!("{}({a} % {m})", float.name())
            }
            int => {
                let other = if int == E::I32 { E::U32 } else { E::I32 };
                if self.rng.chance(0.5) {
                    let a = self.expr((other, ty.1), env, depth - 1);
                    format!("{}({a})", int.name())
                } else {
                    // Scaling by a power of two keeps an exact float exact.
                    let a = self.exact((E::F32, ty.1), env, depth - 1);
                    format!("{}({a} * 64.0)", int.name())
                }
            }
        }
    }
}

impl Gen {
    /// A read, literal, index variable, fill, vector literal or broadcast of type `ty`.
    fn leaf(&mut self, ty: Ty, env: &Env) -> String {
        let (elem, len) = ty;
        if len == 1 {
            return self.scalar_leaf(elem, env);
        }
        let whole: Vec<&VecInfo> = env
            .vecs
            .iter()
            .filter(|v| v.elem == elem && v.len == len)
            .collect();
        match self.rng.below(6) {
            0 if !whole.is_empty() => self.rng.pick(&whole).name.clone(),
            1 => format!("fill({}, {len})", self.lit(elem)),
            2 if len <= 5 => {
                let items: Vec<String> = (0..len).map(|_| self.lit(elem)).collect();
                format!("[{}]", items.join(", "))
            }
            3 => format!("broadcast({}, {len})", self.scalar_leaf(elem, env)),
            _ if env.fits(len) => {
                let i = self.fresh("i");
                let body = self.scalar_leaf(elem, &env.with_var(&i, len));
                format!("(compute {len} |{i}| {body})")
            }
            _ => format!("fill({}, {len})", self.lit(elem)),
        }
    }

    fn scalar_leaf(&mut self, elem: E, env: &Env) -> String {
        let readable: Vec<&VecInfo> = env.vecs.iter().filter(|v| v.elem == elem).collect();
        match self.rng.below(8) {
            0..=4 if !readable.is_empty() => {
                let v = (*self.rng.pick(&readable)).clone();
                self.read(&v, env)
            }
            4 | 5 if !env.vars.is_empty() => {
                let var = self.rng.pick(&env.vars).name.clone();
                match elem {
                    E::I32 => var,
                    other => format!("{}({var})", other.name()),
                }
            }
            6 if !env.params.is_empty() => {
                let p = self.rng.pick(&env.params).0.clone();
                match elem {
                    E::I32 => p,
                    other => format!("{}({p})", other.name()),
                }
            }
            _ => self.lit(elem),
        }
    }

    /// `v[t]` with a provable index, or a guarded read that may fall outside.
    fn read(&mut self, v: &VecInfo, env: &Env) -> String {
        if self.rng.chance(0.25) {
            let t = term::maybe_out(&mut self.rng, &env.vars, v.len);
            return format!("{}[{t}] else {}", v.name, self.lit(v.elem));
        }
        let t = term::in_bounds(&mut self.rng, &env.vars, v.len);
        format!("{}[{t}]", v.name)
    }

    fn lit(&mut self, elem: E) -> String {
        match elem {
            E::F32 => self
                .rng
                .pick(&[
                    "0.5", "1.0", "2.0", "0.25", "-1.5", "3.0", "1e-3", "0.0", "-0.75",
                ])
                .to_string(),
            E::I32 => format!("{}i", self.rng.range(-9, 9)),
            E::U32 => format!("{}u", self.rng.range(0, 20)),
            E::F16 => self
                .rng
                .pick(&[
                    "0.5h", "1.0h", "2.0h", "0.25h", "-1.5h", "3.0h", "0.125h", "0.0h", "-0.75h",
                ])
                .to_string(),
        }
    }
}
