//! Tree building for the grammar's actions: spans, nesting depth and the checks a
//! grammar cannot express (level names, element types, literal suffixes).
//!
//! Every expression and term travels through the grammar with its [`Depth`].
//! A node that would nest deeper than [`MAX_NESTING`] is never built: it is
//! reported once (E0012) and replaced by a one-node placeholder marked
//! [`Depth::POISON`], and every node built over a poisoned child is itself a
//! placeholder, so no tree deeper than the limit ever exists, and no deep tree
//! is ever dropped recursively.

use crate::ast::*;
use crate::lexer::{IntLit, IntSuffix};
use texpr_ir::Diagnostic;
use texpr_ir::Span;

/// Where a `let` is placed and how it is loaded, as written (each with
/// its span).
pub(crate) type Placement = (Option<(MemLevel, Span)>, Option<(Loads, Span)>);

/// The deepest expression or term tree the parser builds, counting both tree
/// levels and nested parentheses (each separately).
pub const MAX_NESTING: usize = texpr_ir::MAX_NESTING;

/// How deep a subtree is: its height in nodes, and its deepest parenthesis nesting.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Depth {
    tree: u32,
    paren: u32,
}

impl Depth {
    pub const LEAF: Depth = Depth { tree: 1, paren: 0 };
    /// Marks a placeholder standing for a subtree that was too deep.
    pub const POISON: Depth = Depth {
        tree: u32::MAX,
        paren: u32::MAX,
    };

    fn is_poison(self) -> bool {
        self == Depth::POISON
    }

    fn too_deep(self) -> bool {
        self.tree as usize > MAX_NESTING || self.paren as usize > MAX_NESTING
    }

    /// The depth of a node over children of these depths.
    pub fn over(children: &[Depth]) -> Depth {
        let tree = children.iter().map(|d| d.tree).max().unwrap_or(0);
        let paren = children.iter().map(|d| d.paren).max().unwrap_or(0);
        Depth {
            tree: tree + 1,
            paren,
        }
    }
}

pub type E = (Expr, Depth);
pub type T = (Term, Depth);

/// The name placeholders carry; not a valid identifier, so never confused with one.
const PLACEHOLDER: &str = "<error>";

/// State shared by all grammar actions: the diagnostics found so far.
#[derive(Debug, Default)]
pub struct Builder {
    pub diags: Vec<Diagnostic>,
}

pub fn span(l: usize, r: usize) -> Span {
    Span::new(l, r)
}

pub fn ident(name: &str, l: usize, r: usize) -> Ident {
    Ident {
        name: name.to_string(),
        span: span(l, r),
    }
}

impl Builder {
    fn too_deep(&mut self, span: Span) {
        let msg = "expression nests too deeply";
        let diag = Diagnostic::error("E0012", msg)
            .with_primary(span, format!("more than {MAX_NESTING} levels deep"))
            .with_note("split it with `let` or name parts of it at the top level");
        self.diags.push(diag);
    }

    /// Builds an expression node over children of the given depths, or a
    /// placeholder when it would be too deep. `build` is only called when the
    /// node is built; otherwise it is dropped with the children it holds.
    pub fn expr(&mut self, sp: Span, children: &[Depth], build: impl FnOnce() -> ExprKind) -> E {
        match self.depth_of(sp, children) {
            Some(d) => (
                Expr {
                    kind: build(),
                    span: sp,
                },
                d,
            ),
            None => (expr_placeholder(sp), Depth::POISON),
        }
    }

    /// The same as [`Builder::expr`] for terms.
    pub fn term(&mut self, sp: Span, children: &[Depth], build: impl FnOnce() -> TermKind) -> T {
        match self.depth_of(sp, children) {
            Some(d) => (
                Term {
                    kind: build(),
                    span: sp,
                },
                d,
            ),
            None => (term_placeholder(sp), Depth::POISON),
        }
    }

