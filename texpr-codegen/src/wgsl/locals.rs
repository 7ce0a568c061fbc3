//! `let`-bound vectors: where each lives and how its reads are written.
//!
//! - A `let@reg` of one element is a WGSL value ([`Loc::Scalar`]); of at most
//!   the budget's `register_vector` elements a register vector ([`Loc::Regs`], every element
//!   unrolled) when unrolling it fits the kernel's budget of unrolled
//!   statements; otherwise a `var` array filled by a loop ([`Loc::Array`]),
//!   one element at a time. A vector fold whose steps share work between
//!   their elements (a register tile's operand loads, a staged block) stays
//!   a register vector whatever the budget: element by element it would
//!   redo that work for every element (the kernel is refused, E0319, if it
//!   then unrolls too far).
//! - A read of a register vector at a constant index names the element; at a
//!   run-time index it reads an array copy of the vector, made once, right
//!   where the vector was computed (inserted at a writer mark), for every
//!   such read. (A copy per read made 64 copies of a 64-element array in one
//!   kernel, and an H100 lost the device on it.)
//! - A vector literal is read where it lives, never copied per read or per
//!   element: a module-scope array, or a constant buffer when it is long
//!   ([`Ctx::literal_array`]).
//! - Every array and register vector is recorded ([`Ctx::note_private`]) for
//!   the per-invocation memory budget (E0318, `checks.rs`); an array that
//!   would go over it is kept in a global scratch buffer instead
//!   (`spill.rs`).

use super::ctx::{Ctx, Ix, Loc};
use super::elem::unbound;
use super::lit;
use texpr_syntax::Diagnostic;
use texpr_syntax::ir::{Expr, ExprKind, Scalar, VarId, VecRef};

