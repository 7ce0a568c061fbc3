//! Parser of the block-program text form (hand-written, recursive descent).
//!
//! ```text
//! file    := ('param' NAME '=' INT)* 'func' NAME '{' inst* 'ret' REG '}'
//! inst    := REG '=' OPNAME args [':' type]
//! type    := ELEM '[' dim 'x' dim ',' dim 'x' dim ']'      shape, then tile
//! args    := (per op) REG, REG | REG, NUMBER | FN, REG | REG, INT..INT, INT..INT
//!          | REG, REG 'epilogue' operands body            (matmul)
//!          | operands body                                (fused)
//!          | REG (',' REG)+                               (concat_rows, concat_cols)
//!          | REG ',' '[' INT (',' INT)* ']'               (filter_rows, filter_cols)
//!          | INT                                          (random; its type written)
//! operand := REG ['.' ('row' | 'col' | 'all')]
//! body    := '{' eexpr '}'
//! eexpr   := '$'INT | '$acc' | ['-'] NUMBER | FN '(' eexpr (',' eexpr)* ')'
//! ```
//! Every error is a coded diagnostic (E0500-E0521) at the offending text.
//! The ops' arguments are parsed in `parse_op.rs`.

use super::builder::Builder;
use super::elementwise::{BinOp, UnaryFn};
use super::expr::EExpr;
use super::lexer::{Tok, Token, lex};
use super::ops::{Bcast, Fused, Operand};
use super::program::Program;
use super::reg::Reg;
use super::types::{BlockTy, Dims, ElemTy};
use crate::codes;
use std::collections::BTreeMap;
use texpr_ir::{Diagnostic, Span};

pub(super) type PResult<T> = Result<T, Diagnostic>;

/// Parses and type-checks a block program; `overrides` replace `param` values.
pub fn parse(src: &str, overrides: &[(String, u64)]) -> Result<Program, Vec<Diagnostic>> {
    let toks = lex(src).map_err(|d| vec![d])?;
    let mut p = Parser {
        toks,
        pos: 0,
        params: BTreeMap::new(),
        regs: BTreeMap::new(),
    };
    p.file(overrides).map_err(|d| vec![d])
}

/// The names of the `param`s `src` declares, in order (empty when its
/// header does not lex or parse as far).
pub fn declared_params(src: &str) -> Vec<String> {
    let Ok(toks) = lex(src) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    let mut k = 0;
    while let (Some(Tok::Ident(kw)), Some(Tok::Ident(name))) =
        (toks.get(k).map(|t| &t.tok), toks.get(k + 1).map(|t| &t.tok))
    {
        if kw != "param" {
            break;
        }
        out.push(name.clone());
        k += 4;
    }
    out
}

pub(super) struct Parser {
    toks: Vec<Token>,
    pos: usize,
    params: BTreeMap<String, u64>,
    regs: BTreeMap<String, Reg>,
}

impl Parser {
    pub(super) fn peek(&self) -> &Tok {
        &self.toks[self.pos].tok
    }
    pub(super) fn span(&self) -> Span {
        self.toks[self.pos].span
    }
    pub(super) fn prev_end(&self) -> usize {
        self.toks[self.pos.saturating_sub(1)].span.end as usize
    }
    pub(super) fn bump(&mut self) -> Token {
        let t = self.toks[self.pos].clone();
        if self.pos + 1 < self.toks.len() {
            self.pos += 1;
        }
        t
    }
    pub(super) fn expected(&self, what: &str) -> Diagnostic {
        let found = match self.peek() {
            Tok::Eof => "end of input".to_string(),
            t => format!("`{}`", tok_text(t)),
        };
        Diagnostic::error(codes::EXPECTED, format!("expected {what}, found {found}"))
            .with_primary(self.span(), format!("expected {what}"))
    }
    pub(super) fn eat(&mut self, p: &str) -> bool {
        if matches!(self.peek(), Tok::Punct(q) if *q == p) {
            self.bump();
            true
        } else {
            false
        }
    }
    pub(super) fn expect(&mut self, p: &str) -> PResult<()> {
        if self.eat(p) {
            Ok(())
        } else {
            Err(self.expected(&format!("`{p}`")))
        }
    }
    pub(super) fn eat_kw(&mut self, kw: &str) -> bool {
        if matches!(self.peek(), Tok::Ident(w) if w == kw) {
            self.bump();
            true
        } else {
            false
        }
    }
    pub(super) fn ident(&mut self, what: &str) -> PResult<(String, Span)> {
        match self.peek().clone() {
            Tok::Ident(w) => Ok((w, self.bump().span)),
            _ => Err(self.expected(what)),
        }
    }
    pub(super) fn int(&mut self, what: &str) -> PResult<u64> {
        match *self.peek() {
            Tok::Int(v) => {
                self.bump();
                Ok(v)
            }
            _ => Err(self.expected(what)),
        }
    }

