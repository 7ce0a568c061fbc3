//! Distributed execution tests: messages against the plan, ranks as threads against the dense
//! reference, memory against the plan's model and the budget, tiles made where they live.

use super::comm::{CommPlan, Payload, Route};
use super::device::heuristic;
use super::device::interp::InterpDevice;
use super::local_part::{LocalPart, assemble};
use super::source::{RandomSource, TileSource};
use super::threads::DeviceMaker;
use super::*;
use crate::air::parse;
use crate::dist::TileElementSize;
use crate::dist::{Distribution, GlobalElementSize, GlobalTileIndex, GridSize, RankIndex2D};
use crate::driver::tolerance;
use crate::graph::tasks::tasks;
use crate::graph::{GridConfig, Plan, Policy, build, prune, schedule};
use crate::passes::{Env, optimize};
use crate::stage::view::{TileMap, resolve};

const GEMM: &str = "func gemm {
  %a = input : f32[9x7, 2x2]
  %b = input : f32[7x8, 2x2]
  %bias = input : f32[1x8, 1x2]
  %m = matmul %a, %b
  %c = add %m, %bias
  %r = map relu, %c
  ret %r
}";

const VIEWS: &str = "func views {
  %a = input : f32[7x6, 2x3]
  %t = transpose %a
  %s = slice %t, 3..6, 2..6
  %g = matmul %t, %a
  %n = sum_rows %g
  %y = div %g, %n
  %z = transpose %y
  ret %z
}";

struct Setup {
    p: crate::air::Program,
    q: crate::air::Program,
    g: crate::graph::Graph,
    plan: Plan,
    cfg: GridConfig,
}

fn setup(src: &str, (p, q): (usize, usize), source: (usize, usize), budget: u64) -> Setup {
    let prog =
        parse(src, &[]).unwrap_or_else(|d| panic!("{}", texpr_ir::diag::render("t", src, &d)));
    let opt = optimize(&prog, &mut Env::new()).unwrap();
    let mut cfg = GridConfig::new(p, q);
    cfg.source = RankIndex2D::new(source.0, source.1);
    let g = prune(&build(&opt, cfg).unwrap());
    let plan = schedule(&g, cfg.n_ranks(), Policy::CriticalPath { budget });
    Setup {
        p: prog,
        q: opt,
        g,
        plan,
        cfg,
    }
}

fn run(s: &Setup, budget: u64) -> Result<RunOutcome, texpr_ir::Diagnostic> {
    let job = Job::new(&s.q, &s.g, &s.plan, s.cfg, budget, true)?;
    let make: &DeviceMaker<'_> = &|_| Ok(Box::new(InterpDevice::new(&heuristic)));
    run_threads(&job, &RandomSource { seed: 3 }, make)
}

const GRIDS: [((usize, usize), (usize, usize)); 5] = [
    ((1, 1), (0, 0)),
    ((2, 2), (0, 0)),
    ((2, 2), (1, 1)),
    ((3, 2), (2, 0)),
    ((1, 3), (0, 1)),
];

#[test]
fn messages_carry_exactly_the_planned_bytes() {
    for src in [GEMM, VIEWS] {
        for (grid, source) in GRIDS {
            let s = setup(src, grid, source, u64::MAX);
            let t = tasks(&s.g);
            let comm = CommPlan::new(&s.g, &t, &s.plan, s.cfg.grid);
            let (sent, received) = comm.chunk_bytes(s.cfg.n_ranks());
            assert_eq!(sent, s.plan.sent, "{grid:?} {source:?}");
            assert_eq!(received, s.plan.received, "{grid:?} {source:?}");
        }
    }
}

#[test]
fn matmul_panels_are_broadcast_along_rows_and_columns() {
    let s = setup(GEMM, (2, 2), (0, 0), u64::MAX);
    let comm = CommPlan::new(&s.g, &tasks(&s.g), &s.plan, s.cfg.grid);
    let a = s.q.find("a").unwrap();
    let b = s.q.find("b").unwrap();
    let mut routes = std::collections::BTreeMap::new();
    for m in &comm.messages {
        let Payload::Chunk(c) = m.payload else {
            continue;
        };
        if let crate::graph::NodeKind::TensorChunk { tensor, .. } = s.g.kind(c) {
            routes.entry(*tensor).or_insert_with(Vec::new).push(m.route);
        }
    }
    // 4 tile columns of the result: each A tile goes to its whole grid row, each B tile to its column.
    assert!(
        routes[&a].iter().all(|r| *r == Route::Row),
        "{:?}",
        routes[&a]
    );
    assert!(
        routes[&b].iter().all(|r| *r == Route::Col),
        "{:?}",
        routes[&b]
    );
}

