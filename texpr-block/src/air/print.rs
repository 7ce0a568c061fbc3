//! The text form of a block program; `parse(print(p))` gives `p` back (up to spans).

use super::ops::{Fused, Op};
use super::program::Program;
use super::reg::Reg;
use std::fmt::Write as _;

/// Prints a program in its text form.
pub fn print(p: &Program) -> String {
    let mut out = String::new();
    for (name, value) in &p.params {
        let _ = writeln!(out, "param {name} = {value}");
    }
    let _ = writeln!(out, "func {} {{", p.name);
    for r in p.regs() {
        let inst = p.inst(r);
        let _ = writeln!(
            out,
            "  %{} = {} : {}",
            inst.name,
            op_text(p, &inst.op),
            inst.ty
        );
    }
    let _ = writeln!(out, "  ret {}", reg(p, p.ret));
    out.push_str("}\n");
    out
}

fn reg(p: &Program, r: Reg) -> String {
    format!("%{}", p.inst(r).name)
}

/// `op args` of one instruction (without result and type).
pub fn op_text(p: &Program, op: &Op) -> String {
    let name = op.name();
    match op {
        Op::Input => name.to_string(),
        Op::Random(seed) => format!("{name} {seed}"),
        Op::Binary(_, a, b) => format!("{name} {}, {}", reg(p, *a), reg(p, *b)),
        Op::Select(c, a, b) => format!("{name} {}, {}, {}", reg(p, *c), reg(p, *a), reg(p, *b)),
        Op::Scale(a, c) => format!("{name} {}, {}", reg(p, *a), super::expr::fmt_f32(*c)),
        Op::Map(f, a) => format!("{name} {}, {}", f.name(), reg(p, *a)),
        Op::Transpose(a) | Op::Broadcast(a) | Op::Reduce(_, _, a) => {
            format!("{name} {}", reg(p, *a))
        }
        Op::Reverse(flip, a) => format!("{name} {}, {}", reg(p, *a), flip.name()),
        Op::Slice { src, rows, cols } => format!(
            "{name} {}, {}..{}, {}..{}",
            reg(p, *src),
            rows.start,
            rows.end,
            cols.start,
            cols.end
        ),
        Op::Diag(a) | Op::Cholesky(a) => format!("{name} {}", reg(p, *a)),
        Op::Solve { tri, rhs, .. } => format!("{name} {}, {}", reg(p, *tri), reg(p, *rhs)),
        Op::Concat { parts, .. } => {
            let parts: Vec<String> = parts.iter().map(|&x| reg(p, x)).collect();
            format!("{name} {}", parts.join(", "))
        }
        Op::Filter { src, keep, .. } => {
            let keep: Vec<String> = keep.iter().map(u64::to_string).collect();
            format!("{name} {}, [{}]", reg(p, *src), keep.join(", "))
        }
        Op::Matmul { a, b, epilogue } => {
            let mut s = format!("{name} {}, {}", reg(p, *a), reg(p, *b));
            if let Some(f) = epilogue {
                let _ = write!(s, " epilogue{}", fused_text(p, f));
            }
            s
        }
        Op::Fused(f) => format!("{name}{}", fused_text(p, f)),
    }
}

fn fused_text(p: &Program, f: &Fused) -> String {
    let ops: Vec<String> = f
        .operands
        .iter()
        .map(|o| format!("{}{}", reg(p, o.reg), o.bcast.suffix()))
        .collect();
    let sep = if ops.is_empty() { "" } else { " " };
    format!("{sep}{} {{ {} }}", ops.join(", "), f.body)
}
