//! Vectors going into and out of a program: an element type and its elements.

use crate::error::{EvalError, malformed};
use crate::scalar::Sc;
use half::f16;
use texpr_ir::ElemTy;
use texpr_ir::Ty;

/// The elements of a vector. `Bool` only appears inside an evaluation (a
/// comparison feeding `select`); inputs and outputs are `F32`, `F16`, `I32` or `U32`.
#[derive(Clone, Debug, PartialEq)]
pub enum Data {
    F32(Vec<f32>),
    F16(Vec<f16>),
    I32(Vec<i32>),
    U32(Vec<u32>),
    Bool(Vec<bool>),
}

/// A flat vector value; its type is its element type and its length.
#[derive(Clone, Debug, PartialEq)]
pub struct Value {
    pub data: Data,
}

impl Data {
    /// An empty vector of `elem` with room for `cap` elements.
    pub fn with_capacity(elem: ElemTy, cap: usize) -> Data {
        match elem {
            ElemTy::F32 => Data::F32(Vec::with_capacity(cap)),
            ElemTy::F16 => Data::F16(Vec::with_capacity(cap)),
            ElemTy::I32 => Data::I32(Vec::with_capacity(cap)),
            ElemTy::U32 => Data::U32(Vec::with_capacity(cap)),
            ElemTy::Bool => Data::Bool(Vec::with_capacity(cap)),
        }
    }

    /// `n` copies of `s`.
    pub fn splat(s: Sc, n: usize) -> Data {
        match s {
            Sc::F(x) => Data::F32(vec![x; n]),
            Sc::H(x) => Data::F16(vec![x; n]),
            Sc::I(x) => Data::I32(vec![x; n]),
            Sc::U(x) => Data::U32(vec![x; n]),
            Sc::B(x) => Data::Bool(vec![x; n]),
        }
    }

    pub fn elem(&self) -> ElemTy {
        match self {
            Data::F32(_) => ElemTy::F32,
            Data::F16(_) => ElemTy::F16,
            Data::I32(_) => ElemTy::I32,
            Data::U32(_) => ElemTy::U32,
            Data::Bool(_) => ElemTy::Bool,
        }
    }

