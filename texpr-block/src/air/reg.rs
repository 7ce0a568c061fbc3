//! Virtual registers of block programs.

/// A virtual register: the index of the instruction that defines it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Reg(pub u32);

impl Reg {
    pub fn index(self) -> usize {
        self.0 as usize
    }
}
