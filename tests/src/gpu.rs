//! The GPU for integration tests: opened once, skipped loudly (or failed, in CI) without one;
//! helpers to run programs end to end and compare them with the interpreter.

use std::sync::OnceLock;

use texpr_codegen::runtime::Gpu;

/// The environment variable that makes a missing adapter an error (CI sets it).
pub const REQUIRE_VAR: &str = "TEXPR_REQUIRE_GPU";

mod convert;
mod program;

pub use convert::{from_host, to_host};
pub use program::{
    RunError, check_program, check_program_with, run_program, run_program_with, run_source,
};
pub use texpr_interp::accuracy::{Checked, Mismatch, Reference, compare, reference};

static GPU: OnceLock<Option<Gpu>> = OnceLock::new();

/// The shared test GPU (chosen by `TEXPR_ADAPTER`), or `None` after a loud
/// banner when there is no adapter. With `TEXPR_REQUIRE_GPU=1` a missing adapter panics.
pub fn gpu() -> Option<&'static Gpu> {
    let gpu = GPU.get_or_init(open).as_ref();
    if gpu.is_none() {
        eprintln!("  (GPU test skipped: no adapter)");
    }
    gpu
}

/// Whether `TEXPR_REQUIRE_GPU=1` is set.
pub fn gpu_required() -> bool {
    std::env::var(REQUIRE_VAR).is_ok_and(|v| v.trim() == "1")
}

fn open() -> Option<Gpu> {
    match Gpu::open_from_env() {
        Ok(gpu) => {
            eprintln!("GPU tests run on {}", gpu.info());
            Some(gpu)
        }
        Err(e) if gpu_required() => {
            panic!("{REQUIRE_VAR}=1 but no GPU adapter could be opened: {e}")
        }
        Err(e) => {
            eprintln!("{}", "=".repeat(78));
            eprintln!(
                "SKIPPING GPU TESTS: no adapter found (set {REQUIRE_VAR}=1 to make this an error)"
            );
            eprintln!("reason: {e}");
            eprintln!("{}", "=".repeat(78));
            None
        }
    }
}