    fn depth_of(&mut self, sp: Span, children: &[Depth]) -> Option<Depth> {
        if children.iter().any(|d| d.is_poison()) {
            return None;
        }
        let d = Depth::over(children);
        if d.too_deep() {
            self.too_deep(sp);
            return None;
        }
        Some(d)
    }

    /// One more level of parentheses around `inner` (the node keeps its own span).
    pub fn paren<N>(
        &mut self,
        inner: (N, Depth),
        sp: Span,
        placeholder: fn(Span) -> N,
    ) -> (N, Depth) {
        let (node, d) = inner;
        if d.is_poison() {
            return (node, d);
        }
        let d = Depth {
            tree: d.tree,
            paren: d.paren + 1,
        };
        if d.too_deep() {
            self.too_deep(sp);
            return (placeholder(sp), Depth::POISON);
        }
        (node, d)
    }

    pub fn lit_expr(&mut self, lit: Literal) -> E {
        let sp = lit.span;
        (
            Expr {
                kind: ExprKind::Lit(lit),
                span: sp,
            },
            Depth::LEAF,
        )
    }

    /// An integer in a term; a suffix is not allowed there.
    pub fn term_int(&mut self, lit: IntLit, negate: bool, sp: Span) -> T {
        if lit.suffix != IntSuffix::None {
            let diag = Diagnostic::error("E0014", "suffixed integer in an index or size term")
                .with_primary(sp, "write the number without `i` or `u`")
                .with_note("index and size terms are always `i32`");
            self.diags.push(diag);
        }
        let value = if negate { -lit.value } else { lit.value };
        (
            Term {
                kind: TermKind::Int(value),
                span: sp,
            },
            Depth::LEAF,
        )
    }

    /// A written element type: `f32`, `f16`, `i32` or `u32`.
    pub fn elem_ty(&mut self, name: &Ident) -> ElemTy {
        ElemTy::from_name(&name.name).unwrap_or_else(|| {
            let msg = format!("unknown element type `{}`", name.name);
            let diag = Diagnostic::error("E0009", msg)
                .with_primary(name.span, "not an element type")
                .with_note("element types are `f32`, `f16`, `i32` and `u32`");
            self.diags.push(diag);
            ElemTy::F32
        })
    }

    /// The level of a `compute` or `reduce`.
    pub fn level(&mut self, written: Option<(&str, Span)>, what: &str) -> Option<(Level, Span)> {
        let (name, sp) = written?;
        let level = match name {
            "grid" => Level::Grid,
            "group" => Level::Group,
            "thread" => Level::Thread,
            "subgroup" if what == "reduce" => Level::Subgroup,
            _ => {
                let allowed = match what {
                    "reduce" => "`@grid`, `@group`, `@subgroup` or `@thread`",
                    _ => "`@grid`, `@group` or `@thread`",
                };
                self.bad_level(name, sp, what, allowed);
                return None;
            }
        };
        Some((level, sp))
    }

    /// The memory level of a `let`.
    pub fn mem_level(&mut self, written: Option<(&str, Span)>) -> Option<(MemLevel, Span)> {
        let (name, sp) = written?;
        let level = match name {
            "global" => MemLevel::Global,
            "shared" => MemLevel::Shared,
            "reg" => MemLevel::Reg,
            "prefetch" => MemLevel::Prefetch,
            "lanes" => MemLevel::Lanes,
            "mma" => MemLevel::Mma,
            _ => {
                self.bad_level(
                    name,
                    sp,
                    "let",
                    "`@global`, `@shared`, `@reg` or `@prefetch`",
                );
                return None;
            }
        };
        Some((level, sp))
    }

