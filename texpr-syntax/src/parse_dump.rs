//! A readable, deterministic dump of the surface tree with every span, one node
//! per line, children indented (used by the parser's golden tests).
//!
//! ```text
//! output 0..23
//!   name y 7..8
//!   value: binary + 11..23
//!     lhs: name a 11..12
//! ```

use crate::ast::*;
use std::fmt::Write as _;
use texpr_ir::Span;

/// Dumps `f`, one node per line: `label: kind details start..end`.
pub fn dump(f: &File) -> String {
    let mut d = Dumper::default();
    for item in &f.items {
        d.item(item);
    }
    d.out
}

#[derive(Default)]
struct Dumper {
    out: String,
    indent: usize,
}

impl Dumper {
    fn line(&mut self, label: &str, text: &str, span: Span) {
        let pad = "  ".repeat(self.indent);
        let label = if label.is_empty() {
            String::new()
        } else {
            format!("{label}: ")
        };
        let _ = writeln!(self.out, "{pad}{label}{text} {span:?}");
    }

    fn nested(&mut self, f: impl FnOnce(&mut Dumper)) {
        self.indent += 1;
        f(self);
        self.indent -= 1;
    }

    fn item(&mut self, item: &Item) {
        let kind = match &item.kind {
            ItemKind::Param { .. } => "param",
            ItemKind::Input { .. } => "input",
            ItemKind::Let { .. } => "let",
            ItemKind::Output { .. } => "output",
            ItemKind::Iterate { output: false, .. } => "let iterate",
            ItemKind::Iterate { output: true, .. } => "output iterate",
        };
        self.line("", kind, item.span);
        self.nested(|d| {
            for name in crate::check::item_names(&item.kind) {
                d.ident("name", name);
            }
            d.item_body(&item.kind);
        });
    }

    fn iterate(&mut self, it: &Iterate) {
        self.line("iter", "iterate", it.span);
        self.nested(|d| {
            d.term("count", &it.count);
            it.inits.iter().for_each(|e| d.expr("init", e));
            it.binders.iter().for_each(|b| d.ident("binder", b));
            match &it.body {
                IterBody::Results(es) => es.iter().for_each(|e| d.expr("body", e)),
                IterBody::Block {
                    items,
                    results,
                    yield_span,
                } => {
                    d.line("body", "block", *yield_span);
                    d.nested(|d| {
                        items.iter().for_each(|i| d.item(i));
                        results.iter().for_each(|e| d.expr("yield", e));
                    });
                }
            }
        });
    }

    fn item_body(&mut self, kind: &ItemKind) {
        match kind {
            ItemKind::Param { value, .. } => self.term("value", value),
            ItemKind::Input { ty, .. } => self.ty(ty),
            ItemKind::Let {
                level,
                loads,
                ty,
                value,
                ..
            } => {
                self.level(level.map(|(l, s)| (l.name(), s)));
                self.level(loads.map(|(l, s)| (l.name(), s)));
                ty.iter().for_each(|t| self.ty(t));
                self.expr("value", value);
            }
            ItemKind::Output {
                ty, value, loads, ..
            } => {
                self.level(loads.map(|(l, s)| (l.name(), s)));
                ty.iter().for_each(|t| self.ty(t));
                self.expr("value", value);
            }
            ItemKind::Iterate { ty, iter, .. } => {
                ty.iter().for_each(|t| self.ty(t));
                self.iterate(iter);
            }
        }
    }

    fn ident(&mut self, label: &str, i: &Ident) {
        self.line(label, &format!("name {}", i.name), i.span);
    }

    fn level(&mut self, level: Option<(&str, Span)>) {
        if let Some((name, sp)) = level {
            self.line("level", name, sp);
        }
    }

    fn ty(&mut self, ty: &TyAnn) {
        self.line("", "type", ty.span);
        self.nested(|d| {
            d.line("elem", ty.elem.name(), ty.elem_span);
            d.term("len", &ty.len);
        });
    }

    fn lit(&mut self, label: &str, l: &Literal) {
        let text = match l.value {
            LitValue::Int(v) => format!("int {v}"),
            LitValue::I32(v) => format!("i32 {v}"),
            LitValue::U32(v) => format!("u32 {v}"),
            LitValue::Float(x) => format!("float {x:?}"),
            LitValue::Half(x) => format!("f16 {x:?}"),
        };
        self.line(label, &text, l.span);
    }

    fn term(&mut self, label: &str, t: &Term) {
        match &t.kind {
            TermKind::Int(v) => self.line(label, &format!("int {v}"), t.span),
            TermKind::Name(i) => self.line(label, &format!("name {}", i.name), t.span),
            TermKind::Neg(x) => {
                self.line(label, "neg", t.span);
                self.nested(|d| d.term("", x));
            }
            TermKind::Binary(op, x, y) => {
                self.line(label, &format!("binary {}", op.symbol()), t.span);
                self.nested(|d| {
                    d.term("lhs", x);
                    d.term("rhs", y);
                });
            }
        }
    }

