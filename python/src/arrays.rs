//! numpy arrays in and out: a program's inputs checked against its declared
//! types (dtype, then element count) and read as the interpreter's
//! [`Value`]s; outputs made numpy arrays.
//!
//! An input is a numpy array whose dtype is the element type's (`float32`,
//! `float16`, `int32`, `uint32`) and whose size is the declared length; any
//! shape of that size is read in row-major (C) order, so a 2-D array stands
//! for the flattened matrix a program indexes as `i * N + j`. A missing or
//! unknown input raises `TypeError`, a wrong dtype `TypeError`, a wrong size
//! `ValueError`, each naming the input and what was expected. A scalar
//! input (`input a: f32`) also takes a Python number (see [`scalar_arg`]).

use half::f16;
use numpy::{PyArray1, PyArrayDyn, PyArrayMethods, PyUntypedArray, PyUntypedArrayMethods};
use pyo3::exceptions::{PyMemoryError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyDictMethods};
use texpr_interp::{Data, Value};
use texpr_ir::{ElemTy, Ty};

/// numpy's name of an element type's dtype.
pub fn dtype_name(elem: ElemTy) -> &'static str {
    match elem {
        ElemTy::F32 => "float32",
        ElemTy::F16 => "float16",
        ElemTy::I32 => "int32",
        ElemTy::U32 => "uint32",
        ElemTy::Bool => "bool",
    }
}

/// `f32[1024]` and its numpy form, for messages.
pub fn expected(ty: Ty) -> String {
    format!(
        "{}[{}] (a numpy {} array of {} elements)",
        ty.elem.name(),
        ty.len,
        dtype_name(ty.elem),
        ty.len
    )
}

/// A scalar input's Python number (an `int`, or a `float` for a float
/// input; never a `bool`) as a one-element numpy array of its dtype;
/// anything else, and any argument of a vector input, is returned as it is.
/// An `int` out of an integer input's range is `OverflowError`; a `float`
/// for an integer input `TypeError`.
pub fn scalar_arg<'py>(
    input: &texpr_ir::Input,
    obj: Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyAny>> {
    use pyo3::types::{PyBool, PyFloat, PyInt};
    let number = obj.is_instance_of::<PyInt>() || obj.is_instance_of::<PyFloat>();
    if !input.scalar || !number || obj.is_instance_of::<PyBool>() {
        return Ok(obj);
    }
    let py = obj.py();
    let name = &input.name;
    let int = |what: &str| -> PyResult<i64> {
        if obj.is_instance_of::<PyFloat>() {
            return Err(PyTypeError::new_err(format!(
                "input `{name}` is {what}: expected an int, got a float"
            )));
        }
        obj.extract::<i64>().map_err(|_| {
            pyo3::exceptions::PyOverflowError::new_err(format!(
                "input `{name}`: {obj} does not fit {what}"
            ))
        })
    };
    let range = |x: i64, lo: i64, hi: i64, what: &str| {
        if (lo..=hi).contains(&x) {
            Ok(x)
        } else {
            Err(pyo3::exceptions::PyOverflowError::new_err(format!(
                "input `{name}`: {x} does not fit {what}"
            )))
        }
    };
    Ok(match input.ty.elem {
        ElemTy::F32 => PyArray1::from_vec(py, vec![obj.extract::<f64>()? as f32]).into_any(),
        ElemTy::F16 => {
            PyArray1::from_vec(py, vec![f16::from_f64(obj.extract::<f64>()?)]).into_any()
        }
        ElemTy::I32 => {
            let x = range(int("an i32")?, i32::MIN.into(), i32::MAX.into(), "an i32")?;
            PyArray1::from_vec(py, vec![x as i32]).into_any()
        }
        ElemTy::U32 => {
            let x = range(int("a u32")?, 0, u32::MAX.into(), "a u32")?;
            PyArray1::from_vec(py, vec![x as u32]).into_any()
        }
        ElemTy::Bool => obj,
    })
}

/// The elements of `obj`, which must be a numpy array of `ty`'s element
/// type and length (any shape, read in row-major order).
pub fn read_input(name: &str, ty: Ty, obj: &Bound<'_, PyAny>) -> PyResult<Value> {
    check_input(name, ty, obj)?;
    let data = match ty.elem {
        ElemTy::F32 => Data::F32(elements::<f32>(obj)?),
        ElemTy::F16 => Data::F16(elements::<f16>(obj)?),
        ElemTy::I32 => Data::I32(elements::<i32>(obj)?),
        ElemTy::U32 => Data::U32(elements::<u32>(obj)?),
        ElemTy::Bool => {
            return Err(PyTypeError::new_err(format!(
                "input `{name}`: bool inputs do not exist"
            )));
        }
    };
    Ok(Value::new(data))
}

