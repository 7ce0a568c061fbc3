//! The interpreter as a device: buffers in host memory, bodies run by the reference interpreter.
//!
//! Each distinct body is compiled once with the optimizer (for the built-in
//! portable target, `wgpu-default`) and its scheduled program is what the interpreter runs,
//! so the optimized body, not the source, is what produces the tiles.

use super::{BufId, KernelId, ReadId, SchedulePicker, TileDevice, compile_body, device_error};
use std::collections::BTreeMap;
use texpr::Target;
use texpr_interp::Value;
use texpr_syntax::{Diagnostic, ir};

/// Buffers are host vectors; every operation completes at once.
pub struct InterpDevice<'s> {
    pick: &'s SchedulePicker,
    bufs: Vec<Option<Vec<f32>>>,
    kernels: Vec<ir::Program>,
    by_source: BTreeMap<String, KernelId>,
    reads: Vec<Option<Vec<f32>>>,
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
            by_source: BTreeMap::new(),
            reads: Vec::new(),
        }
    }

    fn buf(&self, b: BufId) -> Result<&Vec<f32>, Diagnostic> {
        self.bufs
            .get(b.0)
            .and_then(Option::as_ref)
            .ok_or_else(|| device_error("a buffer", format!("b{} is not allocated", b.0)))
    }

    fn buf_mut(&mut self, b: BufId) -> Result<&mut Vec<f32>, Diagnostic> {
        self.bufs
            .get_mut(b.0)
            .and_then(Option::as_mut)
            .ok_or_else(|| device_error("a buffer", format!("b{} is not allocated", b.0)))
    }
}

impl TileDevice for InterpDevice<'_> {
    fn describe(&self) -> String {
        "the interpreter".into()
    }

    fn compile(&mut self, kernel: &str) -> Result<KernelId, Diagnostic> {
        if let Some(&k) = self.by_source.get(kernel) {
            return Ok(k);
        }
        let compiled = compile_body(kernel, &Target::default(), self.pick)?;
        let k = KernelId(self.kernels.len());
        self.kernels.push(compiled.scheduled);
        self.by_source.insert(kernel.to_string(), k);
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
        Ok(BufId(self.bufs.len() - 1))
    }

    fn free(&mut self, b: BufId) {
        if let Some(slot) = self.bufs.get_mut(b.0) {
            *slot = None;
        }
    }

    fn write(&mut self, b: BufId, offset: usize, data: &[f32]) -> Result<(), Diagnostic> {
        let buf = self.buf_mut(b)?;
        let dst = buf
            .get_mut(offset..offset + data.len())
            .ok_or_else(|| device_error("a write", "out of bounds"))?;
        dst.copy_from_slice(data);
        Ok(())
    }

    fn copy(
        &mut self,
        (src, so): (BufId, usize),
        (dst, d_o): (BufId, usize),
        len: usize,
    ) -> Result<(), Diagnostic> {
        let part = self
            .buf(src)?
            .get(so..so + len)
            .ok_or_else(|| device_error("a copy", "out of bounds"))?
            .to_vec();
        self.write(dst, d_o, &part)
    }

    fn run(&mut self, k: KernelId, inputs: &[BufId], out: BufId) -> Result<(), Diagnostic> {
        let values = inputs
            .iter()
            .map(|&b| self.buf(b).map(|v| Value::f32(v.clone())))
            .collect::<Result<Vec<_>, _>>()?;
        let prog = &self.kernels[k.0];
        let result = texpr_interp::eval(prog, &values)
            .map_err(|e| device_error("a block body failed", e))?;
        let words = result
            .first()
            .and_then(|v| v.as_f32())
            .ok_or_else(|| device_error("a block body", "gave no f32 output"))?
            .to_vec();
        self.write(out, 0, &words)
    }

    fn flush(&mut self) -> Result<(), Diagnostic> {
        Ok(())
    }

    fn start_read(&mut self, b: BufId) -> Result<ReadId, Diagnostic> {
        let data = self.buf(b)?.clone();
        self.reads.push(Some(data));
        Ok(ReadId(self.reads.len() - 1))
    }

    fn try_read(&mut self, r: ReadId) -> Result<Option<Vec<f32>>, Diagnostic> {
        Ok(self.reads.get_mut(r.0).and_then(Option::take))
    }
}
