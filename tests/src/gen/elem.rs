//! The element types of generated programs.

/// Element types the generator uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum E {
    F32,
    I32,
    U32,
}

impl E {
    pub fn name(self) -> &'static str {
        match self {
            E::F32 => "f32",
            E::I32 => "i32",
            E::U32 => "u32",
        }
    }
}
