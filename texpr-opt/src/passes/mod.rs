//! The passes before scheduling, one file each, named after its verb; the
//! order they run in is [`crate::pipeline::PASSES`].
//!
//! - [`mark_globals`]: top-level lets become `let@global` buffers (always).
//! - [`shift_lse`]: a softmax's max shifted to its log-sum-exp, its
//!   normalising sum then 1 (always: the default schedule benefits too; exact
//!   in real arithmetic, not bit for bit).
//! - [`simplify`]: index terms simplified, exact identities folded.
//! - [`inline`]: expression `let`s recomputed where they are read, when that
//!   is no dearer than storing them.
//! - [`fuse_globals`]: elementwise top-level lets fused into their readers,
//!   within the target's storage buffers per kernel.
//!
//! The last three are *optimizing*: the baseline schedule runs without them.
//! [`recompute`] holds the cost rule and read replacement `inline` and
//! `fuse_globals` share (a rule along chains: no pass recomputes a shared
//! value unboundedly). A pass is `fn(&mut Program) -> Result<(), Vec<Diagnostic>>`
//! and needs nothing else, but `fuse_globals`, which also takes the `Target`.

pub mod degree;
pub mod fuse_globals;
pub mod inline;
pub mod mark_globals;
pub mod recompute;
pub mod shift_lse;
pub mod simplify;

pub use fuse_globals::fuse_globals;
pub use inline::inline;
pub use mark_globals::mark_globals;
pub use shift_lse::shift_lse;
pub use simplify::simplify;
