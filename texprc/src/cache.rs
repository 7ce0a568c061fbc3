//! The schedule cache: the best measured schedule per (program, device),
//! written by `texprc tune`, read by `compile`, `run` and `bench`.
//!
//! (Stub: the tune helper fills this in.)

use texpr_codegen::Schedule;

/// What a cached schedule is for.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct CacheKey {
    /// A stable hash of the checked program's printed text (params applied).
    pub program: String,
    /// The adapter's name and backend.
    pub device: String,
}

/// The cache file.
#[derive(Clone, Debug, Default)]
pub struct Cache {}

impl Cache {
    /// The cache at `$TEXPR_CACHE`, else the default location.
    pub fn open_default() -> Cache {
        Cache {}
    }

    /// The tuned schedule for `key`, if any.
    pub fn get(&self, _key: &CacheKey) -> Option<Schedule> {
        None
    }
}
