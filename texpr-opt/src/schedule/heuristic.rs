//! The candidates for an item: its shape ([`super::shape::classify`])
//! decides which strategies apply, the device's preference tables
//! ([`super::prefs`]) their parameters and order. The heuristic takes the
//! first candidate that fits the item, the target and code generation
//! ([`super::choose`]); `texprc tune` measures them all. The last candidate
//! is always `default`.

use super::data::{Combine, Loads, Strategy};
use super::prefs::{Prefs, prefs};
use super::shape::{self, Fold, Shape, classify};
use texpr_ir::{Expr, Item, Program};
use texpr_target::Target;

/// Strategies for an item of this shape on this device, best guess first.
pub fn item_candidates(root: &Expr, target: &Target) -> Vec<Strategy> {
    let prefs = prefs(&target.profile);
    let mut out = match classify(root) {
        Shape::Contraction { tiled, .. } => {
            let lanes = target.subgroup_width();
            let simd = tiles(prefs, lanes, tiled.batch_len(), tiled.m, tiled.n);
            tensor_cores(prefs, &tiled, target)
                .into_iter()
                .chain(simd)
                .collect()
        }
        Shape::RowReduction { rows, c, k } => {
            let flash = match rows.streams() {
                true => prefs.flash,
                false => &[],
            };
            let flash = flash.iter().map(|(group, split)| Strategy::Flash {
                group: *group,
                split: *split,
            });
            let others = row_strategies(prefs, rows.r, c, k, target);
            match prefs.flash_first {
                true => flash.chain(others).collect(),
                false => {
                    let (rows, wide): (Vec<_>, Vec<_>) =
                        (others.into_iter()).partition(|s| matches!(s, Strategy::Rows { .. }));
                    rows.into_iter().chain(flash).chain(wide).collect()
                }
            }
        }
        Shape::Fold(f) => folds(prefs, f, target),
        Shape::Transpose(t) => {
            let tiles = transposes(prefs, t.tiled.m, t.tiled.n);
            let (len, cost) = (root.ty.len, shape::element_cost(root));
            let coarse = coarsenings(prefs, prefs.transpose_coarsen_per, len, cost);
            match prefs.transpose_first {
                true => tiles.into_iter().chain(coarse).collect(),
                false => coarse.into_iter().chain(tiles).collect(),
            }
        }
        Shape::Elementwise {
            len,
            cost,
            branches,
        } => {
            let per = match branches {
                true => prefs.branch_coarsen_per,
                false => prefs.coarsen_per,
            };
            coarsenings(prefs, per, len, cost)
        }
    };
    out.push(Strategy::Default);
    with_loads(out, prefs, target)
}

/// `loop group=W` for the items of a loop that may run whole in one
/// workgroup (`in_loop::fusable`) when the loop's items together give each
/// invocation at most the profile's `loop_elements` a step; `None` for a
/// loop whose steps are worth a dispatch each, or whose levels are written.
pub fn loop_offer(p: &Program, items: &[Item], target: &Target) -> Option<Strategy> {
    let prefs = prefs(&target.profile);
    let w = prefs.loop_group.min(target.limits.max_group_width()).max(1);
    if items.iter().any(|it| it.root(p).has_structure()) {
        return None;
    }
    let per: u64 = items.iter().map(|it| it.root(p).ty.len.div_ceil(w)).sum();
    (per <= prefs.loop_elements).then_some(Strategy::Loop { group: w })
}

/// `candidates` with the profile's `loads=` (`wide` where it asks and the
/// device has 64-bit integers, else `vec4`); the first candidate that takes
/// the key is followed by its other `loads=` the device allows, for `tune`
/// to weigh.
fn with_loads(candidates: Vec<Strategy>, prefs: &Prefs, target: &Target) -> Vec<Strategy> {
    let wide = target.features.int64;
    let pref = match prefs.wide_loads && wide {
        true => Loads::Wide,
        false => Loads::Vec4,
    };
    let mut out = Vec::with_capacity(candidates.len() + 2);
    let mut offered = false;
    for s in candidates {
        let Some(s) = s.with_loads(pref) else {
            out.push(s);
            continue;
        };
        out.push(s.clone());
        if !offered {
            offered = true;
            let others = [Loads::Vec4, Loads::Wide, Loads::Scalar]
                .into_iter()
                .filter(|l| *l != pref && (wide || !l.wide()));
            out.extend(others.filter_map(|l| s.with_loads(l)));
        }
    }
    out
}

