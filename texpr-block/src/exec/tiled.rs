//! Tiled execution of a block program on one rank, stage by stage: every block's kernel run on its panels.

use super::dense::{Matrix, check_inputs};
use super::runner::KernelRunner;
use crate::air::{BlockTy, Op, Program, Reg};
use crate::stage::{BlockMatrixStage, Panel};
use std::collections::BTreeMap;
use texpr_ir::Diagnostic;

/// A block matrix held as column-major tiles, keyed by tile index `(i, j)`.
#[derive(Clone, Debug, PartialEq)]
pub struct Tiles {
    pub ty: BlockTy,
    pub tiles: BTreeMap<(u64, u64), Vec<f32>>,
}

impl Tiles {
    /// Cuts a dense matrix into tiles.
    pub fn from_dense(ty: BlockTy, m: &Matrix) -> Tiles {
        let n = ty.n_tiles();
        let mut tiles = BTreeMap::new();
        for j in 0..n.cols {
            for i in 0..n.rows {
                let d = ty.tile_dims(i, j);
                let (r0, c0) = ((i * ty.tile.rows) as usize, (j * ty.tile.cols) as usize);
                let t = Matrix::from_fn(d.rows as usize, d.cols as usize, |a, b| {
                    m.at(r0 + a, c0 + b)
                });
                tiles.insert((i, j), t.data);
            }
        }
        Tiles { ty, tiles }
    }

    /// Puts the tiles back together.
    pub fn to_dense(&self) -> Matrix {
        let s = self.ty.shape;
        let t = self.ty.tile;
        Matrix::from_fn(s.rows as usize, s.cols as usize, |a, b| {
            let (i, j) = (a as u64 / t.rows, b as u64 / t.cols);
            let rows = self.ty.tile_dims(i, j).rows as usize;
            let (ia, jb) = (a - (i * t.rows) as usize, b - (j * t.cols) as usize);
            self.tiles[&(i, j)][ia + jb * rows]
        })
    }

    /// The panel's tiles copied into one column-major vector.
    pub fn gather(&self, pn: &Panel) -> Vec<f32> {
        gather(self.ty, pn, |t| std::borrow::Cow::Borrowed(&self.tiles[&t]))
    }
}

/// Copies the tiles of panel `pn` of a matrix of type `ty` into one
/// column-major vector; `tile(i, j)` gives each tile's data.
pub fn gather<'a>(
    ty: BlockTy,
    pn: &Panel,
    tile: impl Fn((u64, u64)) -> std::borrow::Cow<'a, [f32]>,
) -> Vec<f32> {
    let mut out = vec![0.0; pn.dims.len() as usize];
    let prow = pn.dims.rows as usize;
    let mut c0 = 0usize;
    for j in pn.cols.0..pn.cols.1 {
        let mut r0 = 0usize;
        for i in pn.rows.0..pn.rows.1 {
            let d = ty.tile_dims(i, j);
            let data = tile((i, j));
            for b in 0..d.cols as usize {
                let src = &data[b * d.rows as usize..(b + 1) * d.rows as usize];
                let at = r0 + (c0 + b) * prow;
                out[at..at + src.len()].copy_from_slice(src);
            }
            r0 += d.rows as usize;
        }
        c0 += ty.tile_dims(pn.rows.0, j).cols as usize;
    }
    out
}

/// Runs every stage of `p` block by block with `runner`; the returned matrix.
pub fn run_tiled(
    p: &Program,
    inputs: &[Matrix],
    runner: &mut dyn KernelRunner,
) -> Result<Matrix, Diagnostic> {
    check_inputs(p, inputs)?;
    let mut vals: BTreeMap<Reg, Tiles> = BTreeMap::new();
    let mut next = inputs.iter();
    for r in p.regs() {
        let ty = p.ty(r);
        let tiles = match p.inst(r).op {
            Op::Input => Tiles::from_dense(ty, next.next().expect("checked count")),
            Op::Random(seed) => Tiles::from_dense(
                ty,
                &Matrix::random(ty.shape.rows as usize, ty.shape.cols as usize, seed),
            ),
            _ => run_stage(p, r, &vals, runner)?,
        };
        vals.insert(r, tiles);
    }
    Ok(vals[&p.ret].to_dense())
}

fn run_stage(
    p: &Program,
    r: Reg,
    vals: &BTreeMap<Reg, Tiles>,
    runner: &mut dyn KernelRunner,
) -> Result<Tiles, Diagnostic> {
    let stage = BlockMatrixStage::new(p, r);
    let mut tiles = BTreeMap::new();
    for task in stage.to_ir(|_, body| body, None) {
        let data: Vec<Vec<f32>> = task
            .value
            .inputs
            .iter()
            .map(|pn| vals[&pn.src].gather(pn))
            .collect();
        let refs: Vec<&[f32]> = data.iter().map(Vec::as_slice).collect();
        let out = runner.run(&task.value.kernel, &refs)?;
        tiles.insert((task.ctx.i, task.ctx.j), out);
    }
    Ok(Tiles { ty: p.ty(r), tiles })
}
