//! The 2D block-cyclic distribution: index types, conversions and local layouts.

pub mod distribution;
pub mod index;
pub mod layout;
pub mod util;

#[cfg(test)]
mod tests;

pub use distribution::{Distribution, DistributionError};
pub use index::*;
pub use layout::LayoutInfo;
