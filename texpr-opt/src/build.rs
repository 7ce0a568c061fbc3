//! Building typed IR by hand: small constructors for tests and for other
//! crates that generate TExpr without going through source text.
//!
//! Every constructor computes the node's type the way the checker would
//! (`compute` multiplies lengths, comparisons give `bool`, ...). Spans are
//! [`Span::DUMMY`] unless set afterwards.

use crate::term;
use texpr_syntax::Span;
use texpr_syntax::ast::{BinOp, ElemTy, Level, MemLevel, ReduceOp, TermOp};
use texpr_syntax::ir::*;

/// An empty program.
pub fn program() -> Program {
    Program {
        params: Vec::new(),
        inputs: Vec::new(),
        globals: Vec::new(),
        outputs: Vec::new(),
        vars: Vec::new(),
        names: Default::default(),
    }
}

pub fn input(p: &mut Program, name: &str, elem: ElemTy, len: u64) -> VecRef {
    p.inputs.push(Input {
        name: name.into(),
        ty: Ty::new(elem, len),
        span: Span::DUMMY,
    });
    VecRef::Input(p.inputs.len() as u32 - 1)
}

pub fn global(p: &mut Program, name: &str, value: Expr) -> VecRef {
    p.globals.push(Global {
        name: name.into(),
        level: None,
        value,
        span: Span::DUMMY,
    });
    VecRef::Global(p.globals.len() as u32 - 1)
}

pub fn output(p: &mut Program, name: &str, value: Expr) {
    p.outputs.push(Output {
        name: name.into(),
        value,
        span: Span::DUMMY,
    });
}

/// A fresh index variable ranging over `0..extent`.
pub fn index(p: &mut Program, name: &str, extent: u64) -> VarId {
    p.fresh_var(name, VarKind::Index { extent }, Span::DUMMY)
}

/// A fresh `let`-bound vector variable of type `ty`.
pub fn vector(p: &mut Program, name: &str, ty: Ty) -> VarId {
    p.fresh_var(name, VarKind::Vector(ty), Span::DUMMY)
}

fn node(kind: ExprKind, ty: Ty) -> Expr {
    Expr {
        kind,
        ty,
        span: Span::DUMMY,
    }
}

pub fn compute(level: Option<Level>, n: u64, var: VarId, body: Expr) -> Expr {
    let ty = Ty::new(body.ty.elem, n * body.ty.len);
    node(
        ExprKind::Compute {
            level,
            n,
            var,
            map: None,
            body: Box::new(body),
        },
        ty,
    )
}

/// `compute n {k < len -> term} |var| body`
pub fn compute_map(level: Option<Level>, n: u64, var: VarId, map: IndexMap, body: Expr) -> Expr {
    let ty = Ty::new(body.ty.elem, map.len);
    node(
        ExprKind::Compute {
            level,
            n,
            var,
            map: Some(map),
            body: Box::new(body),
        },
        ty,
    )
}

pub fn reduce(level: Option<Level>, op: ReduceOp, n: u64, var: VarId, body: Expr) -> Expr {
    let ty = body.ty;
    node(
        ExprKind::Reduce {
            level,
            op,
            n,
            var,
            body: Box::new(body),
        },
        ty,
    )
}

pub fn let_(level: Option<MemLevel>, var: VarId, value: Expr, body: Expr) -> Expr {
    let ty = body.ty;
    node(
        ExprKind::Let {
            level,
            var,
            value: Box::new(value),
            body: Box::new(body),
        },
        ty,
    )
}

/// `v[t]`
pub fn read(p: &Program, v: VecRef, t: Term) -> Expr {
    let elem = p.vec_ty(v).elem;
    node(
        ExprKind::Index {
            vec: v,
            index: t,
            guard: None,
        },
        Ty::scalar(elem),
    )
}

/// `v[t] else c`
pub fn read_else(p: &Program, v: VecRef, t: Term, c: Scalar) -> Expr {
    let elem = p.vec_ty(v).elem;
    node(
        ExprKind::Index {
            vec: v,
            index: t,
            guard: Some(c),
        },
        Ty::scalar(elem),
    )
}

pub fn whole(p: &Program, v: VecRef) -> Expr {
    node(ExprKind::Whole(v), p.vec_ty(v))
}

pub fn var_value(v: VarId) -> Expr {
    node(ExprKind::IndexVar(v), Ty::scalar(ElemTy::I32))
}

pub fn konst(c: Scalar) -> Expr {
    node(ExprKind::Const(c), Ty::scalar(c.elem()))
}

pub fn f32c(x: f32) -> Expr {
    konst(Scalar::F32(x))
}

pub fn fill(c: Scalar, n: u64) -> Expr {
    node(ExprKind::Fill(c), Ty::new(c.elem(), n))
}

pub fn veclit(vals: Vec<Scalar>) -> Expr {
    let ty = Ty::new(vals[0].elem(), vals.len() as u64);
    node(ExprKind::VecLit(vals), ty)
}

pub fn broadcast(x: Expr, n: u64) -> Expr {
    let ty = Ty::new(x.ty.elem, n);
    node(ExprKind::Broadcast(Box::new(x)), ty)
}

pub fn cast(x: Expr, to: ElemTy) -> Expr {
    let ty = Ty::new(to, x.ty.len);
    node(ExprKind::Cast(Box::new(x)), ty)
}

pub fn unary(op: UnaryOp, x: Expr) -> Expr {
    let ty = x.ty;
    node(ExprKind::Unary(op, Box::new(x)), ty)
}

pub fn binary(op: BinOp, a: Expr, b: Expr) -> Expr {
    let elem = if op.is_comparison() {
        ElemTy::Bool
    } else {
        a.ty.elem
    };
    let ty = Ty::new(elem, a.ty.len.max(b.ty.len));
    node(ExprKind::Binary(op, Box::new(a), Box::new(b)), ty)
}

pub fn call(f: Func, args: Vec<Expr>) -> Expr {
    let ty = args.last().map(|a| a.ty).unwrap_or(Ty::scalar(ElemTy::F32));
    node(ExprKind::Call(f, args), ty)
}

/// Index terms: `v`, `c`, `a op b`.
pub fn tv(v: VarId) -> Term {
    term::var(v)
}

pub fn tc(c: i64) -> Term {
    term::constant(c)
}

pub fn tb(op: TermOp, a: Term, b: Term) -> Term {
    term::bin(op, a, b)
}

/// `a * m + b`, the usual row-major index.
pub fn tlin(a: Term, m: i64, b: Term) -> Term {
    tb(TermOp::Add, tb(TermOp::Mul, a, tc(m)), b)
}
