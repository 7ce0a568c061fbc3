//! The text form of a program's stages: global values, context type, blocks and their distinct kernels.

use super::body::{BlockBody, Kernel};
use super::stage::{BlockMatrixStage, GlobalVal};
use crate::air::Program;
use std::fmt::Write as _;

/// Prints every stage of `p`: one section per op, each distinct kernel once.
pub fn print_stages(p: &Program, stages: &[BlockMatrixStage]) -> String {
    let mut out = String::new();
    for st in stages {
        let _ = writeln!(
            out,
            "stage %{} = {} : {}",
            st.name,
            p.inst(st.reg).op.name(),
            st.ty
        );
        for (name, g) in &st.global_vals {
            let _ = match g {
                GlobalVal::Matrix { ty, .. } => {
                    writeln!(out, "  global {name} = matrix %{name} : {ty}")
                }
                GlobalVal::Random { seed, ty, .. } => writeln!(
                    out,
                    "  global {name} = random {seed} : {ty} (each tile made on its owner)"
                ),
            };
        }
        let _ = writeln!(out, "  context {}", st.ctx_type);
        let mut kernels: Vec<Kernel> = Vec::new();
        if super::linalg::is_linalg(p, st.reg) {
            tasks(p, st, &mut kernels, &mut out);
        }
        for task in st.to_ir(|_, b| b, None) {
            if super::linalg::is_linalg(p, st.reg) {
                break;
            }
            let k = kernel_id(&mut kernels, &task.value);
            let reads: Vec<String> = task.value.inputs.iter().map(|pn| read(p, pn)).collect();
            let c = task.ctx;
            let _ = writeln!(
                out,
                "  block ({}, {}) {}: kernel k{k} reads {}",
                c.i,
                c.j,
                c.dims,
                reads.join(" ")
            );
        }
        for (k, kernel) in kernels.iter().enumerate() {
            let _ = writeln!(out, "  kernel k{k}:");
            for line in texpr_ir::print::program(kernel).lines() {
                let _ = writeln!(out, "    {line}");
            }
        }
    }
    out
}

/// How a block reads panel `pn`: `name=%matrix[rows, cols]`, and its map.
fn read(p: &Program, pn: &super::body::Panel) -> String {
    let map = if pn.map.is_identity() {
        String::new()
    } else {
        format!(" ({})", pn.map)
    };
    format!(
        "{}=%{}[{}..{}, {}..{}]{map}",
        pn.name,
        p.inst(pn.src).name,
        pn.rows.0,
        pn.rows.1,
        pn.cols.0,
        pn.cols.1
    )
}

/// A factorization's or solve's tasks, in order, each with its kernel and
/// what it reads (`c=version` is the tile as the task before it left it).
fn tasks(p: &Program, st: &BlockMatrixStage, kernels: &mut Vec<Kernel>, out: &mut String) {
    for task in super::linalg::tasks(p, st.reg) {
        let lb = super::linalg::body(p, st.reg, task.tile, task.step);
        let k = kernel_id(kernels, &lb.body);
        let mut reads: Vec<String> = Vec::new();
        if lb.version {
            reads.push("c=version".into());
        }
        reads.extend(lb.body.inputs.iter().map(|pn| read(p, pn)));
        if reads.is_empty() {
            reads.push("nothing".into());
        }
        let dims = st.ty.tile_dims(task.tile.0, task.tile.1);
        let _ = writeln!(
            out,
            "  task {} ({}, {}) {dims}: kernel k{k} reads {}",
            task.step,
            task.tile.0,
            task.tile.1,
            reads.join(" ")
        );
    }
}

fn kernel_id(kernels: &mut Vec<Kernel>, body: &BlockBody) -> usize {
    if let Some(k) = kernels.iter().position(|s| *s == body.kernel) {
        return k;
    }
    kernels.push(body.kernel.clone());
    kernels.len() - 1
}
