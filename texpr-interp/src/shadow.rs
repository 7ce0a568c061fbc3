//! What the evaluator may carry beside every element it computes: nothing
//! (`()`, a plain evaluation) or, for comparisons with another device, an
//! error bound and whether the language specifies the element at all
//! ([`crate::accuracy::Bound`]). Each operation of the evaluator calls the
//! matching method with its operands and its result.

use crate::scalar::Sc;
use texpr_ir::ReduceOp;
use texpr_ir::{BinOp, Func, UnaryOp, VecRef};

/// An element with its shadow.
pub type El<S> = (Sc, S);

/// The shadow of an element: how it was computed, as far as a comparison cares.
pub trait Shadow: Copy + Default + std::fmt::Debug {
    /// Whether the shadow carries nothing: every method below gives the
    /// default, so the lane path (`eval_lanes.rs`) may skip calling them.
    const TRIVIAL: bool = false;
    /// An exact, specified element: an index, a fold's identity.
    fn exact() -> Self {
        Self::default()
    }
    /// An element given to the program: an input's or a literal's, as it is.
    fn given(_: Sc) -> Self {
        Self::default()
    }
    /// Element `i` of an input or a top-level `let` (`vec`), stored as `x`
    /// with shadow `s`, read: the same value wherever it is read.
    fn read((_x, s): El<Self>, _vec: VecRef, _i: u64) -> Self {
        s
    }
    /// Whether a `select` on condition `c` needs the operand `c` does not
    /// pick: the evaluator computes it only then (`eval_lazy.rs`).
    fn needs_other(_c: El<Self>) -> bool {
        false
    }
    /// `op a`, which gave `r`.
    fn unary(op: UnaryOp, a: El<Self>, r: Sc) -> Self;
    /// `a op b`, which gave `r`.
    fn binary(op: BinOp, a: El<Self>, b: El<Self>, r: Sc) -> Self;
    /// `f(args)`, which gave `r`.
    fn call(f: Func, args: &[El<Self>], r: Sc) -> Self;
    /// A conversion of `a`, which gave `r`.
    fn cast(a: El<Self>, r: Sc) -> Self;
    /// One step `r = op(acc, x)` of a fold of `n` terms; `first` when `acc`
    /// is the identity.
    fn fold(op: ReduceOp, n: u64, acc: El<Self>, x: El<Self>, r: Sc, first: bool) -> Self;
}

/// A plain evaluation: nothing beside the values.
impl Shadow for () {
    const TRIVIAL: bool = true;
    #[inline]
    fn unary(_: UnaryOp, _: El<()>, _: Sc) {}
    #[inline]
    fn binary(_: BinOp, _: El<()>, _: El<()>, _: Sc) {}
    #[inline]
    fn call(_: Func, _: &[El<()>], _: Sc) {}
    #[inline]
    fn cast(_: El<()>, _: Sc) {}
    #[inline]
    fn fold(_: ReduceOp, _: u64, _: El<()>, _: El<()>, _: Sc, _: bool) {}
}

/// An element given to the program (an input's or a literal's) with its shadow.
pub fn given<S: Shadow>(x: Sc) -> El<S> {
    (x, S::given(x))
}

/// A vector with one shadow per element.
#[derive(Clone, Debug)]
pub struct Shadowed<S> {
    pub data: crate::Data,
    pub shadow: Vec<S>,
}

impl<S: Shadow> Shadowed<S> {
    /// Elements given to the program (an input's).
    pub fn given(data: crate::Data) -> Shadowed<S> {
        let shadow = (0..data.len())
            .map(|i| data.get(i).map_or_else(S::exact, S::given))
            .collect();
        Shadowed { data, shadow }
    }

    /// These elements as read from `vec` (see [`Shadow::read`]).
    pub fn read_from(mut self, vec: VecRef) -> Shadowed<S> {
        for (i, s) in self.shadow.iter_mut().enumerate() {
            if let Some(x) = self.data.get(i) {
                *s = S::read((x, *s), vec, i as u64);
            }
        }
        self
    }

    pub fn with_capacity(elem: texpr_ir::ElemTy, cap: usize) -> Shadowed<S> {
        Shadowed {
            data: crate::Data::with_capacity(elem, cap),
            shadow: Vec::with_capacity(cap),
        }
    }

    pub fn len(&self) -> usize {
        self.data.len()
    }

    /// Element `i` with its shadow, `None` out of bounds.
    pub fn get(&self, i: usize) -> Option<El<S>> {
        Some((self.data.get(i)?, *self.shadow.get(i)?))
    }

    pub fn push(&mut self, (x, s): El<S>) -> Result<(), crate::EvalError> {
        self.data.push(x)?;
        self.shadow.push(s);
        Ok(())
    }

    pub fn extend(&mut self, other: &Shadowed<S>) -> Result<(), crate::EvalError> {
        self.data.extend(&other.data)?;
        self.shadow.extend_from_slice(&other.shadow);
        Ok(())
    }

    pub fn set(&mut self, i: usize, (x, s): El<S>) -> Result<(), crate::EvalError> {
        self.data.set(i, x)?;
        self.shadow[i] = s;
        Ok(())
    }

    /// `n` copies of one element.
    pub fn splat((x, s): El<S>, n: usize) -> Shadowed<S> {
        Shadowed {
            data: crate::Data::splat(x, n),
            shadow: vec![s; n],
        }
    }
}
