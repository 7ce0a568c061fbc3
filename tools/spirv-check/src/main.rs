//! `spirv-check FILE.wgsl...`: translates each WGSL module to SPIR-V as
//! wgpu's Vulkan back end does on a Vulkan 1.3 device with cooperative
//! matrices enabled (SPIR-V 1.6, the `CooperativeMatrixKHR` and
//! `VulkanMemoryModel` capabilities, index bounds checks `Restrict`, loops
//! bounded), then validates it with SPIRV-Tools for `vulkan1.3`.
//!
//! naga 30 decorates the array types of workgroup variables with
//! `ArrayStride`, which `VUID-StandaloneSpirv-None-10684` forbids
//! (gfx-rs/wgpu#7696; drivers accept it). A module that fails on that rule
//! alone is validated again without those decorations, so that the rest of
//! it (cooperative matrices included) still gets a verdict.
//!
//! Prints one line per module, `FILE: valid`, `FILE: valid but for 10684`
//! or `FILE: INVALID: <why>`, and exits 1 if any module is invalid. With
//! `--dump DIR` it also writes each module's SPIR-V (`DIR/<name>.spv`).

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use naga::back::spv;
use naga::valid::{Capabilities, ValidationFlags, Validator};
use spirv_tools::val::Validator as _;

fn options() -> spv::Options<'static> {
    let capabilities = [
        spv::Capability::Shader,
        spv::Capability::Float16,
        spv::Capability::StorageBuffer16BitAccess,
        spv::Capability::GroupNonUniform,
        spv::Capability::GroupNonUniformVote,
        spv::Capability::GroupNonUniformArithmetic,
        spv::Capability::GroupNonUniformBallot,
        spv::Capability::GroupNonUniformShuffle,
        spv::Capability::GroupNonUniformShuffleRelative,
        spv::Capability::Int64,
        spv::Capability::CooperativeMatrixKHR,
        spv::Capability::VulkanMemoryModel,
    ];
    spv::Options {
        lang_version: (1, 6),
        capabilities: Some(capabilities.into_iter().collect()),
        bounds_check_policies: naga::proc::BoundsCheckPolicies {
            index: naga::proc::BoundsCheckPolicy::Restrict,
            buffer: naga::proc::BoundsCheckPolicy::Unchecked,
            image_load: naga::proc::BoundsCheckPolicy::Unchecked,
            binding_array: naga::proc::BoundsCheckPolicy::Unchecked,
        },
        zero_initialize_workgroup_memory: spv::ZeroInitializeWorkgroupMemoryMode::Native,
        force_loop_bounding: true,
        ..spv::Options::default()
    }
}

/// `words` without the `ArrayStride` decorations of array types that a
/// `Workgroup` pointer points to.
fn without_workgroup_strides(words: &[u32]) -> Vec<u32> {
    const OP_TYPE_POINTER: u32 = 32;
    const OP_DECORATE: u32 = 71;
    const WORKGROUP: u32 = 4;
    const ARRAY_STRIDE: u32 = 6;
    let insts = || {
        let mut at = 5;
        std::iter::from_fn(move || {
            let n = (*words.get(at)? >> 16) as usize;
            let inst = (at, &words[at..at + n.max(1)]);
            at += n.max(1);
            Some(inst)
        })
    };
    let pointees: Vec<u32> = insts()
        .filter(|(_, i)| i[0] & 0xffff == OP_TYPE_POINTER && i[2] == WORKGROUP)
        .map(|(_, i)| i[3])
        .collect();
    let mut out = words[..5].to_vec();
    for (_, i) in insts() {
        let strided = i[0] & 0xffff == OP_DECORATE && i.len() >= 3 && i[2] == ARRAY_STRIDE;
        if !(strided && pointees.contains(&i[1])) {
            out.extend_from_slice(i);
        }
    }
    out
}

/// `Ok(true)` when valid, `Ok(false)` when valid but for rule 10684 on
/// workgroup arrays.
fn check(path: &Path, dump: Option<&Path>) -> Result<bool, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read: {e}"))?;
    let module = naga::front::wgsl::parse_str(&text).map_err(|e| e.emit_to_string(&text))?;
    let info = Validator::new(ValidationFlags::all(), Capabilities::all())
        .validate(&module)
        .map_err(|e| format!("naga rejects it: {e:?}"))?;
    let words = spv::write_vec(&module, &info, &options(), None)
        .map_err(|e| format!("naga cannot write SPIR-V: {e}"))?;
    if let Some(dir) = dump {
        let stem = path.file_stem().unwrap_or_default().to_string_lossy();
        let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        std::fs::write(dir.join(format!("{stem}.spv")), bytes)
            .map_err(|e| format!("cannot write the SPIR-V: {e}"))?;
    }
    let validator = spirv_tools::val::create(Some(spirv_tools::TargetEnv::Vulkan_1_3));
    match validator.validate(&words, None) {
        Ok(()) => Ok(true),
        Err(e) if e.to_string().contains("VUID-StandaloneSpirv-None-10684") => validator
            .validate(without_workgroup_strides(&words), None)
            .map(|()| false)
            .map_err(|e| format!("without the workgroup strides (10684): {e}")),
        Err(e) => Err(e.to_string()),
    }
}

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let (mut files, mut dump) = (Vec::new(), None::<PathBuf>);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--dump" => dump = args.next().map(PathBuf::from),
            _ => files.push(PathBuf::from(a)),
        }
    }
    if files.is_empty() {
        eprintln!("usage: spirv-check [--dump DIR] FILE.wgsl...");
        return ExitCode::from(2);
    }
    let mut invalid = 0;
    for f in &files {
        match check(f, dump.as_deref()) {
            Ok(true) => println!("{}: valid", f.display()),
            Ok(false) => println!(
                "{}: valid but for VUID-StandaloneSpirv-None-10684 (ArrayStride on workgroup arrays)",
                f.display()
            ),
            Err(why) => {
                invalid += 1;
                println!("{}: INVALID: {why}", f.display());
            }
        }
    }
    if invalid > 0 { ExitCode::FAILURE } else { ExitCode::SUCCESS }
}
