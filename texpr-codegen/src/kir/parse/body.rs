//! Statements of the kernel IR's text: `let`s (`%name: ty = op`),
//! variables declared and assigned, stores, loops and `if`s opened and
//! closed by `}`, barriers and cooperative-matrix statements.

use super::cursor::{Cursor, R};
use super::{Frame, Open, Parser};
use crate::kir::*;

impl Parser {
    /// One statement line.
    pub(super) fn stmt(&mut self, c: &mut Cursor<'_>) -> R<()> {
        c.skip_ws();
        let stmt = if c.eat("%") {
            Some(self.let_(c)?)
        } else if c.eat("declare var ") {
            Some(self.declare(c)?)
        } else if c.eat("assign var ") {
            let x = self.var_named(c)?;
            let at = self.index_opt(c)?;
            c.expect("=")?;
            Some(Stmt::Assign(x, at, self.operand(c)?))
        } else if c.eat("store ") {
            Some(self.store(c)?)
        } else if c.eat("loop ") {
            self.open_loop(c)?;
            None
        } else if c.eat("if ") {
            self.open_if(c)?;
            None
        } else if c.eat("} else {") {
            self.open_else(c)?;
            None
        } else if c.eat("}") {
            self.close(c)?;
            None
        } else if c.eat("storage_barrier") {
            Some(Stmt::StorageBarrier)
        } else if c.eat("barrier") {
            Some(Stmt::Barrier)
        } else if c.rest().contains("coop") {
            Some(Stmt::Coop(self.coop_stmt(c)?))
        } else {
            return c.fail("expected a statement");
        };
        c.end()?;
        if let Some(s) = stmt {
            (self.frames.last_mut().expect("a frame").stmts).push(s);
        }
        Ok(())
    }

    /// `%NAME: TY = OP` (after the `%`).
    fn let_(&mut self, c: &mut Cursor<'_>) -> R<Stmt> {
        let name = c.ident()?;
        c.expect(":")?;
        let ty = c.ty()?;
        c.expect("=")?;
        let op = self.op(c, ty, name)?;
        Ok(Stmt::Let(self.define(op, ty, name)))
    }

    /// `declare var NAME[ = VALUE | = [VALUE, ...]]`.
    fn declare(&mut self, c: &mut Cursor<'_>) -> R<Stmt> {
        let x = self.var_named(c)?;
        if !c.eat("=") {
            return Ok(Stmt::Var(x, Init::None));
        }
        if !c.eat("[") {
            return Ok(Stmt::Var(x, Init::Value(self.operand(c)?)));
        }
        let mut vs = Vec::new();
        while !c.eat("]") {
            if !vs.is_empty() {
                c.expect(",")?;
            }
            vs.push(self.operand(c)?);
        }
        Ok(Stmt::Var(x, Init::Elements(vs)))
    }

    /// `store MEM[INDEX]: TY = VALUE`.
    fn store(&mut self, c: &mut Cursor<'_>) -> R<Stmt> {
        let m = self.mem(c)?;
        c.expect("[")?;
        let i = self.operand(c)?;
        c.expect("]")?;
        c.expect(":")?;
        let ty = c.ty()?;
        c.expect("=")?;
        let v = self.operand(c)?;
        let vt = self.k.value(v).ty;
        if vt != ty {
            return c.fail(format!("the value stored is a `{vt}`, not a `{ty}`"));
        }
        Ok(Stmt::Store(m, i, v))
    }

    /// `[INDEX]`, if it comes next.
    fn index_opt(&mut self, c: &mut Cursor<'_>) -> R<Option<V>> {
        if !c.eat("[") {
            return Ok(None);
        }
        let i = self.operand(c)?;
        c.expect("]")?;
        Ok(Some(i))
    }

    /// `loop %I = START to END step +N|/2[ uniform] (at most N trips) {`.
    fn open_loop(&mut self, c: &mut Cursor<'_>) -> R<()> {
        c.expect("%")?;
        let name = c.ident()?;
        c.expect("=")?;
        let start = self.operand(c)?;
        c.expect("to")?;
        let end = self.operand(c)?;
        c.expect("step")?;
        let step = match c.eat("/2") {
            true => LoopStep::Halve,
            false => {
                c.expect("+")?;
                let neg = c.eat("-");
                let n: i64 = c.number()?;
                let n = if neg { -n } else { n };
                match i32::try_from(n) {
                    Ok(n) => LoopStep::Up(n),
                    Err(_) => return c.fail("a step out of range"),
                }
            }
        };
        let uniform = c.eat("uniform");
        c.expect("(at most")?;
        let trips = c.number()?;
        c.expect("trips)")?;
        c.expect("{")?;
        let index = self.push_value(Op::LoopIndex, Ty::I32, name.to_string());
        self.frames.push(Frame {
            open: Open::Loop(Loop {
                index,
                start,
                end,
                step,
                body: Block::default(),
                uniform,
                trips,
            }),
            stmts: Vec::new(),
            names: Vec::new(),
        });
        self.bind(name, index);
        Ok(())
    }

