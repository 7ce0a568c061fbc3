//! A kernel as WGSL text: declarations, then the entry point.
//!
//! Every defined value is a `let` with its type, unless it is *inlined*: a
//! pure value (see [`super::build`]) used exactly once, by a statement of
//! its own block or by another inlined value, is written into that use, so
//! the text naga and drivers parse shrinks (a WGSL `let` names an
//! expression and copies nothing: both forms mean the same). It never moves
//! into a loop's bounds or an `if`'s condition (they are evaluated once
//! where they stand, but read as part of the block header) nor into a
//! nested block, which could run it again; a chain of inlined values stays
//! within [`MAX_NESTING`] levels and [`MAX_INLINE_BYTES`] bytes. A pure value
//! nothing reads is not written at all. A read of an assigned variable used
//! once is written into its use too when no assignment to the variable
//! comes between them (`acc = acc + x`, not `let t = acc; acc = t + x`).
//!
//! Operands are parenthesised by WGSL's precedence: `*` over `+`, relations
//! over sums, and the bitwise and shift operators taking unary operands only.

mod inline;

use super::*;
use inline::{PlaceUses, keep_reads_unassigned};
pub use inline::{assigned_vars, fixed_mem};
use std::fmt::Write as _;

/// The deepest chain of values written into one another.
pub const MAX_NESTING: u32 = 6;
/// The longest expression an inlined value may make.
pub const MAX_INLINE_BYTES: usize = 160;

/// Precedence levels, loosest first.
const BIT: u8 = 1;
const REL: u8 = 2;
const SHIFT: u8 = 3;
const ADD: u8 = 4;
const MUL: u8 = 5;
const UNARY: u8 = 6;
const ATOM: u8 = 7;

/// The text of `k`: declarations, then the entry point.
/// An `enable NAME;` line for each of `exts`, in order.
pub fn enables(exts: impl IntoIterator<Item = texpr_target::Extension>) -> String {
    (exts.into_iter())
        .map(|e| format!("enable {};\n", e.name()))
        .collect()
}

/// Kernel `k`'s `text` as naga's WGSL front end reads it: after an
/// `enable` line for each extension it uses but `subgroups` (which naga
/// rejects; `f16` and `wgpu_cooperative_matrix` it requires).
pub fn for_naga(k: &Kernel, text: &str) -> String {
    let exts = k.extensions().into_iter();
    enables(exts.filter(|e| *e != texpr_target::Extension::Subgroups)) + text
}

pub fn kernel(k: &Kernel) -> String {
    let p = Printer::new(k);
    let mut out = String::new();
    if !k.comment.is_empty() {
        let _ = writeln!(out, "// {}", k.comment);
    }
    for (i, b) in k.bindings.iter().enumerate() {
        let access = match b.access {
            Access::Read => "read",
            Access::ReadWrite => "read_write",
        };
        let _ = writeln!(
            out,
            "@group(0) @binding({i}) var<storage, {access}> {}: array<{}>;",
            b.name, b.view.ty
        );
    }
    for s in &k.shared {
        let _ = writeln!(
            out,
            "var<workgroup> {}: array<{}, {}>;",
            s.name, s.ty, s.len
        );
    }
    for c in &k.privates {
        let items: Vec<String> = c.values.iter().map(|l| lit(*l)).collect();
        let ty = format!("array<{}, {}>", c.ty, c.values.len());
        let _ = writeln!(
            out,
            "var<private> {}: {ty} = {ty}({});",
            c.name,
            items.join(", ")
        );
    }
    let mut args = vec![
        "@builtin(workgroup_id) wid: vec3<u32>".to_string(),
        "@builtin(local_invocation_id) lid: vec3<u32>".to_string(),
    ];
    let builtins = k.builtins();
    let subgroups = [
        (
            Builtin::SubgroupInvocationId,
            "subgroup_invocation_id",
            "sgl",
        ),
        (Builtin::SubgroupId, "subgroup_id", "sgid"),
        (Builtin::NumSubgroups, "num_subgroups", "nsg"),
        (Builtin::SubgroupSize, "subgroup_size", "sgs"),
    ];
    if builtins.iter().any(|b| b.subgroups()) {
        for (_, wgsl, name) in subgroups {
            args.push(format!("@builtin({wgsl}) {name}: u32"));
        }
    }
    let _ = writeln!(
        out,
        "\n@compute @workgroup_size({})\nfn {}({}) {{",
        k.workgroup_size,
        k.name,
        args.join(", ")
    );
    for c in &k.coops {
        let _ = writeln!(out, "    var {}: {};", c.name, c.wgsl_ty());
    }
    p.block(&mut out, &k.body, 1);
    out.push_str("}\n");
    out
}

