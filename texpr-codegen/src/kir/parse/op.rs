//! Operations and operands of the kernel IR's text: what follows `=` in a
//! `let` (loads, conversions, calls, operators, components), values by
//! name, constants and builtins, and memory by space and name.

use super::Parser;
use super::cursor::{Cursor, R};
use crate::kir::*;

const FUNS: [Fun; 15] = [
    Fun::Exp,
    Fun::Log,
    Fun::Sqrt,
    Fun::InverseSqrt,
    Fun::Tanh,
    Fun::Sin,
    Fun::Cos,
    Fun::Abs,
    Fun::Max,
    Fun::Min,
    Fun::Pow,
    Fun::Fma,
    Fun::Clamp,
    Fun::Select,
    Fun::All,
];

const SUBGROUP: [SgOp; 5] = [SgOp::Add, SgOp::Mul, SgOp::Max, SgOp::Min, SgOp::Broadcast];

const BINARY: [BinOp; 15] = [
    BinOp::Add,
    BinOp::Sub,
    BinOp::Mul,
    BinOp::Div,
    BinOp::Rem,
    BinOp::Lt,
    BinOp::Le,
    BinOp::Gt,
    BinOp::Ge,
    BinOp::Eq,
    BinOp::Ne,
    BinOp::BitAnd,
    BinOp::BitOr,
    BinOp::Shr,
    BinOp::Shl,
];

impl Parser {
    /// The operation of a `let` of type `ty` named `name`.
    pub(super) fn op(&mut self, c: &mut Cursor<'_>, ty: Ty, name: &str) -> R<Op> {
        c.skip_ws();
        if c.eat("load ") {
            let m = self.mem(c)?;
            c.expect("[")?;
            let i = self.operand(c)?;
            c.expect("]")?;
            return Ok(Op::Load(m, i));
        }
        if c.eat("read var ") {
            return Ok(Op::ReadVar(self.var_named(c)?));
        }
        if c.eat("convert ") {
            return Ok(Op::Convert(self.operand(c)?));
        }
        if c.eat("bitcast ") {
            return Ok(Op::Bitcast(self.operand(c)?));
        }
        if c.eat("neg ") {
            return Ok(Op::Unary(UnOp::Neg, self.operand(c)?));
        }
        if c.eat("not ") {
            return Ok(Op::Unary(UnOp::Not, self.operand(c)?));
        }
        if c.eat("construct(") {
            return Ok(Op::Construct(self.args(c)?));
        }
        if let Some(op) = self.call(c)? {
            return Ok(op);
        }
        // The loop index's own name (a `let` of a loop index).
        if c.rest().trim() == format!("%{name}") {
            c.pos = c.line.len();
            return Ok(Op::LoopIndex);
        }
        let a = self.operand(c)?;
        if c.at_end() {
            let op = self.k.value(a).op.clone();
            return match op.is_free() {
                true => Ok(op),
                false => c.fail("expected an operation"),
            };
        }
        if c.eat(".") {
            let k = match c.ident()? {
                "x" => 0,
                "y" => 1,
                "z" => 2,
                "w" => 3,
                _ => return c.fail("expected a component `x`, `y`, `z` or `w` before this"),
            };
            return Ok(Op::Extract(a, k));
        }
        if c.eat("[") {
            let i = self.operand(c)?;
            c.expect("]")?;
            return Ok(Op::Component(a, i));
        }
        c.skip_ws();
        let start = c.pos;
        let sym = c.word("an operator", |ch| "+-*/%<>=!&|".contains(ch))?;
        let Some(mut o) = BINARY.into_iter().find(|o| o.symbol() == sym) else {
            c.pos = start;
            return c.fail(format!("`{sym}` is not an operator"));
        };
        if ty.scalar == Scalar::Bool {
            o = match o {
                BinOp::BitAnd => BinOp::And,
                BinOp::BitOr => BinOp::Or,
                o => o,
            };
        }
        let b = self.operand(c)?;
        Ok(Op::Binary(o, a, b))
    }

