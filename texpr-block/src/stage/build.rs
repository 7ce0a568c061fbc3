//! Block bodies built as IR: a TExpr program under construction, over
//! `texpr_ir::build`, for the stages and the dense reference.
//!
//! [`Body`] binds variables by the names the kernels use (siblings may
//! share one), puts each global in the loop being built, and names the
//! globals a loop makes (its state's initial and next values) as the
//! checker names them; [`Body::finish`] numbers variables in binding order.
//! A body is so the program the checker would make of the same kernel
//! written as text, and every body is `f32`.

use crate::air::Dims;
use texpr_ir::{
    self as ir, BinOp, ElemTy, Expr, ExprKind, Func, LoopId, ReduceOp, Scalar, Term, TermOp,
    UnaryOp, VarId, VarKind, VecRef, build as b, term,
};
use texpr_syntax::check::canonicalize;

/// Where a value goes: a `let` of that name (a global, or a loop's state),
/// or the output of that name.
#[derive(Clone, Copy, Debug)]
pub enum Bind<'a> {
    Let(&'a str),
    Output(&'a str),
}

impl Bind<'_> {
    fn name(&self) -> &str {
        match self {
            Bind::Let(n) | Bind::Output(n) => n,
        }
    }
}

/// A program being built.
#[derive(Debug)]
pub struct Body {
    p: ir::Program,
    /// The loop whose globals are being built.
    within: Option<LoopId>,
    /// Globals and states named for a loop (or a block's `let` named as
    /// another's), renamed apart from every other name by [`Body::finish`].
    made_globals: Vec<usize>,
    made_states: Vec<usize>,
}

impl Default for Body {
    fn default() -> Body {
        Body {
            p: b::program(),
            within: None,
            made_globals: Vec::new(),
            made_states: Vec::new(),
        }
    }
}

impl Body {
    /// `input name: f32[len]`
    pub fn input(&mut self, name: &str, len: u64) -> VecRef {
        b::input(&mut self.p, name, ElemTy::F32, len)
    }

    fn index(&mut self, name: &str, extent: u64) -> VarId {
        b::named_var(&mut self.p, name, VarKind::Index { extent })
    }

    /// `compute n |name| f(name)`
    pub fn compute(
        &mut self,
        n: u64,
        name: &str,
        f: impl FnOnce(&mut Body, VarId) -> Expr,
    ) -> Expr {
        let v = self.index(name, n);
        let body = f(self, v);
        b::compute(None, n, v, body)
    }

    /// `compute cols |j| compute rows |i| f(i, j)`: a column-major tile.
    pub fn tile(
        &mut self,
        (rows, cols): (u64, u64),
        f: impl FnOnce(&mut Body, VarId, VarId) -> Expr,
    ) -> Expr {
        self.compute(cols, "j", |s, j| s.compute(rows, "i", |s, i| f(s, i, j)))
    }

    /// The index variables `(i, j)` of a tile of `dims`, for [`Body::tile_of`].
    pub fn tile_vars(&mut self, dims: Dims) -> (VarId, VarId) {
        (self.index("i", dims.rows), self.index("j", dims.cols))
    }

    /// `compute cols |j| compute rows |i| expr` over [`Body::tile_vars`].
    pub fn tile_of(&self, dims: Dims, (i, j): (VarId, VarId), expr: Expr) -> Expr {
        b::compute(None, dims.cols, j, b::compute(None, dims.rows, i, expr))
    }

    /// `reduce op n |name| f(name)`
    pub fn reduce(
        &mut self,
        op: ReduceOp,
        n: u64,
        name: &str,
        f: impl FnOnce(&mut Body, VarId) -> Expr,
    ) -> Expr {
        let v = self.index(name, n);
        let body = f(self, v);
        b::reduce(None, op, n, v, body)
    }

    /// `reduce + steps |name| f(name)`: the first `steps` terms (a term over
    /// enclosing index variables, at most `n`).
    pub fn reduce_steps(
        &mut self,
        n: u64,
        steps: Term,
        name: &str,
        f: impl FnOnce(&mut Body, VarId) -> Expr,
    ) -> Expr {
        let v = self.index(name, n);
        let body = f(self, v);
        b::reduce_steps(None, ReduceOp::Add, n, steps, v, body)
    }

