//! The heuristic's preferences, as data: for each device profile, the
//! strategies' parameters in order of preference. [`super::heuristic`]
//! turns an item's shape into candidates by reading these tables; the
//! first candidate that fits wins, and `texprc tune` measures them all.
//!
//! Two profiles today: CPU adapters (lavapipe, WARP, SwiftShader), where
//! invocation overhead and barriers dominate, so few invocations doing much
//! work come first (long coarsening, one row per invocation, big register
//! tiles); and GPUs (every other kind), which want many invocations and
//! wide workgroups. Adding a profile is a [`Prefs`] value and an arm in
//! [`prefs`]; adding a strategy's preferences is a field here and its use in
//! [`super::heuristic::item_candidates`].

use super::data::{Combine, Staging};
use texpr_target::{DeviceKind, Profile};

/// The preference tables of one device profile.
#[derive(Debug)]
pub struct Prefs {
    /// Tensor-core blocks `(BM x BN, subgroups per workgroup)`, offered
    /// first for contractions where the target lists a cooperative-matrix
    /// configuration (`mma`): the workgroup's array of `f32` results is the
    /// largest part of its memory (`BM*BN*4` bytes). Not yet measured.
    pub mma_blocks: &'static [([u64; 2], u64)],
    /// Shared-staged tiles `(group, reg, KB)`, and whether they come before
    /// the register-only tiles.
    pub staged_tiles: &'static [([u64; 2], [u64; 2], Staging)],
    pub staged_first: bool,
    /// Register-only tiles tried first where a subgroup shares their rows:
    /// each in the groups of `tile_groups` whose width is a multiple of the
    /// device's one subgroup width, with each `kstep` of `tile_ksteps`
    /// (code generation loads such rows once per subgroup on CPU devices).
    pub lane_regs: &'static [[u64; 2]],
    /// Register tiles with `kstep` load their rows once per subgroup where
    /// the device has one subgroup width (`lanes=on`): llvmpipe's lanes
    /// are its SIMD lanes, so each load is a loop over them.
    pub share_lanes: bool,
    /// Whether runs of whole aligned eights move as one `vec4<u64>`
    /// (`loads=wide`) where the device has 64-bit integers; `loads=vec4`
    /// otherwise. llvmpipe makes every load a loop over its lanes and
    /// components, and a `vec4<u64>` moves twice the bytes of a `vec4<f32>`
    /// in as many components; a GPU's widest load is 16 bytes a lane, which
    /// `vec4<f32>` has already. Either way the first candidate is offered with every
    /// other `loads=` too, for `tune` to weigh.
    pub wide_loads: bool,
    /// Register-only tiles: every register shape with every group shape.
    pub tile_regs: &'static [[u64; 2]],
    pub tile_groups: &'static [[u64; 2]],
    /// Register-only tiles' `kstep`s (`None`: one reduction step per load),
    /// tried in this order for every register and group shape.
    pub tile_ksteps: &'static [Option<u64>],
    /// `rows` workgroup sizes, and for short rows (`C*K <= limit`) others.
    pub rows_groups: &'static [u64],
    pub short_rows: Option<(u64, &'static [u64])>,
    /// `wide_rows` workgroup sizes (offered for rows of at least 4 x the
    /// group), and whether they come before `rows`.
    pub wide_groups: &'static [u64],
    pub wide_first: bool,
    /// `wide_rows` combines, in order (each width with each).
    pub wide_combines: &'static [Combine],
    /// `flash` `(group, split)` for rows that stream (attention), and
    /// whether they come before the other row strategies.
    pub flash: &'static [(u64, u64)],
    pub flash_first: bool,
    /// `multipass` terms per invocation, the combines in order, and the
    /// workgroup widths for the serial combine and for the others.
    pub fold_terms: &'static [u64],
    pub fold_combines: &'static [Combine],
    pub fold_widths_serial: &'static [u64],
    pub fold_widths_combined: &'static [u64],
    /// `gridstride`: workgroups per compute unit (SM, or CPU thread), the
    /// units assumed when the device does not say, workgroup widths, the
    /// combines in order, whether each invocation reads one contiguous run
    /// (`chunk` = all its sweeps) or neighbouring invocations neighbouring
    /// quads (`chunk=1`), the fewest quads (four terms) per invocation
    /// worth it, whether it comes before `multipass`, and whether it takes
    /// eight terms a sweep (`width=8`, one `vec4<u64>` load where the
    /// strategy's `loads=wide`).
    pub stride_per_unit: &'static [u64],
    pub stride_units: u64,
    pub stride_widths: &'static [u64],
    pub stride_combines: &'static [Combine],
    pub stride_contiguous: bool,
    pub stride_min_sweeps: u64,
    pub stride_first: bool,
    pub stride_wide: bool,
    /// A small grid `(workgroups, width)` offered after the device-sized
    /// ones, for folds too short for them, where it gives each invocation
    /// at least `stride_small_min_sweeps` quads (and for `tune` to weigh).
    pub stride_small: (u64, u64),
    pub stride_small_min_sweeps: u64,
    /// `coarsen` elements per invocation and workgroup sizes.
    pub coarsen_per: &'static [u64],
    pub coarsen_groups: &'static [u64],
    /// The most operations (`shape::element_cost` times the count) one
    /// invocation's coarsened elements may take.
    pub coarsen_unrolled: u64,
    /// `coarsen` counts per invocation for elements that fold in a
    /// `select`'s branch (`shape::folds_in_a_branch`): each element an
    /// `if`/`else`, one of them now and then a loop, so an invocation's
    /// elements share no loads and its lanes wait on one another's folds.
    pub branch_coarsen_per: &'static [u64],
    /// `transpose` `(tile, rows)` for transposed 2D items (offered when the
    /// blocks pad the result by at most a quarter), and whether they come
    /// before the coarsenings.
    pub transpose_tiles: &'static [(u64, u64)],
    pub transpose_first: bool,
    /// `coarsen` counts per invocation for transposed items (whose reads
    /// gather: no `vec4` loads to gain from long runs).
    pub transpose_coarsen_per: &'static [u64],
    /// `loop group=W`: the workgroup a loop runs whole in, and the most
    /// elements its items together give one invocation per step for the
    /// heuristic to offer it (a step that small costs a dispatch more than
    /// its work).
    pub loop_group: u64,
    pub loop_elements: u64,
}

/// The tables for a device of this profile.
pub fn prefs(profile: &Profile) -> &'static Prefs {
    match profile.kind {
        DeviceKind::Cpu => &CPU,
        _ => &GPU,
    }
}

