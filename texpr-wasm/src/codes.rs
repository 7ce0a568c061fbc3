//! Diagnostic codes of the JavaScript API (E0700-E0799), each used for one
//! kind of error in what a caller passes (docs/language.md lists them).

/// An options object that is not what the function takes: an unknown key,
/// or a value of the wrong kind (`defines` not integers, `target` not a string).
pub const OPTIONS: &str = "E0701";
/// A `schedule` option that is neither `heuristic`, `default` nor a schedule's text.
pub const SCHEDULE: &str = "E0702";
/// Inputs that do not fit the program: one missing, one it does not have,
/// or one of the wrong element type or length.
pub const INPUTS: &str = "E0703";
/// The interpreter rejected the program or its inputs.
pub const EVAL: &str = "E0704";
/// Work over the budget (`maxOps`, `maxMemory`): an evaluation, a
/// comparison, random inputs or typed arrays to copy, refused before it
/// starts, so a page never freezes or runs out of memory.
pub const EVAL_BUDGET: &str = "E0705";
/// Outputs to compare that do not fit the program (as [`INPUTS`], for outputs).
pub const OUTPUTS: &str = "E0706";
/// A source that is not a string.
pub const SOURCE: &str = "E0707";
/// A function called before `await init()` (raised by npm/index.js).
pub const NOT_READY: &str = "E0708";
/// A call of `texpr/background` cancelled before it answered (raised by
/// npm/background.js).
pub const CANCELLED: &str = "E0709";
/// An argument `texpr/background` cannot send to its worker (structured
/// clone refuses it: a function, a symbol, a proxy; raised by
/// npm/background.js).
pub const UNSENDABLE: &str = "E0710";
/// A trap or an exception inside the WebAssembly: a bug of the compiler
/// (raised by npm/index.js, which catches it and calls the trapped module
/// no more: the page must be reloaded).
pub const INTERNAL: &str = "E0799";