    /// `let name = value in f(name)`
    pub fn let_in(
        &mut self,
        name: &str,
        value: Expr,
        f: impl FnOnce(&mut Body, Expr) -> Expr,
    ) -> Expr {
        let v = b::named_var(&mut self.p, name, VarKind::Vector(value.ty));
        let read = b::whole(&self.p, VecRef::Local(v));
        let body = f(self, read);
        b::let_(None, v, value, body)
    }

    /// `let name = value` (of the loop being built, if any).
    pub fn global(&mut self, name: &str, value: Expr) -> VecRef {
        if self.within.is_some() && self.p.globals.iter().any(|g| g.name == name) {
            self.made_globals.push(self.p.globals.len());
        }
        b::global_within(&mut self.p, name, value, self.within)
    }

    fn made_global(&mut self, name: &str, value: Expr) -> VecRef {
        self.made_globals.push(self.p.globals.len());
        b::global_within(&mut self.p, name, value, self.within)
    }

    /// `value` bound as `bind` says.
    pub fn bind(&mut self, bind: Bind, value: Expr) {
        match bind {
            Bind::Let(name) => {
                self.global(name, value);
            }
            Bind::Output(name) => b::output(&mut self.p, name, value),
        }
    }

    /// A whole vector as a value.
    pub fn whole(&self, v: VecRef) -> Expr {
        b::whole(&self.p, v)
    }

    /// `iterate count from init |state, step| { ... yield next }` bound as
    /// `bind` says, one state; `body(state, step)` makes the block's `let`s
    /// and returns the next value. Returns the state (its final value
    /// after the loop).
    pub fn iterate(
        &mut self,
        bind: Bind,
        count: u64,
        init: Expr,
        step: &str,
        body: impl FnOnce(&mut Body, VecRef, VarId) -> Expr,
    ) -> VecRef {
        let init = match init.kind {
            ExprKind::Whole(v @ (VecRef::Input(_) | VecRef::Global(_))) => v,
            _ => self.made_global(&format!("{}_init", bind.name()), init),
        };
        let step = self.index(step, count.max(1));
        let l = b::iterate(&mut self.p, count, step, self.within);
        let (name, made) = match bind {
            Bind::Output(n) => (format!("{n}_state"), true),
            Bind::Let(n) => (n.to_string(), self.within.is_some()),
        };
        let state = b::state(&mut self.p, &name, l, init);
        if made {
            self.made_states.push(self.p.states.len() - 1);
        }
        let outer = self.within.replace(l);
        let result = body(self, state, step);
        let next = match result.kind {
            ExprKind::Whole(VecRef::Global(g)) if self.p.globals[g as usize].within == Some(l) => {
                VecRef::Global(g)
            }
            _ => self.made_global(&format!("{name}_next"), result),
        };
        b::yield_(&mut self.p, state, next);
        self.within = outer;
        if let Bind::Output(n) = bind {
            let value = self.whole(state);
            b::output(&mut self.p, n, value);
        }
        state
    }

    /// The program: the names made for loops taken apart from every other
    /// (`base`, else `base_1`, `base_2`, ...), variables in binding order.
    pub fn finish(mut self) -> ir::Program {
        let p = &mut self.p;
        let mut taken = std::collections::BTreeSet::new();
        taken.extend(p.inputs.iter().map(|i| i.name.clone()));
        taken.extend(p.outputs.iter().map(|o| o.name.clone()));
        taken.extend(p.vars.iter().map(|v| v.name.clone()));
        let kept = |made: &[usize], k: usize| !made.contains(&k);
        for (k, g) in p.globals.iter().enumerate() {
            if kept(&self.made_globals, k) {
                taken.insert(g.name.clone());
            }
        }
        for (k, s) in p.states.iter().enumerate() {
            if kept(&self.made_states, k) {
                taken.insert(s.name.clone());
            }
        }
        let mut fresh = |base: &str| {
            let mut name = base.to_string();
            let mut k = 1;
            while taken.contains(&name) {
                name = format!("{base}_{k}");
                k += 1;
            }
            taken.insert(name.clone());
            name
        };
        for &g in &self.made_globals {
            p.globals[g].name = fresh(&p.globals[g].name);
        }
        for &s in &self.made_states {
            p.states[s].name = fresh(&p.states[s].name);
        }
        canonicalize(p)
    }
}

