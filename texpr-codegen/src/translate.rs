//! Translating an emitted module to other shading languages with naga's
//! backends: SPIR-V (words as little-endian bytes), MSL, HLSL, and GLSL (one
//! entry point per call: every entry point is written and the texts are
//! concatenated, each after a header comment). The naga module is built
//! from the kernels' IR that the module keeps ([`Module::kir`]), never by
//! parsing its WGSL. Failures are E0393.

use crate::kir::to_naga;
use crate::plan::Module;
use crate::validate::capabilities;
use naga::back::{glsl, hlsl, msl, spv};
use naga::valid::{ValidationFlags, Validator};
use texpr_ir::Diagnostic;
use texpr_target::{Extension, Features};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Language {
    Spirv,
    Msl,
    Hlsl,
    Glsl,
}

/// The translated shader: bytes for SPIR-V, text otherwise.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Translated {
    Binary(Vec<u8>),
    Text(String),
}

/// `module` in `language`, built from its kernels' IR; E0393 where naga's
/// back end fails, or for a module that keeps no kernel IR (hand-written WGSL).
pub fn translate(module: &Module, language: Language) -> Result<Translated, Diagnostic> {
    let fail = |e: &dyn std::fmt::Display| {
        Diagnostic::error("E0393", format!("cannot translate to {language:?}: {e}"))
    };
    if module.kir.len() != module.kernels.len() {
        return Err(fail(&"the module holds no kernel IR (hand-written WGSL)"));
    }
    // One naga module of every kernel, built from the kernel IR (no text
    // parsed, so no `enable` directive to leave out). The module was
    // validated for its device when emitted; here any capability it may
    // use (subgroups, 64-bit integers, f16, cooperative matrices) is allowed.
    // naga's GLSL back end has no 16-bit floats (GLSL itself has them only
    // through vendor extensions).
    let half = (module.kir.iter()).any(|k| k.extensions().contains(&Extension::F16));
    if language == Language::Glsl && half {
        return Err(fail(
            &"GLSL output has no `f16` (naga's GLSL back end writes 32-bit floats only); compute in f32 or translate to SPIR-V, MSL or HLSL",
        ));
    }
    let mut m = naga::Module::default();
    for k in &module.kir {
        to_naga::add(&mut m, k);
    }
    let any = Features {
        subgroup_size: Some((1, 128)),
        int64: true,
        shader_f16: true,
        ..Features::default()
    };
    let caps = capabilities(&any) | naga::valid::Capabilities::COOPERATIVE_MATRIX;
    let info = Validator::new(ValidationFlags::all(), caps)
        .validate(&m)
        .map_err(|e| fail(&format!("naga rejects the module: {e:?}")))?;
    match language {
        Language::Spirv => {
            let words =
                spv::write_vec(&m, &info, &spv::Options::default(), None).map_err(|e| fail(&e))?;
            Ok(Translated::Binary(
                words.iter().flat_map(|w| w.to_le_bytes()).collect(),
            ))
        }
        Language::Msl => {
            let (s, _) = msl::write_string(
                &m,
                &info,
                &msl::Options::default(),
                &msl::PipelineOptions::default(),
            )
            .map_err(|e| fail(&e))?;
            Ok(Translated::Text(s))
        }
        Language::Hlsl => {
            let mut s = String::new();
            let (opts, pipe) = (hlsl::Options::default(), hlsl::PipelineOptions::default());
            hlsl::Writer::new(&mut s, &opts, &pipe)
                .write(&m, &info, None)
                .map_err(|e| fail(&e))?;
            Ok(Translated::Text(s))
        }
        Language::Glsl => {
            let mut all = String::new();
            for ep in &m.entry_points {
                let mut s = String::new();
                let opts = glsl::Options::default();
                let pipe = glsl::PipelineOptions {
                    shader_stage: naga::ShaderStage::Compute,
                    entry_point: ep.name.clone(),
                    multiview: None,
                };
                let policies = naga::proc::BoundsCheckPolicies::default();
                glsl::Writer::new(&mut s, &m, &info, &opts, &pipe, policies)
                    .and_then(|mut w| w.write())
                    .map_err(|e| fail(&e))?;
                all += &format!("// ---- entry point {} ----\n{s}\n", ep.name);
            }
            Ok(Translated::Text(all))
        }
    }
}
