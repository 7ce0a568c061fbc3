//! One-line printing of surface expressions, terms and literals with minimal,
//! always-correct parentheses.
//!
//! Precedence levels, lowest first: 0 `compute`/`reduce`/`let` (open to the
//! right), 1 `||`, 2 `&&`, 3 comparisons (and a guarded read `v[t] else c`,
//! parenthesised as an operand for the reader's sake), 4 `+ -`, 5 `* / %`,
//! 6 unary `-`, `!` and negative literals, 7 atoms. A child printed where a higher level is required gets
//! parentheses; `-` over a non-negative literal is written `-(3)`, because
//! `-3` reads back as the literal.

use crate::ast::*;

const OPEN: u8 = 0;
const OR: u8 = 1;
const AND: u8 = 2;
const COMPARE: u8 = 3;
const SUM: u8 = 4;
const PRODUCT: u8 = 5;
const UNARY: u8 = 6;
const ATOM: u8 = 7;

/// An expression on one line.
pub fn expr(e: &Expr) -> String {
    let mut out = String::new();
    write_expr(&mut out, e);
    out
}

/// A term on one line.
pub fn term(t: &Term) -> String {
    let mut out = String::new();
    write_term(&mut out, t, 0);
    out
}

/// `compute@grid N {k -> t} |i|`, `reduce max N |i|` or `let@reg v =` (the
/// part of an open expression before its body or value).
pub fn open_head(e: &Expr) -> Option<String> {
    let head = match &e.kind {
        ExprKind::Compute {
            level, n, map, var, ..
        } => {
            let lvl = level.map_or(String::new(), |(l, _)| format!("@{}", l.name()));
            let map = map
                .as_ref()
                .map_or(String::new(), |m| format!(" {}", index_map(m)));
            format!("compute{lvl} {}{map} |{}|", term(n), var.name)
        }
        ExprKind::Reduce {
            level, op, n, var, ..
        } => {
            let lvl = level.map_or(String::new(), |(l, _)| format!("@{}", l.name()));
            let op = op.map_or(String::new(), |(o, _)| format!(" {}", o.symbol()));
            format!("reduce{lvl}{op} {} |{}|", term(n), var.name)
        }
        ExprKind::Let { level, name, .. } => {
            let lvl = level.map_or(String::new(), |(l, _)| format!("@{}", l.name()));
            format!("let{lvl} {} =", name.name)
        }
        ExprKind::Iterate(it) => {
            let binders: Vec<&str> = it.binders.iter().map(|b| b.name.as_str()).collect();
            format!(
                "iterate {} from {} |{}|",
                term(&it.count),
                tuple(&it.inits),
                binders.join(", ")
            )
        }
        ExprKind::With { state, at, .. } => format!("{} with [{}] =", state.name, term(at)),
        _ => return None,
    };
    Some(head)
}

fn index_map(m: &IndexMapAst) -> String {
    let body = match &m.body {
        MapBody::Term(t) => term(t),
        MapBody::Layout(l) => layout(l),
    };
    match &m.len {
        Some(len) => format!("{{{} < {} -> {body}}}", m.var.name, term(len)),
        None => format!("{{{} -> {body}}}", m.var.name),
    }
}

/// `name(arg, ...)`, digits as `r:o:w`.
fn layout(l: &LayoutAst) -> String {
    let args: Vec<String> = l
        .args
        .iter()
        .map(|a| match a {
            LayoutArg::Size(t) => term(t),
            LayoutArg::Digit([r, o, w], _) => format!("{}:{}:{}", term(r), term(o), term(w)),
            LayoutArg::Layout(inner) => layout(inner),
        })
        .collect();
    format!("{}({})", l.name.name, args.join(", "))
}

/// A literal as the lexer reads it back (`-1.5`, `3u`, `inf`, `1e-7`).
pub fn lit(l: &Literal) -> String {
    match l.value {
        LitValue::Int(v) => v.to_string(),
        LitValue::I32(v) => format!("{v}i"),
        LitValue::U32(v) => format!("{v}u"),
        LitValue::Float(x) if x.is_infinite() => if x < 0.0 { "-inf" } else { "inf" }.to_string(),
        LitValue::Float(x) => format!("{x:?}"),
        LitValue::Half(x) => format!("{x:?}h"),
    }
}

fn lit_is_negative(l: &Literal) -> bool {
    match l.value {
        LitValue::Int(v) | LitValue::I32(v) | LitValue::U32(v) => v < 0,
        LitValue::Float(x) | LitValue::Half(x) => x.is_sign_negative(),
    }
}

/// One expression, or several as a parenthesised tuple.
fn tuple(es: &[Expr]) -> String {
    match es {
        [one] => expr(one),
        _ => format!("({})", es.iter().map(expr).collect::<Vec<_>>().join(", ")),
    }
}

/// The precedence level of an expression's outermost form.
pub fn prec(e: &Expr) -> u8 {
    match &e.kind {
        ExprKind::Compute { .. }
        | ExprKind::Reduce { .. }
        | ExprKind::Let { .. }
        | ExprKind::Iterate(_)
        | ExprKind::With { .. } => OPEN,
        ExprKind::Binary { op, .. } => binop_prec(*op),
        ExprKind::Unary { .. } => UNARY,
        ExprKind::Lit(l) if lit_is_negative(l) => UNARY,
        // A guarded read binds like an atom, but reads better in parentheses.
        ExprKind::Index { guard: Some(_), .. } => COMPARE,
        _ => ATOM,
    }
}

