//! The kernel IR: what code generation builds from a scheduled program, and
//! what the shader text, naga's module and every back-end pass are made from.
//!
//! A [`Kernel`] is one compute entry point: the buffers it binds (each with
//! its access and the width it is read or written at), its workgroup and
//! private arrays, its function variables, and a body of [`Stmt`]s over
//! typed values held in an arena ([`Value`], named by [`V`]).
//!
//! - A value is an operation on other values ([`Op`]): constants and the
//!   entry point's builtins are free (usable anywhere); every other value is
//!   *defined* by a [`Stmt::Let`] and usable after it in its block and the
//!   blocks nested there, as a WGSL `let` is. A loop defines its index.
//! - Memory is explicit: a [`Op::Load`] reads a buffer, a workgroup array,
//!   a private array or a variable, at an index, a scalar, a `vec4` or a
//!   `vec4<u64>` at a time; [`Stmt::Store`] and [`Stmt::Assign`] write.
//! - Control flow is structured: counted loops ([`Loop`]), `if`/`else`,
//!   barriers, and cooperative-matrix statements ([`CoopStmt`], on the
//!   kernel's [`Coop`]s); each block is marked uniform (entered by every invocation of
//!   the workgroup alike) or not, and a barrier or a subgroup operation may
//!   stand in uniform control flow only.
//!
//! Invariants (checked by [`verify`]): every value used is defined before,
//! in an enclosing block or the same one; operands' types fit their
//! operation (`verify` lists each rule); every memory reference exists; a
//! `Let` defines a value once; barriers and subgroup operations are in
//! uniform blocks only.
//!
//! The IR prints as text ([`print`], `texprc compile --emit kir`), which
//! [`parse`] reads back, as WGSL ([`wgsl`]) and as a `naga::Module`
//! ([`to_naga`], validated without parsing any text). [`passes`] lists the
//! passes every kernel goes through after lowering, verified after each.

pub mod build;
mod coop;
mod kernel;
mod op;
pub mod parse;
pub mod passes;
pub mod print;
pub mod to_naga;
mod types;
pub mod verify;
pub mod wgsl;

pub use build::Builder;
pub use coop::*;
pub use kernel::*;
pub use op::*;
pub use types::*;
pub use verify::verify;

use crate::buffer_id::{Access, BufferId};

#[cfg(test)]
mod tests;
