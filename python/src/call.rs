//! How a kernel call moves data. A kernel called with any device array
//! among its inputs uploads its other inputs, launches without waiting and
//! returns device arrays, so chained calls never touch the host;
//! `.numpy()` (or `numpy.asarray`) reads one back, which waits.
//!
//! A call on numpy arrays copies each input once, from numpy's memory into
//! the device's staging memory (an input that is not aligned and
//! C-contiguous is first copied so by numpy, `numpy.require`), and each
//! output once, from the device's staging memory into a new numpy array.
//! Inputs that are not numpy arrays but speak DLPack (a PyTorch CPU
//! tensor) are seen through `numpy.from_dlpack`, without a copy.

use crate::arrays::{check_input, describe, dtype_name, expected, scalar_arg};
use crate::darray::{PyDeviceArray, as_numpy, byte_view, empty};
use crate::device::{Slot, forget_if_inherited};
use crate::errors::{device_error, guarded};
use crate::signals::detached;
use numpy::{PyArray1, PyArrayMethods};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::sync::{Arc, Mutex};
use texpr::Module;
use texpr_ir::{ElemTy, Program, Ty};
use texpr_runtime::{DeviceArray, Executable, Gpu, RuntimeError};

/// An array on a device: `.shape`, `.dtype`, `.numpy()`.
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
            let arr = as_numpy(&scalar_arg(i, obj)?)?;
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
