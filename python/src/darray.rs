//! Device arrays in Python (`texpr.DeviceArray`, `texpr.asarray`,
//! `texpr.from_dlpack`, `texpr.transfers`).
//!
//! A `DeviceArray` is a `texpr_runtime::DeviceArray` (a buffer, an element
//! type and a shape on one device) with the device it lives on; how a kernel
//! call moves data between them and numpy is `call.rs`.

use crate::arrays::dtype_name;
use crate::device::{PyDevice, Slot, default_slot};
use crate::errors::{device_error, guarded};
use crate::signals::detached;
use numpy::{PyArray1, PyArrayMethods, PyUntypedArray, PyUntypedArrayMethods};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};
use std::sync::Arc;
use texpr_ir::ElemTy;
use texpr_runtime::{DeviceArray, Gpu, RuntimeError};

/// An array on a device: `.shape`, `.dtype`, `.numpy()`.
#[pyclass(frozen, module = "texpr", name = "DeviceArray")]
#[derive(Debug)]
pub struct PyDeviceArray {
    pub(crate) array: DeviceArray,
    pub(crate) gpu: Arc<Gpu>,
    pub(crate) slot: Arc<Slot>,
}

/// The element type of a numpy dtype's name.
fn elem_of(dtype: &str) -> Option<ElemTy> {
    Some(match dtype {
        "float32" => ElemTy::F32,
        "float16" => ElemTy::F16,
        "int32" => ElemTy::I32,
        "uint32" => ElemTy::U32,
        _ => return None,
    })
}

/// `obj` as a numpy array: itself, or an object that speaks DLPack seen
/// through `numpy.from_dlpack` (no copy).
pub(crate) fn as_numpy<'py>(obj: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
    if obj.cast::<PyUntypedArray>().is_ok() || !obj.hasattr("__dlpack__")? {
        return Ok(obj.clone());
    }
    obj.py()
        .import("numpy")?
        .call_method1("from_dlpack", (obj,))
}

/// The bytes of a numpy array, as a flat `uint8` view of an aligned
/// C-contiguous array (`numpy.require` copies any other once).
pub(crate) fn byte_view<'py>(arr: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyArray1<u8>>> {
    let np = arr.py().import("numpy")?;
    let untyped = arr.cast::<PyUntypedArray>()?;
    let arr = match untyped.is_c_contiguous() && untyped.is_aligned() {
        true => arr.clone(),
        false => np.call_method1("require", (arr, arr.py().None(), "CA"))?,
    };
    let flat = arr.call_method1("reshape", (-1,))?;
    let bytes = flat.call_method1("view", (np.getattr("uint8")?,))?;
    Ok(bytes.cast_into::<PyArray1<u8>>()?)
}

/// A new numpy array of `elem` with `shape` and its bytes, to be filled.
pub(crate) fn empty<'py>(
    py: Python<'py>,
    elem: ElemTy,
    shape: &[u64],
) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyArray1<u8>>)> {
    let np = py.import("numpy")?;
    let arr = np
        .call_method1("empty", (shape.to_vec(), dtype_name(elem)))
        .map_err(
            |e| match e.is_instance_of::<pyo3::exceptions::PyMemoryError>(py) {
                true => device_error(&RuntimeError::HostMemory {
                    what: "an array read back".into(),
                    bytes: shape.iter().product::<u64>() * elem.bytes(),
                }),
                false => e,
            },
        )?;
    let bytes = byte_view(&arr)?;
    Ok((arr, bytes))
}

impl PyDeviceArray {
    /// The array read into a new numpy array of its shape (waits for the
    /// work that writes it).
    fn to_numpy<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let (arr, bytes) = empty(py, self.array.elem(), self.array.shape())?;
        let mut rw = bytes.try_readwrite()?;
        let dst = rw.as_slice_mut()?;
        let (gpu, a) = (&self.gpu, &self.array);
        detached(py, || {
            guarded("reading an array", || {
                gpu.read_into(&[a], &mut [dst]).map_err(|e| {
                    self.slot.after_error(gpu, &e);
                    device_error(&e)
                })
            })
        })?;
        Ok(arr)
    }
}

