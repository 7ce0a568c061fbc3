//! Runtime errors: everything that can go wrong between a kernel plan and its results.

use texpr_syntax::ast::ElemTy;

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum RuntimeError {
    #[error("no GPU adapter found{0}")]
    NoAdapter(String),
    #[error("no adapter matches `{choice}`; available: {available}")]
    AdapterNotFound { choice: String, available: String },
    #[error("cannot open a device on `{adapter}`: {message}")]
    RequestDevice { adapter: String, message: String },
    #[error("the device was lost: {0}")]
    DeviceLost(String),
    #[error("the device reported an error: {0}")]
    Uncaptured(String),
    #[error("shader module rejected: {0}")]
    ShaderModule(String),
    #[error("pipeline for entry point `{entry_point}` rejected: {message}")]
    Pipeline {
        entry_point: String,
        message: String,
    },
    #[error("the plan expects {expected} input buffers, got {got}")]
    InputCount { expected: usize, got: usize },
    #[error(
        "input {index} (`{name}`) should be {expected_elem:?}[{expected_len}], got {got_elem:?}[{got_len}]"
    )]
    InputMismatch {
        index: usize,
        name: String,
        expected_elem: ElemTy,
        expected_len: u64,
        got_elem: ElemTy,
        got_len: u64,
    },
    #[error("the plan is malformed: {0}")]
    BadPlan(String),
    #[error("buffer `{name}` needs {bytes} bytes; the device allows {limit} ({limit_name})")]
    BufferTooLarge {
        name: String,
        bytes: u64,
        limit: u64,
        limit_name: &'static str,
    },
    #[error(
        "kernel `{entry_point}` dispatches {dispatch:?} workgroups; the device allows {limit} per dimension"
    )]
    DispatchTooLarge {
        entry_point: String,
        dispatch: [u32; 3],
        limit: u32,
    },
    #[error("running the kernels failed: {0}")]
    Execution(String),
    #[error("reading back results failed: {0}")]
    Readback(String),
    #[error("the device did not finish in time: {0}")]
    Timeout(String),
}

impl RuntimeError {
    /// The stable diagnostic code of this error (E0400-E0499), for reporting
    /// it as a `Diagnostic`.
    pub fn code(&self) -> &'static str {
        match self {
            RuntimeError::NoAdapter(_) => "E0401",
            RuntimeError::AdapterNotFound { .. } => "E0402",
            RuntimeError::RequestDevice { .. } => "E0403",
            RuntimeError::DeviceLost(_) => "E0404",
            RuntimeError::Uncaptured(_) => "E0405",
            RuntimeError::ShaderModule(_) => "E0406",
            RuntimeError::Pipeline { .. } => "E0407",
            RuntimeError::InputCount { .. } => "E0408",
            RuntimeError::InputMismatch { .. } => "E0409",
            RuntimeError::BadPlan(_) => "E0410",
            RuntimeError::BufferTooLarge { .. } => "E0411",
            RuntimeError::DispatchTooLarge { .. } => "E0412",
            RuntimeError::Execution(_) => "E0413",
            RuntimeError::Readback(_) => "E0414",
            RuntimeError::Timeout(_) => "E0415",
        }
    }
}
