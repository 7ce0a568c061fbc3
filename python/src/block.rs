//! `texpr.block.run`: a block program (`.air` text) on a grid of ranks run
//! as threads (the executor of `texprc block --run`), numpy matrices in and
//! the gathered result out.

use crate::device::{default_slot, open};
use crate::errors::{block_error, guarded};
use crate::program::named;
use numpy::{PyArray2, PyArrayMethods, PyUntypedArray, PyUntypedArrayMethods};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyDictMethods};
use texpr_block::driver::run::{Backend, job, run_in_process};
use texpr_block::driver::{BlockOptions, Device, plan};
use texpr_block::exec::Matrix;
use texpr_block::exec::device::heuristic;
use texpr_block::exec::source::DenseSource;

/// Runs a block program on a `grid` of ranks (threads) with tile size
/// `tile` (its `param T`), `defines` setting other params; `inputs` maps
/// each input's name (without `%`) to a 2-D float32 array of its shape.
/// `device` is `"cpu"` (the interpreter runs the block bodies) or `"gpu"`.
/// Returns the result as a 2-D float32 array.
#[pyfunction]
#[pyo3(signature = (source, grid = (2, 2), tile = None, inputs = None, defines = None, device = "cpu"))]
#[pyo3(name = "block_run")]
pub fn run<'py>(
    py: Python<'py>,
    source: &Bound<'py, PyAny>,
    grid: (usize, usize),
    tile: Option<u64>,
    inputs: Option<&Bound<'py, PyDict>>,
    defines: Option<&Bound<'py, PyDict>>,
    device: &str,
) -> PyResult<Bound<'py, PyArray2<f32>>> {
    let src = named(py, source)?;
    let mut b = BlockOptions::new(&src.name, &src.text);
    if grid.0 == 0 || grid.1 == 0 {
        return Err(PyValueError::new_err(format!(
            "grid {grid:?}: at least one rank in each direction"
        )));
    }
    b.grid = grid;
    b.tile = tile;
    b.defines = match defines {
        None => Vec::new(),
        Some(d) => d
            .iter()
            .map(|(k, v)| Ok((k.extract::<String>()?, v.extract::<u64>()?)))
            .collect::<PyResult<_>>()?,
    };
    b.run = true;
    b.gather = true;
    b.device = match device {
        "cpu" => Device::Cpu,
        "gpu" => Device::Gpu,
        other => {
            return Err(PyValueError::new_err(format!(
                "device is \"cpu\" or \"gpu\", not {other:?}"
            )));
        }
    };
    let planned = py
        .detach(|| guarded("planning a block program", || Ok(plan(&b))))?
        .map_err(|d| block_error(py, &src, &d))?;
    let matrices = read_matrices(&planned.p, inputs)?;
    let gpu = match b.device {
        Device::Gpu => Some(open(py, &default_slot())?),
        Device::Cpu => None,
    };
    let result = py.detach(|| {
        guarded("running a block program", || {
            let backend = Backend {
                gpu: gpu.as_deref(),
                pick: &heuristic,
            };
            let job = job(&b, &planned).map_err(|d| vec![d]);
            Ok(job.and_then(|job| {
                let source = DenseSource { inputs: &matrices };
                run_in_process(&job, &source, backend).map_err(|d| vec![d])
            }))
        })
    })?;
    let outcome = result.map_err(|d| block_error(py, &src, &d))?;
    let Some(m) = outcome.gathered.result else {
        return Err(pyo3::exceptions::PyRuntimeError::new_err(
            "the block run gathered no result (a bug: please report it)",
        ));
    };
    let rows: Vec<Vec<f32>> = (0..m.rows)
        .map(|i| (0..m.cols).map(|j| m.data[i + j * m.rows]).collect())
        .collect();
    PyArray2::from_vec2(py, &rows).map_err(|e| PyValueError::new_err(e.to_string()))
}

/// Every input of `p`, by name, as a column-major matrix.
fn read_matrices(
    p: &texpr_block::air::Program,
    inputs: Option<&Bound<'_, PyDict>>,
) -> PyResult<Vec<Matrix>> {
    let regs = p.inputs();
    let names: Vec<String> = regs.iter().map(|&r| p.inst(r).name.clone()).collect();
    if let Some(d) = inputs {
        for k in d.keys() {
            let k: String = k.extract()?;
            if !names.contains(&k) {
                return Err(PyTypeError::new_err(format!(
                    "unknown input `{k}`: the program's inputs are {}",
                    names
                        .iter()
                        .map(|n| format!("`{n}`"))
                        .collect::<Vec<_>>()
                        .join(", ")
                )));
            }
        }
    }
    regs.iter()
        .zip(&names)
        .map(|(&r, name)| {
            let s = p.ty(r).shape;
            let (rows, cols) = (s.rows as usize, s.cols as usize);
            let want = format!("a float32 array of shape ({rows}, {cols})");
            let Some(obj) = inputs.map(|d| d.get_item(name)).transpose()?.flatten() else {
                return Err(PyTypeError::new_err(format!(
                    "missing input `{name}`: expected {want}"
                )));
            };
            let arr = obj.cast::<PyUntypedArray>().map_err(|_| {
                PyTypeError::new_err(format!(
                    "input `{name}` must be a numpy array: expected {want}"
                ))
            })?;
            let dtype = arr.dtype().to_string();
            if dtype != "float32" {
                return Err(PyTypeError::new_err(format!(
                    "input `{name}` has dtype {dtype}: expected {want}"
                )));
            }
            if arr.shape() != [rows, cols] {
                return Err(PyValueError::new_err(format!(
                    "input `{name}` has shape {:?}: expected {want}",
                    arr.shape()
                )));
            }
            let a = obj.cast::<numpy::PyArray2<f32>>()?.try_readonly()?;
            let a = a.as_array();
            let data = (0..cols)
                .flat_map(|j| (0..rows).map(move |i| (i, j)))
                .map(|(i, j)| a[[i, j]])
                .collect();
            Ok(Matrix { rows, cols, data })
        })
        .collect()
}