#[pymethods]
impl PyDeviceArray {
    /// The shape, a tuple of ints.
    #[getter]
    fn shape<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        PyTuple::new(py, self.array.shape())
    }

    /// The numpy dtype of its elements.
    #[getter]
    fn dtype<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        py.import("numpy")?
            .call_method1("dtype", (dtype_name(self.array.elem()),))
    }

    #[getter]
    fn size(&self) -> u64 {
        self.array.len()
    }

    #[getter]
    fn ndim(&self) -> usize {
        self.array.shape().len()
    }

    /// Bytes of its elements.
    #[getter]
    fn nbytes(&self) -> u64 {
        self.array.nbytes()
    }

    /// The device it lives on.
    #[getter]
    fn device(&self) -> PyDevice {
        PyDevice {
            slot: self.slot.clone(),
        }
    }

    /// A new numpy array holding its elements (one copy; waits for the work
    /// that writes it).
    fn numpy<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.to_numpy(py)
    }

    /// numpy's conversion: `numpy.asarray(a)` reads it back.
    #[pyo3(signature = (dtype = None, copy = None))]
    fn __array__<'py>(
        &self,
        py: Python<'py>,
        dtype: Option<&Bound<'py, PyAny>>,
        copy: Option<bool>,
    ) -> PyResult<Bound<'py, PyAny>> {
        if copy == Some(false) {
            return Err(PyValueError::new_err(
                "a DeviceArray cannot be seen by numpy without a copy to the host",
            ));
        }
        let arr = self.to_numpy(py)?;
        match dtype {
            Some(d) => arr.call_method1("astype", (d,)),
            None => Ok(arr),
        }
    }

    /// DLPack: the array's host copy (read back now) as a DLPack capsule,
    /// so `torch.from_dlpack(a)` and `numpy.from_dlpack(a)` take it.
    #[pyo3(signature = (**kwargs))]
    fn __dlpack__<'py>(
        &self,
        py: Python<'py>,
        kwargs: Option<&Bound<'py, PyDict>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let _ = kwargs;
        self.to_numpy(py)?.call_method0("__dlpack__")
    }

    /// The DLPack device of what `__dlpack__` exports: the host (`kDLCPU`, 0).
    fn __dlpack_device__(&self) -> (i32, i32) {
        (1, 0)
    }

    /// The same data with another shape of as many elements (no copy).
    #[pyo3(signature = (*shape))]
    fn reshape(&self, shape: &Bound<'_, PyTuple>) -> PyResult<PyDeviceArray> {
        let dims: Vec<u64> = match shape.len() {
            1 if shape.get_item(0)?.extract::<u64>().is_err() => shape.get_item(0)?.extract()?,
            _ => shape.extract()?,
        };
        let array = self.array.reshaped(&dims).ok_or_else(|| {
            PyValueError::new_err(format!(
                "cannot reshape an array of {} elements into {dims:?}",
                self.array.len()
            ))
        })?;
        Ok(PyDeviceArray {
            array,
            gpu: self.gpu.clone(),
            slot: self.slot.clone(),
        })
    }

    fn __len__(&self) -> usize {
        self.array.shape().first().copied().unwrap_or(1) as usize
    }

    fn __repr__(&self) -> String {
        format!(
            "<texpr.DeviceArray shape={:?} dtype={} on {}>",
            self.array.shape(),
            dtype_name(self.array.elem()),
            self.gpu.info().name
        )
    }
}

/// The slot's device, opened without the GIL.
fn gpu_of(py: Python<'_>, slot: &Slot) -> PyResult<Arc<Gpu>> {
    py.detach(|| slot.gpu()).map_err(|e| device_error(&e))
}

