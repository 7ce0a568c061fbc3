//! The [`Builder`]'s statements and blocks: variables, assignments and
//! stores, barriers, loops and conditionals opened and closed, insertion
//! marks, and the accounts kept as statements are written (unrolled copies,
//! statements).

use super::*;
use texpr_ir::Diagnostic;

impl Builder {
    /// A function variable (`len`: an array), declared here.
    pub fn var(&mut self, base: &str, ty: Ty, len: Option<u32>, init: Init) -> VarId {
        let id = self.new_var(base, ty, len);
        self.push(Stmt::Var(id, init));
        id
    }

    /// A function variable declared at `mark` (hoisted).
    pub fn var_at(&mut self, mark: Mark, base: &str, ty: Ty, len: Option<u32>) -> VarId {
        let id = self.new_var(base, ty, len);
        self.insert_at(mark, Stmt::Var(id, Init::None));
        id
    }

    /// A variable, not yet declared (see [`Builder::insert_at`]).
    pub fn new_var(&mut self, base: &str, ty: Ty, len: Option<u32>) -> VarId {
        let name = self.fresh(base);
        self.k.vars.push(Var { name, ty, len });
        VarId(self.k.vars.len() as u32 - 1)
    }

    /// A variable holding a constant, never assigned: naga evaluates
    /// arithmetic on a literal when it parses WGSL, and rejects what WGSL
    /// defines only at run time (an integer division by a literal 0); read
    /// from a variable, the operand is a run-time value.
    pub fn const_var(&mut self, l: Lit) -> V {
        if let Some(v) = self.frames.iter().rev().find_map(|f| f.const_vars.get(&l)) {
            return *v;
        }
        let lit = self.lit(l);
        let var = self.var("c", Ty::scalar(l.scalar()), None, Init::Value(lit));
        let v = self.read_var(var);
        self.frame().const_vars.insert(l, v);
        v
    }

    /// `var[index] = value` (`None`: the whole variable).
    pub fn assign(&mut self, var: VarId, index: Option<V>, value: V) {
        if self.assigned.insert(var) {
            // Reads made while it looked constant are not reused past here.
            for f in &mut self.frames {
                f.values
                    .retain(|(op, _), _| !matches!(op, Op::ReadVar(x) | Op::Load(Mem::Var(x), _) if *x == var));
                f.const_vars.retain(
                    |_, v| !matches!(self.k.values[v.0 as usize].op, Op::ReadVar(x) if x == var),
                );
            }
        }
        self.push(Stmt::Assign(var, index, value));
    }

    /// `mem[index] = value`.
    pub fn store(&mut self, mem: Mem, index: V, value: V) {
        self.push(Stmt::Store(mem, index, value));
    }

    /// `workgroupBarrier()`: uniform control flow only (E0391).
    pub fn barrier(&mut self) -> Result<(), Diagnostic> {
        if !self.uniform() {
            return Err(nonuniform("a barrier"));
        }
        self.push(Stmt::Barrier);
        Ok(())
    }

    /// `storageBarrier(); workgroupBarrier()`: what the workgroup wrote to
    /// storage buffers before it is seen by every read after it. Uniform
    /// control flow only (E0391).
    pub fn storage_barrier(&mut self) -> Result<(), Diagnostic> {
        if !self.uniform() {
            return Err(nonuniform("a barrier"));
        }
        self.push(Stmt::StorageBarrier);
        self.push(Stmt::Barrier);
        Ok(())
    }

    /// Declares a cooperative matrix named after `base`.
    pub fn coop(
        &mut self,
        base: &str,
        size: u8,
        scalar: super::Scalar,
        role: super::Role,
    ) -> super::CoopId {
        let name = self.fresh(base);
        self.k.coops.push(super::Coop {
            name,
            size,
            scalar,
            role,
        });
        super::CoopId(self.k.coops.len() as u32 - 1)
    }

    /// A cooperative-matrix statement: uniform control flow only (E0391).
    pub fn coop_stmt(&mut self, s: super::CoopStmt) -> Result<(), Diagnostic> {
        if !self.uniform() {
            return Err(nonuniform("a cooperative-matrix operation"));
        }
        self.push(Stmt::Coop(s));
        Ok(())
    }

    /// Opens a loop of index `base` from `start` to `end` by `step`, at most
    /// `trips` trips; returns its index.
    pub fn open_loop(
        &mut self,
        base: &str,
        (start, end, step): (V, V, LoopStep),
        uniform: bool,
        trips: u64,
    ) -> V {
        let name = self.fresh(base);
        let index = self.push_value(Op::LoopIndex, Ty::I32, name);
        self.statements += 1;
        let uniform = uniform && self.uniform();
        self.frames.push(Frame {
            open: Open::Loop {
                index,
                start,
                end,
                step,
                trips,
            },
            stmts: Vec::new(),
            uniform,
            values: HashMap::default(),
            const_vars: HashMap::default(),
        });
        index
    }

