//! Device arrays in Python (`texpr.DeviceArray`, `texpr.asarray`,
//! `texpr.from_dlpack`) and how a kernel call moves data.
//!
//! A `DeviceArray` is a `texpr_runtime::DeviceArray` (a buffer, an element
//! type and a shape on one device) with the device it lives on. A kernel
//! called with any device array among its inputs uploads its other inputs,
//! launches without waiting and returns device arrays, so chained calls
//! never touch the host; `.numpy()` (or `numpy.asarray`) reads one back,
//! which waits.
//!
//! A call on numpy arrays copies each input once, from numpy's memory into
//! the device's staging memory (an input that is not aligned and
//! C-contiguous is first copied so by numpy, `numpy.require`), and each
//! output once, from the device's staging memory into a new numpy array.
//! Inputs that are not numpy arrays but speak DLPack (a PyTorch CPU
//! tensor) are seen through `numpy.from_dlpack`, without a copy.

use crate::arrays::{check_input, describe, dtype_name, expected};
use crate::device::{PyDevice, Slot, default_slot, forget_if_inherited};
use crate::errors::{device_error, guarded};
use crate::signals::detached;
use numpy::{PyArray1, PyArrayMethods, PyUntypedArray, PyUntypedArrayMethods};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};
use std::sync::{Arc, Mutex};
use texpr::Module;
use texpr_runtime::{DeviceArray, Executable, Gpu, RuntimeError};
use texpr_syntax::ir::{ElemTy, Program, Ty};

/// An array on a device: `.shape`, `.dtype`, `.numpy()`.
#[pyclass(frozen, module = "texpr", name = "DeviceArray")]
#[derive(Debug)]
pub struct PyDeviceArray {
    array: DeviceArray,
    gpu: Arc<Gpu>,
    slot: Arc<Slot>,
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
fn as_numpy<'py>(obj: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
    if obj.cast::<PyUntypedArray>().is_ok() || !obj.hasattr("__dlpack__")? {
        return Ok(obj.clone());
    }
    obj.py()
        .import("numpy")?
        .call_method1("from_dlpack", (obj,))
}

/// The bytes of a numpy array, as a flat `uint8` view of an aligned
/// C-contiguous array (`numpy.require` copies any other once).
fn byte_view<'py>(arr: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyArray1<u8>>> {
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
fn empty<'py>(
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

/// What a kernel keeps between calls: its executable on the device (made
/// by the first call), and the arrays calls on numpy arrays write their
/// inputs into and launch into, one set per call running at once.
#[derive(Debug, Default)]
pub struct Launcher {
    exe: Mutex<Option<Loaded>>,
    sets: Mutex<Vec<(Arc<Gpu>, u32, ArraySet)>>,
}

/// An executable, the device it is on and the process that loaded it.
type Loaded = (Arc<Gpu>, u32, Arc<Executable>);

/// Arrays for one call's inputs and outputs.
#[derive(Debug)]
struct ArraySet {
    inputs: Vec<DeviceArray>,
    outputs: Vec<DeviceArray>,
}

impl Launcher {
    /// The executable of `module` on `gpu`, loaded by the first call there.
    fn executable(&self, gpu: &Arc<Gpu>, module: &Module) -> Result<Arc<Executable>, RuntimeError> {
        let mut held = self.exe.lock().unwrap_or_else(|p| p.into_inner());
        if let Some((g, pid, e)) = held.take()
            && let Some((g, e)) = forget_if_inherited((g, e), pid)
            && Arc::ptr_eq(&g, gpu)
        {
            *held = Some((g, pid, e.clone()));
            return Ok(e);
        }
        let exe = Arc::new(gpu.load(module)?);
        *held = Some((gpu.clone(), std::process::id(), exe.clone()));
        Ok(exe)
    }

    /// A set of arrays made on `gpu` by an earlier call, or new ones.
    fn take_set(&self, gpu: &Arc<Gpu>, exe: &Executable) -> Result<ArraySet, RuntimeError> {
        {
            let mut sets = self.sets.lock().unwrap_or_else(|p| p.into_inner());
            let mut kept = Vec::new();
            for (g, pid, s) in sets.drain(..) {
                if let Some((g, s)) = forget_if_inherited((g, s), pid)
                    && Arc::ptr_eq(&g, gpu)
                {
                    kept.push((g, pid, s));
                }
            }
            *sets = kept;
            if let Some((_, _, s)) = sets.pop() {
                return Ok(s);
            }
        }
        let inputs = (exe.input_types())
            .map(|(elem, len)| gpu.zeros(elem, &[len]))
            .collect::<Result<_, _>>()?;
        let outputs = (exe.output_types())
            .map(|(elem, len)| gpu.zeros(elem, &[len]))
            .collect::<Result<_, _>>()?;
        Ok(ArraySet { inputs, outputs })
    }

