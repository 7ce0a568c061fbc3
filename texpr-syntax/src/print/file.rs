//! Canonical printer for the surface AST (`texprc fmt`).
//!
//! One item per line. An item longer than [`WIDTH`] columns is broken after the
//! `|i|` of each `compute`/`reduce` (the body indented by 4 more), and after
//! the `in` of each `let` in a chain (the body at the same indentation). Parentheses are minimal
//! (see `flat.rs`). The output depends on the tree alone, so printing is
//! idempotent: `file(parse(file(x)))` equals `file(x)`.
//!
//! [`file_with_comments`] also keeps comments: a comment before an item stays
//! above it, one on the line where an item ends stays at the end of that line,
//! and one inside an item moves to the line above the item. A blank line in
//! the source before an item or a comment is kept (one, however many there were).

mod flat;

use crate::ast::*;
use crate::lexer::Comment;
use texpr_ir::Diagnostic;

/// Lines are broken beyond this many columns.
pub const WIDTH: usize = 100;

/// Prints a file as canonical source text (without comments).
pub fn file(f: &File) -> String {
    let mut out = String::new();
    for it in &f.items {
        out.push_str(&item(it));
        out.push('\n');
    }
    out
}

/// Parses `src` and prints it canonically with its comments, or returns the
/// diagnostics when it does not parse.
pub fn format_source(src: &str) -> Result<String, Vec<Diagnostic>> {
    let parsed = crate::parse::parse_with_comments(src);
    if parsed.diags.iter().any(|d| d.is_error()) {
        return Err(parsed.diags);
    }
    Ok(file_with_comments(&parsed.file, &parsed.comments, src))
}

/// One printed line group: an item or a comment on its own line(s).
struct Element {
    text: String,
    blank_before: bool,
    trailing: Vec<String>,
}

/// Prints `f` with `comments` (in source order, spans into `src`, as
/// `parse_with_comments` returns them). The items must carry their source spans.
pub fn file_with_comments(f: &File, comments: &[Comment], src: &str) -> String {
    let mut elements: Vec<Element> = Vec::new();
    let mut rest = comments.iter().peekable();
    let mut prev_end: Option<usize> = None;
    for it in &f.items {
        while let Some(c) = rest.next_if(|c| (c.span.start as usize) < it.span.end as usize) {
            place_comment(&mut elements, c, prev_end, src);
        }
        elements.push(Element {
            text: item(it),
            blank_before: blank_line_before(src, it.span.start as usize),
            trailing: Vec::new(),
        });
        prev_end = Some(it.span.end as usize);
    }
    for c in rest {
        place_comment(&mut elements, c, prev_end, src);
    }
    render(&elements)
}

/// Adds a comment: at the end of the previous item's last line when it starts
/// on the line where that item ends, else on a line of its own.
fn place_comment(elements: &mut Vec<Element>, c: &Comment, prev_end: Option<usize>, src: &str) {
    let start = c.span.start as usize;
    let same_line = prev_end.is_some_and(|end| {
        end <= start && src.get(end..start).is_some_and(|gap| !gap.contains('\n'))
    });
    let end_of_item = if same_line { elements.last_mut() } else { None };
    if let Some(last) = end_of_item {
        last.trailing.push(c.text.clone());
        return;
    }
    elements.push(Element {
        text: c.text.clone(),
        blank_before: blank_line_before(src, start),
        trailing: Vec::new(),
    });
}

fn render(elements: &[Element]) -> String {
    let mut out = String::new();
    for (k, e) in elements.iter().enumerate() {
        if k > 0 && e.blank_before {
            out.push('\n');
        }
        out.push_str(&e.text);
        for t in &e.trailing {
            out.push(' ');
            out.push_str(t);
        }
        out.push('\n');
    }
    out
}

/// Whether `pos` starts a line (after indentation) that follows a blank line.
fn blank_line_before(src: &str, pos: usize) -> bool {
    let Some(before) = src.get(..pos) else {
        return false;
    };
    let Some(nl) = before.rfind('\n') else {
        return false;
    };
    if !before[nl + 1..].trim().is_empty() {
        return false;
    }
    let prev = &before[..nl];
    let prev_line = &prev[prev.rfind('\n').map_or(0, |i| i + 1)..];
    prev_line.trim().is_empty()
}

/// One item, broken over lines when it is too long.
fn item(it: &Item) -> String {
    match &it.kind {
        ItemKind::Param { name, value } => format!("param {} = {}", name.name, flat::term(value)),
        ItemKind::Input { name, ty } => format!("input {}: {}", name.name, ty_ann(ty)),
        ItemKind::Let {
            name,
            level,
            loads,
            ty,
            value,
        } => {
            let lvl = level.map_or(String::new(), |(l, _)| format!("@{}", l.name()));
            let w = loads.map_or(String::new(), |(l, _)| format!("@{}", l.name()));
            let head = format!("let{lvl}{w} {}{} =", name.name, opt_ty(ty));
            with_value(head, value)
        }
        ItemKind::Output {
            name,
            loads,
            ty,
            value,
        } => {
            let w = loads.map_or(String::new(), |(l, _)| format!("@{}", l.name()));
            let head = format!("output{w} {}{} =", name.name, opt_ty(ty));
            with_value(head, value)
        }
        ItemKind::Iterate {
            output,
            names,
            ty,
            iter,
        } => {
            let kw = if *output { "output" } else { "let" };
            let names = tuple(names.iter().map(|n| n.name.clone()));
            iterate(format!("{kw} {names}{} =", opt_ty(ty)), iter)
        }
    }
}

