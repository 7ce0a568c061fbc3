//! The GPU for integration tests: opened once (and again after a device
//! loss), skipped loudly (or failed, in CI) without one; helpers to run
//! programs end to end and compare them with the interpreter.

use std::sync::{Mutex, OnceLock};

use texpr_runtime::Gpu;

/// The environment variable that makes a missing adapter an error (CI sets it).
pub const REQUIRE_VAR: &str = "TEXPR_REQUIRE_GPU";

mod program;

pub use program::{
    Checks, RunError, assert_matches_everywhere, check_program, check_program_with, run_program,
    run_program_with, run_source,
};
pub use texpr_interp::accuracy::{Checked, Mismatch, Reference, compare};
pub use texpr_tune::values::{to_host, to_value as from_host};

/// The interpreter's reference for `p` on `inputs`, with the tolerance a
/// device running the optimizer's rounding rewrite of `p` needs
/// (`texpr_opt::pipeline::rounding_rewrite`,
/// `texpr_interp::accuracy::reference_rewritten`): what every GPU result
/// is compared with.
pub fn reference(
    p: &texpr_ir::Program,
    inputs: &[texpr_interp::Value],
) -> Result<Vec<Reference>, texpr_interp::EvalError> {
    match texpr_opt::pipeline::rounding_rewrite(p) {
        Some(q) => texpr_interp::accuracy::reference_rewritten(p, &q, inputs),
        None => texpr_interp::accuracy::reference(p, inputs),
    }
}

/// Examples at small sizes whose runs take every shape a plan has: a
/// loop's states (`jacobi2d`), globals (`layernorm`), a multi-pass sum
/// (`sum`) and a factorization's steps (`ludcmp`), with their `-D`s.
pub const RUN_SHAPES: [(&str, &[(&str, i64)]); 4] = [
    ("jacobi2d.te", &[("N", 16), ("T", 3)]),
    ("layernorm.te", &[("R", 4), ("C", 64)]),
    ("sum.te", &[("N", 100_000)]),
    ("ludcmp.te", &[("N", 8)]),
];

static GPU: OnceLock<Option<DeviceSlot>> = OnceLock::new();

/// The shared test GPU (chosen by `TEXPR_ADAPTER`), or `None` after a loud
/// banner when there is no adapter. With `TEXPR_REQUIRE_GPU=1` a missing adapter panics.
///
/// When the device was lost (a kernel took it down), this reopens it first,
/// so one bad kernel fails one test case and the next case runs on a fresh
/// device. Tests that run many programs call it once per program.
pub fn gpu() -> Option<&'static Gpu> {
    let slot = GPU.get_or_init(|| open().map(DeviceSlot::new)).as_ref();
    match slot {
        Some(slot) => Some(slot.get()),
        None => {
            eprintln!("  (GPU test skipped: no adapter)");
            None
        }
    }
}

/// A device that is reopened when lost. Each device lives for the rest of
/// the process (a lost one is leaked, so references handed out stay valid;
/// a test process loses a device rarely).
#[derive(Debug)]
pub struct DeviceSlot {
    current: Mutex<&'static Gpu>,
}

impl DeviceSlot {
    pub fn new(gpu: Gpu) -> DeviceSlot {
        DeviceSlot {
            current: Mutex::new(Box::leak(Box::new(gpu))),
        }
    }

    /// The current device, reopened first when it was lost (when reopening
    /// fails, the lost one, whose runs then report the loss).
    pub fn get(&self) -> &'static Gpu {
        let mut current = self.current.lock().unwrap_or_else(|p| p.into_inner());
        if current.is_lost() {
            match current.reopen() {
                Ok(gpu) => {
                    eprintln!(
                        "the GPU device was lost; opened a new one on {}",
                        gpu.info()
                    );
                    *current = Box::leak(Box::new(gpu));
                }
                Err(e) => eprintln!("the GPU device was lost and cannot be reopened: {e}"),
            }
        }
        *current
    }
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