#[test]
fn ranks_as_threads_match_the_dense_reference_and_the_plan() {
    for src in [GEMM, VIEWS] {
        for (grid, source) in GRIDS {
            let s = setup(src, grid, source, u64::MAX);
            let out = run(&s, u64::MAX).unwrap_or_else(|d| panic!("{d}\n{}", d.notes.join("\n")));
            let inputs = random_inputs(&s.p, 3);
            let want = eval_dense(&s.p, &inputs).unwrap();
            let got = out.gathered.result.as_ref().unwrap();
            let diff = max_rel_diff(&want, got).unwrap();
            assert!(diff <= tolerance(&s.p), "{grid:?} {source:?}: {diff}");
            for (r, st) in out.gathered.stats.iter().enumerate() {
                assert_eq!(st.sent, s.plan.sent[r], "sent by {r}");
                assert_eq!(st.received, s.plan.received[r], "received by {r}");
                assert_eq!(st.peak, s.plan.peak[r], "peak of {r}");
                assert_eq!(
                    *st, out.ranks[r].stats,
                    "the source gathers what rank {r} had"
                );
            }
            // the parts, put together, are the gathered result
            let d = s.cfg.distribution(s.q.ty(s.q.ret)).unwrap();
            let parts: Vec<LocalPart> = out.ranks.iter().map(|r| r.part.clone()).collect();
            assert_eq!(assemble(&d, &parts), *got);
        }
    }
}

#[test]
fn a_budget_is_obeyed_and_one_too_small_stops_every_rank() {
    let s = setup(GEMM, (1, 2), (0, 0), u64::MAX);
    let roomy = *s.plan.peak.iter().max().unwrap();
    // The smallest tenth of the roomy peak that the scheduler can still keep to.
    let (budget, tight) = (5..10)
        .map(|k| roomy * k / 10)
        .map(|b| (b, setup(GEMM, (1, 2), (0, 0), b)))
        .find(|(_, t)| !t.plan.over_budget)
        .expect("some budget below the roomy peak fits");
    assert!(budget < roomy);
    let out = run(&tight, budget).unwrap();
    assert!(out.gathered.stats.iter().all(|st| st.peak <= budget));
    // A job that ignores its plan's needs: every rank checks its planned peak
    // and kernel scratch before it starts, and refuses, naming the rank.
    let err = run(&s, roomy - 4).unwrap_err();
    assert_eq!(err.code, crate::codes::BUDGET, "{err:?}");
    assert!(err.message.starts_with("rank "), "{}", err.message);
    let job = Job::new(&s.q, &s.g, &s.plan, s.cfg, roomy - 4, true).unwrap();
    assert_eq!(job.check_budget().unwrap_err().code, crate::codes::BUDGET);
}

#[test]
fn random_tiles_equal_the_whole_random_matrix() {
    let src = RandomSource { seed: 11 };
    let whole = Matrix::random(9, 7, 13);
    let block = src.block(2, 3..8, 2..7).unwrap();
    for (k, x) in block.iter().enumerate() {
        let (i, j) = (3 + k % 5, 2 + k / 5);
        assert_eq!(*x, whole.at(i, j));
    }
    assert!(whole.data.iter().all(|x| (-1.0..1.0).contains(x)));
    assert_ne!(Matrix::random(4, 4, 1), Matrix::random(4, 4, 2));
}

