// matmul_naive: C = A B for row-major A (M x K), B (K x N), C (M x N); one
// invocation per element of C, in 16 x 16 workgroups (x along columns, y along
// rows). A hand-written baseline for `texprc bench --suite`; the harness
// (texpr_codegen::runtime::raw::baselines) replaces {M}, {N} and {K} with the
// sizes and dispatches (ceil(N / 16), ceil(M / 16), 1) workgroups.
// Bindings: 0 a (read), 1 b (read), 2 c (read_write).

const M: u32 = {M}u;
const N: u32 = {N}u;
const K: u32 = {K}u;

@group(0) @binding(0) var<storage, read> a: array<f32>;
@group(0) @binding(1) var<storage, read> b: array<f32>;
@group(0) @binding(2) var<storage, read_write> c: array<f32>;

@compute @workgroup_size(16, 16, 1)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let row = gid.y;
    let col = gid.x;
    if row >= M || col >= N {
        return;
    }
    var acc = 0.0;
    for (var k = 0u; k < K; k++) {
        acc += a[row * K + k] * b[k * N + col];
    }
    c[row * N + col] = acc;
}
