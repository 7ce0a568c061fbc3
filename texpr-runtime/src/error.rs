//! Runtime errors: everything that can go wrong between a kernel plan and its results.
//!
//! Each error says in texpr's words what was being done (which kernel, which
//! buffer, which step) and keeps the text wgpu gave, whole, apart
//! ([`RuntimeError::wgpu_text`]); [`RuntimeError::to_diagnostic`] puts the
//! first in the message and the second in a note. A lost device is reported
//! as lost, at the step that found it, never as a later "buffer is invalid".
//!
//! Codes (E0400-E0499, [`RuntimeError::code`]):
//! - E0401 no GPU adapter; E0402 no adapter matches the choice; E0403 the
//!   adapter refused to open a device
//! - E0404 the device was lost (a driver fault or reset, or [`super::Gpu::destroy`]):
//!   nothing more runs on it; [`super::Gpu::reopen`] opens a new one
//! - E0405 an error the device reported outside any step
//! - E0406 the shader module was rejected; E0407 a kernel's pipeline or bind group was rejected
//! - E0408 / E0409 the inputs do not match the plan; E0410 a malformed plan
//! - E0411 a buffer over the device's size limits; E0412 a dispatch over the workgroup-count limit
//! - E0413 submitting or running kernels failed
//! - E0414 reading back results failed; E0415 the device did not finish in time
//! - E0416 creating or filling a buffer failed
//! - E0417 a device array given to a device that did not make it
//! - E0418 the host could not allocate memory for a result
//! - E0419 the call was interrupted between submissions ([`crate::interruptible`])

use texpr_ir::Diagnostic;
use texpr_ir::ElemTy;

#[derive(Debug, Clone, PartialEq)]
pub enum RuntimeError {
    NoAdapter(String),
    AdapterNotFound {
        choice: String,
        available: String,
    },
    RequestDevice {
        adapter: String,
        message: String,
    },
    /// The device was lost; `during` is what texpr was doing when it found
    /// out (e.g. "running kernel `k0_y`"), `reason` wgpu's text.
    DeviceLost {
        during: String,
        reason: String,
    },
    Uncaptured(String),
    ShaderModule(String),
    Pipeline {
        entry_point: String,
        message: String,
    },
    InputCount {
        expected: usize,
        got: usize,
    },
    InputMismatch {
        index: usize,
        name: String,
        expected_elem: ElemTy,
        expected_len: u64,
        got_elem: ElemTy,
        got_len: u64,
    },
    BadPlan(String),
    BufferTooLarge {
        name: String,
        bytes: u64,
        limit: u64,
        limit_name: &'static str,
    },
    DispatchTooLarge {
        entry_point: String,
        dispatch: [u32; 3],
        limit: u32,
    },
    /// Submitting or running kernels failed; `during` names them.
    Execution {
        during: String,
        message: String,
    },
    Readback(String),
    Timeout(String),
    /// Creating or filling buffer `name` failed.
    Buffer {
        name: String,
        message: String,
    },
    /// A device array (described, `f32[1024]`) used on another device than
    /// the one that made it (or on a device reopened since).
    OtherDevice(String),
    /// The host could not allocate `bytes` bytes for `what`.
    HostMemory {
        what: String,
        bytes: u64,
    },
    /// The host's check asked to stop ([`crate::interruptible`]) after `during`.
    Interrupted {
        during: String,
    },
}