    pub fn len(&self) -> usize {
        match self {
            Data::F32(v) => v.len(),
            Data::F16(v) => v.len(),
            Data::I32(v) => v.len(),
            Data::U32(v) => v.len(),
            Data::Bool(v) => v.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Element `i`, or `None` out of bounds.
    pub fn get(&self, i: usize) -> Option<Sc> {
        match self {
            Data::F32(v) => v.get(i).map(|&x| Sc::F(x)),
            Data::F16(v) => v.get(i).map(|&x| Sc::H(x)),
            Data::I32(v) => v.get(i).map(|&x| Sc::I(x)),
            Data::U32(v) => v.get(i).map(|&x| Sc::U(x)),
            Data::Bool(v) => v.get(i).map(|&x| Sc::B(x)),
        }
    }

    /// Appends one element of the same type.
    pub fn push(&mut self, s: Sc) -> Result<(), EvalError> {
        match (self, s) {
            (Data::F32(v), Sc::F(x)) => v.push(x),
            (Data::F16(v), Sc::H(x)) => v.push(x),
            (Data::I32(v), Sc::I(x)) => v.push(x),
            (Data::U32(v), Sc::U(x)) => v.push(x),
            (Data::Bool(v), Sc::B(x)) => v.push(x),
            (d, s) => return type_mismatch(d.elem(), s.elem()),
        }
        Ok(())
    }

    /// Overwrites element `i` (in bounds) with an element of the same type.
    pub fn set(&mut self, i: usize, s: Sc) -> Result<(), EvalError> {
        match (self, s) {
            (Data::F32(v), Sc::F(x)) => v[i] = x,
            (Data::F16(v), Sc::H(x)) => v[i] = x,
            (Data::I32(v), Sc::I(x)) => v[i] = x,
            (Data::U32(v), Sc::U(x)) => v[i] = x,
            (Data::Bool(v), Sc::B(x)) => v[i] = x,
            (d, s) => return type_mismatch(d.elem(), s.elem()),
        }
        Ok(())
    }

    /// Appends all of `other`, which has the same element type.
    pub fn extend(&mut self, other: &Data) -> Result<(), EvalError> {
        match (self, other) {
            (Data::F32(v), Data::F32(w)) => v.extend_from_slice(w),
            (Data::F16(v), Data::F16(w)) => v.extend_from_slice(w),
            (Data::I32(v), Data::I32(w)) => v.extend_from_slice(w),
            (Data::U32(v), Data::U32(w)) => v.extend_from_slice(w),
            (Data::Bool(v), Data::Bool(w)) => v.extend_from_slice(w),
            (d, o) => return type_mismatch(d.elem(), o.elem()),
        }
        Ok(())
    }
}

fn type_mismatch<T>(want: ElemTy, got: ElemTy) -> Result<T, EvalError> {
    malformed(format!(
        "a {} element in a {} vector",
        got.name(),
        want.name()
    ))
}

impl Value {
    pub fn new(data: Data) -> Value {
        Value { data }
    }
    pub fn f32(v: Vec<f32>) -> Value {
        Value::new(Data::F32(v))
    }
    pub fn f16(v: Vec<f16>) -> Value {
        Value::new(Data::F16(v))
    }
    pub fn i32(v: Vec<i32>) -> Value {
        Value::new(Data::I32(v))
    }
    pub fn u32(v: Vec<u32>) -> Value {
        Value::new(Data::U32(v))
    }
    pub fn scalar(s: Sc) -> Value {
        Value::new(Data::splat(s, 1))
    }

    pub fn elem(&self) -> ElemTy {
        self.data.elem()
    }
    pub fn len(&self) -> usize {
        self.data.len()
    }
    pub fn is_empty(&self) -> bool {
        self.data.is_empty()
    }
    pub fn ty(&self) -> Ty {
        Ty::new(self.elem(), self.len() as u64)
    }
    pub fn get(&self, i: usize) -> Option<Sc> {
        self.data.get(i)
    }

    pub fn as_f32(&self) -> Option<&[f32]> {
        match &self.data {
            Data::F32(v) => Some(v),
            _ => None,
        }
    }
    pub fn as_f16(&self) -> Option<&[f16]> {
        match &self.data {
            Data::F16(v) => Some(v),
            _ => None,
        }
    }
    pub fn as_i32(&self) -> Option<&[i32]> {
        match &self.data {
            Data::I32(v) => Some(v),
            _ => None,
        }
    }
    pub fn as_u32(&self) -> Option<&[u32]> {
        match &self.data {
            Data::U32(v) => Some(v),
            _ => None,
        }
    }

    /// Every element widened to `f64` (bools as 0/1), for comparisons and summaries.
    pub fn to_f64(&self) -> Vec<f64> {
        match &self.data {
            Data::F32(v) => v.iter().map(|&x| x as f64).collect(),
            Data::F16(v) => v.iter().map(|&x| f64::from(x)).collect(),
            Data::I32(v) => v.iter().map(|&x| x as f64).collect(),
            Data::U32(v) => v.iter().map(|&x| x as f64).collect(),
            Data::Bool(v) => v.iter().map(|&x| x as u8 as f64).collect(),
        }
    }

    /// Every element's bit pattern (bools as 0/1): equal exactly when the
    /// values are, NaNs and signed zeros included.
    pub fn bits(&self) -> Vec<u32> {
        match &self.data {
            Data::F32(x) => x.iter().map(|f| f.to_bits()).collect(),
            Data::F16(x) => x.iter().map(|f| u32::from(f.to_bits())).collect(),
            Data::I32(x) => x.iter().map(|&i| i as u32).collect(),
            Data::U32(x) => x.clone(),
            Data::Bool(x) => x.iter().map(|&b| b as u32).collect(),
        }
    }
}