/// `TypeError` unless `obj` is a numpy array of `ty`'s element type,
/// `ValueError` unless it has `ty`'s length.
pub fn check_input(name: &str, ty: Ty, obj: &Bound<'_, PyAny>) -> PyResult<()> {
    let Ok(arr) = obj.cast::<PyUntypedArray>() else {
        let got = obj
            .get_type()
            .name()
            .map(|n| n.to_string())
            .unwrap_or_default();
        return Err(PyTypeError::new_err(format!(
            "input `{name}` must be a numpy array: expected {}, got a {got}",
            expected(ty)
        )));
    };
    let got_dtype = arr.dtype().to_string();
    if got_dtype != dtype_name(ty.elem) {
        return Err(PyTypeError::new_err(format!(
            "input `{name}` has dtype {got_dtype}: expected {} (convert with .astype(numpy.{}))",
            expected(ty),
            dtype_name(ty.elem)
        )));
    }
    if arr.len() as u64 != ty.len {
        return Err(PyValueError::new_err(format!(
            "input `{name}` has {} elements (shape {:?}): expected {}",
            arr.len(),
            arr.shape(),
            expected(ty)
        )));
    }
    Ok(())
}

/// The elements of an array whose dtype is `T`'s, in row-major order:
/// copied straight from an aligned C-contiguous array; any other is first
/// copied so by numpy (`numpy.require(x, requirements="CA")`), as Rust may
/// not read an unaligned element in place. `MemoryError` when the host
/// cannot hold the copy.
fn elements<T: numpy::Element + Copy>(obj: &Bound<'_, PyAny>) -> PyResult<Vec<T>> {
    let arr = obj.cast::<PyArrayDyn<T>>()?;
    if !arr.is_aligned() || !arr.is_c_contiguous() {
        let numpy = obj.py().import("numpy")?;
        let copy = numpy.call_method1("require", (obj, obj.py().None(), "CA"))?;
        let copy = copy.cast::<PyArrayDyn<T>>()?;
        if !copy.is_aligned() || !copy.is_c_contiguous() {
            return Err(PyValueError::new_err(
                "numpy.require gave no aligned C-order copy",
            ));
        }
        return elements::<T>(copy);
    }
    let ro = arr.try_readonly()?;
    let s = ro.as_slice()?;
    let mut v = Vec::new();
    v.try_reserve_exact(s.len()).map_err(|_| {
        PyMemoryError::new_err(format!(
            "cannot allocate {} bytes for an input's elements",
            std::mem::size_of_val(s)
        ))
    })?;
    v.extend_from_slice(s);
    Ok(v)
}

/// The inputs of a program, in its order, from keyword arguments: every
/// input named once, nothing else.
pub fn read_inputs(
    inputs: &[texpr_ir::Input],
    kwargs: Option<&Bound<'_, PyDict>>,
) -> PyResult<Vec<Value>> {
    if let Some(kw) = kwargs {
        for key in kw.keys() {
            let key: String = key.extract()?;
            if !inputs.iter().any(|i| i.name == key) {
                return Err(PyTypeError::new_err(format!(
                    "unknown input `{key}`: the program's inputs are {}",
                    describe(inputs)
                )));
            }
        }
    }
    inputs
        .iter()
        .map(|i| {
            let got = kwargs.map(|kw| kw.get_item(&i.name)).transpose()?.flatten();
            match got {
                Some(obj) => read_input(&i.name, i.ty, &scalar_arg(i, obj)?),
                None => Err(PyTypeError::new_err(format!(
                    "missing input `{}`: expected {}",
                    i.name,
                    expected(i.ty)
                ))),
            }
        })
        .collect()
}

/// `a: f32[1], x: f32[1024]`, or `none` for a program without inputs.
pub fn describe(inputs: &[texpr_ir::Input]) -> String {
    if inputs.is_empty() {
        return "none".into();
    }
    inputs
        .iter()
        .map(|i| match i.scalar {
            true => format!("`{}`: {}", i.name, i.ty.elem.name()),
            false => format!("`{}`: {}[{}]", i.name, i.ty.elem.name(), i.ty.len),
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// A value as a new 1-D numpy array of its element type.
pub fn to_numpy<'py>(py: Python<'py>, v: Value) -> Bound<'py, PyAny> {
    match v.data {
        Data::F32(x) => PyArray1::from_vec(py, x).into_any(),
        Data::F16(x) => PyArray1::from_vec(py, x).into_any(),
        Data::I32(x) => PyArray1::from_vec(py, x).into_any(),
        Data::U32(x) => PyArray1::from_vec(py, x).into_any(),
        Data::Bool(x) => PyArray1::from_vec(py, x).into_any(),
    }
}

/// Outputs as numpy arrays: one array for a program with one output, else a
/// dict from output name to array (in the program's order).
pub fn outputs<'py>(
    py: Python<'py>,
    names: impl Iterator<Item = String>,
    values: Vec<Value>,
) -> PyResult<Bound<'py, PyAny>> {
    let mut arrays: Vec<(String, Bound<'py, PyAny>)> = names
        .zip(values)
        .map(|(n, v)| (n, to_numpy(py, v)))
        .collect();
    if arrays.len() == 1 {
        return Ok(arrays.remove(0).1);
    }
    let dict = PyDict::new(py);
    for (n, a) in arrays {
        dict.set_item(n, a)?;
    }
    Ok(dict.into_any())
}
