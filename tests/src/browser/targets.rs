//! The targets of a browser's adapter.

use texpr::Target;

/// `webgpu` on an adapter with subgroups, as WebGPU states them: at least 4
/// lanes (Chromium's SwiftShader adapter has exactly 4), at most 128.
pub fn webgpu_with_subgroups() -> Target {
    let text = Target::builtin("webgpu").expect("a built-in").to_string();
    let text = text.replace("subgroup_size = none", "subgroup_size = 4..128");
    let mut t: Target = text.parse().expect("a target");
    assert_eq!(t.features.subgroup_size, Some((4, 128)), "{text}");
    t.name = "webgpu+subgroups".into();
    t
}