    pub(super) fn file(&mut self, overrides: &[(String, u64)]) -> PResult<Program> {
        let mut b = Builder::new("");
        while self.eat_kw("param") {
            let (name, span) = self.ident("a param name")?;
            self.expect("=")?;
            let mut value = self.int("an integer")?;
            if let Some((_, v)) = overrides.iter().find(|(n, _)| *n == name) {
                value = *v;
            }
            if self.params.insert(name.clone(), value).is_some() {
                return Err(Diagnostic::error(
                    codes::DUPLICATE_REG,
                    format!("param `{name}` is declared twice"),
                )
                .with_primary(span, "declared again here"));
            }
            b.param(&name, value);
        }
        if !self.eat_kw("func") {
            return Err(self.expected("`param` or `func`"));
        }
        let name = self.ident("a function name")?.0;
        let mut b = rename(b, &name);
        self.expect("{")?;
        while matches!(self.peek(), Tok::Reg(_)) {
            self.inst(&mut b)?;
        }
        let ret_start = self.span();
        if !self.eat_kw("ret") {
            return Err(self.expected("an instruction or `ret`"));
        }
        let (ret, ret_span) = self.reg_use()?;
        self.expect("}")?;
        if *self.peek() != Tok::Eof {
            return Err(
                Diagnostic::error(codes::BAD_FUNC, "text after the end of the function")
                    .with_primary(self.span(), "only one `func` per file"),
            );
        }
        let mut prog = b.ret(ret);
        prog.ret_span = ret_start.to(ret_span);
        Ok(prog)
    }

    pub(super) fn reg_use(&mut self) -> PResult<(Reg, Span)> {
        let span = self.span();
        let Tok::Reg(name) = self.peek().clone() else {
            return Err(self.expected("a register"));
        };
        self.bump();
        let r = self.regs.get(&name).copied().ok_or_else(|| {
            Diagnostic::error(
                codes::UNKNOWN_REG,
                format!("register %{name} is not defined"),
            )
            .with_primary(span, "not defined before this use")
        })?;
        Ok((r, span))
    }

    pub(super) fn inst(&mut self, b: &mut Builder) -> PResult<()> {
        let start = self.span();
        let Tok::Reg(name) = self.bump().tok else {
            unreachable!("checked by the caller")
        };
        if self.regs.contains_key(&name) {
            return Err(Diagnostic::error(
                codes::DUPLICATE_REG,
                format!("register %{name} is defined twice"),
            )
            .with_primary(start, "defined again here"));
        }
        self.expect("=")?;
        let (opname, op_span) = self.ident("an op name")?;
        let op = self.op(&opname, op_span)?;
        let written = if self.eat(":") {
            Some(self.ty()?)
        } else {
            None
        };
        let span = start.to(Span::new(self.prev_end(), self.prev_end()));
        let r = b.push(Some(&name), op, written, span)?;
        self.regs.insert(name, r);
        Ok(())
    }

    pub(super) fn fused(&mut self) -> PResult<Fused> {
        let mut operands = Vec::new();
        while matches!(self.peek(), Tok::Reg(_)) {
            operands.push(self.operand()?);
            if !self.eat(",") {
                break;
            }
        }
        self.expect("{")?;
        let body = self.eexpr()?;
        self.expect("}")?;
        Ok(Fused { operands, body })
    }

    pub(super) fn operand(&mut self) -> PResult<Operand> {
        let reg = self.reg_use()?.0;
        if !self.eat(".") {
            return Ok(Operand {
                reg,
                bcast: Bcast::Full,
            });
        }
        let bcast = match self.ident("`row`, `col` or `all`")?.0.as_str() {
            "row" => Bcast::Row,
            "col" => Bcast::Col,
            "all" => Bcast::All,
            _ => {
                return Err(Diagnostic::error(
                    codes::EXPECTED,
                    "expected `row`, `col` or `all` after `.`",
                )
                .with_primary(self.toks[self.pos - 1].span, "not a broadcast"));
            }
        };
        Ok(Operand { reg, bcast })
    }

