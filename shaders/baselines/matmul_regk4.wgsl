// matmul_regk4: C = A B for row-major A (M x K), B (K x N), C (M x N), with
// register tiles only and vec4 reads of both operands: each workgroup of 64
// invocations computes a 64 x 64 tile of C, each invocation an 8 x 8 block
// of it (rows 8 * (l / 8) + i, columns 8 * (l % 8) + j of the tile). K
// advances 4 at a time: an invocation reads a vec4 along K from each of its
// 8 rows of A and two vec4s along N from each of 4 rows of B, then adds the
// 4 x 8 x 8 products. M, N and K must be multiples of 64, 64 and 4.
// The harness (texpr_codegen::runtime::raw::baselines) replaces {M}, {N} and
// {K} with the sizes and dispatches (N / 64, M / 64, 1) workgroups.
// Bindings: 0 a (read), 1 b (read), 2 c (read_write).

const M: u32 = {M}u;
const N: u32 = {N}u;
const K: u32 = {K}u;

@group(0) @binding(0) var<storage, read> a: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read> b: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read_write> c: array<vec4<f32>>;

@compute @workgroup_size(64)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) l: u32) {
    let row0 = wid.y * 64u + (l / 8u) * 8u;
    let col0 = wid.x * 64u + (l % 8u) * 8u;
    var acc: array<vec4<f32>, 16>;
    for (var kq = 0u; kq < K / 4u; kq++) {
        var av: array<vec4<f32>, 8>;
        for (var i = 0u; i < 8u; i++) {
            av[i] = a[((row0 + i) * K) / 4u + kq];
        }
        var bv: array<vec4<f32>, 8>;
        for (var kk = 0u; kk < 4u; kk++) {
            let r = (kq * 4u + kk) * N + col0;
            bv[2u * kk] = b[r / 4u];
            bv[2u * kk + 1u] = b[r / 4u + 1u];
        }
        for (var i = 0u; i < 8u; i++) {
            let ar = av[i];
            acc[2u * i] += ar.x * bv[0] + ar.y * bv[2] + ar.z * bv[4] + ar.w * bv[6];
            acc[2u * i + 1u] += ar.x * bv[1] + ar.y * bv[3] + ar.z * bv[5] + ar.w * bv[7];
        }
    }
    for (var i = 0u; i < 8u; i++) {
        let r = (row0 + i) * N + col0;
        c[r / 4u] = acc[2u * i];
        c[r / 4u + 1u] = acc[2u * i + 1u];
    }
}
