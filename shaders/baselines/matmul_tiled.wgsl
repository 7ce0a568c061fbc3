// matmul_tiled: C = A B for row-major A (M x K), B (K x N), C (M x N), with the
// classic shared-memory and register tiling: each workgroup of 16 x 16
// invocations computes a 64 x 64 tile of C; each invocation computes 4 x 4 of
// its outputs (rows ly + 16 i, columns lx + 16 j, so that neighbouring
// invocations touch neighbouring columns). K advances 16 at a time: the
// workgroup loads a 64 x 16 tile of A and a 16 x 64 tile of B into
// var<workgroup> arrays (4 elements of each per invocation, zero past the
// matrices' edges), waits, and accumulates from them.
// The harness (texpr_codegen::runtime::raw::baselines) replaces {M}, {N} and
// {K} with the sizes and dispatches (ceil(N / 64), ceil(M / 64), 1) workgroups.
// Bindings: 0 a (read), 1 b (read), 2 c (read_write).

const M: u32 = {M}u;
const N: u32 = {N}u;
const K: u32 = {K}u;
const TILE: u32 = 64u;
const KSTEP: u32 = 16u;

@group(0) @binding(0) var<storage, read> a: array<f32>;
@group(0) @binding(1) var<storage, read> b: array<f32>;
@group(0) @binding(2) var<storage, read_write> c: array<f32>;

// The A tile, 64 rows by 16: a_tile[r * KSTEP + k].
var<workgroup> a_tile: array<f32, 1024>;
// The B tile, 16 rows by 64: b_tile[k * TILE + col].
var<workgroup> b_tile: array<f32, 1024>;

// Element `e` (0..1024) of both tiles for the K step starting at `k0`.
fn load_tiles(e: u32, row0: u32, col0: u32, k0: u32) {
    let ar = row0 + e / KSTEP;
    let ak = k0 + e % KSTEP;
    var av = 0.0;
    if ar < M && ak < K {
        av = a[ar * K + ak];
    }
    a_tile[e] = av;
    let bk = k0 + e / TILE;
    let bc = col0 + e % TILE;
    var bv = 0.0;
    if bk < K && bc < N {
        bv = b[bk * N + bc];
    }
    b_tile[e] = bv;
}

fn store(row: u32, col0: u32, v: vec4<f32>) {
    if row >= M {
        return;
    }
    for (var j = 0u; j < 4u; j++) {
        let col = col0 + 16u * j;
        if col < N {
            c[row * N + col] = v[j];
        }
    }
}

@compute @workgroup_size(16, 16, 1)
fn main(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(local_invocation_id) lid: vec3<u32>,
    @builtin(local_invocation_index) li: u32,
) {
    let row0 = wid.y * TILE;
    let col0 = wid.x * TILE;
    // acc_i[j]: the output at row ly + 16 i, column lx + 16 j of the tile.
    var acc0 = vec4<f32>(0.0);
    var acc1 = vec4<f32>(0.0);
    var acc2 = vec4<f32>(0.0);
    var acc3 = vec4<f32>(0.0);
    let steps = (K + KSTEP - 1u) / KSTEP;
    for (var t = 0u; t < steps; t++) {
        let k0 = t * KSTEP;
        load_tiles(li, row0, col0, k0);
        load_tiles(li + 256u, row0, col0, k0);
        load_tiles(li + 512u, row0, col0, k0);
        load_tiles(li + 768u, row0, col0, k0);
        workgroupBarrier();
        for (var kk = 0u; kk < KSTEP; kk++) {
            let bb = kk * TILE + lid.x;
            let bv = vec4<f32>(b_tile[bb], b_tile[bb + 16u], b_tile[bb + 32u], b_tile[bb + 48u]);
            acc0 += a_tile[lid.y * KSTEP + kk] * bv;
            acc1 += a_tile[(lid.y + 16u) * KSTEP + kk] * bv;
            acc2 += a_tile[(lid.y + 32u) * KSTEP + kk] * bv;
            acc3 += a_tile[(lid.y + 48u) * KSTEP + kk] * bv;
        }
        workgroupBarrier();
    }
    let col = col0 + lid.x;
    store(row0 + lid.y, col, acc0);
    store(row0 + lid.y + 16u, col, acc1);
    store(row0 + lid.y + 32u, col, acc2);
    store(row0 + lid.y + 48u, col, acc3);
}
