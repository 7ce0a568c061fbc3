//! naga validation of every emitted module: parse, then validate with every
//! check on and the capabilities the device allows. A failure is an internal
//! error (E0390) carrying naga's message and the WGSL.

use naga::valid::{Capabilities, ModuleInfo, ValidationFlags, Validator};
use texpr_syntax::Diagnostic;
use texpr_target::Features;

/// The capabilities the device's features imply.
pub fn capabilities(features: &Features) -> Capabilities {
    let mut caps = Capabilities::default();
    if features.subgroup_size.is_some() {
        caps |= Capabilities::SUBGROUP;
    }
    caps
}

/// Parses and validates `wgsl`.
pub fn validate(wgsl: &str, features: &Features) -> Result<(naga::Module, ModuleInfo), Diagnostic> {
    let module = naga::front::wgsl::parse_str(wgsl).map_err(|e| {
        internal(
            format!(
                "naga cannot parse the generated WGSL: {}",
                e.emit_to_string(wgsl)
            ),
            wgsl,
        )
    })?;
    let info = Validator::new(ValidationFlags::all(), capabilities(features))
        .validate(&module)
        .map_err(|e| {
            internal(
                format!(
                    "naga rejects the generated WGSL: {}",
                    e.emit_to_string(wgsl)
                ),
                wgsl,
            )
        })?;
    Ok((module, info))
}

fn internal(message: String, wgsl: &str) -> Diagnostic {
    Diagnostic::error(
        "E0390",
        "internal error: the generated shader does not validate",
    )
    .with_note(message)
    .with_note(format!("the shader:\n{wgsl}"))
}