fn binop_prec(op: BinOp) -> u8 {
    match op {
        BinOp::Add | BinOp::Sub => SUM,
        BinOp::Mul | BinOp::Div | BinOp::Rem => PRODUCT,
        BinOp::And => AND,
        BinOp::Or => OR,
        BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge | BinOp::Eq | BinOp::Ne => COMPARE,
    }
}

fn write_expr(out: &mut String, e: &Expr) {
    if let Some(head) = open_head(e) {
        out.push_str(&head);
        out.push(' ');
        write_open_rest(out, e);
        return;
    }
    match &e.kind {
        ExprKind::Binary { op, lhs, rhs } => {
            let p = binop_prec(*op);
            let (lp, rp) = if p == COMPARE { (SUM, SUM) } else { (p, p + 1) };
            write_operand(out, lhs, lp);
            out.push_str(&format!(" {} ", op.symbol()));
            write_operand(out, rhs, rp);
        }
        ExprKind::Unary { op: UnOp::Neg, arg } => write_negation(out, arg),
        ExprKind::Unary { op: UnOp::Not, arg } => {
            out.push('!');
            write_operand(out, arg, UNARY);
        }
        _ => write_atom(out, e),
    }
}

/// What follows the head of an open expression: the body, or `value in body`.
fn write_open_rest(out: &mut String, e: &Expr) {
    match &e.kind {
        ExprKind::Compute { body, .. }
        | ExprKind::Reduce { body, .. }
        | ExprKind::With { value: body, .. } => write_expr(out, body),
        ExprKind::Let { value, body, .. } => {
            write_expr(out, value);
            out.push_str(" in ");
            write_expr(out, body);
        }
        ExprKind::Iterate(it) => match &it.body {
            IterBody::Results(es) => out.push_str(&tuple(es)),
            // Only a loop item may have a block (E0144 elsewhere).
            IterBody::Block { items, results, .. } => {
                let items: Vec<String> = items.iter().map(super::item).collect();
                out.push_str(&format!(
                    "{{ {} yield {} }}",
                    items.join(" "),
                    tuple(results)
                ));
            }
        },
        _ => {}
    }
}

fn write_negation(out: &mut String, arg: &Expr) {
    out.push('-');
    match &arg.kind {
        ExprKind::Lit(l) if !lit_is_negative(l) => {
            out.push('(');
            out.push_str(&lit(l));
            out.push(')');
        }
        _ => {
            let start = out.len();
            write_operand(out, arg, UNARY);
            if out[start..].starts_with('-') {
                out.insert(start, ' ');
            }
        }
    }
}

fn write_operand(out: &mut String, e: &Expr, min: u8) {
    if prec(e) < min {
        out.push('(');
        write_expr(out, e);
        out.push(')');
    } else {
        write_expr(out, e);
    }
}

fn write_atom(out: &mut String, e: &Expr) {
    match &e.kind {
        ExprKind::Index { vec, index, guard } => {
            out.push_str(&format!("{}[{}]", vec.name, term(index)));
            if let Some(g) = guard {
                out.push_str(&format!(" else {}", lit(g)));
            }
        }
        ExprKind::Name(i) => out.push_str(&i.name),
        ExprKind::Lit(l) => out.push_str(&lit(l)),
        ExprKind::Fill { value, n } => out.push_str(&format!("fill({}, {})", lit(value), term(n))),
        ExprKind::VecLit(lits) => {
            let items: Vec<String> = lits.iter().map(lit).collect();
            out.push_str(&format!("[{}]", items.join(", ")));
        }
        ExprKind::Broadcast { arg, n } => {
            out.push_str(&format!("broadcast({}, {})", expr(arg), term(n)));
        }
        ExprKind::Call { func, args } => {
            let args: Vec<String> = args.iter().map(expr).collect();
            out.push_str(&format!("{}({})", func.name, args.join(", ")));
        }
        _ => write_expr(out, e),
    }
}

fn term_prec(t: &Term) -> u8 {
    match &t.kind {
        TermKind::Binary(TermOp::Add | TermOp::Sub, ..) => SUM,
        TermKind::Binary(..) => PRODUCT,
        TermKind::Neg(_) => UNARY,
        TermKind::Int(v) if *v < 0 => UNARY,
        _ => ATOM,
    }
}

fn write_term(out: &mut String, t: &Term, min: u8) {
    let parens = term_prec(t) < min;
    if parens {
        out.push('(');
    }
    match &t.kind {
        TermKind::Int(v) => out.push_str(&v.to_string()),
        TermKind::Name(i) => out.push_str(&i.name),
        TermKind::Neg(x) => write_term_negation(out, x),
        TermKind::Binary(op, x, y) => {
            let p = term_prec(t);
            write_term(out, x, p);
            out.push_str(&format!(" {} ", op.symbol()));
            write_term(out, y, p + 1);
        }
    }
    if parens {
        out.push(')');
    }
}

fn write_term_negation(out: &mut String, x: &Term) {
    out.push('-');
    match x.kind {
        TermKind::Int(v) if v >= 0 => out.push_str(&format!("({v})")),
        _ => {
            let start = out.len();
            write_term(out, x, UNARY);
            if out[start..].starts_with('-') {
                out.insert(start, ' ');
            }
        }
    }
}
