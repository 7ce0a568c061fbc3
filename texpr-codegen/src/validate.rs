//! naga validation of every emitted kernel: the naga module built from its
//! IR ([`validate_kir`], no text parsed), or a WGSL text parsed
//! ([`validate`]: the tests' and the debug builds' cross-check), validated
//! with every check on and the capabilities the device allows, then checked
//! that no constant expression is an infinity or a NaN (`finite`, E0394).
//! A failure is an internal error (E0390) carrying naga's message and the
//! WGSL.

use naga::valid::{Capabilities, ModuleInfo, ValidationFlags, Validator};
use texpr_ir::Diagnostic;
use texpr_target::Features;

/// The capabilities the device's features imply.
pub fn capabilities(features: &Features) -> Capabilities {
    let mut caps = Capabilities::default();
    if features.subgroup_size.is_some() {
        caps |= Capabilities::SUBGROUP;
    }
    if features.int64 {
        caps |= Capabilities::SHADER_INT64;
    }
    if features.shader_f16 {
        caps |= Capabilities::SHADER_FLOAT16;
    }
    if !features.cooperative_matrix.is_empty() {
        caps |= Capabilities::COOPERATIVE_MATRIX;
    }
    caps
}

/// Parses and validates `wgsl`; its constant expressions must be finite
/// (`finite::check`).
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
    crate::finite::check(&module, wgsl)?;
    Ok((module, info))
}

/// Validates a kernel built in the kernel IR (verified after every pass,
/// `kir::passes`): its naga module built directly and validated, its constant expressions
/// finite; `wgsl` is its printed text, for the error message (and, in
/// debug builds, parsed and validated too, a cross-check of the printer).
pub fn validate_kir(
    k: &crate::kir::Kernel,
    wgsl: &str,
    features: &Features,
) -> Result<(), Diagnostic> {
    let module = crate::kir::to_naga::module(k);
    Validator::new(ValidationFlags::all(), capabilities(features))
        .validate(&module)
        .map_err(|e| internal(format!("naga rejects the kernel's module: {e:?}"), wgsl))?;
    crate::finite::check(&module, wgsl)?;
    if cfg!(debug_assertions) {
        validate(&crate::kir::wgsl::for_naga(k, wgsl), features)?;
    }
    Ok(())
}

fn internal(message: String, wgsl: &str) -> Diagnostic {
    Diagnostic::error(
        "E0390",
        "internal error: the generated shader does not validate",
    )
    .with_note(message)
    .with_note(format!("the shader:\n{wgsl}"))
}
