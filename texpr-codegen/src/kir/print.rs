//! The kernel IR as text (`texprc compile --emit kir`): one line a
//! declaration or statement, every value `%name: type = operation`, memory
//! named with its space (`buffer`, `shared`, `private`, `var`) and every
//! load and store with its type, so the width it moves is in sight.

use super::*;
use std::fmt::Write as _;

/// The text of `k`.
pub fn kernel(k: &Kernel) -> String {
    let mut out = format!("kernel {} workgroup_size {}\n", k.name, k.workgroup_size);
    if !k.comment.is_empty() {
        let _ = writeln!(out, "  // {}", k.comment);
    }
    for (i, b) in k.bindings.iter().enumerate() {
        let access = match b.access {
            Access::Read => "read",
            Access::ReadWrite => "read_write",
        };
        let _ = writeln!(
            out,
            "  binding {i} {}: array<{}> {access} (b{})",
            b.name, b.view.ty, b.buffer.0
        );
    }
    for s in &k.shared {
        let _ = writeln!(out, "  shared {}: array<{}, {}>", s.name, s.ty, s.len);
    }
    for c in &k.privates {
        let items: Vec<String> = c.values.iter().map(|l| super::wgsl::lit(*l)).collect();
        let _ = writeln!(
            out,
            "  private {}: array<{}, {}> = [{}]",
            c.name,
            c.ty,
            c.values.len(),
            items.join(", ")
        );
    }
    for v in &k.vars {
        let len = v.len.map_or(String::new(), |n| format!("[{n}]"));
        let _ = writeln!(out, "  var {}: {}{len}", v.name, v.ty);
    }
    for c in &k.coops {
        let _ = writeln!(out, "  coop {}: {}", c.name, c.wgsl_ty());
    }
    block(&mut out, k, &k.body, 1);
    out
}

fn val(k: &Kernel, v: V) -> String {
    let value = k.value(v);
    match &value.op {
        Op::Const(l) => super::wgsl::lit(*l),
        Op::Builtin(b) => format!("{b:?}"),
        _ => format!("%{}", value.name),
    }
}

fn mem(k: &Kernel, m: Mem) -> String {
    match m {
        Mem::Buffer(b) => format!("buffer {}", k.bindings[b as usize].name),
        Mem::Shared(s) => format!("shared {}", k.shared[s as usize].name),
        Mem::Private(c) => format!("private {}", k.privates[c as usize].name),
        Mem::Var(x) => format!("var {}", k.var(x).name),
    }
}

fn op(k: &Kernel, v: V) -> String {
    let value = k.value(v);
    let vs = |xs: &[V]| xs.iter().map(|x| val(k, *x)).collect::<Vec<_>>().join(", ");
    match &value.op {
        Op::Const(_) | Op::Builtin(_) | Op::LoopIndex => val(k, v),
        Op::Unary(o, a) => format!("{o:?} {}", val(k, *a)).to_lowercase(),
        Op::Binary(o, a, b) => format!("{} {} {}", val(k, *a), o.symbol(), val(k, *b)),
        Op::Call(f, args) => format!("{}({})", f.name(), vs(args)),
        Op::Convert(a) => format!("convert {}", val(k, *a)),
        Op::Bitcast(a) => format!("bitcast {}", val(k, *a)),
        Op::Load(m, i) => format!("load {}[{}]", mem(k, *m), val(k, *i)),
        Op::ReadVar(x) => format!("read var {}", k.var(*x).name),
        Op::Component(a, i) => format!("{}[{}]", val(k, *a), val(k, *i)),
        Op::Extract(a, c) => format!("{}.{}", val(k, *a), ["x", "y", "z", "w"][*c as usize]),
        Op::Construct(parts) => format!("construct({})", vs(parts)),
        Op::Subgroup(o, args) => format!("{}({})", o.name(), vs(args)),
    }
}

fn block(out: &mut String, k: &Kernel, b: &Block, depth: usize) {
    let pad = "  ".repeat(depth);
    for s in &b.stmts {
        match s {
            Stmt::Let(v) => {
                let _ = writeln!(
                    out,
                    "{pad}%{}: {} = {}",
                    k.value(*v).name,
                    k.value(*v).ty,
                    op(k, *v)
                );
            }
            Stmt::Var(x, init) => {
                let init = match init {
                    Init::None => String::new(),
                    Init::Value(v) => format!(" = {}", val(k, *v)),
                    Init::Elements(vs) => {
                        let items: Vec<String> = vs.iter().map(|v| val(k, *v)).collect();
                        format!(" = [{}]", items.join(", "))
                    }
                };
                let _ = writeln!(out, "{pad}declare var {}{init}", k.var(*x).name);
            }
            Stmt::Assign(x, i, v) => {
                let at = i.map_or(String::new(), |i| format!("[{}]", val(k, i)));
                let _ = writeln!(
                    out,
                    "{pad}assign var {}{at} = {}",
                    k.var(*x).name,
                    val(k, *v)
                );
            }
            Stmt::Store(m, i, v) => {
                let ty = k.value(*v).ty;
                let _ = writeln!(
                    out,
                    "{pad}store {}[{}]: {ty} = {}",
                    mem(k, *m),
                    val(k, *i),
                    val(k, *v)
                );
            }
            Stmt::Loop(l) => {
                let step = match l.step {
                    LoopStep::Up(s) => format!("step +{s}"),
                    LoopStep::Halve => "step /2".to_string(),
                };
                let uniform = if l.uniform { " uniform" } else { "" };
                let _ = writeln!(
                    out,
                    "{pad}loop %{} = {} to {} {step}{uniform} (at most {} trips) {{",
                    k.value(l.index).name,
                    val(k, l.start),
                    val(k, l.end),
                    l.trips
                );
                block(out, k, &l.body, depth + 1);
                let _ = writeln!(out, "{pad}}}");
            }
            Stmt::If(c) => {
                let uniform = if c.uniform { " uniform" } else { "" };
                let _ = writeln!(out, "{pad}if {}{uniform} {{", val(k, c.cond));
                block(out, k, &c.then, depth + 1);
                if let Some(e) = &c.els {
                    let _ = writeln!(out, "{pad}}} else {{");
                    block(out, k, e, depth + 1);
                }
                let _ = writeln!(out, "{pad}}}");
            }
            Stmt::Barrier => {
                let _ = writeln!(out, "{pad}barrier");
            }
            Stmt::StorageBarrier => {
                let _ = writeln!(out, "{pad}storage_barrier");
            }
            Stmt::Coop(c) => {
                let line = super::wgsl_stmt(k, c, |v| val(k, v), |m| mem(k, m));
                let _ = writeln!(out, "{pad}{line}");
            }
        }
    }
}
