//! The kernel IR's verifier: the invariants every kernel keeps, checked
//! after lowering and after every pass (`passes::run`, in every build profile).
//!
//! - Scope: every value an operation or statement reads is free (a
//!   constant or a builtin) or defined before it by a `Let` (or a loop, its
//!   index) in the same block or an enclosing one; every value is defined
//!   once; a loop's index only by its loop.
//! - Memory: every buffer, workgroup array, private array and variable
//!   referred to exists; stores go to buffers bound `read_write` or to
//!   workgroup arrays; assignments to variables.
//! - Types: arithmetic on equal types (shifts excepted), comparisons giving
//!   booleans of the operands' width, `&`/`|` on booleans or integers alike,
//!   indices `i32` or `u32`, conditions `bool`, a load's type the memory's
//!   element type, a stored value the memory's element type, a variable's
//!   assigned value its type, a loop's bounds `i32`, `select`'s operands one
//!   type and a condition of their width or a scalar.
//! - Uniformity: a barrier or a subgroup operation stands only in blocks
//!   every invocation enters alike.

use super::*;

/// How a failure names what it checked, written only when one fails.
type By<'a> = &'a dyn Fn() -> String;

/// Every broken invariant of `k`, described; empty when it holds them all.
pub fn verify(k: &Kernel) -> Vec<String> {
    let mut v = Verifier {
        k,
        errors: Vec::new(),
        defined: vec![false; k.values.len()],
        live: vec![false; k.values.len()],
        scope: Vec::new(),
    };
    for (i, value) in k.values.iter().enumerate() {
        if value.op.is_free() {
            v.defined[i] = true;
            v.live[i] = true;
        }
    }
    v.block(&k.body, true);
    v.errors
}

struct Verifier<'k> {
    k: &'k Kernel,
    errors: Vec<String>,
    defined: Vec<bool>,
    /// Whether each value may be read here: free, or defined in an open block.
    live: Vec<bool>,
    /// The values each open block defines, innermost last (no longer
    /// live once it closes).
    scope: Vec<Vec<u32>>,
}

