//! The heuristic schedule, and the candidates `texprc tune` measures.
//!
//! Each item's shape decides which strategies apply ([`item_candidates`]);
//! the device decides their order. On a CPU adapter (`DeviceLimits::cpu`)
//! invocation overhead dominates, so the heuristic prefers few invocations
//! doing much work (long coarsening, one row per invocation, big register
//! tiles); on a GPU it prefers many invocations and wide workgroups. The
//! first candidate that fits the item and the device's limits wins; an item
//! no candidate fits keeps the default schedule.

use crate::fill::has_structure;
use crate::limits::DeviceLimits;
use crate::schedule::{Combine, Schedule, Strategy};
use crate::strategy::{Item, apply, items};
use texpr_syntax::ir::{Expr, ExprKind, Global, Output, Program};

/// The shape of an item root, as far as strategies care.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    /// `compute M |i| compute N |j| S`, `S` scalar holding a `reduce` of `k`
    /// terms, possibly inside `compute B |p|` (`batch` = `B`, else 1).
    Contraction { batch: u64, m: u64, n: u64, k: u64 },
    /// `compute R |r| B` where `B` (length `c`) holds a reduction (the first
    /// of `k` terms).
    RowReduce { r: u64, c: u64, k: u64 },
    /// `reduce N |i| E`.
    Fold { n: u64 },
    /// Anything else, `len` elements.
    Elementwise { len: u64 },
}

pub fn shape(root: &Expr) -> Shape {
    if let ExprKind::Compute {
        level: None,
        n: batch,
        map: None,
        body,
        ..
    } = &root.kind
        && let Shape::Contraction { batch: 1, m, n, k } = shape(body)
    {
        return Shape::Contraction {
            batch: *batch,
            m,
            n,
            k,
        };
    }
    if let ExprKind::Compute {
        level: None,
        n: m,
        map: None,
        body,
        ..
    } = &root.kind
    {
        if let ExprKind::Compute {
            level: None,
            n,
            map: None,
            body: s,
            ..
        } = &body.kind
            && s.ty.len == 1
            && let Some(k) = first_reduce(s)
        {
            return Shape::Contraction {
                batch: 1,
                m: *m,
                n: *n,
                k,
            };
        }
        if let Some(k) = first_reduce(body) {
            return Shape::RowReduce {
                r: *m,
                c: body.ty.len,
                k,
            };
        }
    }
    if let ExprKind::Reduce { level: None, n, .. } = &root.kind {
        return Shape::Fold { n: *n };
    }
    Shape::Elementwise { len: root.ty.len }
}

fn first_reduce(e: &Expr) -> Option<u64> {
    if let ExprKind::Reduce { n, .. } = &e.kind {
        return Some(*n);
    }
    e.children().find_map(first_reduce)
}

