//! Building typed IR by hand: constructors for the optimizer's rewrites, for
//! tests, and for crates that generate TExpr without source text.
//!
//! Every constructor computes the node's type the way the checker would
//! (`compute` multiplies lengths, comparisons give `bool`, ...). A node
//! built around a body takes the body's span (so a diagnostic about a
//! scheduled node still points at the source it came from); leaves get
//! [`Span::DUMMY`] unless set with [`Expr::at`].

use super::basic::{BinOp, ElemTy, Level, MemLevel, ReduceOp, TermOp};
use super::term;
use super::{
    Expr, ExprKind, Global, IndexMap, Input, Loop, LoopId, Output, Program, Scalar, State, Term,
    Ty, UnaryOp, VarId, VarInfo, VarKind, VecRef,
};
use crate::span::Span;

pub use super::Func;

/// An empty program.
pub fn program() -> Program {
    Program {
        params: Vec::new(),
        inputs: Vec::new(),
        globals: Vec::new(),
        outputs: Vec::new(),
        vars: Vec::new(),
        loops: Vec::new(),
        states: Vec::new(),
        names: Default::default(),
    }
}

pub fn input(p: &mut Program, name: &str, elem: ElemTy, len: u64) -> VecRef {
    p.inputs.push(Input {
        name: name.into(),
        ty: Ty::new(elem, len),
        span: Span::DUMMY,
        scalar: false,
    });
    VecRef::Input(p.inputs.len() as u32 - 1)
}

pub fn global(p: &mut Program, name: &str, value: Expr) -> VecRef {
    p.globals.push(Global {
        name: name.into(),
        level: None,
        value,
        span: Span::DUMMY,
        within: None,
        loads: Default::default(),
    });
    VecRef::Global(p.globals.len() as u32 - 1)
}

/// A global computed by every step of loop `within` (a `let` in its block),
/// or before any loop when `None`.
pub fn global_within(p: &mut Program, name: &str, value: Expr, within: Option<LoopId>) -> VecRef {
    let g = global(p, name, value);
    if let VecRef::Global(i) = g {
        p.globals[i as usize].within = within;
    }
    g
}

/// A loop of `count` steps, `step` its index variable (over
/// `0..max(count, 1)`), run by every step of `within` (or by none). Its
/// globals ([`global_within`]) follow, then its states' next values
/// ([`yield_`]).
pub fn iterate(p: &mut Program, count: u64, step: VarId, within: Option<LoopId>) -> LoopId {
    p.loops.push(Loop {
        count,
        var: step,
        within,
        span: Span::DUMMY,
        group: None,
    });
    p.loops.len() as LoopId - 1
}

/// A state of loop `of`, of `init`'s type, starting from `init` (an input or
/// a global outside the loop); it keeps `init` as its next value until
/// [`yield_`] gives it one.
pub fn state(p: &mut Program, name: &str, of: LoopId, init: VecRef) -> VecRef {
    p.states.push(State {
        name: name.into(),
        ty: p.vec_ty(init),
        of,
        init,
        next: init,
        at: None,
        span: Span::DUMMY,
    });
    VecRef::State(p.states.len() as u32 - 1)
}

/// State `state` takes `next` (a global of its loop) after each step.
pub fn yield_(p: &mut Program, state: VecRef, next: VecRef) {
    if let VecRef::State(s) = state {
        p.states[s as usize].next = next;
    }
}

pub fn output(p: &mut Program, name: &str, value: Expr) {
    p.outputs.push(Output {
        name: name.into(),
        value,
        span: Span::DUMMY,
        loads: Default::default(),
    });
}

/// A fresh index variable ranging over `0..extent`.
pub fn index(p: &mut Program, name: &str, extent: u64) -> VarId {
    p.fresh_var(name, VarKind::Index { extent }, Span::DUMMY)
}

/// A variable named exactly `name`, as the checker names one bound in
/// source: the caller keeps the names of variables in scope at once
/// distinct (siblings may share one).
pub fn named_var(p: &mut Program, name: &str, kind: VarKind) -> VarId {
    p.vars.push(VarInfo {
        name: name.into(),
        kind,
        span: Span::DUMMY,
    });
    VarId(p.vars.len() as u32 - 1)
}

/// A fresh `let`-bound vector variable of type `ty`.
pub fn vector(p: &mut Program, name: &str, ty: Ty) -> VarId {
    p.fresh_var(name, VarKind::Vector(ty), Span::DUMMY)
}

fn leaf(kind: ExprKind, ty: Ty) -> Expr {
    Expr {
        kind,
        ty,
        span: Span::DUMMY,
    }
}

impl Expr {
    /// This expression with its span set to `span`.
    pub fn at(mut self, span: Span) -> Expr {
        self.span = span;
        self
    }
}

/// `compute[@level] n |var| body`
pub fn compute(level: Option<Level>, n: u64, var: VarId, body: Expr) -> Expr {
    let (ty, span) = (Ty::new(body.ty.elem, n * body.ty.len), body.span);
    let kind = ExprKind::Compute {
        level,
        n,
        var,
        map: None,
        body: Box::new(body),
    };
    Expr { kind, ty, span }
}

/// `compute[@level] n MAP |var| body`
pub fn compute_map(level: Option<Level>, n: u64, var: VarId, map: IndexMap, body: Expr) -> Expr {
    let ty = Ty::new(body.ty.elem, map.len);
    let span = body.span;
    let kind = ExprKind::Compute {
        level,
        n,
        var,
        map: Some(map),
        body: Box::new(body),
    };
    Expr { kind, ty, span }
}

