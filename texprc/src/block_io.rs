//! Block-program data on disk: input tiles read from `.npy` files, results written to them.
//!
//! An input matrix file is a 2-D `f32` array of the input's shape, in C or
//! Fortran order. A rank reads only its own tiles: one seek per tile row (C
//! order) or tile column (Fortran order). Inputs without a file are random
//! ([`RandomSource`]). Results are written in Fortran order: the whole
//! matrix as `NAME.npy`, or each rank's local matrix (column-major, leading
//! dimension its local row count) as `NAME.rank<R>.npy`.

use crate::codes;
use npyz::{DType, NpyFile, Order, TypeChar, WriterBuilder};
use std::fs::File;
use std::io::BufReader;
use std::ops::Range;
use std::path::{Path, PathBuf};
use texpr_block::air::Program;
use texpr_block::exec::{RandomSource, TileSource};
use texpr_ir::Diagnostic;

/// One input's data: a file, or random values.
#[derive(Clone, Debug)]
enum Data {
    File {
        path: PathBuf,
        rows: usize,
        cols: usize,
        order: Order,
    },
    Random,
}

/// Every input of a block program, by position.
#[derive(Clone, Debug)]
pub struct BlockInputs {
    inputs: Vec<Data>,
    random: RandomSource,
}

impl BlockInputs {
    /// Files for the inputs named in `files`, random values (from `seed`) for the
    /// others; every file's header is checked here, before any rank starts.
    pub fn open(
        p: &Program,
        files: &[(String, PathBuf)],
        seed: u64,
    ) -> Result<BlockInputs, Diagnostic> {
        let regs = p.inputs();
        for (name, _) in files {
            if !regs.iter().any(|&r| p.inst(r).name == *name) {
                let names: Vec<String> = regs
                    .iter()
                    .map(|&r| format!("%{}", p.inst(r).name))
                    .collect();
                return Err(Diagnostic::error(
                    codes::UNKNOWN_INPUT,
                    format!("the program has no input `{name}`"),
                )
                .with_note(format!("its inputs are: {}", names.join(", "))));
            }
        }
        let inputs = regs
            .iter()
            .map(|&r| {
                let name = &p.inst(r).name;
                let shape = p.ty(r).shape;
                match files.iter().rev().find(|(n, _)| n == name) {
                    Some((_, path)) => header(path, name, shape.rows as usize, shape.cols as usize),
                    None => Ok(Data::Random),
                }
            })
            .collect::<Result<_, _>>()?;
        Ok(BlockInputs {
            inputs,
            random: RandomSource { seed },
        })
    }
}

fn read_error(path: &Path, e: impl std::fmt::Display) -> Diagnostic {
    Diagnostic::error(
        codes::READ_NPY,
        format!("cannot read `{}` as a .npy file: {e}", path.display()),
    )
}

/// Checks a file's header: a 2-D `f32` array of `rows x cols`.
fn header(path: &Path, name: &str, rows: usize, cols: usize) -> Result<Data, Diagnostic> {
    let file = File::open(path).map_err(|e| read_error(path, e))?;
    let npy = NpyFile::new(BufReader::new(file)).map_err(|e| read_error(path, e))?;
    let is_f32 = matches!(npy.dtype(), DType::Plain(ts) if ts.type_char() == TypeChar::Float && ts.size_field() == 4);
    if !is_f32 {
        return Err(Diagnostic::error(
            codes::NPY_TYPE_MISMATCH,
            format!(
                "input %{name} is f32, but `{}` holds `{}`",
                path.display(),
                npy.dtype().descr()
            ),
        ));
    }
    let shape: Vec<u64> = npy.shape().to_vec();
    if shape != [rows as u64, cols as u64] {
        return Err(Diagnostic::error(
            codes::NPY_SIZE_MISMATCH,
            format!(
                "input %{name} is {rows}x{cols}, but `{}` has shape {shape:?}",
                path.display()
            ),
        ));
    }
    Ok(Data::File {
        path: path.to_path_buf(),
        rows,
        cols,
        order: npy.order(),
    })
}

impl TileSource for BlockInputs {
    fn block(
        &self,
        input: usize,
        rows: Range<usize>,
        cols: Range<usize>,
    ) -> Result<Vec<f32>, Diagnostic> {
        match &self.inputs[input] {
            Data::Random => self.random.block(input, rows, cols),
            Data::File {
                path,
                rows: m,
                cols: n,
                order,
            } => read_block(path, (*m, *n), *order, rows, cols).map_err(|e| read_error(path, e)),
        }
    }
}

/// Rows `rows` and columns `cols` of an `m x n` array file, column-major.
fn read_block(
    path: &Path,
    (m, n): (usize, usize),
    order: Order,
    rows: Range<usize>,
    cols: Range<usize>,
) -> std::io::Result<Vec<f32>> {
    let file = File::open(path)?;
    let mut data = NpyFile::new(BufReader::new(file))?
        .data::<f32>()
        .map_err(std::io::Error::other)?;
    let (h, w) = (rows.len(), cols.len());
    let mut out = vec![0.0f32; h * w];
    // A run is a contiguous stretch of the file: a row of the block (C order) or a column (Fortran).
    let (runs, run_len) = match order {
        Order::C => (rows.clone(), w),
        Order::Fortran => (cols.clone(), h),
    };
    for (k, line) in runs.enumerate() {
        let first = match order {
            Order::C => line * n + cols.start,
            Order::Fortran => rows.start + line * m,
        };
        data.seek_to(first as u64)?;
        for t in 0..run_len {
            let x = data.next().unwrap_or_else(|| {
                Err(std::io::Error::new(
                    std::io::ErrorKind::UnexpectedEof,
                    "the file ends early",
                ))
            })?;
            let at = match order {
                Order::C => k + t * h,
                Order::Fortran => t + k * h,
            };
            out[at] = x;
        }
    }
    Ok(out)
}

/// Writes a column-major `rows x cols` matrix to `path` (Fortran order).
pub fn write_matrix(path: &Path, rows: usize, cols: usize, data: &[f32]) -> Result<(), Diagnostic> {
    let write = || -> std::io::Result<()> {
        let file = std::io::BufWriter::new(File::create(path)?);
        let mut w = npyz::WriteOptions::new()
            .default_dtype()
            .order(Order::Fortran)
            .shape(&[rows as u64, cols as u64])
            .writer(file)
            .begin_nd()?;
        w.extend(data.iter().copied())?;
        w.finish()
    };
    write().map_err(|e| {
        Diagnostic::error(
            codes::WRITE_OUTPUT,
            format!("cannot write `{}`: {e}", path.display()),
        )
    })
}