#[test]
fn local_parts_put_back_together_give_the_matrix() {
    let d = Distribution::new(
        GlobalElementSize::new(11, 9),
        TileElementSize::new(3, 2),
        GridSize::new(3, 2),
        RankIndex2D::new(1, 1),
    )
    .unwrap();
    let m = Matrix::random(11, 9, 5);
    let mut parts = Vec::new();
    for rank in d.grid_size().ranks() {
        let mut part = LocalPart::new(&d, rank);
        for t in d.tiles().filter(|&t| d.rank_global_tile(t) == rank) {
            let size = d.tile_size_of(t);
            let (r0, c0) = (t.row() * 3, t.col() * 2);
            let tile: Vec<f32> = (0..size.cols())
                .flat_map(|b| (0..size.rows()).map(move |a| (a, b)))
                .map(|(a, b)| m.at(r0 + a, c0 + b))
                .collect();
            part.put_tile(d.local_tile_index(t, rank).unwrap(), size, &tile);
        }
        parts.push(part);
    }
    assert_eq!(assemble(&d, &parts), m);
    let _ = GlobalTileIndex::new(0, 0);
}

#[test]
fn views_resolve_to_the_chunk_they_read() {
    let s = setup(VIEWS, (1, 1), (0, 0), u64::MAX);
    let (a, t, sl) = (
        s.p.find("a").unwrap(),
        s.p.find("t").unwrap(),
        s.p.find("s").unwrap(),
    );
    let tr = TileMap {
        transpose: true,
        ..TileMap::default()
    };
    assert_eq!(resolve(&s.p, t, (1, 2), (2, 3)), (a, (2, 3), (1, 2), tr));
    // s = t[3..6, 2..6]: t has 3x2 tiles, so tile (0, 1) of s is tile (1, 2) of t.
    assert_eq!(resolve(&s.p, sl, (0, 1), (1, 2)), (a, (2, 3), (1, 2), tr));
    // A 2x3 rectangle read transposed (as the view sees it, 3x2 of a 2x3 tile).
    let d = crate::air::Dims::new(3, 2);
    assert_eq!(
        tr.apply(d, &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]),
        vec![1.0, 3.0, 5.0, 2.0, 4.0, 6.0]
    );
    // Reversed rows then columns: the rectangle backwards.
    let both = TileMap {
        rev_rows: true,
        rev_cols: true,
        ..TileMap::default()
    };
    assert_eq!(
        both.apply(d, &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]),
        vec![6.0, 5.0, 4.0, 3.0, 2.0, 1.0]
    );
}

/// The interpreter, but rank `slow`'s first block body takes `pause`.
struct Sleepy<'s> {
    inner: InterpDevice<'s>,
    pause: Option<std::time::Duration>,
}

impl device::TileDevice for Sleepy<'_> {
    fn describe(&self) -> String {
        self.inner.describe()
    }
    fn compile(
        &mut self,
        k: &crate::stage::Kernel,
    ) -> Result<device::KernelId, texpr_ir::Diagnostic> {
        self.inner.compile(k)
    }
    fn compiled(&self) -> usize {
        self.inner.compiled()
    }
    fn scratch_bytes(&self) -> u64 {
        self.inner.scratch_bytes()
    }
    fn alloc(&mut self, len: usize) -> Result<device::BufId, texpr_ir::Diagnostic> {
        self.inner.alloc(len)
    }
    fn free(&mut self, b: device::BufId) {
        self.inner.free(b)
    }
    fn allocations(&self) -> u64 {
        self.inner.allocations()
    }
    fn write(&mut self, b: device::Slice, d: &[f32]) -> Result<(), texpr_ir::Diagnostic> {
        self.inner.write(b, d)
    }
    fn copy(&mut self, s: device::Slice, d: device::Slice) -> Result<(), texpr_ir::Diagnostic> {
        self.inner.copy(s, d)
    }
    fn run(
        &mut self,
        k: device::KernelId,
        i: &[device::Slice],
        o: device::Slice,
    ) -> Result<(), texpr_ir::Diagnostic> {
        if let Some(p) = self.pause.take() {
            std::thread::sleep(p);
        }
        self.inner.run(k, i, o)
    }
    fn flush(&mut self) -> Result<(), texpr_ir::Diagnostic> {
        self.inner.flush()
    }
    fn start_read(&mut self, b: device::Slice) -> Result<device::ReadId, texpr_ir::Diagnostic> {
        self.inner.start_read(b)
    }
    fn try_read(&mut self, r: device::ReadId) -> Result<Option<Vec<f32>>, texpr_ir::Diagnostic> {
        self.inner.try_read(r)
    }
}

