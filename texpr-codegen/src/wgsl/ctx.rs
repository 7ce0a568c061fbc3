//! The state of one kernel being written: the function writer, what index
//! variables and local vectors are bound to, and which buffers it touches.

use super::writer::Writer;
use crate::buffers::BufferTable;
use crate::plan::BufferId;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use texpr_syntax::ast::ElemTy;
use texpr_syntax::ir::{Program, Scalar, VarId, VecRef};
use texpr_syntax::{Diagnostic, Span};

/// Where a `let`-bound vector lives.
#[derive(Clone, Debug)]
pub enum Loc {
    /// A `var` array (function or workgroup memory).
    Array(String),
    /// A length-1 value held in a WGSL `let`.
    Scalar(String),
    /// A short vector unrolled into one WGSL value per element (a register
    /// tile); constant-index reads name the element directly.
    Regs(Vec<String>),
}

/// An `i32` index: a constant or the name of a WGSL value.
#[derive(Clone, Debug, PartialEq)]
pub enum Ix {
    Const(i64),
    Name(String),
}

impl fmt::Display for Ix {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Ix::Const(c) => write!(f, "{}", super::lit::i32_lit(*c as i32)),
            Ix::Name(n) => f.write_str(n),
        }
    }
}

/// A `var<workgroup>` array a kernel declares, with the source responsible.
#[derive(Clone, Debug)]
pub struct SharedDecl {
    pub name: String,
    pub elem: ElemTy,
    pub len: u64,
    pub span: Span,
}

#[derive(Debug)]
pub struct Ctx<'p> {
    pub p: &'p Program,
    pub bufs: &'p BufferTable,
    pub kernel: usize,
    pub w: Writer,
    pub idx: BTreeMap<VarId, Ix>,
    pub vecs: BTreeMap<VarId, Loc>,
    pub used: BTreeSet<BufferId>,
    /// Buffers this kernel declares as `array<vec4<T>>` (see `vec4.rs`).
    pub vec4: BTreeSet<BufferId>,
    pub shared: Vec<SharedDecl>,
    /// Module-scope arrays holding vector literals, `(name, initializer)`,
    /// one per distinct literal (see [`Ctx::literal_array`]).
    pub literals: Vec<(String, String)>,
    /// Invocations per workgroup (set by the kernel body).
    pub group_size: u64,
    /// The kernel uses subgroup operations: the entry point takes the
    /// subgroup builtins (`sgl`, `sgid`, `nsg`, `sgs`).
    pub subgroups: bool,
}

impl<'p> Ctx<'p> {
    pub fn new(p: &'p Program, bufs: &'p BufferTable, kernel: usize) -> Ctx<'p> {
        Ctx {
            p,
            bufs,
            kernel,
            w: Writer::default(),
            idx: BTreeMap::new(),
            vecs: BTreeMap::new(),
            used: BTreeSet::new(),
            vec4: BTreeSet::new(),
            shared: Vec::new(),
            literals: Vec::new(),
            group_size: 1,
            subgroups: false,
        }
    }

    /// The WGSL name of a buffer this kernel binds (recording the use).
    pub fn buffer(&mut self, id: BufferId) -> String {
        self.used.insert(id);
        buffer_var(self.kernel, &self.bufs.plans[id.0 as usize].name)
    }

    /// The WGSL name of the buffer holding an input or global.
    pub fn vec_buffer(&mut self, v: VecRef) -> Option<String> {
        let id = self.bufs.of(v)?;
        Some(self.buffer(id))
    }

    /// Declares a `var<workgroup>` array and returns its name.
    pub fn declare_shared(&mut self, base: &str, elem: ElemTy, len: u64, span: Span) -> String {
        let name = format!("s{}_{}", self.kernel, self.w.fresh(base));
        self.shared.push(SharedDecl {
            name: name.clone(),
            elem,
            len,
            span,
        });
        name
    }

    /// The name of an array holding the literal `vals`, never copied per
    /// read or per element (it is never written): a long literal's constant
    /// buffer (see [`crate::buffers`]), else a module-scope `var<private>`
    /// array declared once per kernel however often it is read.
    pub fn literal_array(&mut self, elem: ElemTy, vals: &[Scalar]) -> String {
        if let Some(id) = self.bufs.constant(elem, vals) {
            return self.buffer(id);
        }
        let t = super::lit::ty(elem);
        let items: Vec<String> = vals.iter().map(|v| super::lit::scalar(*v)).collect();
        let init = format!("array<{t}, {}>({})", vals.len(), items.join(", "));
        if let Some((name, _)) = self.literals.iter().find(|(_, i)| *i == init) {
            return name.clone();
        }
        let name = format!("c{}_lit_{}", self.kernel, self.literals.len());
        self.literals.push((name.clone(), init));
        name
    }

    /// An index held in a named WGSL value. Constants get a `var`: naga
    /// treats a `let` of a literal as a constant expression, and would
    /// evaluate (and reject) arithmetic on it that WGSL defines at run time.
    pub fn named(&mut self, ix: &Ix) -> Ix {
        match ix {
            Ix::Const(_) => {
                let v = self.w.fresh("c");
                self.w.line(format!("var {v}: i32 = {ix};"));
                Ix::Name(v)
            }
            n => n.clone(),
        }
    }

    pub fn index_var(&self, v: VarId) -> Result<Ix, Diagnostic> {
        self.idx.get(&v).cloned().ok_or_else(|| {
            Diagnostic::error(
                "E0392",
                format!(
                    "internal error: index variable `{}` is not bound",
                    self.p.var(v).name
                ),
            )
        })
    }
}

/// The WGSL name of buffer `name` in kernel `k`.
pub fn buffer_var(k: usize, name: &str) -> String {
    format!("b{k}_{name}")
}
