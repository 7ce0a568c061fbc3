//! Host-side vectors: 4-byte words with an element type, as uploaded and read back.

use super::RuntimeError;
use texpr_ir::ElemTy;

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

    /// `f16` values, one a word (its bits in the low half); the device holds
    /// them two a word (see [`device_bytes`]).
    pub fn from_f16(values: &[half::f16]) -> HostBuffer {
        HostBuffer {
            elem: ElemTy::F16,
            data: values.iter().map(|h| u32::from(h.to_bits())).collect(),
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

    /// The words read as `f16`, one a word (whatever `elem` says).
    pub fn to_f16(&self) -> Vec<half::f16> {
        self.data
            .iter()
            .map(|&w| half::f16::from_bits(w as u16))
            .collect()
    }

    /// The raw words.
    pub fn to_u32(&self) -> Vec<u32> {
        self.data.clone()
    }

    /// The bytes to upload (see [`device_bytes`]).
    pub(crate) fn bytes(&self) -> std::borrow::Cow<'_, [u8]> {
        device_bytes(self.elem, &self.data)
    }
}

/// Words of elements of `elem` as the device holds them: one `f16` a word
/// on the host (its bits in the low half), two a word on the device
/// (`array<f16>`, the first in the low half); every other type as it is.
pub(crate) fn device_bytes(elem: ElemTy, words: &[u32]) -> std::borrow::Cow<'_, [u8]> {
    match elem {
        ElemTy::F16 => {
            let halves: Vec<u16> = words.iter().map(|&w| w as u16).collect();
            let mut bytes: Vec<u8> = bytemuck::cast_slice(&halves).to_vec();
            bytes.resize(bytes.len().next_multiple_of(4), 0);
            std::borrow::Cow::Owned(bytes)
        }
        _ => std::borrow::Cow::Borrowed(bytemuck::cast_slice(words)),
    }
}

/// `bytes` zero bytes for `what`; [`RuntimeError::HostMemory`] when the host
/// cannot allocate them.
pub(crate) fn zeroed(bytes: u64, what: &str) -> Result<Vec<u8>, RuntimeError> {
    let fail = || RuntimeError::HostMemory {
        what: what.to_string(),
        bytes,
    };
    let n = usize::try_from(bytes).map_err(|_| fail())?;
    let mut v = Vec::new();
    v.try_reserve_exact(n).map_err(|_| fail())?;
    v.resize(n, 0);
    Ok(v)
}

/// The first `len` elements of `elem` in device bytes, one a word (the
/// inverse of [`device_bytes`]); [`RuntimeError::HostMemory`] when the host
/// cannot allocate them (a result as large as the device holds may be more
/// than the host has left: an error, not an abort).
pub(crate) fn host_words(elem: ElemTy, bytes: &[u8], len: u64) -> Result<Vec<u32>, RuntimeError> {
    let (size, held) = match elem {
        ElemTy::F16 => (2, bytes.len() / 2),
        _ => (4, bytes.len() / 4),
    };
    let n = held.min(usize::try_from(len).unwrap_or(usize::MAX));
    let mut words: Vec<u32> = Vec::new();
    words
        .try_reserve_exact(n)
        .map_err(|_| RuntimeError::HostMemory {
            what: format!("{n} elements of {} read back", elem.name()),
            bytes: 4 * n as u64,
        })?;
    let chunks = bytes.chunks_exact(size).take(n);
    match elem {
        ElemTy::F16 => words.extend(chunks.map(|c| u32::from(u16::from_ne_bytes([c[0], c[1]])))),
        _ => words.extend(chunks.map(|c| u32::from_ne_bytes([c[0], c[1], c[2], c[3]]))),
    }
    Ok(words)
}

#[cfg(test)]
mod tests {
    use super::{HostBuffer, device_bytes, host_words, zeroed};
    use crate::RuntimeError;
    use texpr_ir::ElemTy;

    #[test]
    fn words_read_back_are_the_words_written() {
        let f32s: Vec<u32> = [1.5f32, -2.0, 3.25].iter().map(|x| x.to_bits()).collect();
        let bytes = device_bytes(ElemTy::F32, &f32s).into_owned();
        assert_eq!(host_words(ElemTy::F32, &bytes, 3).unwrap(), f32s);
        assert_eq!(host_words(ElemTy::F32, &bytes, 2).unwrap(), f32s[..2]);
        // Three halves take two words on the device, one each on the host.
        let halves = vec![0x3c00, 0xc000, 0x7bff];
        let bytes = device_bytes(ElemTy::F16, &halves).into_owned();
        assert_eq!(bytes.len(), 8);
        assert_eq!(host_words(ElemTy::F16, &bytes, 3).unwrap(), halves);
        // `f16` values as words and back, through the device's packing.
        let h: Vec<half::f16> = [1.0f32, -2.0, 65504.0]
            .iter()
            .map(|&x| half::f16::from_f32(x))
            .collect();
        let host = HostBuffer::from_f16(&h);
        assert_eq!(host.data, halves);
        let back = HostBuffer {
            elem: ElemTy::F16,
            data: host_words(ElemTy::F16, &host.bytes(), 3).unwrap(),
        };
        assert_eq!(back.to_f16(), h);
        // From a slice at an odd address.
        let mut odd = vec![0u8];
        odd.extend_from_slice(&device_bytes(ElemTy::F32, &f32s));
        assert_eq!(host_words(ElemTy::F32, &odd[1..], 3).unwrap(), f32s);
    }

    #[test]
    fn memory_the_host_cannot_allocate_is_an_error_not_an_abort() {
        let e = zeroed(u64::MAX, "reading back").unwrap_err();
        assert!(
            matches!(
                e,
                RuntimeError::HostMemory {
                    bytes: u64::MAX,
                    ..
                }
            ),
            "{e:?}"
        );
        assert_eq!(e.code(), "E0418");
        assert!(e.explanation().contains("cannot allocate"));
        assert_eq!(zeroed(5, "x").unwrap(), vec![0; 5]);
    }
}