    /// `NAME(ARGS)` of a builtin function or a subgroup operation.
    fn call(&mut self, c: &mut Cursor<'_>) -> R<Option<Op>> {
        let rest = c.rest();
        let n = rest
            .find(|ch: char| !ch.is_ascii_alphanumeric())
            .unwrap_or(0);
        if !rest[n..].starts_with('(') || !rest.starts_with(|ch: char| ch.is_ascii_lowercase()) {
            return Ok(None);
        }
        let name = &rest[..n];
        let fun = FUNS.into_iter().find(|f| f.name() == name);
        let sg = SUBGROUP.into_iter().find(|s| s.name() == name);
        if fun.is_none() && sg.is_none() {
            return c.fail(format!("`{name}` is not a function"));
        }
        c.pos += n + 1;
        let args = self.args(c)?;
        match (fun, sg) {
            (Some(f), _) if args.len() != f.arity() => {
                c.fail(format!("`{name}` takes {} operands", f.arity()))
            }
            (Some(f), _) => Ok(Some(Op::Call(f, args))),
            (None, Some(s)) => Ok(Some(Op::Subgroup(s, args))),
            (None, None) => c.fail(format!("`{name}` is not a function")),
        }
    }

    /// Operands up to the closing `)`, comma-separated.
    fn args(&mut self, c: &mut Cursor<'_>) -> R<Vec<V>> {
        let mut out = Vec::new();
        while !c.eat(")") {
            if !out.is_empty() {
                c.expect(",")?;
            }
            out.push(self.operand(c)?);
        }
        Ok(out)
    }

    /// A value: `%name` (the latest in scope), a constant or a builtin.
    pub(super) fn operand(&mut self, c: &mut Cursor<'_>) -> R<V> {
        c.skip_ws();
        if c.eat("%") {
            c.skip_ws();
            let start = c.pos;
            let name = c.ident()?;
            return match self.names.get(name).and_then(|vs| vs.last()) {
                Some(&v) => Ok(v),
                None => {
                    c.pos = start;
                    c.fail(format!("`%{name}` is not defined here"))
                }
            };
        }
        if c.at_lit() {
            let l = c.lit()?;
            return Ok(self.free_value(Op::Const(l), Ty::scalar(l.scalar())));
        }
        c.skip_ws();
        let start = c.pos;
        let b = match c.ident()? {
            "WorkgroupId" | "LocalId" => {
                let local = c.line[start..].starts_with("LocalId");
                c.expect("(")?;
                let k: u8 = c.number()?;
                c.expect(")")?;
                if k > 2 {
                    c.pos = start;
                    return c.fail("a builtin's component is 0, 1 or 2");
                }
                match local {
                    true => Builtin::LocalId(k),
                    false => Builtin::WorkgroupId(k),
                }
            }
            "SubgroupInvocationId" => Builtin::SubgroupInvocationId,
            "SubgroupId" => Builtin::SubgroupId,
            "NumSubgroups" => Builtin::NumSubgroups,
            "SubgroupSize" => Builtin::SubgroupSize,
            _ => {
                c.pos = start;
                return c.fail("expected a value (`%name`, a constant or a builtin)");
            }
        };
        Ok(self.free_value(Op::Builtin(b), Ty::U32))
    }

    /// `buffer NAME`, `shared NAME`, `private NAME` or `var NAME`.
    pub(super) fn mem(&mut self, c: &mut Cursor<'_>) -> R<Mem> {
        c.skip_ws();
        let start = c.pos;
        let space = c.ident()?;
        if space == "var" {
            return Ok(Mem::Var(self.var_named(c)?));
        }
        c.skip_ws();
        let at = c.pos;
        let name = c.ident()?;
        let k = &self.k;
        let found = match space {
            "buffer" => {
                (k.bindings.iter().position(|b| b.name == name)).map(|i| Mem::Buffer(i as u32))
            }
            "shared" => {
                (k.shared.iter().position(|s| s.name == name)).map(|i| Mem::Shared(i as u32))
            }
            "private" => {
                (k.privates.iter().position(|p| p.name == name)).map(|i| Mem::Private(i as u32))
            }
            _ => {
                c.pos = start;
                return c.fail("expected `buffer`, `shared`, `private` or `var`");
            }
        };
        match found {
            Some(m) => Ok(m),
            None => {
                c.pos = at;
                c.fail(format!("no {space} `{name}` is declared"))
            }
        }
    }

    /// A declared variable, by name.
    pub(super) fn var_named(&mut self, c: &mut Cursor<'_>) -> R<VarId> {
        c.skip_ws();
        let start = c.pos;
        let name = c.ident()?;
        match self.k.vars.iter().position(|v| v.name == name) {
            Some(i) => Ok(VarId(i as u32)),
            None => {
                c.pos = start;
                c.fail(format!("no variable `{name}` is declared"))
            }
        }
    }
}
