//! Shorthands over the IR toolkit's constructors (`texpr_ir::build`)
//! for hand-made, unscheduled programs (the interpreter is tested before,
//! and independently of, the parser and checker).

use texpr_ir::build;
use texpr_ir::*;
use texpr_ir::{BinOp, ElemTy, ReduceOp};

pub use texpr_ir::build::{tb, tc, tv};

/// A program under construction.
#[derive(Debug)]
pub struct B {
    pub p: Program,
}

impl B {
    pub fn new() -> B {
        B {
            p: build::program(),
        }
    }

    pub fn input(&mut self, name: &str, elem: ElemTy, len: u64) -> VecRef {
        build::input(&mut self.p, name, elem, len)
    }

    /// An index variable ranging over `0..extent`.
    pub fn ivar(&mut self, name: &str, extent: u64) -> VarId {
        build::index(&mut self.p, name, extent)
    }

    /// A `let`-bound vector variable of type `ty`.
    pub fn lvar(&mut self, name: &str, ty: Ty) -> VarId {
        build::vector(&mut self.p, name, ty)
    }

    pub fn global(&mut self, name: &str, value: Expr) -> VecRef {
        build::global(&mut self.p, name, value)
    }

    pub fn output(&mut self, name: &str, value: Expr) {
        build::output(&mut self.p, name, value)
    }

    /// `v[t]`
    pub fn read(&self, v: VecRef, t: Term) -> Expr {
        build::read(&self.p, v, t)
    }

    /// `v[t] else g`
    pub fn guarded(&self, v: VecRef, t: Term, g: Scalar) -> Expr {
        build::read_else(&self.p, v, t, g)
    }

    /// `v` as a whole vector.
    pub fn whole(&self, v: VecRef) -> Expr {
        build::whole(&self.p, v)
    }
}

pub fn konst(s: Scalar) -> Expr {
    build::konst(s)
}

pub fn cf(x: f32) -> Expr {
    konst(Scalar::F32(x))
}

pub fn ci(x: i32) -> Expr {
    konst(Scalar::I32(x))
}

pub fn cu(x: u32) -> Expr {
    konst(Scalar::U32(x))
}

pub fn fill(s: Scalar, n: u64) -> Expr {
    build::fill(s, n)
}

pub fn veclit(xs: &[Scalar]) -> Expr {
    build::veclit(xs.to_vec())
}

pub fn index_var(v: VarId) -> Expr {
    build::var_value(v)
}

pub fn compute(n: u64, var: VarId, body: Expr) -> Expr {
    build::compute(None, n, var, body)
}

/// `compute n {k < len -> term} |var| body`
pub fn compute_map(n: u64, var: VarId, k: VarId, len: u64, term: Term, body: Expr) -> Expr {
    build::compute_map(
        None,
        n,
        var,
        IndexMap {
            var: k,
            len,
            kind: MapKind::Term(term),
        },
        body,
    )
}

pub fn reduce(op: ReduceOp, n: u64, var: VarId, body: Expr) -> Expr {
    build::reduce(None, op, n, var, body)
}

pub fn let_in(var: VarId, value: Expr, body: Expr) -> Expr {
    build::let_(None, var, value, body)
}

pub fn bin(op: BinOp, a: Expr, b: Expr) -> Expr {
    build::binary(op, a, b)
}

pub fn un(op: UnaryOp, a: Expr) -> Expr {
    build::unary(op, a)
}

pub fn cast(to: ElemTy, a: Expr) -> Expr {
    build::cast(a, to)
}

pub fn call(f: Func, args: Vec<Expr>) -> Expr {
    build::call(f, args)
}

pub fn bcast(a: Expr, n: u64) -> Expr {
    build::broadcast(a, n)
}

/// A program with one output `out = e` and no inputs.
pub fn just(e: Expr) -> Program {
    let mut b = B::new();
    b.output("out", e);
    b.p
}

/// Evaluates a program without inputs and returns its one output.
pub fn run1(e: Expr) -> texpr_interp::Value {
    let mut outs = texpr_interp::eval(&just(e), &[]).expect("evaluates");
    outs.remove(0)
}
