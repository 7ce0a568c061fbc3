// sum_tree: total = x[0] + ... + x[N - 1] in two passes of tree reductions.
// Pass 1 (`partial`): G workgroups of 256 invocations; invocation l of
// workgroup g adds x[g * 256 + l], x[g * 256 + l + G * 256], ... (several
// elements each, neighbouring invocations reading neighbouring elements), then
// the workgroup halves its 256 sums in var<workgroup> with a barrier between
// steps, and invocation 0 writes partials[g]. Pass 2 (`finish`): one workgroup
// reduces the G partials the same way into total[0].
// The harness (texpr_codegen::runtime::raw::baselines) replaces {N} and {G}
// with the length and the number of pass-1 workgroups (at most 256), and
// dispatches (G, 1, 1) then (1, 1, 1) workgroups.
// Bindings: 0 x (read), 1 partials (read_write), 2 total (read_write).

const N: u32 = {N}u;
const G: u32 = {G}u;
const WG: u32 = 256u;

@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read_write> partials: array<f32>;
@group(0) @binding(2) var<storage, read_write> total: array<f32>;

var<workgroup> sums: array<f32, 256>;

// Halves `sums` until sums[0] holds the workgroup's total. Called in uniform control flow.
fn tree(l: u32, own: f32) -> f32 {
    sums[l] = own;
    workgroupBarrier();
    for (var s = WG / 2u; s > 0u; s >>= 1u) {
        if l < s {
            sums[l] += sums[l + s];
        }
        workgroupBarrier();
    }
    return sums[0];
}

@compute @workgroup_size(256, 1, 1)
fn partial(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) l: u32) {
    var acc = 0.0;
    for (var i = wid.x * WG + l; i < N; i += G * WG) {
        acc += x[i];
    }
    let t = tree(l, acc);
    if l == 0u {
        partials[wid.x] = t;
    }
}

@compute @workgroup_size(256, 1, 1)
fn finish(@builtin(local_invocation_index) l: u32) {
    var acc = 0.0;
    for (var i = l; i < G; i += WG) {
        acc += partials[i];
    }
    let t = tree(l, acc);
    if l == 0u {
        total[0] = t;
    }
}