    fn put_back(&self, gpu: Arc<Gpu>, s: ArraySet) {
        let mut sets = self.sets.lock().unwrap_or_else(|p| p.into_inner());
        sets.push((gpu, std::process::id(), s));
    }
}

/// One input as given: a device array, or the bytes of a numpy array.
enum Given<'py> {
    Device(Bound<'py, PyDeviceArray>),
    Host(Bound<'py, PyArray1<u8>>),
}

/// A device array checked against its input's type.
fn check_device(name: &str, ty: Ty, a: &PyDeviceArray) -> PyResult<()> {
    if a.array.elem() != ty.elem {
        return Err(PyTypeError::new_err(format!(
            "input `{name}` is a device array of dtype {}: expected {}",
            dtype_name(a.array.elem()),
            expected(ty)
        )));
    }
    if a.array.len() != ty.len {
        return Err(PyValueError::new_err(format!(
            "input `{name}` has {} elements (shape {:?}): expected {}",
            a.array.len(),
            a.array.shape(),
            expected(ty)
        )));
    }
    Ok(())
}

/// The inputs of `program` from keyword arguments, checked, in its order.
fn given<'py>(program: &Program, kwargs: Option<&Bound<'py, PyDict>>) -> PyResult<Vec<Given<'py>>> {
    if let Some(kw) = kwargs {
        for key in kw.keys() {
            let key: String = key.extract()?;
            if !program.inputs.iter().any(|i| i.name == key) {
                return Err(PyTypeError::new_err(format!(
                    "unknown input `{key}`: the program's inputs are {}",
                    describe(&program.inputs)
                )));
            }
        }
    }
    (program.inputs.iter())
        .map(|i| {
            let got = kwargs.map(|kw| kw.get_item(&i.name)).transpose()?.flatten();
            let Some(obj) = got else {
                return Err(PyTypeError::new_err(format!(
                    "missing input `{}`: expected {}",
                    i.name,
                    expected(i.ty)
                )));
            };
            if let Ok(d) = obj.cast::<PyDeviceArray>() {
                check_device(&i.name, i.ty, d.get())?;
                return Ok(Given::Device(d.clone()));
            }
            let arr = as_numpy(&obj)?;
            check_input(&i.name, i.ty, &arr)?;
            if i.ty.elem == ElemTy::Bool {
                return Err(PyTypeError::new_err(format!(
                    "input `{}`: bool inputs do not exist",
                    i.name
                )));
            }
            Ok(Given::Host(byte_view(&arr)?))
        })
        .collect()
}

/// Runs a kernel: with any device array among the inputs, returns device
/// arrays (launched, not waited for); else numpy arrays. One array for a
/// program with one output, else a dict from output name to array.
pub fn call<'py>(
    py: Python<'py>,
    program: &Program,
    module: &Module,
    slot: &Arc<Slot>,
    launcher: &Launcher,
    kwargs: Option<&Bound<'py, PyDict>>,
) -> PyResult<Bound<'py, PyAny>> {
    let inputs = given(program, kwargs)?;
    let on_device = inputs.iter().any(|g| matches!(g, Given::Device(_)));
    let names = program.outputs.iter().map(|o| o.name.clone());
    let results: Vec<Bound<'py, PyAny>> = match on_device {
        true => launch(py, slot, module, launcher, &inputs)?
            .into_iter()
            .map(|a| Ok(Bound::new(py, a)?.into_any()))
            .collect::<PyResult<_>>()?,
        false => run_host(py, slot, module, launcher, program, &inputs)?,
    };
    let mut named: Vec<(String, Bound<'py, PyAny>)> = names.zip(results).collect();
    if named.len() == 1 {
        return Ok(named.remove(0).1);
    }
    let dict = PyDict::new(py);
    for (n, a) in named {
        dict.set_item(n, a)?;
    }
    Ok(dict.into_any())
}

/// `f` on `gpu`; an error as `DeviceError`, after forgetting a lost device.
fn on<T>(slot: &Slot, gpu: &Arc<Gpu>, r: Result<T, RuntimeError>) -> PyResult<T> {
    r.map_err(|e| {
        slot.after_error(gpu, &e);
        device_error(&e)
    })
}

