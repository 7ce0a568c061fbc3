//! Which target `compile` compiles for: `--target NAME|FILE` (a built-in or
//! a target file, as `texprc target` prints them), else the target the
//! schedule cache stores for the device `--device NAME` names (what
//! `texprc tune` measured on), else `wgpu-default`.

use crate::codes;
use crate::common::{Failure, line_span, no_source, read_source};
use std::path::Path;
use texpr::Target;
use texpr_ir::Diagnostic;
use texpr_tune::cache::Cache;

/// A built-in target by name, or the target file at `spec` (errors point at
/// the file's line, E0601-E0605).
pub fn read_target(spec: &str) -> Result<Target, Failure> {
    if let Ok(t) = Target::builtin(spec) {
        return Ok(t);
    }
    let path = Path::new(spec);
    if !path.exists() {
        let msg = format!("`{spec}` is neither a built-in target nor a file");
        let diag = Diagnostic::error("E0605", msg)
            .with_note(format!(
                "the built-in targets: {}",
                Target::BUILTINS.join(", ")
            ))
            .with_note("`texprc target NAME` prints one as a file to start from");
        return Err(Failure::about(&no_source(), diag));
    }
    let src = read_source(path)?;
    Target::parse(&src.text).map_err(|e| {
        let span = line_span(&src.text, e.line);
        let diag = Diagnostic::error(e.code, "not a target description")
            .with_primary(span, e.message.clone());
        Failure::about(&src, diag)
    })
}

/// The target of `--target` if given, else of the device `--device` names
/// (the cache's), else `wgpu-default`.
pub fn compile_target(
    spec: Option<&str>,
    device: Option<&str>,
    cache: &Cache,
) -> Result<Target, Failure> {
    if let Some(spec) = spec {
        return read_target(spec);
    }
    let Some(name) = device else {
        return Ok(Target::default());
    };
    match cache.find_targets(name).as_slice() {
        [(_, t)] => Ok((*t).clone()),
        [] => {
            eprintln!(
                "warning: the schedule cache has no target for a device named like `{name}`; compiling for wgpu-default (`texprc tune` on the device stores it, or give --target)"
            );
            Ok(Target::default())
        }
        many => {
            let names: Vec<&str> = many.iter().map(|(d, _)| d.as_str()).collect();
            let msg = format!("`--device {name}` matches several devices in the schedule cache");
            let diag = Diagnostic::error(codes::AMBIGUOUS_DEVICE, msg)
                .with_note(format!("devices: {}", names.join("; ")));
            Err(Failure::about(&no_source(), diag))
        }
    }
}
