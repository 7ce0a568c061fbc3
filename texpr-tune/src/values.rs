//! Conversions between the interpreter's `Value`s and the runtime's `HostBuffer`s.

use texpr_interp::{Data, Value};
use texpr_ir::ElemTy;
use texpr_runtime::HostBuffer;

/// A value as 4-byte words for upload, one element a word (an `f16` as
/// [`HostBuffer::from_f16`] holds it); `Bool` vectors never leave a program.
pub fn to_host(v: &Value) -> HostBuffer {
    match &v.data {
        Data::F32(x) => HostBuffer::from_f32(x),
        Data::F16(x) => HostBuffer::from_f16(x),
        Data::I32(x) => HostBuffer::from_i32(x),
        Data::U32(x) => HostBuffer::from_u32(x),
        Data::Bool(x) => HostBuffer {
            elem: ElemTy::Bool,
            data: x.iter().map(|&b| b as u32).collect(),
        },
    }
}

/// Read-back words as a value of their element type.
pub fn to_value(h: &HostBuffer) -> Value {
    match h.elem {
        ElemTy::F32 => Value::f32(h.to_f32()),
        ElemTy::F16 => Value::f16(h.to_f16()),
        ElemTy::I32 => Value::i32(h.to_i32()),
        ElemTy::U32 => Value::u32(h.to_u32()),
        ElemTy::Bool => Value::new(Data::Bool(h.data.iter().map(|&w| w != 0).collect())),
    }
}
