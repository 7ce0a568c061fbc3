//! Cooperative matrices in the kernel IR: one subgroup's tile of
//! `C = A B + C` (tensor cores), WGSL's `coop_matNxN<T, A|B|C>` with naga's
//! `wgpu_cooperative_matrix` extension. A kernel declares its matrices
//! ([`Coop`], by [`CoopId`]) as it declares variables, and moves them with
//! three statements ([`CoopStmt`]): a load from memory, a multiply-add and a
//! store to memory, each row-major with a stride in elements. Every lane of
//! a subgroup takes part in each, so they stand in uniform control flow
//! only (E0391), as barriers do.

use super::{Mem, Scalar, V};

/// A cooperative matrix, by position in [`super::Kernel::coops`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct CoopId(pub u32);

/// Its part in `C = A B + C`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Role {
    A,
    B,
    C,
}

/// A `size x size` matrix of `scalar`s in role `role` (a function variable).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Coop {
    pub name: String,
    /// 8 or 16 (WGSL's `coop_mat8x8`, `coop_mat16x16`).
    pub size: u8,
    pub scalar: Scalar,
    pub role: Role,
}

impl Coop {
    /// `coop_mat16x16<f16,A>`.
    pub fn wgsl_ty(&self) -> String {
        let role = match self.role {
            Role::A => "A",
            Role::B => "B",
            Role::C => "C",
        };
        let n = self.size;
        format!("coop_mat{n}x{n}<{},{role}>", self.scalar.name())
    }
}

/// A statement on cooperative matrices.
#[derive(Clone, Debug, PartialEq)]
pub enum CoopStmt {
    /// `coop = coopLoadT<..>(&mem[offset], stride)`: row `r` of the matrix
    /// from `mem[offset + r * stride ..]`.
    Load {
        coop: CoopId,
        mem: Mem,
        offset: V,
        stride: u32,
    },
    /// `acc = coopMultiplyAdd(a, b, acc)`.
    MulAdd { acc: CoopId, a: CoopId, b: CoopId },
    /// `coopStoreT(coop, &mem[offset], stride)`.
    Store {
        coop: CoopId,
        mem: Mem,
        offset: V,
        stride: u32,
    },
}

impl CoopStmt {
    /// The values it reads.
    pub fn operands(&self) -> Vec<V> {
        match self {
            CoopStmt::Load { offset, .. } | CoopStmt::Store { offset, .. } => vec![*offset],
            CoopStmt::MulAdd { .. } => Vec::new(),
        }
    }

    /// Rewrites each value it reads through `f`.
    pub fn map_operands(&mut self, f: &mut dyn FnMut(V) -> V) {
        if let CoopStmt::Load { offset, .. } | CoopStmt::Store { offset, .. } = self {
            *offset = f(*offset);
        }
    }

    /// The memory it loads or stores, to rewrite.
    pub fn mem_mut(&mut self) -> Option<&mut Mem> {
        match self {
            CoopStmt::Load { mem, .. } | CoopStmt::Store { mem, .. } => Some(mem),
            CoopStmt::MulAdd { .. } => None,
        }
    }

    /// The matrices it names.
    pub fn coops(&self) -> Vec<CoopId> {
        match self {
            CoopStmt::Load { coop, .. } | CoopStmt::Store { coop, .. } => vec![*coop],
            CoopStmt::MulAdd { acc, a, b } => vec![*acc, *a, *b],
        }
    }
}

/// `stmt` as WGSL, given how values and memory print.
pub fn wgsl_stmt(
    k: &super::Kernel,
    c: &CoopStmt,
    operand: impl Fn(V) -> String,
    mem: impl Fn(Mem) -> String,
) -> String {
    let name = |id: CoopId| k.coops[id.0 as usize].name.clone();
    match c {
        CoopStmt::Load {
            coop,
            mem: m,
            offset,
            stride,
        } => {
            let ty = k.coops[coop.0 as usize].wgsl_ty();
            let (at, place) = (operand(*offset), mem(*m));
            format!(
                "{} = coopLoadT<{ty}>(&{place}[{at}], {stride}u);",
                name(*coop)
            )
        }
        CoopStmt::MulAdd { acc, a, b } => {
            let acc = name(*acc);
            format!(
                "{acc} = coopMultiplyAdd({}, {}, {acc});",
                name(*a),
                name(*b)
            )
        }
        CoopStmt::Store {
            coop,
            mem: m,
            offset,
            stride,
        } => {
            let (at, place) = (operand(*offset), mem(*m));
            format!("coopStoreT({}, &{place}[{at}], {stride}u);", name(*coop))
        }
    }
}
