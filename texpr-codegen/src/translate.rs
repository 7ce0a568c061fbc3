//! Translating a validated module to other shading languages with naga's
//! backends: SPIR-V (words as little-endian bytes), MSL, HLSL, and GLSL (one
//! entry point per call: every entry point is written and the texts are
//! concatenated, each after a header comment). Failures are E0393.

use crate::plan::Module;
use crate::validate::validate;
use naga::back::{glsl, hlsl, msl, spv};
use texpr_syntax::Diagnostic;
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

pub fn translate(module: &Module, language: Language) -> Result<Translated, Diagnostic> {
    // The module was validated for its device when emitted; here any
    // capability it may use (subgroups) is allowed.
    let any = Features {
        subgroup_size: Some((1, 128)),
        int64: true,
        ..Features::default()
    };
    // naga knows no `enable subgroups;` (Tint requires it): the module is
    // the same without the directives naga rejects.
    let text: String = match module.enables.contains(&Extension::Subgroups) {
        true => (module.wgsl.lines())
            .filter(|l| *l != "enable subgroups;")
            .flat_map(|l| [l, "\n"])
            .collect(),
        false => module.wgsl.clone(),
    };
    let (m, info) = validate(&text, &any)?;
    let fail = |e: &dyn std::fmt::Display| {
        Diagnostic::error("E0393", format!("cannot translate to {language:?}: {e}"))
    };
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
