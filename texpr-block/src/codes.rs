//! Every diagnostic code of the block-matrix layer (E0500-E0599), in one place.
//!
//! Codes are never reused. Parsing E0500-E0509, types E0510-E0529,
//! distribution, graph and scheduling E0530-E0539, execution E0540-E0549,
//! command line of `texprc block` E0550-E0559, ranks and MPI E0560-E0569.

/// A character that starts no token.
pub const BAD_CHAR: &str = "E0500";
/// A token where another was expected.
pub const EXPECTED: &str = "E0501";
/// An unknown op name.
pub const UNKNOWN_OP: &str = "E0502";
/// A register read before (or without) being defined.
pub const UNKNOWN_REG: &str = "E0503";
/// A register defined twice.
pub const DUPLICATE_REG: &str = "E0504";
/// A name in a type that is no `param`.
pub const UNKNOWN_PARAM: &str = "E0505";
/// An unknown unary function (in `map` or a fused body).
pub const UNKNOWN_FN: &str = "E0506";
/// `input`, `broadcast` (and a fused op without whole operands) need a written type.
pub const MISSING_TYPE: &str = "E0507";
/// A number out of range: a zero or too large size, a bad float.
pub const BAD_NUMBER: &str = "E0508";
/// No `func`, two of them, or a `func` without `ret`.
pub const BAD_FUNC: &str = "E0509";
/// Elementwise operands of different shapes.
pub const SHAPE_MISMATCH: &str = "E0510";
/// Operands whose tiles do not line up.
pub const TILE_MISMATCH: &str = "E0511";
/// `matmul` of `MxK` by `K'xN` with `K != K'`.
pub const MATMUL_SHAPE: &str = "E0512";
/// Operands of different element types, or a function an element type lacks.
pub const ELEM_MISMATCH: &str = "E0513";
/// A broadcast from something that is not a row, column or scalar, or to a
/// shape it does not fit.
pub const BAD_BROADCAST: &str = "E0514";
/// A slice out of bounds or empty (a slice off tile boundaries is a gather).
pub const BAD_SLICE: &str = "E0515";
/// A written type that differs from the op's type.
pub const TYPE_DIFFERS: &str = "E0516";
/// A fused body reading `$i` past its operands, or `$acc` outside a matmul epilogue.
pub const BAD_BODY: &str = "E0517";
/// An element type the block layer does not take (`bool`).
pub const BAD_ELEM: &str = "E0518";
/// A `reverse` of a rows or columns extent that is not whole tiles.
pub const BAD_REVERSE: &str = "E0519";
/// A `concat_rows` (`concat_cols`) whose parts differ in columns (rows) or
/// element type, or that has fewer than two parts.
pub const BAD_CONCAT: &str = "E0520";
/// A `filter_rows` (`filter_cols`) keeping no index, or one past the extent.
pub const BAD_FILTER: &str = "E0521";
/// A `cholesky` or `solve_*` whose triangular matrix is not square, not
/// tiled by square tiles, or not `f32`.
pub const BAD_FACTOR: &str = "E0522";
/// A `solve_*` whose right-hand side's rows or tile rows differ from the
/// triangular matrix's.
pub const SOLVE_SHAPE: &str = "E0523";
/// An invalid distribution (empty grid or block, source rank outside the grid).
pub const BAD_DISTRIBUTION: &str = "E0530";
/// A memory budget too small for a task's inputs and output.
pub const BUDGET: &str = "E0531";
/// Input data of the wrong length, or a missing input.
pub const BAD_INPUT_DATA: &str = "E0540";
// E0541 is retired (a generated block body the front end rejected: bodies
// are built as IR now, never checked from text); it is not reused.
/// The interpreter or the GPU failed on a block body.
pub const KERNEL_RUN: &str = "E0542";
/// A program with an element type other than `f32`, refused at planning
/// (and by the dense reference).
pub const EXEC_ELEM: &str = "E0543";
/// A `cholesky` of a matrix that is not positive definite: a diagonal
/// tile's factor has a pivot that is not positive (the message names the
/// first such column, as `pspotrf`'s INFO does).
pub const NOT_POSITIVE_DEFINITE: &str = "E0549";
/// A bad `texprc block` argument (grid, tile, emit kind).
pub const BAD_ARG: &str = "E0550";
/// A `-D NAME=V` naming no `param` of the program, or a negative value.
pub const BAD_DEFINE: &str = "E0551";
/// `texprc block` under an MPI launcher without `--run` (there is nothing for several processes to do).
pub const MPI_WITHOUT_RUN: &str = "E0552";
/// A distributed result that differs from the dense reference beyond the tolerance.
pub const CHECK_FAILED: &str = "E0544";
/// `--check` compared fewer than all elements (unspecified, or without a
/// finite error bound), without `--allow-unchecked`.
pub const CHECK_INCOMPLETE: &str = "E0548";
/// No GPU adapter for `--device gpu`.
pub const NO_GPU: &str = "E0545";
/// A rank's buffers would exceed `--budget`, or its device cannot make a buffer.
pub const OUT_OF_MEMORY: &str = "E0546";
/// The transport between ranks failed (an MPI error).
pub const COMM_FAILED: &str = "E0547";
/// Another rank failed, so this one stopped (the message names the failing rank).
pub const RANK_FAILED: &str = "E0560";
/// A rank was stopped by a signal: another rank of the job died, or the job was interrupted.
pub const STOPPED: &str = "E0561";
/// The MPI job has a different number of processes than the grid has ranks.
pub const RANK_COUNT: &str = "E0562";
/// A rank made no progress for the watchdog's time (`--watchdog`): some rank hangs.
pub const NO_PROGRESS: &str = "E0564";
/// `texprc` was built without MPI (feature `mpi`) but runs under an MPI launcher.
pub const NO_MPI: &str = "E0563";

/// Whether a code is a usage error of `texprc block` (a bad argument): the
/// command line exits with status 2 for these, 1 for every other error.
pub fn is_usage(code: &str) -> bool {
    [BAD_ARG, BAD_DEFINE, MPI_WITHOUT_RUN].contains(&code)
}
