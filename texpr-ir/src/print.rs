//! Printer for the typed IR: surface text that checks back to an equal program.
//!
//! Params print with their final values, inputs, globals and outputs with
//! their types, sizes as numbers. Explicit broadcasts print as
//! `broadcast(e, n)` except where the checker would insert the same one
//! (an operand next to a full-length operand). Constants carry a suffix where
//! their type would not follow from context (`3u`); floats print so that they
//! read back as the same `f32`. `compute`/`reduce` whose bodies nest further
//! blocks, and every `let`, break the line and indent by four spaces.

mod iterate;
mod lit;

use crate::{
    DigitPerm, Expr, ExprKind, IndexMap, Layout, LoopId, MapKind, Program, Scalar, Term, TermKind,
    Ty, UnaryOp, VarId, VecRef,
};
use crate::{ReduceOp, TermOp};
use lit::scalar;
use std::fmt::Write as _;

/// Prints a typed (possibly scheduled) program as surface text.
pub fn program(p: &Program) -> String {
    let mut out = String::new();
    for (name, v) in &p.params {
        let _ = writeln!(out, "param {name} = {v}");
    }
    for i in &p.inputs {
        let t = if i.scalar {
            i.ty.elem.name().to_string()
        } else {
            ty(i.ty)
        };
        let _ = writeln!(out, "input {}: {t}", i.name);
    }
    let pr = Printer { p };
    pr.globals(&mut out, 0..p.globals.len(), None, 0);
    for o in &p.outputs {
        let head = format!("output{} {}: {} =", loads(o.loads), o.name, ty(o.value.ty));
        out.push_str(&pr.item(head, &o.value));
    }
    out
}

/// An item's load width as written after its keyword (`@wide`), nothing
/// for the default.
fn loads(l: crate::Loads) -> String {
    match l {
        crate::Loads::Vec4 => String::new(),
        l => format!("@{}", l.name()),
    }
}

/// `text` with every line indented by `ind` spaces.
fn push_indented(out: &mut String, text: &str, ind: usize) {
    for line in text.lines() {
        if !line.is_empty() {
            out.push_str(&indent(ind));
        }
        out.push_str(line);
        out.push('\n');
    }
}

/// `f32[1024]`
fn ty(t: Ty) -> String {
    format!("{}[{}]", t.elem.name(), t.len)
}

/// Binding strength: block forms bind loosest, atoms tightest.
const BLOCK: u8 = 0;
const OR: u8 = 1;
const AND: u8 = 2;
const CMP: u8 = 3;
const ADD: u8 = 4;
const MUL: u8 = 5;
const UNARY: u8 = 6;
const ATOM: u8 = 7;

struct Printer<'a> {
    p: &'a Program,
}

fn indent(n: usize) -> String {
    " ".repeat(n)
}

/// Whether `e` contains a `compute`, `reduce` or `let`.
fn has_block(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Compute { .. } | ExprKind::Reduce { .. } | ExprKind::Let { .. } => true,
        ExprKind::Broadcast(a) | ExprKind::Cast(a) | ExprKind::Unary(_, a) => has_block(a),
        ExprKind::Binary(_, a, b) => has_block(a) || has_block(b),
        ExprKind::Call(_, xs) => xs.iter().any(has_block),
        _ => false,
    }
}

/// Whether `e` prints on several lines: it holds a `let`, or a
/// `compute`/`reduce` whose body holds another block.
fn multiline(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Let { .. } => true,
        ExprKind::Compute { body, .. } | ExprKind::Reduce { body, .. } => has_block(body),
        ExprKind::Broadcast(a) | ExprKind::Cast(a) | ExprKind::Unary(_, a) => multiline(a),
        ExprKind::Binary(_, a, b) => multiline(a) || multiline(b),
        ExprKind::Call(_, xs) => xs.iter().any(multiline),
        _ => false,
    }
}