/// Device arrays in, device arrays out: host inputs uploaded, the program
/// launched without waiting.
fn launch(
    py: Python<'_>,
    slot: &Arc<Slot>,
    module: &Module,
    launcher: &Launcher,
    inputs: &[Given<'_>],
) -> PyResult<Vec<PyDeviceArray>> {
    let readonly = (inputs.iter())
        .map(|g| match g {
            Given::Host(b) => b.try_readonly().map(Some).map_err(PyErr::from),
            Given::Device(_) => Ok(None),
        })
        .collect::<PyResult<Vec<_>>>()?;
    let sources: Vec<Result<&DeviceArray, &[u8]>> = (inputs.iter().zip(&readonly))
        .map(|(g, ro)| match (g, ro) {
            (Given::Device(d), _) => Ok(Ok(&d.get().array)),
            (Given::Host(_), Some(ro)) => Ok(Err(ro.as_slice()?)),
            (Given::Host(_), None) => Err(PyValueError::new_err("an input not read")),
        })
        .collect::<PyResult<_>>()?;
    let (gpu, outputs) = detached(py, || {
        guarded("launching a kernel", || {
            let gpu = slot.gpu().map_err(|e| device_error(&e))?;
            let exe = on(slot, &gpu, launcher.executable(&gpu, module))?;
            let mut uploaded = Vec::new();
            for (src, (elem, len)) in sources.iter().zip(exe.input_types()) {
                if let Err(bytes) = src {
                    uploaded.push(on(slot, &gpu, gpu.upload(elem, &[len], bytes))?);
                }
            }
            let mut next = uploaded.iter();
            let arrays: Vec<&DeviceArray> = (sources.iter())
                .filter_map(|s| match s {
                    Ok(a) => Some(*a),
                    Err(_) => next.next(),
                })
                .collect();
            let outputs = on(slot, &gpu, gpu.launch(&exe, &arrays))?;
            Ok((gpu, outputs))
        })
    })?;
    Ok(outputs
        .into_iter()
        .map(|array| PyDeviceArray {
            array,
            gpu: gpu.clone(),
            slot: slot.clone(),
        })
        .collect())
}

/// numpy in, numpy out: each input copied once into the device's staging
/// memory, each output once into a new numpy array.
fn run_host<'py>(
    py: Python<'py>,
    slot: &Arc<Slot>,
    module: &Module,
    launcher: &Launcher,
    program: &Program,
    inputs: &[Given<'py>],
) -> PyResult<Vec<Bound<'py, PyAny>>> {
    let readonly = (inputs.iter())
        .map(|g| match g {
            Given::Host(b) => b.try_readonly().map_err(PyErr::from),
            Given::Device(_) => Err(PyValueError::new_err("a device array in a host call")),
        })
        .collect::<Result<Vec<_>, PyErr>>()?;
    let sources: Vec<&[u8]> = (readonly.iter())
        .map(|ro| ro.as_slice())
        .collect::<Result<_, _>>()?;
    let mut outs = Vec::new();
    let mut views = Vec::new();
    for o in &program.outputs {
        let (arr, bytes) = empty(py, o.value.ty.elem, &[o.value.ty.len])?;
        outs.push(arr);
        views.push(bytes);
    }
    let mut writable = (views.iter())
        .map(|v| v.try_readwrite())
        .collect::<Result<Vec<_>, _>>()?;
    let mut dst: Vec<&mut [u8]> = (writable.iter_mut())
        .map(|w| w.as_slice_mut())
        .collect::<Result<_, _>>()?;
    detached(py, || {
        guarded("running a kernel", || {
            let gpu = slot.gpu().map_err(|e| device_error(&e))?;
            let exe = on(slot, &gpu, launcher.executable(&gpu, module))?;
            let set = on(slot, &gpu, launcher.take_set(&gpu, &exe))?;
            for (a, bytes) in set.inputs.iter().zip(&sources) {
                on(slot, &gpu, gpu.write_array(a, bytes))?;
            }
            let ins: Vec<&DeviceArray> = set.inputs.iter().collect();
            let outs: Vec<&DeviceArray> = set.outputs.iter().collect();
            on(slot, &gpu, gpu.launch_read(&exe, &ins, &outs, &mut dst))?;
            launcher.put_back(gpu, set);
            Ok(())
        })
    })?;
    Ok(outs)
}
