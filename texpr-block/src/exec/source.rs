//! Where input tiles come from: a rank asks for exactly the tiles it owns.
//!
//! [`TileSource`] gives any rectangle of an input matrix. [`RandomSource`]
//! computes every element from its seed and position alone, so a rank makes
//! its own tiles without communication and they equal the single-process
//! run's; [`DenseSource`] cuts matrices held in memory. The command line
//! adds one that reads `.npy` files.

use super::dense::Matrix;
use super::random::random_element;
use std::ops::Range;
use texpr_ir::Diagnostic;

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
