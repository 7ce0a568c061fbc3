//! Builtin calls: math functions, `max`/`min`/`pow`/`fma`, `select` and casts.

use super::expr::node;
use super::scope::{LocalKind, Resolved, TopKind};
use super::{CResult, Checker, Reported, codes};
use crate::ast::{self, ElemTy, Ident};
use texpr_ir::Diagnostic;
use texpr_ir::Span;
use texpr_ir::{self as ir, Func, Ty, UnaryOp};

/// What a function name means.
#[derive(Clone, Copy)]
enum Builtin {
    Cast(ElemTy),
    /// A one-argument function; `true` when it is defined for floats only.
    Unary(UnaryOp, bool),
    Func(Func),
}

fn builtin(name: &str) -> Option<Builtin> {
    use UnaryOp::*;
    let b = match name {
        "f32" | "f16" | "i32" | "u32" => Builtin::Cast(ElemTy::from_name(name)?),
        "exp" => Builtin::Unary(Exp, true),
        "log" => Builtin::Unary(Log, true),
        "sqrt" => Builtin::Unary(Sqrt, true),
        "rsqrt" => Builtin::Unary(Rsqrt, true),
        "tanh" => Builtin::Unary(Tanh, true),
        "sin" => Builtin::Unary(Sin, true),
        "cos" => Builtin::Unary(Cos, true),
        "abs" => Builtin::Unary(Abs, false),
        "max" => Builtin::Func(Func::Max),
        "min" => Builtin::Func(Func::Min),
        "pow" => Builtin::Func(Func::Pow),
        "fma" => Builtin::Func(Func::Fma),
        "select" => Builtin::Func(Func::Select),
        _ => return None,
    };
    Some(b)
}

impl Builtin {
    fn arity(self) -> usize {
        match self {
            Builtin::Cast(_) | Builtin::Unary(..) => 1,
            Builtin::Func(f) => f.arity(),
        }
    }
}

impl Checker {
    #[inline(never)]
    pub(crate) fn call(
        &mut self,
        span: Span,
        func: &Ident,
        args: &[ast::Expr],
        hint: Option<ElemTy>,
    ) -> CResult<ir::Expr> {
        let Some(b) = builtin(&func.name) else {
            return Err(self.unknown_function(func));
        };
        if args.len() != b.arity() {
            let plural = if b.arity() == 1 { "" } else { "s" };
            return Err(self.err(
                Diagnostic::error(
                    codes::WRONG_ARITY,
                    format!(
                        "`{}` takes {} argument{plural}, not {}",
                        func.name,
                        b.arity(),
                        args.len()
                    ),
                )
                .with_primary(
                    span,
                    format!(
                        "called with {} argument{}",
                        args.len(),
                        if args.len() == 1 { "" } else { "s" }
                    ),
                ),
            ));
        }
        match b {
            Builtin::Cast(to) => self.cast(span, to, &args[0]),
            Builtin::Unary(op, f32_only) => self.unary_fn(span, func, op, f32_only, &args[0], hint),
            Builtin::Func(Func::Select) => self.select(span, args, hint),
            Builtin::Func(f) => self.func(span, func, f, args, hint),
        }
    }

    fn unknown_function(&mut self, func: &Ident) -> Reported {
        let mut d = Diagnostic::error(
            codes::UNKNOWN_FUNCTION,
            format!("unknown function `{}`", func.name),
        )
        .with_primary(func.span, "not a builtin");
        if let Resolved::Local(LocalKind::Vector(_), _)
        | Resolved::Top(TopKind::Input(_) | TopKind::Global(_), _) = self.lookup(&func.name)
        {
            d = d.with_note(format!(
                "`{0}` is a vector; to read an element write `{0}[i]`",
                func.name
            ));
        }
        self.err(d.with_note(
            "builtins: exp log sqrt rsqrt tanh sin cos abs pow max min fma select; casts: f32 f16 i32 u32",
        ))
    }

    #[inline(never)]
    fn cast(&mut self, span: Span, to: ElemTy, arg: &ast::Expr) -> CResult<ir::Expr> {
        let x = self.value(arg, None)?;
        let ty = Ty::new(to, x.ty.len);
        Ok(node(ir::ExprKind::Cast(Box::new(x)), ty, span))
    }

    #[inline(never)]
    fn unary_fn(
        &mut self,
        span: Span,
        func: &Ident,
        op: UnaryOp,
        f32_only: bool,
        arg: &ast::Expr,
        hint: Option<ElemTy>,
    ) -> CResult<ir::Expr> {
        let x = self.value(arg, if f32_only { Some(ElemTy::F32) } else { hint })?;
        if f32_only {
            self.need_float(func, &[&x])?;
        }
        let ty = x.ty;
        Ok(node(ir::ExprKind::Unary(op, Box::new(x)), ty, span))
    }

    #[inline(never)]
    fn func(
        &mut self,
        span: Span,
        func: &Ident,
        f: Func,
        args: &[ast::Expr],
        hint: Option<ElemTy>,
    ) -> CResult<ir::Expr> {
        let f32_only = matches!(f, Func::Pow | Func::Fma);
        let hint = if f32_only { Some(ElemTy::F32) } else { hint };
        let refs: Vec<&ast::Expr> = args.iter().collect();
        let xs = self.operands(&refs, hint)?;
        if f32_only {
            self.need_float(func, &xs.iter().collect::<Vec<_>>())?;
        }
        let ty = xs[0].ty;
        Ok(node(ir::ExprKind::Call(f, xs), ty, span))
    }

    fn need_float(&mut self, func: &Ident, xs: &[&ir::Expr]) -> CResult<()> {
        match xs.iter().find(|x| !x.ty.elem.is_float()) {
            None => Ok(()),
            Some(x) => Err(self.err(
                Diagnostic::error(
                    codes::OP_ELEM_TYPE,
                    format!("`{}` is defined for f32 and f16 only", func.name),
                )
                .with_primary(x.span, format!("this is {}", x.ty.elem.name()))
                .with_note(format!("convert first: `{}(f32(...))`", func.name)),
            )),
        }
    }

    /// `select(cond, a, b)`: `cond` a condition, `a` and `b` one type.
    #[inline(never)]
    fn select(
        &mut self,
        span: Span,
        args: &[ast::Expr],
        hint: Option<ElemTy>,
    ) -> CResult<ir::Expr> {
        let cond = self.expr(&args[0], None);
        let cond = match cond {
            Ok(c) if c.ty.elem != ElemTy::Bool => Err(self.err(
                Diagnostic::error(
                    codes::SELECT_CONDITION,
                    "`select`'s condition is not a condition",
                )
                .with_primary(c.span, format!("this is {}", c.ty.elem.name()))
                .with_note("write a comparison, or `&&`, `||`, `!` of comparisons: `select(x > 0.0, x, 0.0)`"),
            )),
            other => other,
        };
        let branches = self.operands(&[&args[1], &args[2]], hint);
        let (cond, mut branches) = (cond?, branches?);
        let b = branches.pop().ok_or(Reported)?;
        let a = branches.pop().ok_or(Reported)?;
        let xs = self.broadcast_all(vec![cond, a, b])?;
        let ty = xs[1].ty;
        Ok(node(ir::ExprKind::Call(Func::Select, xs), ty, span))
    }
}
