//! A tiny builder for hand-made typed IR programs (the interpreter is tested
//! before, and independently of, the parser and checker).

use texpr_syntax::Span;
use texpr_syntax::ast::{ElemTy, ReduceOp, TermOp};
use texpr_syntax::ir::*;

const S: Span = Span::DUMMY;

/// A program under construction.
#[derive(Debug)]
pub struct B {
    pub p: Program,
}

impl B {
    pub fn new() -> B {
        B {
            p: Program {
                params: Vec::new(),
                inputs: Vec::new(),
                globals: Vec::new(),
                outputs: Vec::new(),
                vars: Vec::new(),
                names: Default::default(),
            },
        }
    }

    pub fn input(&mut self, name: &str, elem: ElemTy, len: u64) -> VecRef {
        self.p.inputs.push(Input {
            name: name.into(),
            ty: Ty::new(elem, len),
            span: S,
        });
        VecRef::Input(self.p.inputs.len() as u32 - 1)
    }

    /// An index variable ranging over `0..extent`.
    pub fn ivar(&mut self, name: &str, extent: u64) -> VarId {
        self.p.fresh_var(name, VarKind::Index { extent }, S)
    }

    /// A `let`-bound vector variable of type `ty`.
    pub fn lvar(&mut self, name: &str, ty: Ty) -> VarId {
        self.p.fresh_var(name, VarKind::Vector(ty), S)
    }

    pub fn global(&mut self, name: &str, value: Expr) -> VecRef {
        self.p.globals.push(Global {
            name: name.into(),
            level: None,
            value,
            span: S,
        });
        VecRef::Global(self.p.globals.len() as u32 - 1)
    }

    pub fn output(&mut self, name: &str, value: Expr) {
        self.p.outputs.push(Output {
            name: name.into(),
            value,
            span: S,
        });
    }

    /// `v[t]`
    pub fn read(&self, v: VecRef, t: Term) -> Expr {
        let elem = self.p.vec_ty(v).elem;
        ex(
            ExprKind::Index {
                vec: v,
                index: t,
                guard: None,
            },
            elem,
            1,
        )
    }

    /// `v[t] else g`
    pub fn guarded(&self, v: VecRef, t: Term, g: Scalar) -> Expr {
        let elem = self.p.vec_ty(v).elem;
        ex(
            ExprKind::Index {
                vec: v,
                index: t,
                guard: Some(g),
            },
            elem,
            1,
        )
    }

    /// `v` as a whole vector.
    pub fn whole(&self, v: VecRef) -> Expr {
        let ty = self.p.vec_ty(v);
        ex(ExprKind::Whole(v), ty.elem, ty.len)
    }
}

pub fn ex(kind: ExprKind, elem: ElemTy, len: u64) -> Expr {
    Expr {
        kind,
        ty: Ty::new(elem, len),
        span: S,
    }
}

pub fn tc(c: i64) -> Term {
    Term {
        kind: TermKind::Const(c),
        span: S,
    }
}

pub fn tv(v: VarId) -> Term {
    Term {
        kind: TermKind::Var(v),
        span: S,
    }
}

pub fn tb(op: TermOp, a: Term, b: Term) -> Term {
    Term {
        kind: TermKind::Binary(op, Box::new(a), Box::new(b)),
        span: S,
    }
}

pub fn konst(s: Scalar) -> Expr {
    ex(ExprKind::Const(s), s.elem(), 1)
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
    ex(ExprKind::Fill(s), s.elem(), n)
}

pub fn veclit(xs: &[Scalar]) -> Expr {
    ex(ExprKind::VecLit(xs.to_vec()), xs[0].elem(), xs.len() as u64)
}

pub fn index_var(v: VarId) -> Expr {
    ex(ExprKind::IndexVar(v), ElemTy::I32, 1)
}

pub fn compute(n: u64, var: VarId, body: Expr) -> Expr {
    let ty = body.ty;
    let kind = ExprKind::Compute {
        level: None,
        n,
        var,
        map: None,
        body: Box::new(body),
    };
    ex(kind, ty.elem, n * ty.len)
}

/// `compute n {k < len -> term} |var| body`
pub fn compute_map(n: u64, var: VarId, k: VarId, len: u64, term: Term, body: Expr) -> Expr {
    let elem = body.ty.elem;
    let map = Some(IndexMap { var: k, len, term });
    let kind = ExprKind::Compute {
        level: None,
        n,
        var,
        map,
        body: Box::new(body),
    };
    ex(kind, elem, len)
}

pub fn reduce(op: ReduceOp, n: u64, var: VarId, body: Expr) -> Expr {
    let ty = body.ty;
    let kind = ExprKind::Reduce {
        level: None,
        op,
        n,
        var,
        body: Box::new(body),
    };
    ex(kind, ty.elem, ty.len)
}

pub fn let_in(var: VarId, value: Expr, body: Expr) -> Expr {
    let ty = body.ty;
    let kind = ExprKind::Let {
        level: None,
        var,
        value: Box::new(value),
        body: Box::new(body),
    };
    ex(kind, ty.elem, ty.len)
}

pub fn bin(op: BinOp, a: Expr, b: Expr) -> Expr {
    let elem = if op.is_comparison() {
        ElemTy::Bool
    } else {
        a.ty.elem
    };
    let len = a.ty.len;
    ex(ExprKind::Binary(op, Box::new(a), Box::new(b)), elem, len)
}

pub fn un(op: UnaryOp, a: Expr) -> Expr {
    let ty = a.ty;
    ex(ExprKind::Unary(op, Box::new(a)), ty.elem, ty.len)
}

pub fn cast(to: ElemTy, a: Expr) -> Expr {
    let len = a.ty.len;
    ex(ExprKind::Cast(Box::new(a)), to, len)
}

pub fn call(f: Func, args: Vec<Expr>) -> Expr {
    let ty = args.last().expect("arguments").ty;
    ex(ExprKind::Call(f, args), ty.elem, ty.len)
}

pub fn bcast(a: Expr, n: u64) -> Expr {
    let elem = a.ty.elem;
    ex(ExprKind::Broadcast(Box::new(a)), elem, n)
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
