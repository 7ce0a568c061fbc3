//! Diagnostic codes of the command line (E0900-E0999), each used for one kind of error.

/// A source file cannot be read.
pub const READ_SOURCE: &str = "E0901";
/// A `.npy` file cannot be read or is not a valid `.npy` file.
pub const READ_NPY: &str = "E0902";
/// A `.npy` file holds an element type texpr has no vector type for.
pub const NPY_DTYPE: &str = "E0903";
/// A `.npy` file's element type differs from its input's.
pub const NPY_TYPE_MISMATCH: &str = "E0904";
/// A `.npy` file's size differs from its input's length.
pub const NPY_SIZE_MISMATCH: &str = "E0905";
/// A multi-dimensional `.npy` file in Fortran order.
pub const NPY_FORTRAN: &str = "E0906";
/// `--input` names no input of the program.
pub const UNKNOWN_INPUT: &str = "E0907";
/// `--input` gives the same input twice.
pub const DUPLICATE_INPUT: &str = "E0908";
/// Inputs without a value (and no `--random`).
pub const MISSING_INPUTS: &str = "E0909";
/// An output file or directory cannot be written.
pub const WRITE_OUTPUT: &str = "E0910";
/// The interpreter rejected the program or its inputs.
pub const EVAL: &str = "E0911";
/// `fmt --check`: the file is not in canonical form.
pub const NOT_CANONICAL: &str = "E0912";
/// `compile --emit spirv` to a terminal.
pub const BINARY_TO_TERMINAL: &str = "E0913";
/// `run --check`: the GPU's results differ from the interpreter's.
pub const CHECK_MISMATCH: &str = "E0914";
/// `--schedule FILE`: the file cannot be read or is not a schedule.
pub const SCHEDULE_FILE: &str = "E0915";
/// `--dump-after`: no pass of that name.
pub const UNKNOWN_PASS: &str = "E0916";
/// The schedule cache cannot be written.
pub const CACHE_WRITE: &str = "E0917";
/// `tune`: no schedule compiled and matched the interpreter.
pub const TUNE_NOTHING: &str = "E0918";
/// `compile --device NAME`: the cache has the program tuned for several devices matching NAME.
pub const AMBIGUOUS_DEVICE: &str = "E0919";
/// A source file that is not UTF-8 text.
pub const NOT_UTF8: &str = "E0920";
/// `eval`: the program's vectors need more memory than the budget.
pub const EVAL_MEMORY: &str = "E0921";
/// `eval`: the program performs more element operations than the budget.
pub const EVAL_OPS: &str = "E0922";
/// `run --check`: some element of some output was not compared (unspecified
/// or ill-conditioned), without `--allow-unchecked`.
pub const CHECK_INCOMPLETE: &str = "E0923";
/// `--input NAME=VALUE` for a scalar input: a number that its type cannot hold.
pub const SCALAR_VALUE: &str = "E0930";