/// A staged tile's blocks: `KB` steps, rows padded by `pad`, `vec4` fills.
const fn staging(kb: u64, pad: u64, vec4: bool) -> Staging {
    Staging {
        kb,
        pad,
        vec4,
        prefetch: false,
    }
}

/// The same with the `vec4` fills loaded one block ahead (`prefetch=on`).
const fn prefetched(kb: u64, pad: u64) -> Staging {
    Staging {
        prefetch: true,
        ..staging(kb, pad, true)
    }
}

/// Shared-staged tiles: what pays on GPUs (each operand element read from
/// global memory once per workgroup, in coalesced runs). First the classic
/// GPU kernel, a 128x128 block with 8x8 per invocation in 16x16 workgroups,
/// blocks of 8 steps, rows padded by one element against bank conflicts and
/// filled with `vec4` loads; then 64x64 and 32x32 blocks the same way, and
/// the unpadded scalar fills. Chosen from the H100 tune logs (the staged
/// tiles without padding or `vec4` fills lost to register tiles, and the
/// best register tiles were 128-wide blocks) and GPU practice
/// (docs/benchmark-history.md, *The preference tables*); the padded `vec4` forms are unmeasured on a GPU. The same block double-buffered through registers (`prefetch=on`:
/// the next block's `vec4` loads in flight while the current one
/// computes) comes second, for `tune` to weigh (unmeasured). Small blocks of
/// 4 steps come last, for short reductions.
const STAGED_GPU: &[([u64; 2], [u64; 2], Staging)] = &[
    ([16, 16], [8, 8], staging(8, 1, true)),
    ([16, 16], [8, 8], prefetched(8, 1)),
    ([16, 16], [4, 4], staging(16, 1, true)),
    ([16, 16], [4, 4], staging(8, 1, true)),
    ([8, 8], [4, 4], staging(16, 1, true)),
    ([16, 16], [4, 4], staging(16, 0, false)),
    ([16, 16], [4, 4], staging(8, 0, false)),
    ([8, 8], [4, 4], staging(16, 0, false)),
    ([16, 16], [2, 2], staging(16, 1, false)),
    ([8, 8], [2, 2], staging(8, 0, false)),
    ([4, 4], [4, 4], staging(4, 1, true)),
    ([4, 4], [2, 2], staging(4, 0, false)),
    ([2, 2], [2, 2], staging(4, 1, true)),
];