/// Strategies for an item of this shape on this device, best guess first.
pub fn item_candidates(root: &Expr, limits: &DeviceLimits) -> Vec<Strategy> {
    let mut out = Vec::new();
    match shape(root) {
        Shape::Contraction { batch, m, n, .. } => {
            // On llvmpipe (measured, 1024^3): 8x8 registers in 8x8 groups
            // 3.7 GFLOP/s, 8x4 2.6, 4x4 1.9.
            let regs: &[[u64; 2]] = if limits.cpu {
                &[
                    [8, 8],
                    [8, 4],
                    [4, 8],
                    [4, 4],
                    [2, 4],
                    [4, 2],
                    [2, 2],
                    [1, 4],
                    [1, 1],
                ]
            } else {
                &[
                    [4, 4],
                    [2, 4],
                    [4, 2],
                    [2, 2],
                    [8, 4],
                    [1, 4],
                    [1, 1],
                    [8, 8],
                ]
            };
            let groups: &[[u64; 2]] = if limits.cpu {
                &[
                    [8, 8],
                    [4, 8],
                    [8, 4],
                    [4, 4],
                    [16, 16],
                    [2, 2],
                    [1, 8],
                    [1, 1],
                ]
            } else {
                &[[16, 16], [8, 8], [8, 16], [4, 16], [16, 4], [4, 4], [1, 1]]
            };
            // Operands staged in workgroup memory, `KB` reduction steps at a
            // time: what pays on GPUs (each operand element read from global
            // memory once per workgroup, in coalesced runs). On llvmpipe
            // barriers are dear, so there they come last.
            let staged: &[([u64; 2], [u64; 2], u64)] = &[
                ([16, 16], [4, 4], 16),
                ([16, 16], [4, 4], 8),
                ([8, 8], [4, 4], 16),
                ([16, 16], [2, 2], 16),
                ([8, 8], [2, 2], 8),
                ([4, 4], [2, 2], 4),
            ];
            let staged = staged.iter().map(|(group, reg, kb)| Strategy::Tile {
                group: *group,
                reg: *reg,
                shared: Some(*kb),
            });
            if !limits.cpu {
                out.extend(staged.clone());
            }
            for reg in regs {
                for group in groups {
                    out.push(Strategy::Tile {
                        group: *group,
                        reg: *reg,
                        shared: None,
                    });
                }
            }
            if limits.cpu {
                out.extend(staged);
            }
            // Tiles pad the result to whole blocks; more than a quarter of
            // padding is wasted work a smaller tile avoids.
            out.retain(|s| match s {
                Strategy::Tile { group, reg, .. } => {
                    let (bi, bj) = (group[0] * reg[0], group[1] * reg[1]);
                    let (mp, np) = (m.div_ceil(bi) * bi, n.div_ceil(bj) * bj);
                    match batch {
                        1 => 4 * mp * np <= 5 * m * n,
                        _ => (mp, np) == (m, n),
                    }
                }
                _ => true,
            });
        }
        Shape::RowReduce { r, c, k } => {
            // On llvmpipe (measured): softmax rows of 1024 run best in groups
            // of 64; a 7-tap convolution (rows of one element, 7 terms) in
            // groups of 256, twice as fast as in groups of 64.
            let groups: &[u64] = if limits.cpu && c * k <= 64 {
                &[256, 128, 64, 32]
            } else if limits.cpu {
                &[64, 32, 16, 128, 8, 256]
            } else {
                &[64, 128, 256, 32]
            };
            let rows = groups
                .iter()
                .filter(|g| **g <= r.max(1))
                .map(|g| Strategy::Rows { group: *g });
            // A workgroup per row: on GPUs, for rows long enough to share
            // (llvmpipe pays for its barriers, so there it comes last).
            let wide: &[u64] = if limits.cpu {
                &[64, 32, 16]
            } else {
                &[256, 128, 64, 32]
            };
            let wide = wide
                .iter()
                .filter(|w| k >= 4 * **w)
                .map(|w| Strategy::WideRows { group: *w });
            if limits.cpu {
                out.extend(rows);
                out.extend(wide);
            } else {
                out.extend(wide);
                out.extend(rows);
            }
        }
        Shape::Fold { n } => {
            let per: &[u64] = if limits.cpu {
                &[4096, 2048, 8192, 1024, 16384, 512, 256]
            } else {
                &[256, 512, 1024, 128, 2048, 64]
            };
            // GPUs combine a workgroup's folds in the workgroup (subgroup
            // operations where present, else a tree in shared memory). On
            // CPU adapters the serial combine stays first: see
            // `FOLD_COMBINES_CPU`.
            let combines: Vec<Combine> = match limits.cpu {
                true => FOLD_COMBINES_CPU.to_vec(),
                false => vec![Combine::Subgroup, Combine::Tree, Combine::Serial],
            };
            for combine in combines {
                if combine == Combine::Subgroup && !limits.subgroups() {
                    continue;
                }
                let widths: &[u64] = match (combine, limits.cpu) {
                    (Combine::Serial, _) | (_, true) => &[64, 32, 16, 8, 4, 2, 1],
                    _ => &[256, 128, 64, 32, 16, 8, 4, 2, 1],
                };
                for t in per {
                    if n % t != 0 || n / t < 2 {
                        continue;
                    }
                    let parts = n / t;
                    if let Some(&w) = widths.iter().find(|w| parts.is_multiple_of(**w)) {
                        out.push(Strategy::MultiPass {
                            parts,
                            group: w,
                            combine,
                        });
                    }
                }
            }
        }
        Shape::Elementwise { len } => {
            // On llvmpipe (measured, 2^24 elements, vec4 loads and stores):
            // 16 per invocation in groups of 256 beat 4 and 8 per invocation
            // and groups of 64.
            let per: &[u64] = if limits.cpu {
                &[16, 8, 4, 32, 64, 2]
            } else {
                &[4, 1, 8, 16, 2]
            };
            let groups: &[u64] = if limits.cpu {
                &[256, 64, 16]
            } else {
                &[256, 64, 128]
            };
            for t in per {
                if len / t < 2 {
                    continue;
                }
                for w in groups {
                    out.push(Strategy::Coarsen {
                        group: *w,
                        per_thread: *t,
                    });
                }
            }
        }
    }
    out.push(Strategy::Default);
    out
}