    /// The annotations of a `let` or `output` item: a memory level (`let`
    /// only) and a load width (`@scalar`, `@vec4`, `@wide`), each at most
    /// once.
    pub fn item_levels(&mut self, written: &[Option<(&str, Span)>], what: &str) -> Placement {
        let (mut level, mut loads) = (None, None);
        for &(name, sp) in written.iter().flatten() {
            let width = Loads::ALL.into_iter().find(|l| l.name() == name);
            match (width, what) {
                (Some(w), _) if loads.is_none() => loads = Some((w, sp)),
                (None, "let") if level.is_none() => level = self.mem_level(Some((name, sp))),
                (Some(_), _) | (None, "let") => {
                    let d = Diagnostic::error("E0007", format!("a second `@{name}`"))
                        .with_primary(sp, format!("`{what}` takes one level and one load width"));
                    self.diags.push(d);
                }
                (None, _) => {
                    self.bad_level(name, sp, what, "`@scalar`, `@vec4` or `@wide`");
                }
            }
        }
        (level, loads)
    }

    fn bad_level(&mut self, name: &str, sp: Span, what: &str, allowed: &str) {
        let known = [
            "grid", "group", "subgroup", "thread", "global", "shared", "reg", "prefetch",
        ];
        let (code, msg) = if known.contains(&name) {
            ("E0007", format!("`@{name}` is not a level for `{what}`"))
        } else {
            ("E0007", format!("unknown level `@{name}`"))
        };
        let diag =
            Diagnostic::error(code, msg).with_primary(sp, format!("`{what}` takes {allowed}"));
        self.diags.push(diag);
    }
}

/// A literal from an integer token.
pub fn int_lit(lit: IntLit, sp: Span) -> Literal {
    let v = lit.value;
    let value = match lit.suffix {
        IntSuffix::None => LitValue::Int(v),
        IntSuffix::I32 => LitValue::I32(v),
        IntSuffix::U32 => LitValue::U32(v),
    };
    Literal { value, span: sp }
}

pub fn float_lit(x: f64, sp: Span) -> Literal {
    Literal {
        value: LitValue::Float(x),
        span: sp,
    }
}

pub fn binary(b: &mut Builder, op: BinOp, x: E, y: E, l: usize, r: usize) -> E {
    b.expr(span(l, r), &[x.1, y.1], move || ExprKind::Binary {
        op,
        lhs: Box::new(x.0),
        rhs: Box::new(y.0),
    })
}

pub fn negation(b: &mut Builder, x: E, l: usize, r: usize) -> E {
    unary(b, UnOp::Neg, x, l, r)
}

pub fn unary(b: &mut Builder, op: UnOp, x: E, l: usize, r: usize) -> E {
    b.expr(span(l, r), &[x.1], move || ExprKind::Unary {
        op,
        arg: Box::new(x.0),
    })
}

pub fn term_binary(b: &mut Builder, op: TermOp, x: T, y: T, l: usize, r: usize) -> T {
    b.term(span(l, r), &[x.1, y.1], move || {
        TermKind::Binary(op, Box::new(x.0), Box::new(y.0))
    })
}

pub fn term_negation(b: &mut Builder, x: T, l: usize, r: usize) -> T {
    b.term(span(l, r), &[x.1], move || TermKind::Neg(Box::new(x.0)))
}

/// Negates a literal written `-lit` (the span grows to cover the `-`).
pub fn negate(lit: Literal, sp: Span) -> Literal {
    let value = match lit.value {
        LitValue::Int(v) => LitValue::Int(-v),
        LitValue::I32(v) => LitValue::I32(-v),
        LitValue::U32(v) => LitValue::U32(-v),
        LitValue::Float(x) => LitValue::Float(-x),
        LitValue::Half(x) => LitValue::Half(-x),
    };
    Literal { value, span: sp }
}

pub fn expr_placeholder(sp: Span) -> Expr {
    Expr {
        kind: ExprKind::Name(Ident {
            name: PLACEHOLDER.to_string(),
            span: sp,
        }),
        span: sp,
    }
}

pub fn term_placeholder(sp: Span) -> Term {
    Term {
        kind: TermKind::Name(Ident {
            name: PLACEHOLDER.to_string(),
            span: sp,
        }),
        span: sp,
    }
}
