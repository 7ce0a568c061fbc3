//! What the MPI transport's messages carry (feature `mpi`): failure reports
//! as words, and a reduce's partials as the `f32`s MPI combines.

use crate::air::Agg;
use mpi::collective::SystemOperation;

/// A message slot's words as the `f32`s they hold (same size and alignment).
pub fn as_f32(w: &[u32]) -> &[f32] {
    bytemuck::cast_slice(w)
}

pub fn as_f32_mut(w: &mut [u32]) -> &mut [f32] {
    bytemuck::cast_slice_mut(w)
}

/// MPI's operation combining a reduction's partials.
pub fn operation(agg: Agg) -> SystemOperation {
    match agg {
        Agg::Sum | Agg::Mean | Agg::Var | Agg::Std => SystemOperation::sum(),
        Agg::Prod => SystemOperation::product(),
        Agg::Max => SystemOperation::max(),
        Agg::Min => SystemOperation::min(),
    }
}

/// Writes a failure report: the rank, the text's byte count, the text.
pub fn encode_report(out: &mut [u32], rank: usize, text: &str) {
    let bytes = text.as_bytes();
    let room = (out.len() - 2) * 4;
    let bytes = &bytes[..bytes.len().min(room)];
    out[0] = rank as u32;
    out[1] = bytes.len() as u32;
    for (k, chunk) in bytes.chunks(4).enumerate() {
        let mut w = [0u8; 4];
        w[..chunk.len()].copy_from_slice(chunk);
        out[2 + k] = u32::from_le_bytes(w);
    }
}

/// Reads a failure report written by [`encode_report`].
pub fn decode_report(words: &[u32]) -> (usize, String) {
    let rank = words[0] as usize;
    let len = (words[1] as usize).min((words.len() - 2) * 4);
    let bytes: Vec<u8> = words[2..]
        .iter()
        .flat_map(|w| w.to_le_bytes())
        .take(len)
        .collect();
    (rank, String::from_utf8_lossy(&bytes).into_owned())
}