/// Register tiles (staged ones first or last), except those that pad the
/// result by more than a quarter (wasted work a smaller tile avoids) or, in
/// a batch, pad it at all, and staged ones whose blocks are a quarter of the
/// result or more (too few workgroups to fill a GPU: a 128x128 result, or a
/// batch of them, gets 64x64 blocks rather than one 128x128 block each).
fn tiles(prefs: &Prefs, lanes: Option<u64>, batch: u64, m: u64, n: u64) -> Vec<Strategy> {
    let staged = prefs
        .staged_tiles
        .iter()
        .map(|(group, reg, how)| Strategy::Tile {
            group: *group,
            reg: *reg,
            shared: Some(*how),
            kstep: None,
            lanes: false,
            loads: Loads::Vec4,
        });
    let mut out = Vec::new();
    if prefs.staged_first {
        out.extend(staged.clone());
    }
    // Every register shape with every group shape and `kstep`: first the
    // tiles a subgroup shares, in groups a subgroup wide, with a `kstep`
    // (the rows are `vec4` tiles then).
    let register = |regs: &[[u64; 2]], lane_only: bool| {
        let mut v = Vec::new();
        for reg in regs {
            let groups = (prefs.tile_groups.iter())
                .filter(|g| !lane_only || lanes.is_some_and(|l| g[1].is_multiple_of(l)));
            for group in groups {
                let ksteps = (prefs.tile_ksteps.iter()).filter(|k| !lane_only || k.is_some());
                for kstep in ksteps {
                    let tile = |lanes| Strategy::Tile {
                        group: *group,
                        reg: *reg,
                        shared: None,
                        kstep: *kstep,
                        lanes,
                        loads: Loads::Vec4,
                    };
                    // Rows a subgroup may share: shared first where the
                    // profile says so, and the other for `tune` to weigh.
                    let shareable = kstep.is_some()
                        && lanes.is_some_and(|l| (group[0] * group[1]).is_multiple_of(l));
                    match (shareable, prefs.share_lanes) {
                        (true, true) => v.extend([tile(true), tile(false)]),
                        (true, false) => v.extend([tile(false), tile(true)]),
                        (false, _) => v.push(tile(false)),
                    }
                }
            }
        }
        v
    };
    out.extend(register(prefs.lane_regs, true));
    out.extend(register(prefs.tile_regs, false));
    if !prefs.staged_first {
        out.extend(staged);
    }
    out.retain(|s| match s {
        Strategy::Tile {
            group, reg, shared, ..
        } => {
            let (bi, bj) = (group[0] * reg[0], group[1] * reg[1]);
            let (mp, np) = (m.div_ceil(bi) * bi, n.div_ceil(bj) * bj);
            let enough_blocks = shared.is_none() || mp * np >= 4 * bi * bj;
            enough_blocks
                && match batch {
                    1 => 4 * mp * np <= 5 * m * n,
                    _ => (mp, np) == (m, n),
                }
        }
        _ => true,
    });
    out
}

/// `rows` (groups no wider than the rows) and `wide_rows` (rows of at least
/// four elements per invocation, each width with each combine the device
/// has), in the profile's order.
fn row_strategies(prefs: &Prefs, r: u64, c: u64, k: u64, target: &Target) -> Vec<Strategy> {
    let groups = match prefs.short_rows {
        Some((limit, short)) if c * k <= limit => short,
        _ => prefs.rows_groups,
    };
    let rows = groups
        .iter()
        .filter(|g| **g <= r.max(1))
        .map(|g| Strategy::Rows {
            group: *g,
            loads: Loads::Vec4,
        });
    let combines = prefs
        .wide_combines
        .iter()
        .filter(|c| **c != Combine::Subgroup || target.subgroups());
    let wide = prefs
        .wide_groups
        .iter()
        .filter(|w| k >= 4 * **w)
        .flat_map(|w| {
            combines.clone().map(|c| Strategy::WideRows {
                group: *w,
                combine: *c,
            })
        });
    match prefs.wide_first {
        true => wide.chain(rows).collect(),
        false => rows.chain(wide).collect(),
    }
}

/// `gridstride` for scalar folds (the device-sized grids that give each
/// invocation at least the profile's `stride_min_sweeps`, then the small
/// grid where it gives `stride_small_min_sweeps`) and `multipass`, in the
/// profile's order.
fn folds(prefs: &Prefs, f: Fold<'_>, target: &Target) -> Vec<Strategy> {
    let n = f.n;
    // `gridstride` takes scalar folds (`multipass` vector ones too).
    let scalar = f.body.ty.len == 1;
    let units = target
        .profile
        .compute_units
        .map_or(prefs.stride_units, u64::from);
    let grids: Vec<(u64, u64)> = (prefs.stride_per_unit.iter())
        .flat_map(|per| prefs.stride_widths.iter().map(move |w| (units * per, *w)))
        .collect();
    let strided = match scalar {
        true => {
            let mut s = grid_strides(prefs, n, &grids, prefs.stride_min_sweeps, target);
            let small = [prefs.stride_small];
            for g in grid_strides(prefs, n, &small, prefs.stride_small_min_sweeps, target) {
                if !s.contains(&g) {
                    s.push(g);
                }
            }
            s
        }
        false => Vec::new(),
    };
    let passes = multipasses(prefs, n, target.subgroups());
    match prefs.stride_first {
        true => strided.into_iter().chain(passes).collect(),
        false => passes.into_iter().chain(strided).collect(),
    }
}

