//! How a kernel names a buffer of the plan: its index ([`BufferId`]) and
//! the access it binds it with ([`Access`]). Shared by the plan
//! ([`crate::plan`], which re-exports both) and the kernel IR, which the
//! plan holds, so neither imports the other for them.

/// Index into [`crate::plan::Module::buffers`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct BufferId(pub u32);

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Access {
    Read,
    ReadWrite,
}
