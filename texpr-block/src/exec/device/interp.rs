//! The interpreter as a device: buffers in host memory, bodies run by the reference interpreter.
//!
//! A buffer is one host vector (a matrix's allocation on the rank holds its
//! tiles in slots); kernels read and write ranges of them.
//!
//! Each distinct body is compiled once with the optimizer (for the built-in
//! portable target, `wgpu-default`) and its scheduled program is what the interpreter runs,
//! so the optimized body, not the source, is what produces the tiles.

use super::{
    BufId, KernelId, KernelIds, ReadId, SchedulePicker, Slice, TileDevice, compile_body,
    device_error, within, write_fits,
};
use crate::stage::Kernel;
use texpr::Target;
use texpr_interp::Value;
use texpr_ir::{self as ir, Diagnostic};

/// Buffers are host vectors; every operation completes at once.
pub struct InterpDevice<'s> {
    pick: &'s SchedulePicker,
    bufs: Vec<Option<Vec<f32>>>,
    kernels: Vec<ir::Program>,
    ids: KernelIds,
    reads: Vec<Option<Vec<f32>>>,
    made: u64,
}

impl std::fmt::Debug for InterpDevice<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("InterpDevice")
            .field("buffers", &self.bufs.len())
            .field("kernels", &self.kernels.len())
            .finish()
    }
}

impl<'s> InterpDevice<'s> {
    pub fn new(pick: &'s SchedulePicker) -> InterpDevice<'s> {
        InterpDevice {
            pick,
            bufs: Vec::new(),
            kernels: Vec::new(),
            ids: KernelIds::default(),
            reads: Vec::new(),
            made: 0,
        }
    }

    /// The values of slice `s`.
    fn slice(&self, s: Slice) -> Result<&[f32], Diagnostic> {
        let buf = self
            .bufs
            .get(s.buf.0)
            .and_then(Option::as_ref)
            .ok_or_else(|| device_error("a buffer", format!("b{} is not allocated", s.buf.0)))?;
        within(s, buf.len(), "a range")?;
        Ok(&buf[s.offset..s.offset + s.len])
    }

    fn slice_mut(&mut self, s: Slice) -> Result<&mut [f32], Diagnostic> {
        let buf = self
            .bufs
            .get_mut(s.buf.0)
            .and_then(Option::as_mut)
            .ok_or_else(|| device_error("a buffer", format!("b{} is not allocated", s.buf.0)))?;
        within(s, buf.len(), "a range")?;
        Ok(&mut buf[s.offset..s.offset + s.len])
    }
}

impl TileDevice for InterpDevice<'_> {
    fn describe(&self) -> String {
        "the interpreter".into()
    }

    fn compile(&mut self, kernel: &Kernel) -> Result<KernelId, Diagnostic> {
        if let Some(k) = self.ids.get(kernel) {
            return Ok(k);
        }
        let compiled = compile_body(kernel, &Target::default(), self.pick)?;
        let k = KernelId(self.kernels.len());
        self.kernels.push(compiled.scheduled);
        self.ids.insert(kernel, k);
        Ok(k)
    }

    fn compiled(&self) -> usize {
        self.kernels.len()
    }

    fn scratch_bytes(&self) -> u64 {
        0
    }

    fn alloc(&mut self, len: usize) -> Result<BufId, Diagnostic> {
        self.bufs.push(Some(vec![0.0; len]));
        self.made += 1;
        Ok(BufId(self.bufs.len() - 1))
    }

    fn free(&mut self, b: BufId) {
        if let Some(slot) = self.bufs.get_mut(b.0) {
            *slot = None;
        }
    }

    fn allocations(&self) -> u64 {
        self.made
    }

    fn write(&mut self, dst: Slice, data: &[f32]) -> Result<(), Diagnostic> {
        write_fits(dst, data)?;
        self.slice_mut(dst)?.copy_from_slice(data);
        Ok(())
    }

    fn copy(&mut self, src: Slice, dst: Slice) -> Result<(), Diagnostic> {
        let part = self.slice(src)?.to_vec();
        self.write(dst, &part)
    }

    fn run(&mut self, k: KernelId, inputs: &[Slice], out: Slice) -> Result<(), Diagnostic> {
        let values = inputs
            .iter()
            .map(|&s| self.slice(s).map(|v| Value::f32(v.to_vec())))
            .collect::<Result<Vec<_>, _>>()?;
        let prog = &self.kernels[k.0];
        let result = texpr_interp::eval(prog, &values)
            .map_err(|e| device_error("a block body failed", e))?;
        let words = result
            .first()
            .and_then(|v| v.as_f32())
            .ok_or_else(|| device_error("a block body", "gave no f32 output"))?
            .to_vec();
        self.write(out, &words)
    }

    fn flush(&mut self) -> Result<(), Diagnostic> {
        Ok(())
    }

    fn start_read(&mut self, src: Slice) -> Result<ReadId, Diagnostic> {
        let data = self.slice(src)?.to_vec();
        self.reads.push(Some(data));
        Ok(ReadId(self.reads.len() - 1))
    }

    fn try_read(&mut self, r: ReadId) -> Result<Option<Vec<f32>>, Diagnostic> {
        Ok(self.reads.get_mut(r.0).and_then(Option::take))
    }
}