struct Printer<'k> {
    k: &'k Kernel,
    /// Per value: written into its one use (not as a `let`).
    inline: Vec<bool>,
    /// Per value: nothing reads it and it may be dropped.
    dead: Vec<bool>,
}

impl<'k> Printer<'k> {
    fn new(k: &'k Kernel) -> Printer<'k> {
        let uses = k.use_counts();
        let assigned = assigned_vars(k);
        let movable = |v: V| match &k.value(v).op {
            Op::Load(m, _) => fixed_mem(k, *m, &assigned),
            Op::ReadVar(x) => !assigned.contains(x),
            Op::Subgroup(..) | Op::LoopIndex => false,
            _ => true,
        };
        let n = k.values.len();
        let mut p = Printer {
            k,
            inline: vec![false; n],
            dead: vec![false; n],
        };
        for (i, &u) in uses.iter().enumerate() {
            p.dead[i] = u == 0 && movable(V(i as u32));
        }
        // Candidates: pure values used once; kept only where the use is in
        // the same block and not a header.
        let mut candidate: Vec<bool> = (0..n)
            .map(|i| uses[i] == 1 && movable(V(i as u32)))
            .collect();
        // Reads of assigned variables used once, where no assignment to
        // the variable comes between the read and where it is written.
        let reads: Vec<bool> = (0..n)
            .map(|i| {
                uses[i] == 1 && matches!(k.values[i].op, Op::ReadVar(x) if assigned.contains(&x))
            })
            .collect();
        for (c, r) in candidate.iter_mut().zip(&reads) {
            *c |= *r;
        }
        let mut placed = PlaceUses;
        placed.block(k, &k.body, &mut candidate);
        keep_reads_unassigned(k, &k.body, &reads, &mut candidate);
        p.inline = candidate;
        p.limit_chains();
        p
    }

    /// Keeps each inlined chain within the nesting and size limits: a value
    /// whose expression would grow too deep or long gets a `let` again.
    fn limit_chains(&mut self) {
        for i in 0..self.k.values.len() {
            let _ = self.depth_and_len(V(i as u32));
        }
    }

    /// The nesting and length of value `v`'s expression as written,
    /// demoting inlined operands past the limits to `let`s.
    fn depth_and_len(&mut self, v: V) -> (u32, usize) {
        let ops = self.k.value(v).op.operands();
        let mut depth = 0;
        for o in ops {
            if self.inline[o.0 as usize] {
                let (d, len) = self.depth_and_len(o);
                if d + 1 > MAX_NESTING || len > MAX_INLINE_BYTES {
                    self.inline[o.0 as usize] = false;
                } else {
                    depth = depth.max(d + 1);
                }
            }
        }
        let len = self.expr(v, 0).len();
        (depth, len)
    }

    /// Value `v` as an operand needing at least precedence `min`.
    fn operand(&self, v: V, min: u8) -> String {
        let value = self.k.value(v);
        let (text, prec) = match &value.op {
            Op::Const(l) => (lit(*l), ATOM),
            Op::Builtin(b) => (builtin(*b).to_string(), ATOM),
            _ if !self.inline[v.0 as usize] => (value.name.clone(), ATOM),
            _ => self.bare(v),
        };
        if prec < min {
            format!("({text})")
        } else {
            text
        }
    }

    /// Value `v`'s expression at precedence `min`.
    fn expr(&self, v: V, min: u8) -> String {
        let (text, prec) = self.bare(v);
        if prec < min {
            format!("({text})")
        } else {
            text
        }
    }

    /// Value `v`'s operation written out, and its precedence.
    fn bare(&self, v: V) -> (String, u8) {
        let value = self.k.value(v);
        match &value.op {
            Op::Const(l) => (lit(*l), ATOM),
            Op::Builtin(b) => (builtin(*b).to_string(), ATOM),
            Op::LoopIndex => (value.name.clone(), ATOM),
            Op::Unary(UnOp::Neg, a) => {
                let a = self.operand(*a, ATOM);
                let sep = if a.starts_with('-') { " " } else { "" };
                (format!("-{sep}{a}"), UNARY)
            }
            Op::Unary(UnOp::Not, a) => (format!("!{}", self.operand(*a, ATOM)), UNARY),
            Op::Binary(op, a, b) => {
                let (p, lmin, rmin) = match op {
                    BinOp::Add | BinOp::Sub => (ADD, ADD, MUL),
                    BinOp::Mul | BinOp::Div | BinOp::Rem => (MUL, MUL, UNARY),
                    BinOp::Shl | BinOp::Shr => (SHIFT, UNARY, UNARY),
                    BinOp::And | BinOp::Or | BinOp::BitAnd | BinOp::BitOr => (BIT, UNARY, UNARY),
                    _ => (REL, SHIFT, SHIFT),
                };
                let (a, b) = (self.operand(*a, lmin), self.operand(*b, rmin));
                (format!("{a} {} {b}", op.symbol()), p)
            }
            Op::Call(f, args) => {
                let args: Vec<String> = args.iter().map(|a| self.operand(*a, 0)).collect();
                (format!("{}({})", f.name(), args.join(", ")), ATOM)
            }
            Op::Convert(a) => (format!("{}({})", value.ty, self.operand(*a, 0)), ATOM),
            Op::Bitcast(a) => (
                format!("bitcast<{}>({})", value.ty, self.operand(*a, 0)),
                ATOM,
            ),
            Op::Load(m, i) => (format!("{}[{}]", self.mem(*m), self.operand(*i, 0)), ATOM),
            Op::ReadVar(x) => (self.k.var(*x).name.clone(), ATOM),
            Op::Component(a, i) => (
                format!("{}[{}]", self.operand(*a, ATOM), self.operand(*i, 0)),
                ATOM,
            ),
            Op::Extract(a, c) => {
                let comp = ["x", "y", "z", "w"][*c as usize];
                (format!("{}.{comp}", self.operand(*a, ATOM)), ATOM)
            }
            Op::Construct(parts) => {
                let parts: Vec<String> = parts.iter().map(|a| self.operand(*a, 0)).collect();
                (format!("{}({})", value.ty, parts.join(", ")), ATOM)
            }
            Op::Subgroup(op, args) => {
                let args: Vec<String> = args.iter().map(|a| self.operand(*a, 0)).collect();
                (format!("{}({})", op.name(), args.join(", ")), ATOM)
            }
        }
    }

    fn mem(&self, m: Mem) -> String {
        match m {
            Mem::Buffer(b) => self.k.bindings[b as usize].name.clone(),
            Mem::Shared(s) => self.k.shared[s as usize].name.clone(),
            Mem::Private(c) => self.k.privates[c as usize].name.clone(),
            Mem::Var(x) => self.k.var(x).name.clone(),
        }
    }

    fn block(&self, out: &mut String, b: &Block, depth: usize) {
        let pad = "    ".repeat(depth);
        for s in &b.stmts {
            match s {
                Stmt::Let(v) => {
                    let i = v.0 as usize;
                    if self.inline[i] || self.dead[i] {
                        continue;
                    }
                    let value = self.k.value(*v);
                    let _ = writeln!(
                        out,
                        "{pad}let {}: {} = {};",
                        value.name,
                        value.ty,
                        self.expr(*v, 0)
                    );
                }
                Stmt::Var(x, init) => {
                    let var = self.k.var(*x);
                    let ty = match var.len {
                        Some(n) => format!("array<{}, {n}>", var.ty),
                        None => var.ty.name(),
                    };
                    let init = match init {
                        Init::None => String::new(),
                        Init::Value(v) => format!(" = {}", self.operand(*v, 0)),
                        Init::Elements(vs) => {
                            let items: Vec<String> =
                                vs.iter().map(|v| self.operand(*v, 0)).collect();
                            format!(" = {ty}({})", items.join(", "))
                        }
                    };
                    let _ = writeln!(out, "{pad}var {}: {ty}{init};", var.name);
                }
                Stmt::Assign(x, index, v) => {
                    let name = &self.k.var(*x).name;
                    let at = index.map_or(String::new(), |i| format!("[{}]", self.operand(i, 0)));
                    let _ = writeln!(out, "{pad}{name}{at} = {};", self.operand(*v, 0));
                }
                Stmt::Store(m, i, v) => {
                    let _ = writeln!(
                        out,
                        "{pad}{}[{}] = {};",
                        self.mem(*m),
                        self.operand(*i, 0),
                        self.operand(*v, 0)
                    );
                }
                Stmt::Loop(l) => {
                    let i = &self.k.value(l.index).name;
                    let (start, end) = (self.operand(l.start, 0), self.operand(l.end, SHIFT));
                    let header = match l.step {
                        LoopStep::Up(k) => format!(
                            "for (var {i}: i32 = {start}; {i} < {end}; {i} = {i} + {})",
                            lit(Lit::I32(k))
                        ),
                        LoopStep::Halve => {
                            format!("for (var {i}: i32 = {start}; {i} > {end}; {i} = {i} / 2i)")
                        }
                    };
                    let _ = writeln!(out, "{pad}{header} {{");
                    self.block(out, &l.body, depth + 1);
                    let _ = writeln!(out, "{pad}}}");
                }
                Stmt::If(c) => {
                    let _ = writeln!(out, "{pad}if ({}) {{", self.operand(c.cond, 0));
                    self.block(out, &c.then, depth + 1);
                    match &c.els {
                        Some(e) => {
                            let _ = writeln!(out, "{pad}}} else {{");
                            self.block(out, e, depth + 1);
                            let _ = writeln!(out, "{pad}}}");
                        }
                        None => {
                            let _ = writeln!(out, "{pad}}}");
                        }
                    }
                }
                Stmt::StorageBarrier => {
                    let _ = writeln!(out, "{pad}storageBarrier();");
                }
                Stmt::Barrier => {
                    let _ = writeln!(out, "{pad}workgroupBarrier();");
                }
                Stmt::Coop(c) => {
                    let line = super::wgsl_stmt(self.k, c, |v| self.operand(v, 0), |m| self.mem(m));
                    let _ = writeln!(out, "{pad}{line}");
                }
            }
        }
    }
}

/// A constant as WGSL writes it: `1.5f`, `(-2i)`, `3u`; `i32::MIN` and
/// `-0.0` as bitcasts (no literal spells them); a non-finite `f32` as a
/// bitcast of its bits (the builder makes run-time values of those).
pub fn lit(l: Lit) -> String {
    match l {
        Lit::F32(x) if !x.is_finite() || (x == 0.0 && x.is_sign_negative()) => {
            format!("bitcast<f32>(0x{:08x}u)", x.to_bits())
        }
        Lit::F32(x) => {
            let s = format!("{:?}", x.abs());
            if x < 0.0 {
                format!("(-{s}f)")
            } else {
                format!("{s}f")
            }
        }
        // The builder makes run-time values of the others.
        Lit::F16(x) => {
            let s = format!("{:?}", x.to_f32().abs());
            if x.is_sign_negative() {
                format!("(-{s}h)")
            } else {
                format!("{s}h")
            }
        }
        Lit::I32(i32::MIN) => "bitcast<i32>(0x80000000u)".to_string(),
        Lit::I32(x) if x < 0 => format!("(-{}i)", -(x as i64)),
        Lit::I32(x) => format!("{x}i"),
        // Bit patterns (above 2^24) read better in hex.
        Lit::U32(x) if x >= 1 << 24 => format!("0x{x:08x}u"),
        Lit::U32(x) => format!("{x}u"),
        Lit::Bool(b) => b.to_string(),
    }
}

fn builtin(b: Builtin) -> &'static str {
    match b {
        Builtin::WorkgroupId(0) => "wid.x",
        Builtin::WorkgroupId(1) => "wid.y",
        Builtin::WorkgroupId(_) => "wid.z",
        Builtin::LocalId(0) => "lid.x",
        Builtin::LocalId(1) => "lid.y",
        Builtin::LocalId(_) => "lid.z",
        Builtin::SubgroupInvocationId => "sgl",
        Builtin::SubgroupId => "sgid",
        Builtin::NumSubgroups => "nsg",
        Builtin::SubgroupSize => "sgs",
    }
}
