//! The kernel IR's reader: the text [`super::print`] writes, back into
//! [`Kernel`]s, so that a pass's filetest starts from kernel IR
//! (`tests/data/kir/<pass>/`).
//!
//! It reads exactly the printed form: a `kernel NAME workgroup_size N` line,
//! an optional `// comment` line, the declarations (`binding`, `shared`,
//! `private`, `var`, `coop`), then one statement a line, blocks closed by
//! `}`; a blank line or the next `kernel` ends a kernel. Lines of `//`
//! between kernels are skipped. What the printer leaves implicit comes back
//! from the text around it: a constant's type from its suffix, a builtin's
//! (`u32`), `&` and `|` as logical on booleans and bitwise otherwise. A
//! value name refers to the latest definition in scope, as in the printed
//! form. Bad text is an error (E0397) at its byte offset, never a panic;
//! the kernel read is not verified here ([`super::verify`] does that).

mod body;
mod cursor;
mod op;
#[cfg(test)]
mod tests;

use super::*;
use cursor::{Cursor, R, error};
use rustc_hash::FxHashMap as HashMap;
use texpr_ir::Diagnostic;

pub use cursor::CODE;

/// Every kernel in `text` (possibly none).
pub fn kernels(text: &str) -> Result<Vec<Kernel>, Diagnostic> {
    let lines = lines(text);
    let mut out = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let (at, line) = lines[i];
        let t = line.trim();
        if t.is_empty() || t.starts_with("//") {
            i += 1;
            continue;
        }
        if !t.starts_with("kernel ") {
            let start = at + line.len() - line.trim_start().len();
            return Err(error(start, start + t.len(), "expected `kernel NAME ...`"));
        }
        let (k, next) = Parser::kernel(&lines, i)?;
        out.push(k);
        i = next;
    }
    Ok(out)
}

/// The one kernel in `text`.
pub fn kernel(text: &str) -> Result<Kernel, Diagnostic> {
    let mut ks = kernels(text)?;
    match ks.len() {
        1 => Ok(ks.remove(0)),
        n => Err(error(0, 0, format!("expected one kernel, found {n}"))),
    }
}

/// Each line with its byte offset.
fn lines(text: &str) -> Vec<(usize, &str)> {
    let mut at = 0;
    text.split('\n')
        .map(|l| {
            let start = at;
            at += l.len() + 1;
            (start, l.strip_suffix('\r').unwrap_or(l))
        })
        .collect()
}

/// A block being read: what opened it, its statements so far, and the
/// value names it defines (forgotten when it closes).
struct Frame {
    open: Open,
    stmts: Vec<Stmt>,
    names: Vec<String>,
}

enum Open {
    Root,
    Loop(Loop),
    Then(If),
    Else(If),
}

/// One kernel being read.
struct Parser {
    k: Kernel,
    /// Constants and builtins, one value each.
    free: HashMap<(Op, Ty), V>,
    /// The values each name refers to, latest last.
    names: HashMap<String, Vec<V>>,
    frames: Vec<Frame>,
}

impl Parser {
    /// The kernel whose header is line `i`, and the line after it.
    fn kernel(lines: &[(usize, &str)], mut i: usize) -> R<(Kernel, usize)> {
        let (at, line) = lines[i];
        let mut c = Cursor::new(line, at);
        c.expect("kernel")?;
        let name = c.ident()?.to_string();
        c.expect("workgroup_size")?;
        let workgroup_size = c.number()?;
        c.end()?;
        let mut p = Parser {
            k: Kernel::empty(name, workgroup_size, String::new()),
            free: HashMap::default(),
            names: HashMap::default(),
            frames: vec![Frame {
                open: Open::Root,
                stmts: Vec::new(),
                names: Vec::new(),
            }],
        };
        i += 1;
        if let Some((_, line)) = lines.get(i)
            && let Some(comment) = line.trim_start().strip_prefix("// ")
        {
            p.k.comment = comment.to_string();
            i += 1;
        }
        while let Some(&(at, line)) = lines.get(i) {
            let t = line.trim_start();
            let ended = t.trim().is_empty() || t.starts_with("kernel ") || t.starts_with("//");
            if ended && p.frames.len() == 1 {
                break;
            }
            let mut c = Cursor::new(line, at);
            match p.decl(&mut c)? {
                true => {}
                false if ended => return c.fail("a block is not closed (`}` expected)"),
                false => p.stmt(&mut c)?,
            }
            i += 1;
        }
        if p.frames.len() > 1 {
            let end = lines.last().map_or(0, |(at, l)| at + l.len());
            return Err(error(end, end, "a block is not closed (`}` expected)"));
        }
        let root = p.frames.pop().expect("the root frame");
        p.k.body = Block { stmts: root.stmts };
        Ok((p.k, i))
    }