#[test]
fn a_rank_stuck_in_its_device_stops_every_rank_with_the_watchdog() {
    let s = setup(GEMM, (2, 2), (0, 0), u64::MAX);
    let mut job = Job::new(&s.q, &s.g, &s.plan, s.cfg, u64::MAX, true).unwrap();
    job.watchdog = std::time::Duration::from_millis(300);
    let make: &DeviceMaker<'_> = &|r| {
        let pause = (r == 1).then_some(std::time::Duration::from_secs(3));
        Ok(Box::new(Sleepy {
            inner: InterpDevice::new(&heuristic),
            pause,
        }))
    };
    let start = std::time::Instant::now();
    let err = run_threads(&job, &RandomSource { seed: 3 }, make).unwrap_err();
    assert_eq!(err.code, crate::codes::NO_PROGRESS, "{err:?}");
    assert!(
        err.message.contains("no progress for 0.3 s"),
        "{}",
        err.message
    );
    // The stuck rank ends its body (3 s), sees the others' reports and stops.
    assert!(start.elapsed() < std::time::Duration::from_secs(20));
    // A generous watchdog lets the same run finish.
    job.watchdog = std::time::Duration::from_secs(30);
    let make: &DeviceMaker<'_> = &|r| {
        let pause = (r == 1).then_some(std::time::Duration::from_millis(500));
        Ok(Box::new(Sleepy {
            inner: InterpDevice::new(&heuristic),
            pause,
        }))
    };
    run_threads(&job, &RandomSource { seed: 3 }, make).unwrap();
}

#[test]
fn partials_travel_by_mpi_reduce_where_the_order_cannot_matter() {
    let src = "func r {
  %a = input : f32[8x12, 2x2]
  %s = sum_rows %a
  %m = max_rows %a
  %y = add %s, %m
  ret %y
}";
    let routes = |grid: (usize, usize)| {
        let s = setup(src, grid, (0, 0), u64::MAX);
        let comm = CommPlan::new(&s.g, &tasks(&s.g), &s.plan, s.cfg.grid);
        let mut out: Vec<(crate::air::Agg, usize, Route)> = comm
            .messages
            .iter()
            .filter_map(|m| {
                let spec = m.reduce.as_ref()?;
                Some((spec.agg, spec.members.len(), m.route))
            })
            .collect();
        out.sort_by_key(|(a, n, _)| (*a, *n));
        out.dedup();
        out
    };
    use crate::air::Agg;
    // Two partials per row: MPI reduces both; six: the max by MPI, the sum by
    // sends added in rank order (MPI's order would decide its bits).
    assert_eq!(
        routes((1, 2)),
        vec![(Agg::Sum, 2, Route::Row), (Agg::Max, 2, Route::Row)]
    );
    assert_eq!(
        routes((1, 6)),
        vec![(Agg::Sum, 6, Route::Direct), (Agg::Max, 6, Route::Row)]
    );
    // The bytes are each partial once, whatever the route.
    for grid in [(1, 2), (1, 6), (2, 3)] {
        let s = setup(src, grid, (0, 0), u64::MAX);
        let comm = CommPlan::new(&s.g, &tasks(&s.g), &s.plan, s.cfg.grid);
        assert_eq!(
            comm.chunk_bytes(s.cfg.n_ranks()),
            (s.plan.sent.clone(), s.plan.received.clone())
        );
        let out = run(&s, u64::MAX).unwrap();
        let want = eval_dense(&s.p, &random_inputs(&s.p, 3)).unwrap();
        let diff = max_rel_diff(&want, out.gathered.result.as_ref().unwrap()).unwrap();
        assert!(diff <= 1e-5, "{grid:?}: {diff}");
        for (r, st) in out.gathered.stats.iter().enumerate() {
            assert_eq!(
                (st.sent, st.received),
                (s.plan.sent[r], s.plan.received[r]),
                "{grid:?} rank {r}"
            );
        }
    }
}

mod alloc;
mod partials;
mod residual;
