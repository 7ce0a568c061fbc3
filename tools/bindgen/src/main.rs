//! `texpr-bindgen INPUT.wasm OUT_DIR NAME`: what `wasm-bindgen --target web
//! --out-dir OUT_DIR --out-name NAME INPUT.wasm` does, for npm/build.sh.
//!
//! The binding step must be the one of exactly the `wasm-bindgen` version
//! that texpr-wasm links (the workspace pins both). As a member of the
//! workspace it is built by the test command's one build, from crates that
//! build already, instead of `cargo install wasm-bindgen-cli` (a release
//! build of the CLI and its test runner's web server and HTTP client).

use std::path::PathBuf;
use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [input, out_dir, name] = args.as_slice() else {
        eprintln!("usage: texpr-bindgen INPUT.wasm OUT_DIR NAME");
        return ExitCode::from(2);
    };
    // The CLI's settings when given only `--target web`: every flag off,
    // names demangled, TypeScript declarations written, and the default
    // path of the `.wasm` beside the JavaScript.
    let mut bindgen = wasm_bindgen_cli_support::Bindgen::new();
    let generated = bindgen
        .input_path(PathBuf::from(input))
        .out_name(name)
        .web(true)
        .map(|b| {
            b.debug(false)
                .demangle(true)
                .typescript(true)
                .omit_imports(false)
                .omit_default_module_path(false)
        })
        .and_then(|b| b.generate(out_dir));
    match generated {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("texpr-bindgen: {e:#}");
            ExitCode::FAILURE
        }
    }
}