/// `a` alone, or `(a, b, ...)`.
fn tuple(parts: impl Iterator<Item = String>) -> String {
    let parts: Vec<String> = parts.collect();
    match parts.as_slice() {
        [one] => one.clone(),
        _ => format!("({})", parts.join(", ")),
    }
}

/// `head iterate T from INITS |STATES| BODY`; a block's items indented by 4,
/// one per line, then `yield ...` and the closing brace.
fn iterate(head: String, it: &Iterate) -> String {
    let inits = tuple(it.inits.iter().map(flat::expr));
    let binders: Vec<&str> = it.binders.iter().map(|b| b.name.as_str()).collect();
    let open = format!(
        "{head} iterate {} from {inits} |{}|",
        flat::term(&it.count),
        binders.join(", ")
    );
    match &it.body {
        IterBody::Results(es) if es.len() > 1 => {
            format!("{open} {}", tuple(es.iter().map(flat::expr)))
        }
        IterBody::Results(es) => {
            let e = &es[0];
            let col = open.len() + 1;
            if col + flat::expr(e).len() > WIDTH {
                return format!("{open}\n    {}", layout(e, 4, 4));
            }
            format!("{open} {}", layout(e, 0, col))
        }
        IterBody::Block { items, results, .. } => {
            let mut out = format!("{open} {{\n");
            for i in items {
                for line in item(i).lines() {
                    out.push_str("    ");
                    out.push_str(line);
                    out.push('\n');
                }
            }
            let results = match results.as_slice() {
                [one] => layout(one, 4, 10),
                _ => tuple(results.iter().map(flat::expr)),
            };
            out.push_str(&format!("    yield {results}\n}}"));
            out
        }
    }
}

fn ty_ann(ty: &TyAnn) -> String {
    if ty.scalar {
        return ty.elem.name().to_string();
    }
    format!("{}[{}]", ty.elem.name(), flat::term(&ty.len))
}

fn opt_ty(ty: &Option<TyAnn>) -> String {
    ty.as_ref()
        .map_or(String::new(), |t| format!(": {}", ty_ann(t)))
}

/// `head value`, or, when that is too long and the value is a `let`,
/// `head` with the value on the following lines.
fn with_value(head: String, value: &Expr) -> String {
    // An `iterate` expression standing whole as a value keeps its
    // parentheses (unparenthesised, it reads back as a loop item).
    if let ExprKind::Iterate(_) = value.kind {
        return format!("{head} ({})", flat::expr(value));
    }
    let col = head.len() + 1;
    if matches!(value.kind, ExprKind::Let { .. }) && col + flat::expr(value).len() > WIDTH {
        return format!("{head}\n    {}", layout(value, 4, 4));
    }
    format!("{head} {}", layout(value, 0, col))
}

/// `e` printed starting at column `col`, continuation lines indented `indent`.
fn layout(e: &Expr, indent: usize, col: usize) -> String {
    let one_line = flat::expr(e);
    if col + one_line.len() <= WIDTH {
        return one_line;
    }
    match &e.kind {
        ExprKind::Compute { body, .. }
        | ExprKind::Reduce { body, .. }
        | ExprKind::With { value: body, .. } => {
            let head = flat::open_head(e).unwrap_or_default();
            let pad = " ".repeat(indent + 4);
            format!("{head}\n{pad}{}", layout(body, indent + 4, indent + 4))
        }
        ExprKind::Let { .. } => let_chain(e, indent, col),
        ExprKind::Iterate(it) => match &it.body {
            IterBody::Results(es) if es.len() == 1 => {
                let head = flat::open_head(e).unwrap_or_default();
                let pad = " ".repeat(indent + 4);
                format!("{head}\n{pad}{}", layout(&es[0], indent + 4, indent + 4))
            }
            _ => one_line,
        },
        _ => one_line,
    }
}

/// `let v = value in` and the body on the next line, at the same indentation;
/// a body that is itself a `let` is broken the same way.
fn let_chain(e: &Expr, indent: usize, col: usize) -> String {
    let ExprKind::Let { value, body, .. } = &e.kind else {
        return layout(e, indent, col);
    };
    let head = flat::open_head(e).unwrap_or_default();
    let value = layout(value, indent, col + head.len() + 1);
    let pad = " ".repeat(indent);
    let body = let_chain(body, indent, indent);
    format!("{head} {value} in\n{pad}{body}")
}
