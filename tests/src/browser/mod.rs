//! Headless Chromium as a second consumer of the compiler's WGSL: its WebGPU
//! (Dawn, with Tint as the shader compiler, on SwiftShader where the machine
//! has no GPU) must accept every module compiled for the `webgpu` target.
//!
//! [`chromium`] finds the browser (skipped loudly without one, a failure
//! under `TEXPR_REQUIRE_GPU=1`); [`check`] starts ONE headless process,
//! serves it `page.html` and the shaders from a local HTTP server on
//! 127.0.0.1 (a secure context, as WebGPU wants), and returns Tint's verdict
//! on every shader; a shader sent with its [`run_plan`] is also run there,
//! and its outputs come back. The browser's flags are in docs/browser.md.

mod chromium;
mod run;
mod server;
mod session;
mod targets;
mod verdict;

pub use chromium::{FLAGS, PATH_VAR, chromium};
pub use run::{MAX_DISPATCHES, outputs, run_plan};
pub use session::check;
pub use targets::webgpu_with_subgroups;
pub use verdict::{Adapter, Message, Report, Shader, Verdict};