/// `gridstride` over each grid `(workgroups, width)` that gives every
/// invocation the profile's fewest quads, for each combine the device has;
/// eight terms a sweep where the profile and the device load them at once.
fn grid_strides(
    prefs: &Prefs,
    n: u64,
    grids: &[(u64, u64)],
    min_sweeps: u64,
    target: &Target,
) -> Vec<Strategy> {
    let mut out = Vec::new();
    let width = match prefs.stride_wide && target.features.int64 {
        true => 8,
        false => 4,
    };
    for &combine in prefs.stride_combines {
        if combine == Combine::Subgroup && !target.subgroups() {
            continue;
        }
        for &(groups, w) in grids {
            if n / (4 * groups * w) < min_sweeps {
                continue;
            }
            let sweeps = n / (width * groups * w);
            out.push(Strategy::GridStride {
                groups,
                group: w,
                chunk: if prefs.stride_contiguous { sweeps } else { 1 },
                width,
                combine,
                loads: Loads::Vec4,
            });
        }
    }
    out
}

/// `multipass` for each combine the device has, each number of terms per
/// invocation that divides `n` into at least two parts, in the widest
/// workgroup that divides the parts.
fn multipasses(prefs: &Prefs, n: u64, subgroups: bool) -> Vec<Strategy> {
    let mut out = Vec::new();
    for &combine in prefs.fold_combines {
        if combine == Combine::Subgroup && !subgroups {
            continue;
        }
        let widths = match combine {
            Combine::Serial => prefs.fold_widths_serial,
            _ => prefs.fold_widths_combined,
        };
        for t in prefs.fold_terms {
            if !n.is_multiple_of(*t) || n / t < 2 {
                continue;
            }
            let parts = n / t;
            if let Some(&w) = widths.iter().find(|w| parts.is_multiple_of(**w)) {
                out.push(Strategy::MultiPass {
                    parts,
                    group: w,
                    combine,
                    loads: Loads::Vec4,
                });
            }
        }
    }
    out
}

/// `coarsen` for each of `per` (counts per invocation) leaving at least two
/// invocations whose copies of an element costing `cost` stay within the
/// profile's `coarsen_unrolled` (else the smallest such count alone).
fn coarsenings(prefs: &Prefs, per: &[u64], len: u64, cost: u64) -> Vec<Strategy> {
    let fits = |t: &&u64| len / **t >= 2;
    let small = |t: &&u64| t.saturating_mul(cost) <= prefs.coarsen_unrolled;
    let mut counts: Vec<u64> = per.iter().filter(fits).filter(small).copied().collect();
    if counts.is_empty() {
        counts.extend(per.iter().filter(fits).min().copied());
    }
    let mut out = Vec::new();
    for t in counts {
        for w in prefs.coarsen_groups {
            out.push(Strategy::Coarsen {
                group: *w,
                per_thread: t,
                loads: Loads::Vec4,
            });
        }
    }
    out
}

/// `transpose` for each of the profile's tiles whose blocks pad an `m x n`
/// result by at most a quarter.
fn transposes(prefs: &Prefs, m: u64, n: u64) -> Vec<Strategy> {
    prefs
        .transpose_tiles
        .iter()
        .filter(|(t, _)| 4 * m.next_multiple_of(*t) * n.next_multiple_of(*t) <= 5 * m * n)
        .map(|&(tile, rows)| Strategy::Transpose { tile, rows })
        .collect()
}

/// `mma` blocks for a contraction on a target of one subgroup size: each
/// of `prefs.mma_blocks` that fits (`mma::fits`: a configuration for the
/// fold's types that divides the block and the fold, blocks that divide
/// the result).
fn tensor_cores(prefs: &Prefs, t: &super::shape::Tiled<'_>, target: &Target) -> Vec<Strategy> {
    let Some((sg, _)) = target.features.subgroup_size.filter(|(lo, hi)| lo == hi) else {
        return Vec::new();
    };
    (prefs.mma_blocks.iter())
        .map(|&(block, subgroups)| (block, subgroups * u64::from(sg)))
        .filter(|&(block, group)| super::mma::fits(t, block, group, target).is_ok())
        .map(|(block, group)| Strategy::Mma { block, group })
        .collect()
}
