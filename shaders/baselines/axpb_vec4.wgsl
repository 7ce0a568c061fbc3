// axpb_vec4: y = 2 x + 1, four elements per invocation through array<vec4<f32>>,
// 256 invocations per workgroup. Past 65535 workgroups the dispatch is folded
// into y: the workgroup's index is wid.y * (workgroups in x) + wid.x.
// The harness (texpr_codegen::runtime::raw::baselines) replaces {N4} with the
// number of vec4s (the length over 4).
// Bindings: 0 x (read), 1 y (read_write).

const N4: u32 = {N4}u;

@group(0) @binding(0) var<storage, read> x: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read_write> y: array<vec4<f32>>;

@compute @workgroup_size(256, 1, 1)
fn main(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
    @builtin(local_invocation_index) l: u32,
) {
    let i = (wid.y * groups.x + wid.x) * 256u + l;
    if i < N4 {
        y[i] = x[i] * 2.0 + 1.0;
    }
}