impl Ctx<'_> {
    /// A `let@reg` value: a scalar, a register vector (when unrolling it
    /// fits the kernel's budget), or an array filled by a loop (in function
    /// memory, or past the budget in a global scratch buffer).
    pub fn local_vector(&mut self, var: VarId, value: &Expr) -> Result<Loc, Diagnostic> {
        let name = self.p.var(var).name.clone();
        let len = value.ty.len;
        if len == 1 {
            let v = self.elem(value, &Ix::Const(0))?;
            return Ok(Loc::Scalar(v));
        }
        if let ExprKind::VecLit(vals) = &value.kind {
            return Ok(Loc::Array(self.literal_array(
                value.ty.elem,
                vals,
                value.span,
            )));
        }
        if len <= self.budget.register_vector
            && (self.may_unroll(len, self.cost().vector(value).div_ceil(len)) || shares(value))
        {
            self.note_private(format!("register vector `{name}`"), len, value.span);
            if let Some(vals) = self.quad_tile_elements(value)? {
                return Ok(Loc::Regs(vals));
            }
            return Ok(Loc::Regs(self.vector(value)?));
        }
        if self.must_spill(value) {
            return self.spilled(var, value);
        }
        self.note_private(format!("array `{name}`"), len, value.span);
        let arr = self.w.fresh(&name);
        let t = lit::ty(value.ty.elem);
        self.w.line(format!("var {arr}: array<{t}, {len}>;"));
        let e = self.open_loop("e", &Ix::Const(0), len as i64, 1, true);
        let v = self.elem(value, &Ix::Name(e.clone()))?;
        self.w.line(format!("{arr}[{e}] = {v};"));
        self.w.close();
        Ok(Loc::Array(arr))
    }

    /// Binds local vector `var` to `loc`; for a register vector, marks the
    /// place its values stand (see [`Ctx::regs_array`]).
    pub fn bind_local(&mut self, var: VarId, loc: Loc) {
        match loc {
            Loc::Regs(_) => {
                let at = self.w.mark();
                self.regs_at.insert(var, (at, None));
            }
            _ => {
                self.regs_at.remove(&var);
            }
        }
        self.vecs.insert(var, loc);
    }

    /// Register vector `var` (values `vals`) as an array to index at run
    /// time: one copy, made where the vector was computed, for every such
    /// read.
    fn regs_array(&mut self, var: VarId, vals: &[String], t: &str, e: &Expr) -> String {
        if let Some((_, Some(arr))) = self.regs_at.get(&var) {
            return arr.clone();
        }
        let arr = self.w.fresh("tile");
        let n = vals.len();
        let decl = format!(
            "var {arr}: array<{t}, {n}> = array<{t}, {n}>({});",
            vals.join(", ")
        );
        match self.regs_at.get_mut(&var) {
            Some(entry) => {
                self.w.insert_at(entry.0, decl);
                entry.1 = Some(arr.clone());
            }
            None => self.w.line(decl),
        }
        let what = format!(
            "register vector `{}` copied for run-time indexing",
            self.p.var(var).name
        );
        self.note_private(what, n as u64, e.span);
        arr
    }

    /// `vec[ix]`, or with a guard the guard value when `ix` is out of bounds.
    pub(super) fn read(
        &mut self,
        vec: VecRef,
        ix: &Ix,
        guard: Option<Scalar>,
        e: &Expr,
    ) -> Result<String, Diagnostic> {
        let len = self.p.vec_ty(vec).len as i64;
        let t = lit::ty(e.ty.elem);
        let mut spill = None;
        // A register read at a constant index names its value (without
        // copying the register list: a tile's body reads it per element).
        if let (VecRef::Local(v), Ix::Const(c)) = (vec, ix)
            && let Some(Loc::Regs(vals)) = self.vecs.get(&v)
        {
            return match (usize::try_from(*c).ok().and_then(|c| vals.get(c)), guard) {
                (Some(v), _) => Ok(v.clone()),
                (None, Some(g)) => Ok(lit::scalar(g)),
                (None, None) => Err(unbound(e)),
            };
        }
        let base = match vec {
            VecRef::Local(v) => match self.vecs.get(&v).cloned() {
                Some(Loc::Array(a)) => a,
                Some(Loc::Spilled(buf)) => {
                    spill = Some((lit::i32_lit(self.invocations as i32), self.invocation_id()));
                    buf
                }
                Some(Loc::Scalar(s)) => return Ok(self.guarded_scalar(&s, ix, guard, t)),
                Some(Loc::Regs(vals)) => match ix {
                    Ix::Const(c) => {
                        return Ok(
                            match (usize::try_from(*c).ok().and_then(|c| vals.get(c)), guard) {
                                (Some(v), _) => v.clone(),
                                (None, Some(g)) => lit::scalar(g),
                                (None, None) => return Err(unbound(e)),
                            },
                        );
                    }
                    // A run-time index: read the vector's array copy.
                    Ix::Name(_) => self.regs_array(v, &vals, t, e),
                },
                None => return Err(unbound(e)),
            },
            _ => self.vec_buffer(vec).ok_or_else(|| unbound(e))?,
        };
        // A buffer this kernel declares as `array<vec4<T>>` (see
        // `Ctx::vec4`): element `i` is component `i % 4` of entry `i / 4`.
        // One declared `array<vec4<u64>>` (`Ctx::octo`): the low or high
        // half of a component of entry `i / 8`.
        let quad = self.buf_of(vec).is_some_and(|id| self.vec4.contains(&id));
        let octo = self.buf_of(vec).is_some_and(|id| self.octo.contains(&id));
        let at = |ix: &dyn std::fmt::Display| match (quad, &spill) {
            // (An index is never negative: shifts and masks divide.) A
            // buffer in both sets is declared `vec4<T>`, as `declarations`
            // does (the marking passes never put one in both).
            (false, _) if octo => format!(
                "bitcast<f32>(u32({base}[({ix}) >> 3u][(({ix}) & 7i) >> 1u] >> (u32(({ix}) & 1i) * 32u)))"
            ),
            (true, _) => format!("{base}[({ix}) / 4i][({ix}) % 4i]"),
            (false, Some((stride, inv))) => format!("{base}[({ix}) * {stride} + {inv}]"),
            (false, None) => format!("{base}[{ix}]"),
        };
        let Some(g) = guard else {
            return Ok(self.w.let_(t, at(ix)));
        };
        if let Ix::Const(c) = ix {
            return Ok(match (0..len).contains(c) {
                true => self.w.let_(t, at(ix)),
                false => lit::scalar(g),
            });
        }
        let ok = self.w.let_(
            "bool",
            format!("{ix} >= 0i && {ix} < {}", lit::i32_lit(len as i32)),
        );
        let at_ix = self.w.let_(
            "i32",
            format!("clamp({ix}, 0i, {})", lit::i32_lit(len as i32 - 1)),
        );
        let value = at(&at_ix);
        Ok(self
            .w
            .let_(t, format!("select({}, {value}, {ok})", lit::scalar(g))))
    }

    fn guarded_scalar(&mut self, s: &str, ix: &Ix, guard: Option<Scalar>, t: &str) -> String {
        match (guard, ix) {
            (None, _) | (Some(_), Ix::Const(0)) => s.to_string(),
            (Some(g), Ix::Const(_)) => lit::scalar(g),
            (Some(g), Ix::Name(n)) => self
                .w
                .let_(t, format!("select({}, {s}, {n} == 0i)", lit::scalar(g))),
        }
    }

    pub(super) fn veclit(
        &mut self,
        vals: &[Scalar],
        idx: &Ix,
        e: &Expr,
    ) -> Result<String, Diagnostic> {
        if let Ix::Const(c) = idx {
            return vals
                .get(*c as usize)
                .map(|v| lit::scalar(*v))
                .ok_or_else(|| unbound(e));
        }
        let arr = self.literal_array(e.ty.elem, vals, e.span);
        Ok(self.w.let_(lit::ty(e.ty.elem), format!("{arr}[{idx}]")))
    }
}

/// Whether `value` is a vector fold whose body starts with `let`s (work the
/// body's elements share in every step).
fn shares(value: &Expr) -> bool {
    match &value.kind {
        ExprKind::Reduce { body, .. } => matches!(body.kind, ExprKind::Let { .. }),
        _ => false,
    }
}