/// The order of the fold combines on CPU adapters (lavapipe): the serial
/// combine first, then the workgroup combines. Measured on llvmpipe (sum of
/// 2^24, `texprc bench --runs 15`, five interleaved repeats on a loaded
/// 2-core machine; best / median ms): serial parts=4096 group=64 13.5 / 19.7,
/// tree 14.5 / 15.0, subgroup 14.1 / 21.5 (group=256: tree 14.2 / 24.0,
/// subgroup 14.1 / 16.8). The first pass's memory traffic dominates; the
/// combines are within the noise, so the serial one keeps its place.
const FOLD_COMBINES_CPU: [Combine; 3] = [Combine::Serial, Combine::Tree, Combine::Subgroup];

/// Whether `s` schedules `item` of `p` on this device without error.
pub fn fits(p: &Program, item: Item, s: &Strategy, limits: &DeviceLimits) -> bool {
    Trial::new(p).fits(p, item, s, limits)
}

/// `p` with every item root replaced by a stub of its type: what applying a
/// strategy to one item reads besides that item (names, types, variables),
/// so trying one costs the item, not the program. The item is stubbed again
/// after each try.
struct Trial {
    q: Program,
}

impl Trial {
    fn new(p: &Program) -> Trial {
        let stub = |e: &Expr| Expr {
            kind: ExprKind::Whole(texpr_syntax::ir::VecRef::Input(0)),
            ty: e.ty,
            span: e.span,
        };
        let q = Program {
            params: p.params.clone(),
            inputs: p.inputs.clone(),
            globals: (p.globals.iter())
                .map(|g| Global {
                    name: g.name.clone(),
                    level: g.level,
                    value: stub(&g.value),
                    span: g.span,
                })
                .collect(),
            outputs: (p.outputs.iter())
                .map(|o| Output {
                    name: o.name.clone(),
                    value: stub(&o.value),
                    span: o.span,
                })
                .collect(),
            vars: p.vars.clone(),
            names: Default::default(),
        };
        Trial { q }
    }

    /// Whether `s` schedules `item` of `p` (`p` is what this trial was made from).
    fn fits(&mut self, p: &Program, item: Item, s: &Strategy, limits: &DeviceLimits) -> bool {
        let globals = self.q.globals.len();
        let stub = std::mem::replace(item.root_mut(&mut self.q), item.root(p).clone());
        let ok = apply(&mut self.q, item, s, limits).is_ok();
        if self.q.globals.len() != globals {
            // A global was added (and items renumbered): start afresh.
            *self = Trial::new(p);
        } else {
            // The variables the try made stay (unused): dropping them would
            // make the next fresh name rebuild the name index.
            *item.root_mut(&mut self.q) = stub;
        }
        ok
    }
}

/// Every item of `p` (a prepared program) that scheduling may choose for,
/// with its fitting candidates, best guess first.
pub fn candidates(p: &Program, limits: &DeviceLimits) -> Vec<(String, Vec<Strategy>)> {
    let mut trial = Trial::new(p);
    items(p)
        .into_iter()
        .filter(|it| !has_structure(it.root(p)))
        .map(|it| {
            let cands = item_candidates(it.root(p), limits)
                .into_iter()
                .filter(|s| trial.fits(p, it, s, limits))
                .collect();
            (it.name(p).to_string(), cands)
        })
        .collect()
}

/// The heuristic schedule of a prepared program: each item's first fitting
/// candidate.
pub fn heuristic(p: &Program, limits: &DeviceLimits) -> Schedule {
    let mut s = Schedule::default();
    let mut trial = Trial::new(p);
    for it in items(p) {
        if has_structure(it.root(p)) {
            continue;
        }
        let best = item_candidates(it.root(p), limits)
            .into_iter()
            .find(|c| trial.fits(p, it, c, limits))
            .unwrap_or(Strategy::Default);
        // Item names are distinct: no need to look for an earlier entry.
        s.items.push((it.name(p).to_string(), best));
    }
    s
}
