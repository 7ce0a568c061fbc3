//! A rank's part of a block matrix in the seed's local layout, and putting the parts back together.
//!
//! A rank's local matrix is column-major with leading dimension its local
//! row count ([`LayoutInfo::col_major`]): local tile `(li, lj)` starts at the
//! layout's tile offset and its columns are `ld` apart. This is the form
//! `--output-per-rank` writes and the form the result is gathered in.

use super::dense::Matrix;
use crate::dist::{
    Distribution, GlobalElementIndex, LayoutInfo, LocalElementIndex, LocalTileIndex, RankIndex2D,
    TileElementIndex, TileElementSize,
};

/// One rank's part of a matrix.
#[derive(Clone, Debug, PartialEq)]
pub struct LocalPart {
    pub rank: RankIndex2D,
    pub layout: LayoutInfo,
    /// `layout.min_mem_size()` values.
    pub data: Vec<f32>,
}

/// The local layout of `rank`'s part of a matrix distributed by `d`.
pub fn local_layout(d: &Distribution, rank: RankIndex2D) -> LayoutInfo {
    let size = d.local_size(rank);
    LayoutInfo::col_major(size, d.block_size(), size.rows())
}

impl LocalPart {
    /// An empty (zero) part of `rank`.
    pub fn new(d: &Distribution, rank: RankIndex2D) -> LocalPart {
        let layout = local_layout(d, rank);
        LocalPart {
            rank,
            layout,
            data: vec![0.0; layout.min_mem_size()],
        }
    }

    /// The part of `rank` held in `data` (as gathered).
    pub fn from_data(d: &Distribution, rank: RankIndex2D, data: Vec<f32>) -> LocalPart {
        LocalPart {
            rank,
            layout: local_layout(d, rank),
            data,
        }
    }

    /// Stores a compact column-major tile of `size` at local tile `at`.
    pub fn put_tile(&mut self, at: LocalTileIndex, size: TileElementSize, tile: &[f32]) {
        for b in 0..size.cols() {
            let start = self.layout.element_offset(at, TileElementIndex::new(0, b));
            let col = &tile[b * size.rows()..(b + 1) * size.rows()];
            self.data[start..start + size.rows()].copy_from_slice(col);
        }
    }

    /// Element `(i, j)` of the local matrix.
    pub fn at(&self, e: LocalElementIndex) -> f32 {
        self.data[e.row() + e.col() * self.layout.ld_tile()]
    }
}

/// The whole matrix from every rank's part.
pub fn assemble(d: &Distribution, parts: &[LocalPart]) -> Matrix {
    let size = d.size();
    let mut m = Matrix::zeros(size.rows(), size.cols());
    for part in parts {
        let local = d.local_size(part.rank);
        for lj in 0..local.cols() {
            for li in 0..local.rows() {
                let e = LocalElementIndex::new(li, lj);
                let g: GlobalElementIndex = d.global_element_from_local(e, part.rank);
                m.data[g.row() + g.col() * size.rows()] = part.at(e);
            }
        }
    }
    m
}
