//! A forward error analysis of a program: for every output, the range of its
//! values and a bound on the absolute difference between two evaluations that
//! each round as WGSL allows (the interpreter's exact IEEE rounding on one side,
//! the GPU's reassociated, contracted, approximate builtins on the other).
//!
//! Each expression gets an interval `[lo, hi]` (from the actual inputs'
//! ranges) and an error `err`. Rounding adds `EPS * magnitude` per operation;
//! reductions add `n * EPS * n * magnitude` (any summation order); builtins add
//! the WGSL accuracy bounds (`exp` 3 + 2|x| ULP, `sin`/`cos` 2^-11 absolute,
//! `log` 2^-21 absolute, `pow` through `exp2(y * log2(x))`, division 2.5 ULP).
//! Where a comparison could flip or a float-to-int truncation could step, the
//! bound grows by the jump. Integer values derived only from exact values have
//! `err == 0` and are compared exactly.

use std::collections::BTreeMap;

use crate::{Data, Value};
use texpr_syntax::ast::{ElemTy, ReduceOp};
use texpr_syntax::ir::{Expr, ExprKind, Program, Scalar, VarId, VarKind, VecRef};

use super::bound_ops::{binary, call, cast, unary};
use super::est::{EPS, Est};

/// The estimate of every output of `p` on `inputs`.
pub fn outputs(p: &Program, inputs: &[Value]) -> Vec<Est> {
    let mut a = Analysis {
        p,
        inputs: inputs.iter().map(range_of).collect(),
        globals: Vec::new(),
        locals: BTreeMap::new(),
    };
    for g in &p.globals {
        let e = a.expr(&g.value);
        a.globals.push(e);
    }
    p.outputs.iter().map(|o| a.expr(&o.value)).collect()
}

fn range_of(v: &Value) -> Est {
    let (lo, hi) = match &v.data {
        Data::F32(x) => fold(x.iter().map(|&f| f as f64)),
        Data::I32(x) => fold(x.iter().map(|&i| i as f64)),
        Data::U32(x) => fold(x.iter().map(|&u| u as f64)),
        Data::Bool(_) => (0.0, 1.0),
    };
    Est::exact(lo, hi)
}

fn fold(values: impl Iterator<Item = f64>) -> (f64, f64) {
    values.fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), x| {
        (lo.min(x), hi.max(x))
    })
}

fn scalar(s: Scalar) -> f64 {
    match s {
        Scalar::F32(f) => f as f64,
        Scalar::I32(i) => i as f64,
        Scalar::U32(u) => u as f64,
    }
}

struct Analysis<'p> {
    p: &'p Program,
    inputs: Vec<Est>,
    globals: Vec<Est>,
    locals: BTreeMap<VarId, Est>,
}

impl Analysis<'_> {
    fn vec(&self, v: VecRef) -> Est {
        match v {
            VecRef::Input(i) => self.inputs[i as usize],
            VecRef::Global(i) => self
                .globals
                .get(i as usize)
                .copied()
                .unwrap_or_else(Est::unknown),
            VecRef::Local(id) => self.locals.get(&id).copied().unwrap_or_else(Est::unknown),
        }
    }

    fn expr(&mut self, e: &Expr) -> Est {
        let elem = e.ty.elem;
        let est = match &e.kind {
            ExprKind::Compute { body, .. } => self.expr(body),
            ExprKind::Reduce { op, n, body, .. } => reduce(*op, *n as f64, self.expr(body), elem),
            ExprKind::Let {
                var, value, body, ..
            } => {
                let v = self.expr(value);
                self.locals.insert(*var, v);
                self.expr(body)
            }
            ExprKind::Index { vec, guard, .. } => {
                let v = self.vec(*vec);
                guard.map_or(v, |g| v.union(Est::point(scalar(g))))
            }
            ExprKind::Whole(v) => self.vec(*v),
            ExprKind::IndexVar(v) => match self.p.var(*v).kind {
                VarKind::Index { extent } => Est::exact(0.0, extent.saturating_sub(1) as f64),
                VarKind::Vector(_) => Est::unknown(),
            },
            ExprKind::Const(s) | ExprKind::Fill(s) => Est::point(scalar(*s)),
            ExprKind::VecLit(items) => {
                let (lo, hi) = fold(items.iter().map(|&s| scalar(s)));
                Est::exact(lo, hi)
            }
            ExprKind::Broadcast(inner) => self.expr(inner),
            ExprKind::Cast(inner) => cast(self.expr(inner), inner.ty.elem, elem),
            ExprKind::Unary(op, a) => unary(*op, self.expr(a), elem),
            ExprKind::Binary(op, a, b) => {
                let (x, y) = (self.expr(a), self.expr(b));
                binary(*op, x, y, a.ty.elem)
            }
            ExprKind::Call(f, args) => {
                let ests: Vec<Est> = args.iter().map(|a| self.expr(a)).collect();
                call(*f, &ests, elem)
            }
        };
        est.sane()
    }
}

fn reduce(op: ReduceOp, n: f64, b: Est, elem: ElemTy) -> Est {
    match op {
        ReduceOp::Max | ReduceOp::Min => b,
        ReduceOp::Add => {
            let round = if elem == ElemTy::F32 {
                n * EPS * n * b.mag()
            } else {
                0.0
            };
            Est {
                lo: n * b.lo.min(0.0).min(b.lo),
                hi: n * b.hi.max(0.0).max(b.hi),
                err: n * b.err + round,
            }
            .wrap(elem)
        }
        ReduceOp::Mul => {
            let m = b.mag().max(1.0);
            let total = m.powf(n);
            let err = if b.err == 0.0 && elem != ElemTy::F32 {
                0.0
            } else {
                n * m.powf(n - 1.0) * (b.err + if elem == ElemTy::F32 { EPS * m } else { 0.0 })
            };
            Est {
                lo: -total,
                hi: total,
                err,
            }
            .wrap(elem)
        }
    }
}
