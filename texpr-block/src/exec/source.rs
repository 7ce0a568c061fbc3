//! Where input tiles come from: a rank asks for exactly the tiles it owns.
//!
//! [`TileSource`] gives any rectangle of an input matrix. [`RandomSource`]
//! computes every element from its seed and position alone, so a rank makes
//! its own tiles without communication and they equal the single-process
//! run's; [`DenseSource`] cuts matrices held in memory. The command line
//! adds one that reads `.npy` files.

use super::dense::Matrix;
use std::ops::Range;
use texpr_syntax::Diagnostic;

/// Rectangles of the input matrices of a program.
pub trait TileSource: Sync {
    /// Rows `rows` and columns `cols` of input `input` (in program order), column-major.
    fn block(
        &self,
        input: usize,
        rows: Range<usize>,
        cols: Range<usize>,
    ) -> Result<Vec<f32>, Diagnostic>;
}

/// Random inputs: input `k` is [`Matrix::random`] with seed `seed + k`.
#[derive(Clone, Copy, Debug)]
pub struct RandomSource {
    pub seed: u64,
}

impl TileSource for RandomSource {
    fn block(
        &self,
        input: usize,
        rows: Range<usize>,
        cols: Range<usize>,
    ) -> Result<Vec<f32>, Diagnostic> {
        let seed = self.seed + input as u64;
        Ok(cols
            .flat_map(|j| rows.clone().map(move |i| random_element(seed, i, j)))
            .collect())
    }
}

/// Inputs held in memory.
#[derive(Clone, Copy, Debug)]
pub struct DenseSource<'a> {
    pub inputs: &'a [Matrix],
}

impl TileSource for DenseSource<'_> {
    fn block(
        &self,
        input: usize,
        rows: Range<usize>,
        cols: Range<usize>,
    ) -> Result<Vec<f32>, Diagnostic> {
        let m = &self.inputs[input];
        Ok(cols
            .flat_map(|j| rows.clone().map(move |i| m.at(i, j)))
            .collect())
    }
}

/// Element `(i, j)` of the random matrix seeded with `seed`: a value in
/// `[-1, 1)` computed from the three numbers alone (splitmix64).
pub fn random_element(seed: u64, i: usize, j: usize) -> f32 {
    let key = splitmix(seed)
        ^ (i as u64).wrapping_mul(0xD1B5_4A32_D192_ED03)
        ^ (j as u64).wrapping_mul(0xABC9_8388_FB8F_AC03);
    let bits = splitmix(key) >> 40;
    (bits as f32 / (1u64 << 24) as f32) * 2.0 - 1.0
}

fn splitmix(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}
