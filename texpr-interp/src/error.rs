//! Typed errors of an evaluation: bad inputs, or a program the checker would reject.

use texpr_ir::diag::count;
use thiserror::Error;

/// Why [`crate::eval`] could not run a program.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum EvalError {
    /// The number of input vectors differs from the program's inputs.
    #[error("the program takes {} and {got} {} given", count(*expected as u64, "input"), if *got == 1 { "was" } else { "were" })]
    InputCount { expected: usize, got: usize },
    /// An input vector has the wrong element type.
    #[error("input `{name}` has element type {expected}, the value given is {got}")]
    InputType {
        name: String,
        expected: &'static str,
        got: &'static str,
    },
    /// An input vector has the wrong length.
    #[error("input `{name}` has {}, the value given has {got}", count(*expected, "element"))]
    InputLength {
        name: String,
        expected: u64,
        got: usize,
    },
    /// An unguarded read outside its vector (the checker proves this cannot happen).
    #[error("index {index} is out of bounds for `{vec}` of length {len}")]
    OutOfBounds { vec: String, index: i64, len: u64 },
    /// An index map sends an element outside the raw result.
    #[error("index map sends {k} to {target}, outside the raw length {raw_len}")]
    MapOutOfRange { k: u64, target: i64, raw_len: u64 },
    /// A program that breaks the typed IR's invariants.
    #[error("malformed program: {0}")]
    Malformed(String),
}

/// Shorthand for a malformed-program error.
pub(crate) fn malformed<T>(msg: impl Into<String>) -> Result<T, EvalError> {
    Err(EvalError::Malformed(msg.into()))
}
