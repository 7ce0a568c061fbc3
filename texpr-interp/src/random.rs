//! Deterministic random inputs for tests: splitmix64, no external crate.

use crate::value::{Data, Value};
use texpr_ir::ElemTy;
use texpr_ir::Program;

/// The splitmix64 generator (Steele, Lea, Flood 2014).
#[derive(Clone, Debug)]
struct SplitMix64(u64);

impl SplitMix64 {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in [-1, 1), a multiple of 2^-23.
    fn f32(&mut self) -> f32 {
        let k = (self.next() >> 40) as f32; // 24 bits
        k / (1u32 << 23) as f32 - 1.0
    }
}

/// One input vector per `Program::inputs`, the same for the same seed: `f32`
/// uniform in [-1, 1) (`f16`: those values rounded), `i32` in [-100, 100], `u32` in [0, 100]. Each input
/// has its own stream, so adding an input leaves the others unchanged.
pub fn random_inputs(p: &Program, seed: u64) -> Vec<Value> {
    p.inputs
        .iter()
        .enumerate()
        .map(|(k, input)| {
            let mut g = SplitMix64(seed ^ (k as u64 + 1).wrapping_mul(0xD1B5_4A32_D192_ED03));
            g.next();
            let n = input.ty.len as usize;
            Value::new(match input.ty.elem {
                ElemTy::F32 => Data::F32((0..n).map(|_| g.f32()).collect()),
                ElemTy::F16 => Data::F16((0..n).map(|_| half::f16::from_f32(g.f32())).collect()),
                ElemTy::I32 => Data::I32((0..n).map(|_| (g.next() % 201) as i32 - 100).collect()),
                ElemTy::U32 => Data::U32((0..n).map(|_| (g.next() % 101) as u32).collect()),
                ElemTy::Bool => Data::Bool((0..n).map(|_| g.next() & 1 == 1).collect()),
            })
        })
        .collect()
}
