//! The element types of generated programs.

/// Element types the generator uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum E {
    F32,
    /// Drawn only where the program's target has `shader_f16`
    /// ([`super::program`]; [`super::program_without_f16`] never draws it).
    F16,
    I32,
    U32,
}

impl E {
    pub fn name(self) -> &'static str {
        match self {
            E::F32 => "f32",
            E::F16 => "f16",
            E::I32 => "i32",
            E::U32 => "u32",
        }
    }

    /// `f32` or `f16`: rounded values, float builtins.
    pub fn is_float(self) -> bool {
        matches!(self, E::F32 | E::F16)
    }
}
