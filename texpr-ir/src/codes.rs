//! The checker's and verifier's diagnostic codes (E0100-E0199), one constant per rule.

/// A name that is not declared (or not declared yet) where it is used.
pub const UNKNOWN_NAME: &str = "E0101";
/// Two top-level items with the same name.
pub const DUPLICATE_NAME: &str = "E0102";
/// A local name (index variable, inner `let`) that shadows a name in scope.
pub const SHADOWED_NAME: &str = "E0103";
/// A call of a function that does not exist.
pub const UNKNOWN_FUNCTION: &str = "E0104";
/// A builtin called with the wrong number of arguments.
pub const WRONG_ARITY: &str = "E0105";
/// `-D NAME=VALUE` for a name that is not a `param`.
pub const UNKNOWN_OVERRIDE: &str = "E0106";
/// A size (length, `compute`/`reduce` count, `fill`/`broadcast` count) below 1.
pub const SIZE_NOT_POSITIVE: &str = "E0107";
/// A size, index term or length whose value may not fit in an `i32`.
pub const INT_OVERFLOW: &str = "E0108";
/// Operands of different element types.
pub const ELEM_MISMATCH: &str = "E0109";
/// Operands of different lengths, neither of them 1.
pub const LEN_MISMATCH: &str = "E0110";
/// An index that may fall outside its vector.
pub const INDEX_OUT_OF_BOUNDS: &str = "E0111";
/// An index map whose value may fall outside the raw result.
pub const MAP_OUT_OF_RANGE: &str = "E0112";
/// The divisor of `/` or `%` in a term is not a positive constant.
pub const BAD_DIVISOR: &str = "E0113";
/// The dividend of `/` or `%` in a term may be negative.
pub const NEGATIVE_DIVIDEND: &str = "E0114";
/// A float literal where an integer is needed.
pub const FLOAT_IN_INT: &str = "E0115";
/// An integer literal outside the range of its type.
pub const LITERAL_RANGE: &str = "E0116";
/// A condition (a comparison, or `&&`, `||`, `!` of conditions) used
/// anywhere but as `select`'s condition or an operand of `&&`, `||`, `!`.
pub const BOOL_VALUE: &str = "E0117";
/// Indexing a name that is not a vector (`i[0]`, `N[0]`).
pub const NOT_A_VECTOR: &str = "E0118";
/// A vector name where an integer term is needed.
pub const NOT_AN_INTEGER: &str = "E0119";
/// Levels that increase along a path (`group` above `grid`, ...).
pub const LEVEL_ORDER: &str = "E0120";
/// `reduce@grid`.
pub const REDUCE_AT_GRID: &str = "E0121";
/// `let@shared` outside any `compute@grid` or inside a `compute@group`.
pub const SHARED_PLACEMENT: &str = "E0122";
/// `let@global` inside a `compute` or `reduce`.
pub const GLOBAL_PLACEMENT: &str = "E0123";
/// `let@reg` outside any `compute` or `reduce`.
pub const REG_PLACEMENT: &str = "E0124";
/// A top-level `let` with a level other than `@global`.
pub const TOP_LET_LEVEL: &str = "E0125";
/// A program without outputs.
pub const NO_OUTPUTS: &str = "E0126";
/// An operation the element type does not have (`-` on `u32`, `exp` on `i32`).
pub const OP_ELEM_TYPE: &str = "E0127";
/// A written type that differs from the value's type.
pub const ANNOTATION_MISMATCH: &str = "E0128";
/// `_` read as a value or used to name a vector.
pub const UNDERSCORE: &str = "E0129";
/// `select`'s condition is not a condition (a comparison, or `&&`, `||`,
/// `!` of conditions).
pub const SELECT_CONDITION: &str = "E0130";
/// An output read as a value.
pub const OUTPUT_READ: &str = "E0131";
/// An index variable in a size term.
pub const INDEX_VAR_IN_SIZE: &str = "E0132";
/// `broadcast` of a value whose length is not 1.
pub const BROADCAST_LEN: &str = "E0133";
/// An expression or term nested deeper than `parse::MAX_NESTING`.
pub const TOO_DEEP: &str = "E0134";
/// An empty vector literal.
pub const EMPTY_VECTOR: &str = "E0135";
/// `reduce lse` of a value whose element type is not `f32`.
pub const LSE_NOT_F32: &str = "E0136";
/// An `iterate` step count below 0.
pub const ITER_COUNT: &str = "E0137";
/// An `iterate` whose names, initial values, binders and results differ in number.
pub const ITER_ARITY: &str = "E0138";
/// A loop state whose next value (or written type) differs from its initial
/// value's type.
pub const STATE_TYPE: &str = "E0139";
/// A block body (`{ ... yield ... }`) in an `iterate` inside an expression.
pub const ITER_EXPR_BLOCK: &str = "E0144";
/// A state of an `iterate` inside an expression that is not a scalar.
pub const ITER_EXPR_STATE: &str = "E0145";
/// An update in place (`x with [k] = e`) that is not a loop's result for
/// the state it names.
pub const UPDATE_PLACE: &str = "E0146";
/// An update in place that may write outside its state.
pub const UPDATE_RANGE: &str = "E0147";
/// `&&`, `||` or `!` on an operand that is not a condition.
pub const NOT_A_CONDITION: &str = "E0143";
/// An index map written as a call to something that is not a layout.
pub const UNKNOWN_LAYOUT: &str = "E0140";
/// A layout's arguments are not what the layout takes.
pub const LAYOUT_ARGS: &str = "E0141";
/// A layout that is not a permutation, or that does not fit the raw result
/// and the map's length (also the verifier's, for a layout in the IR).
pub const LAYOUT_MISFIT: &str = "E0142";

/// Verifier: a node's type disagrees with its children or its kind.
pub const IR_TYPE: &str = "E0150";
/// Verifier: a variable id that is out of range or not bound where used.
pub const IR_UNBOUND_VAR: &str = "E0151";
/// Verifier: a variable bound or used as the wrong kind (index vs vector), or
/// with an extent that disagrees with its binder.
pub const IR_VAR_KIND: &str = "E0152";
/// Verifier: a vector reference to a missing input or to a global that is
/// not defined before the reader.
pub const IR_VEC_REF: &str = "E0153";
/// Verifier: a loop or state that breaks the loops' invariants (a body not
/// contiguous, a state's `init` or `next` out of place, a read of a loop's
/// value outside it).
pub const IR_LOOP: &str = "E0154";