    /// `if COND[ uniform] {`.
    fn open_if(&mut self, c: &mut Cursor<'_>) -> R<()> {
        let cond = self.operand(c)?;
        let uniform = c.eat("uniform");
        c.expect("{")?;
        let i = If {
            cond,
            then: Block::default(),
            els: None,
            uniform,
        };
        self.open(Open::Then(i));
        Ok(())
    }

    fn open(&mut self, open: Open) {
        self.frames.push(Frame {
            open,
            stmts: Vec::new(),
            names: Vec::new(),
        });
    }

    /// `} else {`: the `then` block closed, the `else` block opened.
    fn open_else(&mut self, c: &mut Cursor<'_>) -> R<()> {
        let (open, stmts) = self.pop_frame();
        match open {
            Some(Open::Then(mut i)) => {
                i.then = Block { stmts };
                self.open(Open::Else(i));
                Ok(())
            }
            _ => c.fail("`else` without its `if`"),
        }
    }

    /// `}`: the innermost block closed, its statement added to the block
    /// around it.
    fn close(&mut self, c: &mut Cursor<'_>) -> R<()> {
        let (open, stmts) = self.pop_frame();
        let stmt = match open {
            Some(Open::Loop(mut l)) => {
                l.body = Block { stmts };
                Stmt::Loop(l)
            }
            Some(Open::Then(mut i)) => {
                i.then = Block { stmts };
                Stmt::If(i)
            }
            Some(Open::Else(mut i)) => {
                i.els = Some(Block { stmts });
                Stmt::If(i)
            }
            Some(Open::Root) | None => return c.fail("`}` closes no block"),
        };
        (self.frames.last_mut().expect("a frame").stmts).push(stmt);
        Ok(())
    }

    /// The innermost block's opening and statements, its names forgotten
    /// (`None`: the kernel's body, which stays open).
    fn pop_frame(&mut self) -> (Option<Open>, Vec<Stmt>) {
        if self.frames.len() == 1 {
            return (None, Vec::new());
        }
        let f = self.frames.pop().expect("an open block");
        for n in f.names {
            if let Some(vs) = self.names.get_mut(&n) {
                vs.pop();
            }
        }
        (Some(f.open), f.stmts)
    }

    /// `X = coopLoadT<..>(&MEM[AT], Nu);`, `ACC = coopMultiplyAdd(A, B,
    /// ACC);` or `coopStoreT(X, &MEM[AT], Nu);`.
    fn coop_stmt(&mut self, c: &mut Cursor<'_>) -> R<CoopStmt> {
        if c.eat("coopStoreT(") {
            let coop = self.coop_named(c)?;
            c.expect(",")?;
            let (mem, offset, stride) = self.coop_place(c)?;
            return Ok(CoopStmt::Store {
                coop,
                mem,
                offset,
                stride,
            });
        }
        let coop = self.coop_named(c)?;
        c.expect("=")?;
        if c.eat("coopMultiplyAdd(") {
            let a = self.coop_named(c)?;
            c.expect(",")?;
            let b = self.coop_named(c)?;
            c.expect(",")?;
            let again = self.coop_named(c)?;
            if again != coop {
                return c.fail("a multiply-add accumulates into the matrix it assigns");
            }
            c.expect(");")?;
            return Ok(CoopStmt::MulAdd { acc: coop, a, b });
        }
        c.expect("coopLoadT<")?;
        let Some(n) = c.rest().find(">(") else {
            return c.fail("expected `coopLoadT<TYPE>(`");
        };
        c.pos += n + 1;
        c.expect("(")?;
        let (mem, offset, stride) = self.coop_place(c)?;
        Ok(CoopStmt::Load {
            coop,
            mem,
            offset,
            stride,
        })
    }

    /// `&MEM[AT], Nu);`.
    fn coop_place(&mut self, c: &mut Cursor<'_>) -> R<(Mem, V, u32)> {
        c.expect("&")?;
        let mem = self.mem(c)?;
        c.expect("[")?;
        let at = self.operand(c)?;
        c.expect("]")?;
        c.expect(",")?;
        let stride = c.number()?;
        c.expect("u);")?;
        Ok((mem, at, stride))
    }

    fn coop_named(&mut self, c: &mut Cursor<'_>) -> R<CoopId> {
        c.skip_ws();
        let start = c.pos;
        let name = c.ident()?;
        match self.k.coops.iter().position(|x| x.name == name) {
            Some(i) => Ok(CoopId(i as u32)),
            None => {
                c.pos = start;
                c.fail(format!("no cooperative matrix `{name}` is declared"))
            }
        }
    }
}