    pub(super) fn float(&mut self) -> PResult<f32> {
        let neg = self.eat("-");
        let span = self.span();
        let (v, inf) = match *self.peek() {
            Tok::Int(v) => (v as f64, false),
            Tok::Float(v) => (v, false),
            Tok::Ident(ref w) if w == "inf" => (f64::INFINITY, true),
            _ => return Err(self.expected("a number")),
        };
        self.bump();
        let v = if neg { -v } else { v } as f32;
        if v.is_finite() || inf {
            Ok(v)
        } else {
            Err(
                Diagnostic::error(codes::BAD_NUMBER, "number out of f32 range")
                    .with_primary(span, "here"),
            )
        }
    }

    pub(super) fn func(&mut self) -> PResult<UnaryFn> {
        let (name, span) = self.ident("a function name")?;
        UnaryFn::from_name(&name).ok_or_else(|| {
            Diagnostic::error(codes::UNKNOWN_FN, format!("unknown function `{name}`"))
                .with_primary(span, "not a function")
                .with_note(format!("functions: {}", UnaryFn::all_names()))
        })
    }

    pub(super) fn eexpr(&mut self) -> PResult<EExpr> {
        match self.peek().clone() {
            Tok::Arg(i) => {
                self.bump();
                Ok(EExpr::Arg(i))
            }
            Tok::Acc => {
                self.bump();
                Ok(EExpr::Acc)
            }
            Tok::Ident(w) if w != "inf" => self.call(),
            _ => self.float().map(EExpr::Const),
        }
    }

    pub(super) fn call(&mut self) -> PResult<EExpr> {
        let (name, span) = self.ident("a function name")?;
        self.expect("(")?;
        let a = self.eexpr()?;
        let e = if let Some(op) = BinOp::from_name(&name) {
            self.expect(",")?;
            EExpr::bin(op, a, self.eexpr()?)
        } else if name == "select" {
            self.expect(",")?;
            let b = self.eexpr()?;
            self.expect(",")?;
            EExpr::select(a, b, self.eexpr()?)
        } else if let Some(f) = UnaryFn::from_name(&name) {
            EExpr::map(f, a)
        } else {
            return Err(
                Diagnostic::error(codes::UNKNOWN_FN, format!("unknown function `{name}`"))
                    .with_primary(span, "not a function")
                    .with_note(format!(
                        "functions: {}, select, {}",
                        BinOp::all_names(),
                        UnaryFn::all_names()
                    )),
            );
        };
        self.expect(")")?;
        Ok(e)
    }

    pub(super) fn ty(&mut self) -> PResult<BlockTy> {
        let (name, span) = self.ident("an element type")?;
        let elem = match name.as_str() {
            "f32" => ElemTy::F32,
            "i32" => ElemTy::I32,
            "u32" => ElemTy::U32,
            _ => {
                return Err(Diagnostic::error(
                    codes::BAD_ELEM,
                    format!("unknown element type `{name}`"),
                )
                .with_primary(span, "expected f32, i32 or u32"));
            }
        };
        self.expect("[")?;
        let shape = self.dims()?;
        self.expect(",")?;
        let tile = self.dims()?;
        self.expect("]")?;
        Ok(BlockTy::new(elem, shape, tile))
    }

    pub(super) fn dims(&mut self) -> PResult<Dims> {
        let rows = self.dim()?;
        if !self.eat_kw("x") {
            return Err(self.expected("`x`"));
        }
        Ok(Dims::new(rows, self.dim()?))
    }

    pub(super) fn dim(&mut self) -> PResult<u64> {
        let span = self.span();
        let v = match self.peek().clone() {
            Tok::Int(v) => {
                self.bump();
                v
            }
            Tok::Ident(name) => {
                self.bump();
                *self.params.get(&name).ok_or_else(|| {
                    Diagnostic::error(codes::UNKNOWN_PARAM, format!("unknown param `{name}`"))
                        .with_primary(span, "not a param")
                })?
            }
            _ => return Err(self.expected("a size")),
        };
        if v == 0 || v > (1 << 24) {
            return Err(Diagnostic::error(
                codes::BAD_NUMBER,
                format!("size {v} is outside 1..=16777216"),
            )
            .with_primary(span, "here"));
        }
        Ok(v)
    }
}

fn rename(b: Builder, name: &str) -> Builder {
    let mut nb = Builder::new(name);
    for (p, v) in &b.program().params {
        nb.param(p, *v);
    }
    nb
}

fn tok_text(t: &Tok) -> String {
    match t {
        Tok::Reg(n) => format!("%{n}"),
        Tok::Arg(i) => format!("${i}"),
        Tok::Acc => "$acc".into(),
        Tok::Ident(w) => w.clone(),
        Tok::Int(v) => v.to_string(),
        Tok::Float(v) => v.to_string(),
        Tok::Punct(p) => p.to_string(),
        Tok::Eof => "end of input".into(),
    }
}