impl RuntimeError {
    /// The stable diagnostic code of this error (E0400-E0499).
    pub fn code(&self) -> &'static str {
        match self {
            RuntimeError::NoAdapter(_) => "E0401",
            RuntimeError::AdapterNotFound { .. } => "E0402",
            RuntimeError::RequestDevice { .. } => "E0403",
            RuntimeError::DeviceLost { .. } => "E0404",
            RuntimeError::Uncaptured(_) => "E0405",
            RuntimeError::ShaderModule(_) => "E0406",
            RuntimeError::Pipeline { .. } => "E0407",
            RuntimeError::InputCount { .. } => "E0408",
            RuntimeError::InputMismatch { .. } => "E0409",
            RuntimeError::BadPlan(_) => "E0410",
            RuntimeError::BufferTooLarge { .. } => "E0411",
            RuntimeError::DispatchTooLarge { .. } => "E0412",
            RuntimeError::Execution { .. } => "E0413",
            RuntimeError::Readback(_) => "E0414",
            RuntimeError::Timeout(_) => "E0415",
            RuntimeError::Buffer { .. } => "E0416",
            RuntimeError::OtherDevice(_) => "E0417",
            RuntimeError::HostMemory { .. } => "E0418",
            RuntimeError::Interrupted { .. } => "E0419",
        }
    }

    /// What went wrong, in texpr's words (lower case, no trailing period).
    pub fn explanation(&self) -> String {
        use RuntimeError as E;
        match self {
            E::NoAdapter(why) => format!("no GPU adapter found{why}"),
            E::AdapterNotFound { choice, available } => {
                format!("no adapter matches `{choice}`; available: {available}")
            }
            E::RequestDevice { adapter, .. } => format!("cannot open a device on `{adapter}`"),
            E::DeviceLost { during, .. } => format!("the device was lost while {during}"),
            E::Uncaptured(_) => "the device reported an error outside any step".into(),
            E::ShaderModule(_) => "the device rejected the shader module".into(),
            E::Pipeline { entry_point, .. } => {
                format!("the device rejected the pipeline of kernel `{entry_point}`")
            }
            E::InputCount { expected, got } => {
                format!("the plan expects {expected} input buffers, got {got}")
            }
            E::InputMismatch {
                index,
                name,
                expected_elem,
                expected_len,
                got_elem,
                got_len,
            } => format!(
                "input {index} (`{name}`) should be {}[{expected_len}], got {}[{got_len}]",
                expected_elem.name(),
                got_elem.name()
            ),
            E::BadPlan(why) => format!("the plan is malformed: {why}"),
            E::BufferTooLarge {
                name,
                bytes,
                limit,
                limit_name,
            } => format!(
                "buffer `{name}` needs {bytes} bytes; the device allows {limit} ({limit_name})"
            ),
            E::DispatchTooLarge {
                entry_point,
                dispatch,
                limit,
            } => format!(
                "kernel `{entry_point}` dispatches {dispatch:?} workgroups; the device allows {limit} per dimension"
            ),
            E::Execution { during, .. } => format!("{during} failed"),
            E::Readback(_) => "reading back the results failed".into(),
            E::Timeout(why) => format!("the device did not finish in time: {why}"),
            E::Buffer { name, .. } => format!("creating or filling buffer `{name}` failed"),
            E::OtherDevice(what) => format!(
                "an array ({what}) lives on another device than the one it was given to \
                 (a device opened again after a loss makes new arrays): upload it to this device"
            ),
            E::HostMemory { what, bytes } => {
                format!("the host cannot allocate {bytes} bytes for {what}")
            }
            E::Interrupted { during } => format!(
                "interrupted after {during}: the work submitted before has completed, the device is usable"
            ),
        }
    }

    /// wgpu's own text for this error, whole, where wgpu gave one.
    pub fn wgpu_text(&self) -> Option<&str> {
        use RuntimeError as E;
        match self {
            E::RequestDevice { message: t, .. }
            | E::DeviceLost { reason: t, .. }
            | E::Uncaptured(t)
            | E::ShaderModule(t)
            | E::Pipeline { message: t, .. }
            | E::Execution { message: t, .. }
            | E::Readback(t)
            | E::Buffer { message: t, .. } => Some(t),
            _ => None,
        }
    }

    /// The error as a diagnostic: texpr's explanation as the message,
    /// wgpu's text whole in a note, and what to do about it.
    pub fn to_diagnostic(&self) -> Diagnostic {
        let mut d = Diagnostic::error(self.code(), self.explanation());
        if let Some(text) = self.wgpu_text() {
            d = d.with_note(format!("wgpu reported: {}", text.trim_end()));
        }
        if let RuntimeError::DeviceLost { .. } = self {
            d = d.with_note(
                "a lost device runs nothing more; the next run opens a new one (`Gpu::reopen` in the library)",
            );
        }
        d
    }
}

impl std::fmt::Display for RuntimeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.explanation())?;
        match self.wgpu_text() {
            Some(text) => write!(f, " (wgpu: {})", text.trim_end()),
            None => Ok(()),
        }
    }
}

impl std::error::Error for RuntimeError {}