impl Verifier<'_> {
    fn fail(&mut self, msg: String) {
        self.errors.push(msg);
    }

    fn name(&self, v: V) -> String {
        self.k
            .values
            .get(v.0 as usize)
            .map_or(format!("v{}", v.0), |x| x.name.clone())
    }

    fn in_scope(&self, v: V) -> bool {
        self.live.get(v.0 as usize).copied().unwrap_or(false)
    }

    fn read(&mut self, v: V, by: By<'_>) {
        if !self.in_scope(v) {
            let name = self.name(v);
            self.fail(format!("{} reads `{name}` out of its scope", by()));
        }
    }

    fn open(&mut self) {
        self.scope.push(Vec::new());
    }

    fn close(&mut self) {
        for v in self.scope.pop().unwrap_or_default() {
            self.live[v as usize] = false;
        }
    }

    fn ty(&self, v: V) -> Ty {
        self.k.values.get(v.0 as usize).map_or(Ty::I32, |x| x.ty)
    }

    fn index(&mut self, i: V, by: By<'_>) {
        let t = self.ty(i);
        if t != Ty::I32 && t != Ty::U32 {
            self.fail(format!("{}: an index of type {t}", by()));
        }
    }

    fn mem(&mut self, m: Mem, by: By<'_>) -> Option<Ty> {
        let t = self.k.mem_ty(m);
        if t.is_none() {
            self.fail(format!("{}: memory {m:?} is not declared", by()));
        }
        t
    }

    fn block(&mut self, b: &Block, uniform: bool) {
        self.open();
        for s in &b.stmts {
            self.stmt(s, uniform);
        }
        self.close();
    }

    fn define(&mut self, v: V) {
        let i = v.0 as usize;
        if i >= self.defined.len() {
            return self.fail(format!("a value v{i} that does not exist"));
        }
        if self.defined[i] {
            let name = self.name(v);
            self.fail(format!("`{name}` is defined twice"));
        }
        self.defined[i] = true;
        self.live[i] = true;
        if let Some(s) = self.scope.last_mut() {
            s.push(v.0);
        }
    }

    fn stmt(&mut self, s: &Stmt, uniform: bool) {
        match s {
            Stmt::Let(v) => {
                let k = self.k;
                let Some(value) = k.values.get(v.0 as usize) else {
                    return self.fail(format!("a let of v{} that does not exist", v.0));
                };
                let name = value.name.as_str();
                if matches!(value.op, Op::LoopIndex) || value.op.is_free() {
                    self.fail(format!("`{name}` is not a value a let defines"));
                }
                value
                    .op
                    .each_operand(&mut |o| self.read(o, &|| format!("`{name}`")));
                if matches!(value.op, Op::Subgroup(..)) && !uniform {
                    self.fail(format!(
                        "`{name}`: a subgroup operation in non-uniform control flow"
                    ));
                }
                self.types(value, name);
                self.define(*v);
            }
            Stmt::Var(x, init) => {
                let k = self.k;
                let Some(var) = k.vars.get(x.0 as usize) else {
                    return self.fail(format!("variable {} does not exist", x.0));
                };
                for o in s.operands() {
                    self.read(o, &|| format!("var `{}`", var.name));
                    if self.ty(o) != var.ty {
                        self.fail(format!(
                            "var `{}` of {} initialised with {}",
                            var.name,
                            var.ty,
                            self.ty(o)
                        ));
                    }
                }
                if let Init::Elements(vs) = init
                    && Some(vs.len() as u32) != var.len
                {
                    self.fail(format!(
                        "var `{}`: {} elements for {:?}",
                        var.name,
                        vs.len(),
                        var.len
                    ));
                }
            }
            Stmt::Assign(x, i, v) => {
                let k = self.k;
                let Some(var) = k.vars.get(x.0 as usize) else {
                    return self.fail(format!("variable {} does not exist", x.0));
                };
                let by = || format!("assignment to `{}`", var.name);
                if let Some(i) = i {
                    self.read(*i, &by);
                    self.index(*i, &by);
                }
                self.read(*v, &by);
                if self.ty(*v) != var.ty {
                    self.fail(format!(
                        "{}: a {} value for a {} variable",
                        by(),
                        self.ty(*v),
                        var.ty
                    ));
                }
            }
            Stmt::Store(m, i, v) => {
                let by = || "a store".to_string();
                self.read(*i, &by);
                self.read(*v, &by);
                self.index(*i, &by);
                if let Some(t) = self.mem(*m, &by)
                    && t != self.ty(*v)
                {
                    self.fail(format!("a store of {} into {t} elements", self.ty(*v)));
                }
                match m {
                    Mem::Buffer(b) => {
                        if self
                            .k
                            .bindings
                            .get(*b as usize)
                            .is_some_and(|d| d.access != Access::ReadWrite)
                        {
                            self.fail(format!("a store to read-only buffer {b}"));
                        }
                    }
                    Mem::Shared(_) => {}
                    _ => self.fail(format!("a store to {m:?}, which only assignments write")),
                }
            }
            Stmt::Loop(l) => {
                self.read(l.start, &|| "a loop's start".into());
                self.read(l.end, &|| "a loop's end".into());
                if self.ty(l.start) != Ty::I32 || self.ty(l.end) != Ty::I32 {
                    self.fail("a loop's bounds are not i32".into());
                }
                let index_ok = self
                    .k
                    .values
                    .get(l.index.0 as usize)
                    .is_some_and(|x| x.op == Op::LoopIndex && x.ty == Ty::I32);
                if !index_ok {
                    self.fail("a loop's index is not a loop index".into());
                }
                self.open();
                self.define(l.index);
                self.block(&l.body, uniform && l.uniform);
                self.close();
            }
            Stmt::If(c) => {
                self.read(c.cond, &|| "an if's condition".into());
                if self.ty(c.cond) != Ty::BOOL {
                    self.fail("an if's condition is not a bool".into());
                }
                let u = uniform && c.uniform;
                self.block(&c.then, u);
                if let Some(e) = &c.els {
                    self.block(e, u);
                }
            }
            Stmt::Barrier | Stmt::StorageBarrier => {
                if !uniform {
                    self.fail("a barrier in non-uniform control flow".into());
                }
            }
            Stmt::Coop(c) => {
                if !uniform {
                    self.fail("a cooperative-matrix operation in non-uniform control flow".into());
                }
                self.coop(c);
            }
        }
    }

    /// A cooperative-matrix statement: its matrices exist; a multiply-add
    /// takes an `A`, a `B` and a `C` of one size, `A` and `B` of one type;
    /// a load or store moves elements of the matrix's type at an `i32`
    /// offset, and stores only where stores may go.
    fn coop(&mut self, c: &CoopStmt) {
        let k = self.k;
        let Some(ms) = (c.coops().iter())
            .map(|id| k.coops.get(id.0 as usize))
            .collect::<Option<Vec<_>>>()
        else {
            return self.fail(format!(
                "{c:?} names a cooperative matrix that does not exist"
            ));
        };
        match c {
            CoopStmt::MulAdd { .. } => {
                let (acc, a, b) = (ms[0], ms[1], ms[2]);
                let roles = (acc.role, a.role, b.role) == (Role::C, Role::A, Role::B);
                let sizes = acc.size == a.size && a.size == b.size;
                if !roles || !sizes || a.scalar != b.scalar {
                    self.fail(format!(
                        "a multiply-add of {}, {} into {}",
                        a.wgsl_ty(),
                        b.wgsl_ty(),
                        acc.wgsl_ty()
                    ));
                }
            }
            CoopStmt::Load { mem, offset, .. } | CoopStmt::Store { mem, offset, .. } => {
                let by = || "a cooperative-matrix load or store".to_string();
                self.read(*offset, &by);
                self.index(*offset, &by);
                if let Some(t) = self.mem(*mem, &by)
                    && t != Ty::scalar(ms[0].scalar)
                {
                    self.fail(format!("{} moved through {t} elements", ms[0].wgsl_ty()));
                }
                let read_only = |b: u32| {
                    k.bindings
                        .get(b as usize)
                        .is_some_and(|d| d.access != Access::ReadWrite)
                };
                if let (CoopStmt::Store { .. }, Mem::Buffer(b)) = (c, mem)
                    && read_only(*b)
                {
                    self.fail(format!(
                        "a cooperative-matrix store to read-only buffer {b}"
                    ));
                }
            }
        }
    }

    /// The type rules of the module doc for one value.
    fn types(&mut self, value: &Value, name: &str) {
        let ty = value.ty;
        let t = |v: &V| self.ty(*v);
        let bad = match &value.op {
            Op::Unary(UnOp::Not, a) => t(a).scalar != Scalar::Bool || t(a) != ty,
            Op::Unary(UnOp::Neg, a) => {
                t(a) != ty || matches!(ty.scalar, Scalar::Bool | Scalar::U32)
            }
            Op::Binary(op, a, b) if op.is_comparison() => {
                t(a) != t(b) || ty != Ty::vec(Scalar::Bool, t(a).width)
            }
            Op::Binary(BinOp::Shl | BinOp::Shr, a, _) => t(a) != ty,
            Op::Binary(_, a, b) => t(a) != t(b) || t(a) != ty,
            Op::Call(Fun::Select, args) => {
                args.len() != 3
                    || t(&args[0]) != ty
                    || t(&args[1]) != ty
                    || t(&args[2]).scalar != Scalar::Bool
                    || (t(&args[2]).width != 1 && t(&args[2]).width != ty.width)
            }
            Op::Call(Fun::All, args) => ty != Ty::BOOL || args.len() != 1,
            Op::Call(f, args) => args.len() != f.arity() || args.iter().any(|a| t(a) != ty),
            Op::Convert(a) | Op::Bitcast(a) => t(a).width != ty.width,
            Op::Load(m, i) => {
                self.index(*i, &|| name.to_string());
                self.mem(*m, &|| name.to_string())
                    .is_some_and(|mt| mt != ty)
            }
            Op::ReadVar(x) => self
                .k
                .vars
                .get(x.0 as usize)
                .is_none_or(|v| v.ty != ty || v.len.is_some()),
            Op::Extract(a, c) => t(a).width <= *c || ty != Ty::scalar(t(a).scalar),
            Op::Component(a, i) => {
                t(a).width == 1
                    || ty != Ty::scalar(t(a).scalar)
                    || !matches!(t(i), Ty::I32 | Ty::U32)
            }
            Op::Construct(parts) => {
                parts.is_empty()
                    || (parts.len() != 1 && parts.len() != ty.width as usize)
                    || parts.iter().any(|p| t(p) != Ty::scalar(ty.scalar))
            }
            Op::Subgroup(_, args) => args.is_empty() || t(&args[0]) != ty,
            Op::Const(_) | Op::Builtin(_) | Op::LoopIndex => false,
        };
        if bad {
            self.fail(format!(
                "`{name}`: operand types do not fit {:?} giving {ty}",
                value.op
            ));
        }
    }
}