/// On llvmpipe barriers are dear, so staged tiles come last there (see
/// `CPU`); the same shapes as on GPUs, the unpadded scalar fills first
/// (measured before padding and `vec4` fills existed), so that `tune`
/// weighs every form.
const STAGED_CPU: &[([u64; 2], [u64; 2], Staging)] = &[
    ([16, 16], [4, 4], staging(16, 0, false)),
    ([16, 16], [4, 4], staging(8, 0, false)),
    ([8, 8], [4, 4], staging(16, 0, false)),
    ([16, 16], [2, 2], staging(16, 0, false)),
    ([8, 8], [2, 2], staging(8, 0, false)),
    ([4, 4], [2, 2], staging(4, 0, false)),
    ([4, 4], [2, 2], staging(4, 1, false)),
    ([16, 16], [8, 8], staging(8, 1, true)),
    ([8, 8], [4, 4], staging(16, 1, true)),
    ([4, 4], [4, 4], staging(4, 1, true)),
    ([2, 2], [2, 2], staging(4, 1, true)),
    ([16, 16], [8, 8], prefetched(8, 1)),
    ([4, 4], [4, 4], prefetched(4, 1)),
    ([2, 2], [2, 2], prefetched(4, 1)),
];

const WIDTHS_64: &[u64] = &[64, 32, 16, 8, 4, 2, 1];

/// `transpose` tiles `(T, rows)`: the classic 32 x 32 block through shared
/// memory with 8 rows of 32 invocations (4 elements each), then 16 x 16
/// with 4 rows, then 8 x 8 for small results. On GPUs they come before
/// the coarsenings (a coarsened transpose reads or writes uncoalesced, an
/// eighth of the copy bandwidth on an H100); the tiles themselves are not
/// yet measured on a GPU. On llvmpipe they come after the coarsenings,
/// which ran 3-6x faster: the barrier and the staged copy cost more than
/// the strided reads they save, where a workgroup runs on one CPU thread
/// (docs/benchmark-history.md, *The preference tables*).
const TRANSPOSE_TILES: &[(u64, u64)] = &[(32, 8), (16, 4), (8, 2)];

/// CPU adapters, as measured on llvmpipe (docs/benchmark-history.md, *The preference tables*):
/// - tiles: 8x8 registers in 8x8 groups first; taller tiles (16x4) only
///   with A's rows loaded once per subgroup and broadcast (codegen's
///   `lanes.rs`), which they need to pay;
/// - rows: rows of 1024 in groups of 64; rows of one element (a 7-tap
///   convolution) in groups of 256 (`short_rows`);
/// - coarsen: 16 per invocation in groups of 256 with `vec4` loads and
///   stores; for costly elements only while the copies stay within
///   `coarsen_unrolled` operations;
/// - register tiles advancing four reduction steps per load (`kstep=4`)
///   first;
/// - fold combines: the first pass's memory traffic dominates and the
///   combines are within the noise, so the serial one keeps its place;
/// - gridstride: contiguous runs of `vec4` loads per invocation (neighbouring
///   invocations on neighbouring `vec4`s gather on llvmpipe's lanes), 16
///   workgroups of 64, each invocation writing its partial (no barrier),
///   before `multipass`; grids only where each invocation sweeps at least
///   4096 quads; eight terms a sweep as one `vec4<u64>` load;
/// - loads: runs of whole aligned eights as one `vec4<u64>` (`loads=wide`:
///   llvmpipe's 64-bit lanes) where the device has 64-bit integers;
/// - transposes: short coarsening, 2 per invocation (the reads gather, so
///   long runs buy no `vec4` loads); `transpose` tiles last.
pub const CPU: Prefs = Prefs {
    mma_blocks: &[],
    staged_tiles: STAGED_CPU,
    staged_first: false,
    lane_regs: &[[16, 4]],
    share_lanes: true,
    wide_loads: true,
    tile_regs: &[
        [8, 8],
        [8, 4],
        [4, 8],
        [4, 4],
        [2, 4],
        [4, 2],
        [2, 2],
        [1, 4],
        [1, 1],
    ],
    tile_groups: &[
        [8, 8],
        [4, 8],
        [8, 4],
        [4, 4],
        [16, 16],
        [2, 2],
        [1, 8],
        [1, 1],
    ],
    tile_ksteps: &[Some(4), None],
    rows_groups: &[64, 32, 16, 128, 8, 256],
    short_rows: Some((64, &[256, 128, 64, 32])),
    wide_groups: &[64, 32, 16],
    wide_first: false,
    // Lavapipe's subgroups are its SIMD lanes: a tree first, as measured
    // before subgroups existed here; tune weighs both.
    wide_combines: &[Combine::Tree, Combine::Subgroup],
    // Attention: `flash group=8` runs a little faster than `rows group=64`
    // but its unrolled query row and 64 accumulators compile past the
    // compile-time goal, so `rows` stays first; every `split` above 1
    // repeats the scores' work per part and costs in proportion
    // (docs/benchmark-history.md, *The preference tables*).
    flash: &[(8, 1), (64, 1), (16, 2)],
    flash_first: false,
    fold_terms: &[4096, 2048, 8192, 1024, 16384, 512, 256],
    fold_combines: &[Combine::Serial, Combine::Tree, Combine::Subgroup],
    fold_widths_serial: WIDTHS_64,
    fold_widths_combined: WIDTHS_64,
    stride_per_unit: &[2, 8, 32],
    stride_units: 8,
    stride_widths: &[64, 256, 16],
    stride_combines: &[Combine::Serial, Combine::Subgroup],
    stride_contiguous: true,
    stride_wide: true,
    stride_min_sweeps: 4096,
    stride_first: true,
    stride_small: (2, 16),
    stride_small_min_sweeps: 16,
    coarsen_per: &[16, 8, 4, 32, 64, 2],
    coarsen_groups: &[256, 64, 16],
    coarsen_unrolled: 256,
    // An element folding in a select's branch, one per invocation: the
    // only count faster than the default on a ludcmp step
    // (docs/benchmark-history.md, *The preference tables*).
    branch_coarsen_per: &[1],
    transpose_tiles: TRANSPOSE_TILES,
    transpose_first: false,
    transpose_coarsen_per: &[2, 4, 8, 16],
    // One workgroup is one of lavapipe's threads: trisolv's steps (an
    // element an invocation) run 4x faster in one dispatch, lu's at N = 40
    // (7) 1.2x, lu's and floyd-warshall's at N = 120 (57) 2x slower
    // (BENCHMARKS.md, *Loops in one workgroup*).
    loop_group: 256,
    loop_elements: 16,
};

