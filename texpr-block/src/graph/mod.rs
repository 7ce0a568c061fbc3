//! The block graph: Source, Sink, tensors, block ops and shards, chunks, views and copies; pruning, DOT and schedulers.

pub mod build;
pub mod dot;
pub mod memory;
pub mod node;
pub mod prune;
pub mod schedule;
pub mod slots;
pub mod tasks;

#[cfg(test)]
mod tests;

pub use build::{GridConfig, build};
pub use dot::to_dot;
pub use node::{Graph, Node, NodeId, NodeKind, PanelRef, ViewKind};
pub use prune::prune;
pub use schedule::{Plan, Policy, Step, schedule};