/// Uploads a numpy array (or anything numpy takes: a list, a DLPack
/// tensor) of a supported dtype to the slot's device.
fn upload<'py>(
    py: Python<'py>,
    obj: &Bound<'py, PyAny>,
    dtype: Option<&Bound<'py, PyAny>>,
    slot: &Arc<Slot>,
) -> PyResult<PyDeviceArray> {
    let np = py.import("numpy")?;
    let obj = as_numpy(obj)?;
    let arr = np.call_method1("asarray", (obj, dtype))?;
    let untyped = arr.cast::<PyUntypedArray>()?;
    let name = untyped.dtype().to_string();
    let elem = elem_of(&name).ok_or_else(|| {
        PyTypeError::new_err(format!(
            "a device array of dtype {name} cannot be made: its dtype is float32, float16, int32 or uint32"
        ))
    })?;
    let shape: Vec<u64> = untyped.shape().iter().map(|&d| d as u64).collect();
    let bytes = byte_view(&arr)?;
    let ro = bytes.try_readonly()?;
    let src = ro.as_slice()?;
    let gpu = gpu_of(py, slot)?;
    let array = detached(py, || {
        guarded("uploading an array", || {
            gpu.upload(elem, &shape, src).map_err(|e| {
                slot.after_error(&gpu, &e);
                device_error(&e)
            })
        })
    })?;
    Ok(PyDeviceArray {
        array,
        gpu,
        slot: slot.clone(),
    })
}

/// `texpr.asarray(x, dtype=None, device=None)`: `x` on a device as a
/// `DeviceArray` (one copy from the host); a device array already on that
/// device, of that dtype, is returned as it is.
#[pyfunction]
#[pyo3(signature = (x, dtype = None, device = None))]
pub fn asarray<'py>(
    py: Python<'py>,
    x: &Bound<'py, PyAny>,
    dtype: Option<&Bound<'py, PyAny>>,
    device: Option<&PyDevice>,
) -> PyResult<Bound<'py, PyAny>> {
    let slot = device.map_or_else(default_slot, |d| d.slot.clone());
    if let Ok(a) = x.cast::<PyDeviceArray>() {
        let a = a.get();
        let same_dtype = match dtype {
            None => true,
            Some(d) => {
                let d = py.import("numpy")?.call_method1("dtype", (d,))?;
                d.to_string() == dtype_name(a.array.elem())
            }
        };
        if Arc::ptr_eq(&a.slot, &slot) && same_dtype && a.array.is_on(gpu_of(py, &slot)?.as_ref()) {
            return Ok(x.clone());
        }
        let host = a.to_numpy(py)?;
        return Ok(Bound::new(py, upload(py, &host, dtype, &slot)?)?.into_any());
    }
    Ok(Bound::new(py, upload(py, x, dtype, &slot)?)?.into_any())
}

/// `texpr.from_dlpack(x, device=None)`: an object that speaks DLPack (a
/// PyTorch CPU tensor, a numpy array) on a device, read through
/// `numpy.from_dlpack` without a copy on the host, then uploaded.
#[pyfunction]
#[pyo3(signature = (x, device = None))]
pub fn from_dlpack<'py>(
    py: Python<'py>,
    x: &Bound<'py, PyAny>,
    device: Option<&PyDevice>,
) -> PyResult<Bound<'py, PyAny>> {
    if !x.hasattr("__dlpack__")? {
        let got = x
            .get_type()
            .name()
            .map(|n| n.to_string())
            .unwrap_or_default();
        return Err(PyTypeError::new_err(format!(
            "from_dlpack takes an object with __dlpack__, got a {got}"
        )));
    }
    let host = py.import("numpy")?.call_method1("from_dlpack", (x,))?;
    asarray(py, &host, None, device)
}

/// `texpr.transfers(device=None)`: what crossed between the host and the
/// device since it opened, as counts: `uploads`, `upload_bytes`, `reads`,
/// `read_bytes` (reads back to the host) and `launches` (programs run).
#[pyfunction]
#[pyo3(signature = (device = None))]
pub fn transfers<'py>(py: Python<'py>, device: Option<&PyDevice>) -> PyResult<Bound<'py, PyDict>> {
    let slot = device.map_or_else(default_slot, |d| d.slot.clone());
    let t = gpu_of(py, &slot)?.transfers();
    let d = PyDict::new(py);
    d.set_item("uploads", t.uploads)?;
    d.set_item("upload_bytes", t.upload_bytes)?;
    d.set_item("reads", t.reads)?;
    d.set_item("read_bytes", t.read_bytes)?;
    d.set_item("launches", t.launches)?;
    Ok(d)
}