/// GPUs: wide workgroups, workgroup combines (subgroup operations where
/// present, else a tree in shared memory), shared-staged tiles first.
/// `gridstride` is the classic grid-stride loop (CubeCL's and CUB's form):
/// 4-8 workgroups of 256 per SM (132 SMs on an H100), neighbouring
/// invocations on neighbouring vec4s, before `multipass` (whose 256 terms
/// per invocation left 2^20 partials at 2^28 and reached a quarter of the
/// bandwidth on an H100). Not yet measured on a GPU.
pub const GPU: Prefs = Prefs {
    mma_blocks: &[([64, 64], 4), ([128, 64], 8), ([64, 128], 8), ([32, 32], 1)],
    staged_tiles: STAGED_GPU,
    staged_first: true,
    lane_regs: &[],
    share_lanes: false,
    wide_loads: false,
    tile_regs: &[
        [4, 4],
        [2, 4],
        [4, 2],
        [2, 2],
        [8, 4],
        [1, 4],
        [1, 1],
        [8, 8],
    ],
    tile_groups: &[[16, 16], [8, 8], [8, 16], [4, 16], [16, 4], [4, 4], [1, 1]],
    tile_ksteps: &[None, Some(4)],
    rows_groups: &[64, 128, 256, 32],
    short_rows: None,
    wide_groups: &[256, 128, 64, 32],
    wide_first: true,
    // A subgroup combine: one barrier per fold instead of log2(W) rounds
    // of the tree (unmeasured: no GPU here).
    wide_combines: &[Combine::Subgroup, Combine::Tree],
    // Flash attention's form first (unmeasured: no GPU here): the query in
    // registers, the keys streamed through online folds, every
    // invocation of a workgroup reading the same key at once (a broadcast
    // the L1 serves), and `split` invocations a query so that S = 1024
    // queries make 8192 invocations, not 1024.
    flash: &[(64, 8), (128, 16), (64, 4), (32, 1)],
    flash_first: true,
    fold_terms: &[256, 512, 1024, 128, 2048, 64],
    fold_combines: &[Combine::Subgroup, Combine::Tree, Combine::Serial],
    fold_widths_serial: WIDTHS_64,
    fold_widths_combined: &[256, 128, 64, 32, 16, 8, 4, 2, 1],
    stride_per_unit: &[4, 8],
    stride_units: 32,
    stride_widths: &[256],
    stride_combines: &[Combine::Subgroup, Combine::Tree],
    stride_contiguous: false,
    stride_wide: false,
    stride_min_sweeps: 4,
    stride_first: true,
    stride_small: (4, 32),
    stride_small_min_sweeps: 4,
    coarsen_per: &[4, 1, 8, 16, 2],
    coarsen_groups: &[256, 64, 128],
    coarsen_unrolled: 256,
    // As on CPUs (unmeasured: a warp's lanes diverge on the branch alike).
    branch_coarsen_per: &[1],
    transpose_tiles: TRANSPOSE_TILES,
    transpose_first: true,
    transpose_coarsen_per: &[4, 1, 8, 16, 2],
    // As on CPUs (unmeasured: no GPU here).
    loop_group: 256,
    loop_elements: 16,
};