/// An `f32` literal.
pub fn lit(x: f32) -> Expr {
    b::f32c(x)
}

/// An `i32` literal (beside an index variable used as a value).
pub fn int(c: u64) -> Expr {
    b::konst(Scalar::I32(c as i32))
}

/// An index variable as an `i32` value.
pub fn at(v: VarId) -> Expr {
    b::var_value(v)
}

pub fn bin(op: BinOp, a: Expr, c: Expr) -> Expr {
    b::binary(op, a, c)
}

pub fn add(a: Expr, c: Expr) -> Expr {
    bin(BinOp::Add, a, c)
}

pub fn sub(a: Expr, c: Expr) -> Expr {
    bin(BinOp::Sub, a, c)
}

pub fn mul(a: Expr, c: Expr) -> Expr {
    bin(BinOp::Mul, a, c)
}

pub fn div(a: Expr, c: Expr) -> Expr {
    bin(BinOp::Div, a, c)
}

/// `a && c`
pub fn and(a: Expr, c: Expr) -> Expr {
    bin(BinOp::And, a, c)
}

/// `-x`; of a literal, the negative literal (as `-0.5` reads).
pub fn neg(x: Expr) -> Expr {
    match x.kind {
        ExprKind::Const(Scalar::F32(c)) if !c.is_sign_negative() => lit(-c),
        _ => b::unary(UnaryOp::Neg, x),
    }
}

pub fn unary(op: UnaryOp, x: Expr) -> Expr {
    b::unary(op, x)
}

/// `f(a, c)` for `max`, `min` and `pow`.
pub fn call(f: Func, a: Expr, c: Expr) -> Expr {
    b::call(f, vec![a, c])
}

/// `select(cond, a, c)`
pub fn select(cond: Expr, a: Expr, c: Expr) -> Expr {
    b::call(Func::Select, vec![cond, a, c])
}

/// `fill(0.0, len)`
pub fn zeros(len: u64) -> Expr {
    b::fill(Scalar::F32(0.0), len)
}

/// `v[t]` of an `f32` vector.
pub fn read(v: VecRef, t: Term) -> Expr {
    b::read_of(v, t, ElemTy::F32)
}

/// `v[t] else 0.0`
pub fn read_else(v: VecRef, t: Term) -> Expr {
    let mut e = read(v, t);
    if let ExprKind::Index { guard, .. } = &mut e.kind {
        *guard = Some(Scalar::F32(0.0));
    }
    e
}

/// Index terms: a variable, a constant, `a op c`.
pub fn tv(v: VarId) -> Term {
    term::var(v)
}

pub fn tc(c: i64) -> Term {
    term::constant(c)
}

pub fn tadd(a: Term, c: Term) -> Term {
    term::bin(TermOp::Add, a, c)
}

pub fn tsub(a: Term, c: Term) -> Term {
    term::bin(TermOp::Sub, a, c)
}

pub fn tmul(a: Term, c: Term) -> Term {
    term::bin(TermOp::Mul, a, c)
}

pub fn tdiv(a: Term, c: Term) -> Term {
    term::bin(TermOp::Div, a, c)
}

pub fn trem(a: Term, c: Term) -> Term {
    term::bin(TermOp::Rem, a, c)
}

/// `a + c * m`: element `(a, c)` of a column-major matrix of `m` rows.
pub fn cm(a: Term, c: Term, m: u64) -> Term {
    tadd(a, tmul(c, tc(m as i64)))
}

/// `v + d`, over an index term `v`.
pub fn offset(v: Term, d: i64) -> Term {
    match d {
        0 => v,
        d if d > 0 => tadd(v, tc(d)),
        d => tsub(v, tc(-d)),
    }
}
