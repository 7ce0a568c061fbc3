//! Reading input vectors from `.npy` files and writing outputs to them (npyz),
//! one file per output, `DIR/NAME.npy` (`eval -o DIR`, `run -o DIR`).
//!
//! A file may have any shape whose total size is the input's length (C order);
//! its dtype must be the input's element type: `f32` (`<f4`), `f16` (`<f2`),
//! `i32` (`<i4`) or `u32` (`<u4`), either byte order.

use crate::codes;
use npyz::{DType, NpyFile, Order, TypeChar, WriterBuilder};
use std::path::Path;
use texpr_interp::{Data, Value};
use texpr_ir::Diagnostic;
use texpr_ir::ElemTy;
use texpr_ir::{Input, Program};

/// Reads `path` as the value of `input`.
pub fn read(path: &Path, input: &Input) -> Result<Value, Diagnostic> {
    let shown = path.display();
    let bad = |e: &dyn std::fmt::Display| {
        Diagnostic::error(
            codes::READ_NPY,
            format!("cannot read `{shown}` as a .npy file: {e}"),
        )
    };
    let bytes = std::fs::read(path).map_err(|e| bad(&e))?;
    let npy = NpyFile::new(&bytes[..]).map_err(|e| bad(&e))?;
    let elem = elem_of(&npy.dtype()).ok_or_else(|| {
        let msg = format!(
            "`{shown}` holds `{}`, which texpr cannot read",
            npy.dtype().descr()
        );
        Diagnostic::error(codes::NPY_DTYPE, msg)
            .with_note("texpr reads f32 (<f4), f16 (<f2), i32 (<i4) and u32 (<u4)")
    })?;
    check_fits(&npy, elem, path, input)?;
    let data = match elem {
        ElemTy::F32 => npy.into_vec::<f32>().map(Data::F32),
        ElemTy::F16 => npy.into_vec::<half::f16>().map(Data::F16),
        ElemTy::I32 => npy.into_vec::<i32>().map(Data::I32),
        _ => npy.into_vec::<u32>().map(Data::U32),
    };
    Ok(Value::new(data.map_err(|e| bad(&e))?))
}

/// The element type of a plain numeric dtype texpr reads.
fn elem_of(dtype: &DType) -> Option<ElemTy> {
    let DType::Plain(ts) = dtype else { return None };
    match (ts.type_char(), ts.size_field()) {
        (TypeChar::Float, 4) => Some(ElemTy::F32),
        (TypeChar::Float, 2) => Some(ElemTy::F16),
        (TypeChar::Int, 4) => Some(ElemTy::I32),
        (TypeChar::Uint, 4) => Some(ElemTy::U32),
        _ => None,
    }
}

fn check_fits(
    npy: &NpyFile<&[u8]>,
    elem: ElemTy,
    path: &Path,
    input: &Input,
) -> Result<(), Diagnostic> {
    let (shown, name, ty) = (path.display(), &input.name, input.ty);
    let decl = format!("input `{name}` is {}[{}]", ty.elem.name(), ty.len);
    if elem != ty.elem {
        let msg = format!("{decl}, but `{shown}` holds {}", elem.name());
        return Err(Diagnostic::error(codes::NPY_TYPE_MISMATCH, msg));
    }
    let shape = npy.shape();
    let size: u64 = shape.iter().product();
    if size != ty.len {
        let dims: Vec<String> = shape.iter().map(|d| d.to_string()).collect();
        let msg = format!(
            "{decl}, but `{shown}` has shape ({}) = {}",
            dims.join(", "),
            texpr_ir::diag::count(size, "element")
        );
        return Err(Diagnostic::error(codes::NPY_SIZE_MISMATCH, msg));
    }
    if npy.order() == Order::Fortran && shape.iter().filter(|&&d| d > 1).count() > 1 {
        let msg = format!("`{shown}` is in Fortran order; texpr reads row-major (C order) arrays");
        return Err(Diagnostic::error(codes::NPY_FORTRAN, msg)
            .with_note("save it with numpy.ascontiguousarray(...) first"));
    }
    Ok(())
}

/// Writes each output of `prog` (`outputs`, in order) to `DIR/NAME.npy`,
/// creating `dir` first: what `eval -o DIR` and `run -o DIR` write.
pub fn write_outputs(dir: &Path, prog: &Program, outputs: &[Value]) -> Result<(), Diagnostic> {
    std::fs::create_dir_all(dir).map_err(|e| {
        let msg = format!("cannot create `{}`: {e}", dir.display());
        Diagnostic::error(codes::WRITE_OUTPUT, msg)
    })?;
    for (out, v) in prog.outputs.iter().zip(outputs) {
        write(&dir.join(format!("{}.npy", out.name)), v)?;
    }
    Ok(())
}

/// Writes `v` to `path` as a 1-D array of its element type.
pub fn write(path: &Path, v: &Value) -> Result<(), Diagnostic> {
    let result = match &v.data {
        Data::F32(x) => write_slice(path, x),
        Data::F16(x) => write_slice(path, x),
        Data::I32(x) => write_slice(path, x),
        Data::U32(x) => write_slice(path, x),
        Data::Bool(x) => write_slice(path, &x.iter().map(|&b| b as u32).collect::<Vec<_>>()),
    };
    result.map_err(|e| {
        Diagnostic::error(
            codes::WRITE_OUTPUT,
            format!("cannot write `{}`: {e}", path.display()),
        )
    })
}

fn write_slice<T: npyz::AutoSerialize + Copy>(path: &Path, xs: &[T]) -> std::io::Result<()> {
    let file = std::io::BufWriter::new(std::fs::File::create(path)?);
    let mut w = npyz::WriteOptions::new()
        .default_dtype()
        .shape(&[xs.len() as u64])
        .writer(file)
        .begin_nd()?;
    w.extend(xs.iter().copied())?;
    w.finish()
}
