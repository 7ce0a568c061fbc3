//! Host-side vectors: 4-byte words with an element type, as uploaded and read back.

use texpr_syntax::ast::ElemTy;

/// A vector on the host: `data` holds the raw 4-byte words of `elem` values.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HostBuffer {
    pub elem: ElemTy,
    pub data: Vec<u32>,
}

impl HostBuffer {
    pub fn from_f32(values: &[f32]) -> HostBuffer {
        HostBuffer {
            elem: ElemTy::F32,
            data: bytemuck::cast_slice(values).to_vec(),
        }
    }

    pub fn from_i32(values: &[i32]) -> HostBuffer {
        HostBuffer {
            elem: ElemTy::I32,
            data: bytemuck::cast_slice(values).to_vec(),
        }
    }

    pub fn from_u32(values: &[u32]) -> HostBuffer {
        HostBuffer {
            elem: ElemTy::U32,
            data: values.to_vec(),
        }
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        self.data.len()
    }

    pub fn is_empty(&self) -> bool {
        self.data.is_empty()
    }

    /// The words read as `f32` (whatever `elem` says).
    pub fn to_f32(&self) -> Vec<f32> {
        bytemuck::cast_slice(&self.data).to_vec()
    }

    /// The words read as `i32` (whatever `elem` says).
    pub fn to_i32(&self) -> Vec<i32> {
        bytemuck::cast_slice(&self.data).to_vec()
    }

    /// The raw words.
    pub fn to_u32(&self) -> Vec<u32> {
        self.data.clone()
    }

    /// The bytes to upload.
    pub(crate) fn bytes(&self) -> &[u8] {
        bytemuck::cast_slice(&self.data)
    }
}
