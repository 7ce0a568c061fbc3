// fma_peak: the device's f32 multiply-add throughput, for the roofline of
// `texprc bench`. Each invocation runs 16 independent chains of fused
// multiply-adds (four vec4 accumulators), 64 scalar FMAs per loop iteration,
// for ITERS iterations, then writes the chains' sum so that nothing is dead.
// The coefficients come from a buffer, so the compiler cannot fold the chains.
// With b = 0.5 and c = 1 every chain settles at 2 (2 * 0.5 + 1 = 2), and
// each output is 32. Past 65535 workgroups the dispatch is folded into y.
// The harness (texpr_codegen::runtime::raw::baselines) replaces {ITERS} and
// {N} (invocations in all).
// Bindings: 0 coef (read: b, c), 1 out (read_write, one per invocation).

const ITERS: u32 = {ITERS}u;
const N: u32 = {N}u;

@group(0) @binding(0) var<storage, read> coef: array<f32>;
@group(0) @binding(1) var<storage, read_write> out: array<f32>;

@compute @workgroup_size(256, 1, 1)
fn main(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
    @builtin(local_invocation_index) l: u32,
) {
    let i = (wid.y * groups.x + wid.x) * 256u + l;
    let b = vec4<f32>(coef[0]);
    let c = vec4<f32>(coef[1]);
    let seed = f32(i % 1024u) * 0.001;
    var a0 = vec4<f32>(seed, seed + 0.1, seed + 0.2, seed + 0.3);
    var a1 = a0 + 1.0;
    var a2 = a0 + 2.0;
    var a3 = a0 + 3.0;
    for (var k = 0u; k < ITERS; k = k + 1u) {
        a0 = fma(a0, b, c);
        a1 = fma(a1, b, c);
        a2 = fma(a2, b, c);
        a3 = fma(a3, b, c);
        a0 = fma(a0, b, c);
        a1 = fma(a1, b, c);
        a2 = fma(a2, b, c);
        a3 = fma(a3, b, c);
        a0 = fma(a0, b, c);
        a1 = fma(a1, b, c);
        a2 = fma(a2, b, c);
        a3 = fma(a3, b, c);
        a0 = fma(a0, b, c);
        a1 = fma(a1, b, c);
        a2 = fma(a2, b, c);
        a3 = fma(a3, b, c);
    }
    if i < N {
        let s = a0 + a1 + a2 + a3;
        out[i] = s.x + s.y + s.z + s.w;
    }
}