    fn expr(&mut self, label: &str, e: &Expr) {
        match &e.kind {
            ExprKind::Compute {
                level,
                n,
                map,
                var,
                body,
            } => {
                self.line(label, "compute", e.span);
                self.nested(|d| {
                    d.level(level.map(|(l, s)| (l.name(), s)));
                    d.term("n", n);
                    map.iter().for_each(|m| d.index_map(m));
                    d.ident("var", var);
                    d.expr("body", body);
                });
            }
            ExprKind::Reduce {
                level,
                op,
                n,
                var,
                body,
            } => {
                self.line(label, "reduce", e.span);
                self.nested(|d| {
                    d.level(level.map(|(l, s)| (l.name(), s)));
                    if let Some((op, sp)) = op {
                        d.line("op", op.symbol(), *sp);
                    }
                    d.term("n", n);
                    d.ident("var", var);
                    d.expr("body", body);
                });
            }
            ExprKind::Let {
                level,
                name,
                value,
                body,
            } => {
                self.line(label, "let", e.span);
                self.nested(|d| {
                    d.level(level.map(|(l, s)| (l.name(), s)));
                    d.ident("name", name);
                    d.expr("value", value);
                    d.expr("body", body);
                });
            }
            ExprKind::Iterate(it) => {
                self.line(label, "iterate expression", e.span);
                self.nested(|d| d.iterate(it));
            }
            _ => self.simple_expr(label, e),
        }
    }

    fn simple_expr(&mut self, label: &str, e: &Expr) {
        match &e.kind {
            ExprKind::Index { vec, index, guard } => {
                self.line(label, &format!("index {}", vec.name), e.span);
                self.nested(|d| {
                    d.ident("vec", vec);
                    d.term("index", index);
                    guard.iter().for_each(|g| d.lit("else", g));
                });
            }
            ExprKind::Name(i) => self.line(label, &format!("name {}", i.name), e.span),
            ExprKind::Lit(l) => self.lit(label, l),
            ExprKind::Fill { value, n } => {
                self.line(label, "fill", e.span);
                self.nested(|d| {
                    d.lit("value", value);
                    d.term("n", n);
                });
            }
            ExprKind::VecLit(lits) => {
                self.line(label, "vector", e.span);
                self.nested(|d| lits.iter().for_each(|l| d.lit("", l)));
            }
            ExprKind::Broadcast { arg, n } => {
                self.line(label, "broadcast", e.span);
                self.nested(|d| {
                    d.expr("arg", arg);
                    d.term("n", n);
                });
            }
            ExprKind::Unary { arg, .. } => {
                self.line(label, "neg", e.span);
                self.nested(|d| d.expr("", arg));
            }
            ExprKind::Binary { op, lhs, rhs } => {
                self.line(label, &format!("binary {}", op.symbol()), e.span);
                self.nested(|d| {
                    d.expr("lhs", lhs);
                    d.expr("rhs", rhs);
                });
            }
            ExprKind::Call { func, args } => {
                self.line(label, &format!("call {}", func.name), e.span);
                self.nested(|d| {
                    d.ident("func", func);
                    args.iter().for_each(|a| d.expr("arg", a));
                });
            }
            ExprKind::With { state, at, value } => {
                self.line(label, &format!("with {}", state.name), e.span);
                self.nested(|d| {
                    d.ident("state", state);
                    d.term("at", at);
                    d.expr("value", value);
                });
            }
            ExprKind::Compute { .. }
            | ExprKind::Reduce { .. }
            | ExprKind::Let { .. }
            | ExprKind::Iterate(_) => self.expr(label, e),
        }
    }

    fn index_map(&mut self, m: &IndexMapAst) {
        self.line("", "map", m.span);
        self.nested(|d| {
            d.ident("var", &m.var);
            m.len.iter().for_each(|l| d.term("len", l));
            match &m.body {
                MapBody::Term(t) => d.term("term", t),
                MapBody::Layout(l) => d.layout(l),
            }
        });
    }

    fn layout(&mut self, l: &LayoutAst) {
        self.line("", &format!("layout {}", l.name.name), l.span);
        self.nested(|d| {
            for a in &l.args {
                match a {
                    LayoutArg::Size(t) => d.term("size", t),
                    LayoutArg::Digit([r, o, w], _) => {
                        d.term("radix", r);
                        d.term("layout_stride", o);
                        d.term("computed_stride", w);
                    }
                    LayoutArg::Layout(inner) => d.layout(inner),
                }
            }
        });
    }
}