    /// Opens `if (cond)`.
    pub fn open_if(&mut self, cond: V, uniform: bool) {
        let uniform = uniform && self.uniform();
        self.statements += 1;
        self.frames.push(Frame {
            open: Open::Then(cond),
            stmts: Vec::new(),
            uniform,
            values: HashMap::default(),
            const_vars: HashMap::default(),
        });
    }

    /// Closes the open `if`'s then-block and opens its else-block.
    pub fn open_else(&mut self) {
        let f = self.frames.pop().expect("an open if");
        let Open::Then(cond) = f.open else {
            panic!("else without an if")
        };
        self.drop_marks(self.frames.len());
        self.frames.push(Frame {
            open: Open::Else(cond, Block { stmts: f.stmts }),
            stmts: Vec::new(),
            uniform: f.uniform,
            values: HashMap::default(),
            const_vars: HashMap::default(),
        });
    }

    /// Closes the innermost open loop, `if` or `else`.
    pub fn close(&mut self) {
        let f = self.frames.pop().expect("an open block");
        self.drop_marks(self.frames.len());
        let body = Block { stmts: f.stmts };
        let stmt = match f.open {
            Open::Loop {
                index,
                start,
                end,
                step,
                trips,
            } => Stmt::Loop(Loop {
                index,
                start,
                end,
                step,
                body,
                uniform: f.uniform,
                trips,
            }),
            Open::Then(cond) => Stmt::If(If {
                cond,
                then: body,
                els: None,
                uniform: f.uniform,
            }),
            Open::Else(cond, then) => Stmt::If(If {
                cond,
                then,
                els: Some(body),
                uniform: f.uniform,
            }),
            Open::Root => panic!("the function body cannot be closed"),
        };
        self.frames.last_mut().expect("a parent").stmts.push(stmt);
    }

    /// Marks in closed blocks can no longer be used.
    fn drop_marks(&mut self, depth: usize) {
        for m in &mut self.marks {
            if m.0 >= depth {
                *m = (usize::MAX, usize::MAX);
            }
        }
    }

    /// Whether the innermost open block is uniform.
    pub fn uniform(&self) -> bool {
        self.frames.last().is_none_or(|f| f.uniform)
    }

    /// Whether any block is open inside the function body.
    pub fn nested(&self) -> bool {
        self.frames.len() > 1
    }

    /// The place after the last statement of the innermost open block.
    pub fn mark(&mut self) -> Mark {
        let depth = self.frames.len() - 1;
        self.marks.push((depth, self.frames[depth].stmts.len()));
        Mark(self.marks.len() - 1)
    }

    /// Inserts `s` at `mark` (after anything inserted there before).
    pub fn insert_at(&mut self, mark: Mark, s: Stmt) {
        let (depth, at) = self.marks[mark.0];
        assert!(depth < self.frames.len(), "a mark in a closed block");
        self.frames[depth].stmts.insert(at, s);
        self.statements += 1;
        for m in &mut self.marks {
            if m.0 == depth && m.1 >= at {
                m.1 += 1;
            }
        }
        // The mark itself stays after what was inserted.
    }

    /// Defines value `op` at `mark` instead of here (a value every later
    /// statement may read: the mark's block must enclose this one).
    pub fn value_at(&mut self, mark: Mark, op: Op, ty: Ty, name: &str) -> V {
        let name = self.fresh(name);
        let v = self.push_value(op, ty, name);
        self.insert_at(mark, Stmt::Let(v));
        v
    }

    /// Starts copy `k` of an unrolled body: statements of every copy after
    /// the first count as unrolled. Returns what [`Builder::leave_copy`] takes.
    pub fn enter_copy(&mut self, k: u64) -> bool {
        let counted = k > 0;
        self.copies += counted as u32;
        counted
    }

    pub fn leave_copy(&mut self, counted: bool) {
        self.copies -= counted as u32;
    }

    /// Statements unrolling added so far.
    pub fn unrolled(&self) -> u64 {
        self.unrolled
    }

    /// Statements written so far.
    pub fn statements(&self) -> u64 {
        self.statements
    }

    pub fn ty(&self, v: V) -> Ty {
        self.k.value(v).ty
    }

    pub(super) fn frame(&mut self) -> &mut Frame {
        self.frames.last_mut().expect("a block")
    }

    pub(super) fn push(&mut self, s: Stmt) {
        self.statements += 1;
        if self.copies > 0 {
            self.unrolled += 1;
        }
        self.frame().stmts.push(s);
    }

    /// The finished kernel (every block closed).
    pub fn finish(mut self) -> Kernel {
        assert_eq!(self.frames.len(), 1, "blocks left open");
        let root = self.frames.pop().expect("the function body");
        self.k.body = Block { stmts: root.stmts };
        self.k
    }
}

pub(super) fn nonuniform(what: &str) -> Diagnostic {
    Diagnostic::error(
        "E0391",
        format!("internal error: {what} in non-uniform control flow"),
    )
    .with_note("every invocation of a workgroup must reach it alike")
}
