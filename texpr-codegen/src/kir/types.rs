//! The kernel IR's names and types: values and variables by index, scalar
//! and vector types, constants and the entry point's builtins.

/// A value, by position in [`Kernel::values`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct V(pub u32);

/// A function variable, by position in [`Kernel::vars`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct VarId(pub u32);

/// The scalar types a kernel computes with (`u64` only inside wide loads).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Scalar {
    F32,
    F16,
    I32,
    U32,
    Bool,
    U64,
}

impl Scalar {
    pub fn name(self) -> &'static str {
        match self {
            Scalar::F32 => "f32",
            Scalar::F16 => "f16",
            Scalar::I32 => "i32",
            Scalar::U32 => "u32",
            Scalar::Bool => "bool",
            Scalar::U64 => "u64",
        }
    }
}

/// A value's type: a scalar or a vector of 2 to 4 of them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Ty {
    pub scalar: Scalar,
    /// 1 for a scalar, 2 to 4 for a vector.
    pub width: u8,
}

impl Ty {
    pub const F32: Ty = Ty::scalar(Scalar::F32);
    pub const F16: Ty = Ty::scalar(Scalar::F16);
    pub const I32: Ty = Ty::scalar(Scalar::I32);
    pub const U32: Ty = Ty::scalar(Scalar::U32);
    pub const BOOL: Ty = Ty::scalar(Scalar::Bool);

    pub const fn scalar(scalar: Scalar) -> Ty {
        Ty { scalar, width: 1 }
    }

    pub const fn vec(scalar: Scalar, width: u8) -> Ty {
        Ty { scalar, width }
    }

    /// `f32`, `vec4<f32>`.
    pub fn name(self) -> String {
        match self.width {
            1 => self.scalar.name().to_string(),
            n => format!("vec{n}<{}>", self.scalar.name()),
        }
    }
}

impl std::fmt::Display for Ty {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.name())
    }
}

/// A constant.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Lit {
    F32(f32),
    F16(half::f16),
    I32(i32),
    U32(u32),
    Bool(bool),
}

impl Lit {
    pub fn scalar(self) -> Scalar {
        match self {
            Lit::F32(_) => Scalar::F32,
            Lit::F16(_) => Scalar::F16,
            Lit::I32(_) => Scalar::I32,
            Lit::U32(_) => Scalar::U32,
            Lit::Bool(_) => Scalar::Bool,
        }
    }

    /// The bits, for hashing and comparison (`-0.0` and each NaN distinct).
    fn key(self) -> (u8, u32) {
        match self {
            Lit::F32(x) => (0, x.to_bits()),
            Lit::I32(x) => (1, x as u32),
            Lit::U32(x) => (2, x),
            Lit::Bool(x) => (3, x as u32),
            Lit::F16(x) => (4, u32::from(x.to_bits())),
        }
    }
}

impl Eq for Lit {}

impl std::hash::Hash for Lit {
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        self.key().hash(h)
    }
}

/// The entry point's builtin inputs a kernel reads (each a `u32`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Builtin {
    /// `workgroup_id`'s component 0, 1 or 2.
    WorkgroupId(u8),
    /// `local_invocation_id`'s component 0, 1 or 2.
    LocalId(u8),
    SubgroupInvocationId,
    SubgroupId,
    NumSubgroups,
    SubgroupSize,
}

impl Builtin {
    /// Whether it needs subgroup operations.
    pub fn subgroups(self) -> bool {
        !matches!(self, Builtin::WorkgroupId(_) | Builtin::LocalId(_))
    }
}