impl Printer<'_> {
    /// The globals in `range`, all within loop `within` (or at the top
    /// level), each inner loop as an `iterate` with its block, at
    /// indentation `ind`.
    fn globals(
        &self,
        out: &mut String,
        range: std::ops::Range<usize>,
        within: Option<LoopId>,
        ind: usize,
    ) {
        let p = self.p;
        let mut g = range.start;
        while g < range.end {
            let global = &p.globals[g];
            if global.within == within {
                let level = global
                    .level
                    .map_or(String::new(), |l| format!("@{}", l.name()));
                let w = loads(global.loads);
                let head = format!("let{level}{w} {}: {} =", global.name, ty(global.value.ty));
                let text = self.item(head, &global.value);
                push_indented(out, &text, ind);
                g += 1;
                continue;
            }
            // The outermost loop below `within` that this global runs in.
            let mut l = global.within.unwrap_or(0);
            while p.loops[l as usize].within != within {
                match p.loops[l as usize].within {
                    Some(outer) => l = outer,
                    None => break,
                }
            }
            let body = p.loop_body(l);
            let end = body.end.max(g + 1);
            self.iterate(out, l, body, ind);
            g = end;
        }
    }

    /// Loop `l` as `let (S..) = iterate N from (I..) |S.., t| { ... yield (X..) }`.
    fn iterate(&self, out: &mut String, l: LoopId, body: std::ops::Range<usize>, ind: usize) {
        let p = self.p;
        let lp = &p.loops[l as usize];
        let states: Vec<&crate::State> = p.states.iter().filter(|s| s.of == l).collect();
        let tuple = |xs: Vec<String>| match xs.len() {
            1 => xs[0].clone(),
            _ => format!("({})", xs.join(", ")),
        };
        let names = tuple(states.iter().map(|s| s.name.clone()).collect());
        let ann = match states.as_slice() {
            [one] => format!(": {}", ty(one.ty)),
            _ => String::new(),
        };
        let inits = tuple(
            states
                .iter()
                .map(|s| p.vec_name(s.init).to_string())
                .collect(),
        );
        let mut binders: Vec<&str> = states.iter().map(|s| s.name.as_str()).collect();
        binders.push(self.name(lp.var));
        let head = format!(
            "let {names}{ann} = iterate {} from {inits} |{}| {{\n",
            lp.count,
            binders.join(", ")
        );
        if let Some(w) = lp.group {
            let note = format!("// every step in one workgroup of {w} invocations, one dispatch\n");
            push_indented(out, &note, ind);
        }
        push_indented(out, &head, ind);
        self.globals(out, body, Some(l), ind + 4);
        let nexts = tuple(
            states
                .iter()
                .map(|s| match &s.at {
                    None => p.vec_name(s.next).to_string(),
                    Some(at) => format!(
                        "{} with [{}] = {}",
                        s.name,
                        self.term(at, 0),
                        p.vec_name(s.next)
                    ),
                })
                .collect(),
        );
        push_indented(out, &format!("    yield {nexts}\n}}\n"), ind);
    }

    fn item(&self, head: String, value: &Expr) -> String {
        // Standing whole as a value, an unparenthesised `iterate` would
        // read back as a loop item.
        if let ExprKind::Iterate { .. } = value.kind {
            let (text, _) = self.bare(value, 0);
            return format!("{head} ({text})\n");
        }
        if multiline(value)
            && !matches!(
                value.kind,
                ExprKind::Compute { .. } | ExprKind::Reduce { .. }
            )
        {
            format!("{head}\n    {}\n", self.expr(value, 4, BLOCK))
        } else {
            format!("{head} {}\n", self.expr(value, 0, BLOCK))
        }
    }

    fn name(&self, v: VarId) -> &str {
        self.p
            .vars
            .get(v.0 as usize)
            .map_or("?", |i| i.name.as_str())
    }

    /// `e` at indentation `ind`, parenthesised when it binds looser than `min`.
    fn expr(&self, e: &Expr, ind: usize, min: u8) -> String {
        let (text, prec) = self.bare(e, ind);
        if prec < min {
            format!("({text})")
        } else {
            text
        }
    }

    fn bare(&self, e: &Expr, ind: usize) -> (String, u8) {
        match &e.kind {
            ExprKind::Compute {
                level,
                n,
                var,
                map,
                body,
            } => {
                let lvl = level.map_or(String::new(), |l| format!("@{}", l.name()));
                let map = map
                    .as_ref()
                    .map_or(String::new(), |m| self.map(m, n * body.ty.len));
                (
                    self.block(
                        format!("compute{lvl} {n}{map} |{}|", self.name(*var)),
                        body,
                        ind,
                    ),
                    BLOCK,
                )
            }
            ExprKind::Reduce {
                level,
                op,
                n,
                var,
                body,
                steps,
            } => {
                let lvl = level.map_or(String::new(), |l| format!("@{}", l.name()));
                let op = if *op == ReduceOp::Add {
                    String::new()
                } else {
                    format!(" {}", op.symbol())
                };
                let n = steps.as_ref().map_or(n.to_string(), |t| self.term(t, 0));
                (
                    self.block(
                        format!("reduce{lvl}{op} {n} |{}|", self.name(*var)),
                        body,
                        ind,
                    ),
                    BLOCK,
                )
            }
            ExprKind::Let {
                level,
                var,
                value,
                body,
            } => (self.let_in(*level, *var, value, body, ind), BLOCK),
            ExprKind::Iterate {
                n,
                var,
                steps,
                states,
                parts,
            } => (
                self.iterate_expr((*n, *var, steps.as_ref()), states, parts, ind),
                BLOCK,
            ),
            // A guarded read binds like an atom, but reads better in parentheses.
            ExprKind::Index { vec, index, guard } => {
                let prec = if guard.is_some() { CMP } else { ATOM };
                (self.index(*vec, index, *guard), prec)
            }
            ExprKind::Whole(v) => (self.p.vec_name(*v).to_string(), ATOM),
            ExprKind::IndexVar(v) => (self.name(*v).to_string(), ATOM),
            ExprKind::Const(s) => const_lit(*s),
            ExprKind::Fill(s) => (format!("fill({}, {})", scalar(*s), e.ty.len), ATOM),
            ExprKind::VecLit(xs) => {
                let items: Vec<String> = xs.iter().map(|s| scalar(*s)).collect();
                (format!("[{}]", items.join(", ")), ATOM)
            }
            ExprKind::Broadcast(a) => (
                format!("broadcast({}, {})", self.expr(a, ind, BLOCK), e.ty.len),
                ATOM,
            ),
            ExprKind::Cast(a) => (
                format!("{}({})", e.ty.elem.name(), self.expr(a, ind, BLOCK)),
                ATOM,
            ),
            ExprKind::Unary(op, a) => self.unary(*op, a, ind),
            ExprKind::Binary(op, a, b) => self.binary(*op, a, b, e.ty.len, ind),
            ExprKind::Call(f, xs) => {
                let args = self.args(xs, e.ty.len, ind);
                (format!("{}({})", f.name(), args.join(", ")), ATOM)
            }
        }
    }

    /// A `compute`/`reduce` header and its body, on one line when the body is simple.
    fn block(&self, head: String, body: &Expr, ind: usize) -> String {
        if has_block(body) {
            format!(
                "{head}\n{}{}",
                indent(ind + 4),
                self.expr(body, ind + 4, BLOCK)
            )
        } else {
            format!("{head} {}", self.expr(body, ind, BLOCK))
        }
    }

    fn let_in(
        &self,
        level: Option<crate::MemLevel>,
        var: VarId,
        value: &Expr,
        body: &Expr,
        ind: usize,
    ) -> String {
        let lvl = level.map_or(String::new(), |l| format!("@{}", l.name()));
        let head = format!("let{lvl} {} =", self.name(var));
        let value = if multiline(value) {
            format!(
                "{head}\n{}{}\n{}in",
                indent(ind + 4),
                self.expr(value, ind + 4, BLOCK),
                indent(ind)
            )
        } else {
            format!("{head} {} in", self.expr(value, ind, BLOCK))
        };
        format!("{value}\n{}{}", indent(ind), self.expr(body, ind, BLOCK))
    }

    fn map(&self, m: &IndexMap, raw: u64) -> String {
        let k = self.name(m.var);
        let len = if m.len == raw {
            String::new()
        } else {
            format!(" < {}", m.len)
        };
        let body = match &m.kind {
            MapKind::Term(t) => self.term(t, 0),
            MapKind::Layout(Layout::Truncate) => k.to_string(),
            MapKind::Layout(Layout::Digits(p)) => digits(p),
            MapKind::Layout(Layout::Padded(p)) => {
                format!("padded({}, {}, {})", p.cols, p.padded_cols, digits(&p.perm))
            }
            MapKind::Layout(Layout::Strided(s)) => format!("strided({}, {})", s.cols, s.stride),
        };
        format!(" {{{k}{len} -> {body}}}")
    }

    fn index(&self, vec: VecRef, index: &Term, guard: Option<Scalar>) -> String {
        let base = format!("{}[{}]", self.p.vec_name(vec), self.term(index, 0));
        match guard {
            Some(g) => format!("{base} else {}", scalar(g)),
            None => base,
        }
    }

    fn unary(&self, op: UnaryOp, a: &Expr, ind: usize) -> (String, u8) {
        if op != UnaryOp::Neg {
            return (format!("{}({})", op.name(), self.expr(a, ind, BLOCK)), ATOM);
        }
        // `-3` would read back as a negative literal, not a negation.
        let min = if matches!(a.kind, ExprKind::Const(_)) {
            ATOM + 1
        } else {
            UNARY
        };
        (format!("-{}", self.expr(a, ind, min)), UNARY)
    }

    fn binary(&self, op: crate::BinOp, a: &Expr, b: &Expr, len: u64, ind: usize) -> (String, u8) {
        let prec = match op.symbol() {
            "+" | "-" => ADD,
            "*" | "/" | "%" => MUL,
            "&&" => AND,
            "||" => OR,
            _ => CMP,
        };
        let lhs_min = if prec == CMP { CMP + 1 } else { prec };
        let xs = self.operands(&[a, b], len);
        let lhs = self.expr(xs[0], ind, lhs_min);
        let rhs = self.expr(xs[1], ind, prec + 1);
        (format!("{lhs} {} {rhs}", op.symbol()), prec)
    }

    fn args(&self, xs: &[Expr], len: u64, ind: usize) -> Vec<String> {
        let refs: Vec<&Expr> = xs.iter().collect();
        self.operands(&refs, len)
            .into_iter()
            .map(|x| self.expr(x, ind, BLOCK))
            .collect()
    }

    /// Operands with the broadcasts the checker would insert by itself unwrapped.
    fn operands<'e>(&self, xs: &[&'e Expr], len: u64) -> Vec<&'e Expr> {
        let full = |x: &&Expr| !matches!(x.kind, ExprKind::Broadcast(_)) && x.ty.len == len;
        if len == 1 || !xs.iter().any(full) {
            return xs.to_vec();
        }
        xs.iter()
            .map(|x| match &x.kind {
                ExprKind::Broadcast(inner) if inner.ty.len == 1 => &**inner,
                _ => *x,
            })
            .collect()
    }

    /// A term at binding strength `min` (0 additive, 1 multiplicative, 2 atom).
    fn term(&self, t: &Term, min: u8) -> String {
        let (text, prec) = match &t.kind {
            TermKind::Const(c) if *c < 0 => (format!("({c})"), 2),
            TermKind::Const(c) => (c.to_string(), 2),
            TermKind::Var(v) => (self.name(*v).to_string(), 2),
            TermKind::Binary(op, a, b) => {
                let prec = if matches!(op, TermOp::Add | TermOp::Sub) {
                    0
                } else {
                    1
                };
                // `(k % 4) * 6` rather than `k % 4 * 6`
                let mixed = matches!(&a.kind, TermKind::Binary(o, ..) if o != op);
                let lhs_min = if prec == 1 && mixed { 2 } else { prec };
                (
                    format!(
                        "{} {} {}",
                        self.term(a, lhs_min),
                        op.symbol(),
                        self.term(b, prec + 1)
                    ),
                    prec,
                )
            }
        };
        if prec < min {
            format!("({text})")
        } else {
            text
        }
    }
}

/// A constant and its binding strength (a negative literal is a negation).
fn const_lit(s: Scalar) -> (String, u8) {
    let text = scalar(s);
    let prec = if text.starts_with('-') || text.starts_with('(') {
        UNARY
    } else {
        ATOM
    };
    (text, prec)
}

/// `digits(r:o:w, ...)`, least significant layout digit first.
fn digits(p: &DigitPerm) -> String {
    let ds: Vec<String> = p
        .digits
        .iter()
        .map(|d| format!("{}:{}:{}", d.radix, d.out_stride, d.raw_stride))
        .collect();
    format!("digits({})", ds.join(", "))
}
