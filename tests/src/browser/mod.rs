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
//!
//! For pages that import the npm package (docs/npm.md): [`Site`] serves
//! the repository's `npm/`, `playground/` and `examples/` folders, [`Page`]
//! opens one page in the browser and [`DevTools`] drives it and takes
//! screenshots.

mod chromium;
mod devtools;
mod http;
mod page;
mod run;
mod server;
mod session;
mod site;
mod targets;
mod verdict;

pub use chromium::{FLAGS, PATH_VAR, chromium};
pub use run::{MAX_DISPATCHES, outputs, run_plan};
/// The npm package test's page (`tests/it/npm_package.rs`).
pub const NPM_PAGE: &str = include_str!("npm_page.html");
/// The worker test's page (`tests/it/npm_worker.rs`).
pub const WORKER_PAGE: &str = include_str!("worker_page.html");
/// The property test of the package's exports on hostile arguments, a
/// module for Node and for pages (`tests/it/npm_hostile.rs`).
pub const HOSTILE_JS: &str = include_str!("hostile.mjs");
/// The in-browser compile benchmark's page (`tests/benches/npm_compile.rs`).
pub const BENCH_PAGE: &str = include_str!("bench_page.html");

pub use devtools::DevTools;
pub use page::{Page, WINDOW};
pub use session::check;
pub use site::{FOLDERS, Site, page_results};
pub use targets::webgpu_with_subgroups;
pub use verdict::{Adapter, Message, Report, Shader, Verdict};