    /// A declaration line, if this is one (before any statement).
    fn decl(&mut self, c: &mut Cursor<'_>) -> R<bool> {
        let started = self.frames.len() > 1 || !self.frames[0].stmts.is_empty();
        let declares = ["binding ", "shared ", "private ", "var ", "coop "];
        let rest = c.rest().trim_start();
        if started || !declares.iter().any(|d| rest.starts_with(d)) {
            return Ok(false);
        }
        if c.eat("binding ") {
            self.binding(c)?;
        } else if c.eat("shared ") {
            let name = c.ident()?.to_string();
            c.expect(": array<")?;
            let ty = c.ty()?;
            c.expect(",")?;
            let len = c.number()?;
            c.expect(">")?;
            self.k.shared.push(SharedDecl {
                name,
                ty,
                len,
                span: texpr_ir::Span::DUMMY,
            });
        } else if c.eat("private ") {
            self.private(c)?;
        } else if c.eat("var ") {
            let name = c.ident()?.to_string();
            c.expect(":")?;
            let ty = c.ty()?;
            let len = match c.eat("[") {
                true => {
                    let n = c.number()?;
                    c.expect("]")?;
                    Some(n)
                }
                false => None,
            };
            self.k.vars.push(Var { name, ty, len });
        } else {
            c.expect("coop ")?;
            self.coop(c)?;
        }
        c.end()?;
        Ok(true)
    }

    /// `binding I NAME: array<TY> ACCESS (bN)`.
    fn binding(&mut self, c: &mut Cursor<'_>) -> R<()> {
        let i: usize = c.number()?;
        if i != self.k.bindings.len() {
            return c.fail(format!("expected binding {}", self.k.bindings.len()));
        }
        let name = c.ident()?.to_string();
        c.expect(": array<")?;
        let ty = c.ty()?;
        c.expect(">")?;
        let access = match c.ident()? {
            "read" => Access::Read,
            "read_write" => Access::ReadWrite,
            _ => return c.fail("expected `read` or `read_write` before this"),
        };
        c.expect("(b")?;
        let buffer = BufferId(c.number()?);
        c.expect(")")?;
        self.k.bindings.push(BufferDecl {
            buffer,
            name,
            access,
            view: View { ty },
            what: String::new(),
        });
        Ok(())
    }

    /// `private NAME: array<TY, N> = [LIT, ...]`.
    fn private(&mut self, c: &mut Cursor<'_>) -> R<()> {
        let name = c.ident()?.to_string();
        c.expect(": array<")?;
        let ty = c.ty()?;
        c.expect(",")?;
        let len: usize = c.number()?;
        c.expect(">")?;
        c.expect("=")?;
        c.expect("[")?;
        let mut values = Vec::new();
        while !c.eat("]") {
            if !values.is_empty() {
                c.expect(",")?;
            }
            values.push(c.lit()?);
        }
        if values.len() != len {
            return c.fail(format!("{len} values declared, {} given", values.len()));
        }
        self.k.privates.push(PrivateDecl { name, ty, values });
        Ok(())
    }

    /// `coop NAME: coop_matNxN<SCALAR,ROLE>`.
    fn coop(&mut self, c: &mut Cursor<'_>) -> R<()> {
        let name = c.ident()?.to_string();
        c.expect(": coop_mat")?;
        let size: u8 = c.number()?;
        c.expect("x")?;
        let again: u8 = c.number()?;
        if again != size || !matches!(size, 8 | 16) {
            return c.fail("a cooperative matrix is 8x8 or 16x16");
        }
        c.expect("<")?;
        let scalar = c.scalar()?;
        c.expect(",")?;
        let role = match c.ident()? {
            "A" => Role::A,
            "B" => Role::B,
            "C" => Role::C,
            _ => return c.fail("expected the role `A`, `B` or `C` before this"),
        };
        c.expect(">")?;
        self.k.coops.push(Coop {
            name,
            size,
            scalar,
            role,
        });
        Ok(())
    }

    /// A new value, named `name` in the innermost open block.
    fn define(&mut self, op: Op, ty: Ty, name: &str) -> V {
        let v = self.push_value(op, ty, name.to_string());
        self.bind(name, v);
        v
    }

    fn bind(&mut self, name: &str, v: V) {
        self.names.entry(name.to_string()).or_default().push(v);
        (self.frames.last_mut().expect("a frame").names).push(name.to_string());
    }

    fn push_value(&mut self, op: Op, ty: Ty, name: String) -> V {
        self.k.values.push(Value { op, ty, name });
        V(self.k.values.len() as u32 - 1)
    }

    /// The constant or builtin `op` of type `ty`, one value each.
    fn free_value(&mut self, op: Op, ty: Ty) -> V {
        if let Some(&v) = self.free.get(&(op.clone(), ty)) {
            return v;
        }
        let v = self.push_value(op.clone(), ty, "c".to_string());
        self.free.insert((op, ty), v);
        v
    }
}