/// `reduce[@level] op n |var| body`
pub fn reduce(level: Option<Level>, op: ReduceOp, n: u64, var: VarId, body: Expr) -> Expr {
    let (ty, span) = (body.ty, body.span);
    let kind = ExprKind::Reduce {
        level,
        op,
        n,
        var,
        body: Box::new(body),
        steps: None,
    };
    Expr { kind, ty, span }
}

/// `reduce[@level] op steps |var| body`, `steps` at most `n` (see
/// [`ExprKind::Reduce`]).
pub fn reduce_steps(
    level: Option<Level>,
    op: ReduceOp,
    n: u64,
    steps: Term,
    var: VarId,
    body: Expr,
) -> Expr {
    let mut e = reduce(level, op, n, var, body);
    if let ExprKind::Reduce { steps: s, .. } = &mut e.kind {
        *s = Some(steps);
    }
    e
}

/// `let[@level] var = value in body`
pub fn let_(level: Option<MemLevel>, var: VarId, value: Expr, body: Expr) -> Expr {
    let (ty, span) = (body.ty, body.span);
    let kind = ExprKind::Let {
        level,
        var,
        value: Box::new(value),
        body: Box::new(body),
    };
    Expr { kind, ty, span }
}

/// `v[t]`
pub fn read(p: &Program, v: VecRef, t: Term) -> Expr {
    read_of(v, t, p.vec_ty(v).elem)
}

/// `v[t] else c`
pub fn read_else(p: &Program, v: VecRef, t: Term, c: Scalar) -> Expr {
    let mut e = read(p, v, t);
    if let ExprKind::Index { guard, .. } = &mut e.kind {
        *guard = Some(c);
    }
    e
}

/// `v[t]` for a `let`-bound vector `v` of element type `elem`.
pub fn read_local(v: VarId, t: Term, elem: ElemTy) -> Expr {
    read_of(VecRef::Local(v), t, elem)
}

/// `v[t]` for a vector `v` of element type `elem` (which the program need
/// not hold yet: a global a rewrite is about to add).
pub fn read_of(v: VecRef, t: Term, elem: ElemTy) -> Expr {
    leaf(
        ExprKind::Index {
            vec: v,
            index: t,
            guard: None,
        },
        Ty::scalar(elem),
    )
}

pub fn whole(p: &Program, v: VecRef) -> Expr {
    leaf(ExprKind::Whole(v), p.vec_ty(v))
}

/// An index variable as an `i32` value.
pub fn var_value(v: VarId) -> Expr {
    leaf(ExprKind::IndexVar(v), Ty::scalar(ElemTy::I32))
}

pub fn konst(c: Scalar) -> Expr {
    leaf(ExprKind::Const(c), Ty::scalar(c.elem()))
}

pub fn f32c(x: f32) -> Expr {
    konst(Scalar::F32(x))
}

pub fn fill(c: Scalar, n: u64) -> Expr {
    leaf(ExprKind::Fill(c), Ty::new(c.elem(), n))
}

pub fn veclit(vals: Vec<Scalar>) -> Expr {
    let ty = Ty::new(vals[0].elem(), vals.len() as u64);
    leaf(ExprKind::VecLit(vals), ty)
}

pub fn broadcast(x: Expr, n: u64) -> Expr {
    let ty = Ty::new(x.ty.elem, n);
    leaf(ExprKind::Broadcast(Box::new(x)), ty)
}

pub fn cast(x: Expr, to: ElemTy) -> Expr {
    let ty = Ty::new(to, x.ty.len);
    leaf(ExprKind::Cast(Box::new(x)), ty)
}

pub fn unary(op: UnaryOp, x: Expr) -> Expr {
    let ty = x.ty;
    leaf(ExprKind::Unary(op, Box::new(x)), ty)
}

pub fn binary(op: BinOp, a: Expr, b: Expr) -> Expr {
    let elem = if op.is_comparison() {
        ElemTy::Bool
    } else {
        a.ty.elem
    };
    let ty = Ty::new(elem, a.ty.len.max(b.ty.len));
    leaf(ExprKind::Binary(op, Box::new(a), Box::new(b)), ty)
}

pub fn call(f: Func, args: Vec<Expr>) -> Expr {
    let ty = args.last().map(|a| a.ty).unwrap_or(Ty::scalar(ElemTy::F32));
    leaf(ExprKind::Call(f, args), ty)
}

/// A term as an `i32` scalar expression, spanned like `at`: what a use of an
/// index variable as a value becomes when the variable is replaced by a
/// term (operands are non-negative wherever `/` and `%` occur, so truncating
/// and floor division agree).
pub(crate) fn term_value(t: &Term, at: Span) -> Expr {
    let kind = match &t.kind {
        super::TermKind::Const(c) => ExprKind::Const(Scalar::I32(*c as i32)),
        super::TermKind::Var(v) => ExprKind::IndexVar(*v),
        super::TermKind::Binary(op, a, b) => {
            let op = match op {
                TermOp::Add => BinOp::Add,
                TermOp::Sub => BinOp::Sub,
                TermOp::Mul => BinOp::Mul,
                TermOp::Div => BinOp::Div,
                TermOp::Rem => BinOp::Rem,
            };
            ExprKind::Binary(op, Box::new(term_value(a, at)), Box::new(term_value(b, at)))
        }
    };
    Expr {
        kind,
        ty: Ty::scalar(ElemTy::I32),
        span: at,
    }
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
