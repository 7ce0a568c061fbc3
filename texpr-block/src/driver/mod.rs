//! A block program from source to a plan, its texts and its run, as a host
//! calls it (`texprc block` parses its arguments into [`BlockOptions`]).
//!
//! [`plan`] parses (with `-D` overrides; [`BlockOptions::tile`] sets the
//! program's `param T`, the examples' tile size), optimises, builds the
//! graph and schedules it; [`emit_all`] gives the text of any stage;
//! running, its report and `--check` are in [`run`].

pub mod run;

use crate::air::{Op, Program, parse, print};
use crate::codes;
use crate::exec::device::{SchedulePicker, compile_body};
use crate::graph::{Graph, GridConfig, Plan, Policy, build, prune, schedule, to_dot};
use crate::passes::{Env, EnvValue, env::FUSE, run as run_passes};
use crate::stage::{lower, print_stages};
use std::fmt::Write as _;
use texpr_ir::Diagnostic;

/// What to print.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Emit {
    /// The optimised block program.
    Ir,
    /// The program after every pass, and the environment.
    Passes,
    Stages,
    /// The pruned block graph as a node list.
    Graph,
    Dot,
    /// Both schedules, their cost and the bytes each rank moves.
    Plan,
    /// The distinct TExpr block bodies.
    Texpr,
}

/// Which scheduler orders the tasks that run (`--scheduler`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scheduler {
    /// The seed's: any task whose inputs are done, lowest node id first.
    /// It plans without the budget, which the run still holds the plan's
    /// peak to (E0531).
    Greedy,
    /// Longest remaining path first, within the budget (the default).
    CriticalPath,
}

impl Scheduler {
    pub fn name(self) -> &'static str {
        match self {
            Scheduler::Greedy => "greedy",
            Scheduler::CriticalPath => "critical-path",
        }
    }
    /// The graph scheduler's policy within `budget` bytes per rank.
    pub fn policy(self, budget: u64) -> Policy {
        match self {
            Scheduler::Greedy => Policy::Greedy,
            Scheduler::CriticalPath => Policy::CriticalPath { budget },
        }
    }
}

/// Where `--run` runs block bodies.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Device {
    /// The TExpr reference interpreter.
    Cpu,
    /// The wgpu runtime (adapter from `TEXPR_ADAPTER`).
    Gpu,
}

#[derive(Clone, Debug)]
pub struct BlockOptions {
    pub file_name: String,
    pub source: String,
    pub grid: (usize, usize),
    pub tile: Option<u64>,
    pub defines: Vec<(String, u64)>,
    pub emit: Vec<Emit>,
    pub budget: Option<u64>,
    /// The scheduler whose plan runs (and whose steps `--emit plan` lists).
    pub scheduler: Scheduler,
    pub fuse: bool,
    pub run: bool,
    pub check: bool,
    pub device: Device,
    /// Seed of the random inputs of `--run`.
    pub seed: u64,
    /// The rank `(row, col)` that holds every matrix's top-left tile and gathers the result.
    pub source_rank: (usize, usize),
    /// Gather the result to the source rank (for `-o` and `--check`).
    pub gather: bool,
    /// How long a rank waits without progress before it stops (E0564).
    pub watchdog: std::time::Duration,
    /// `--check` passes even where elements were not compared.
    pub allow_unchecked: bool,
}

impl BlockOptions {
    pub fn new(file_name: &str, source: &str) -> BlockOptions {
        BlockOptions {
            file_name: file_name.into(),
            source: source.into(),
            grid: (2, 2),
            tile: None,
            defines: Vec::new(),
            emit: Vec::new(),
            budget: None,
            scheduler: Scheduler::CriticalPath,
            fuse: true,
            run: false,
            check: false,
            device: Device::Cpu,
            seed: 1,
            source_rank: (0, 0),
            gather: true,
            watchdog: crate::exec::job::DEFAULT_WATCHDOG,
            allow_unchecked: false,
        }
    }
}

fn bad_arg(msg: String) -> Diagnostic {
    Diagnostic::error(codes::BAD_ARG, msg)
}

/// Every `-D NAME=V` must name a `param` the program declares.
fn check_defines(source: &str, defines: &[(String, u64)]) -> Result<(), Vec<Diagnostic>> {
    let declared = crate::air::parse::declared_params(source);
    let unknown: Vec<Diagnostic> = defines
        .iter()
        .filter(|(name, _)| !declared.contains(name))
        .map(|(name, _)| {
            let have = if declared.is_empty() {
                "the program declares no params".to_string()
            } else {
                format!("its params are: {}", declared.join(", "))
            };
            Diagnostic::error(
                codes::BAD_DEFINE,
                format!("-D {name}: the program has no `param {name}`"),
            )
            .with_note(have)
        })
        .collect();
    if unknown.is_empty() {
        Ok(())
    } else {
        Err(unknown)
    }
}

/// Block bodies, devices, messages and files hold `f32` elements only: a
/// program with another element type is refused here, before it is staged,
/// planned or run (never run as `f32`).
fn only_f32(p: &Program) -> Result<(), Vec<Diagnostic>> {
    let bad: Vec<Diagnostic> = p
        .regs()
        .filter(|&r| p.ty(r).elem != crate::air::ElemTy::F32)
        .take(1)
        .map(|r| {
            let inst = p.inst(r);
            Diagnostic::error(
                codes::EXEC_ELEM,
                format!(
                    "block programs are planned and run in f32 only; %{} is {}",
                    inst.name, inst.ty
                ),
            )
            .with_primary(inst.span, "not f32")
            .with_note("integer block matrices type-check, but no block body, device or file of the block layer holds integers yet")
        })
        .collect();
    if bad.is_empty() { Ok(()) } else { Err(bad) }
}

/// Parses (with overrides) and optimises; the program before and after, and the pass dump.
fn front(args: &BlockOptions) -> Result<(Program, Program, String), Vec<Diagnostic>> {
    let mut defines = args.defines.clone();
    if let Some(t) = args.tile {
        if !args.source.contains("param T ") {
            return Err(vec![bad_arg(
                "--tile sets `param T`, which this program does not declare".into(),
            )]);
        }
        defines.push(("T".into(), t));
    }
    check_defines(&args.source, &args.defines)?;
    let p = parse(&args.source, &defines)?;
    let mut env = Env::new();
    env.set(FUSE, EnvValue::Bool(args.fuse));
    let stages = run_passes(&p, &mut env).map_err(|d| vec![d])?;
    let mut dump = String::new();
    for (name, q) in &stages.after {
        let _ = write!(dump, "// after {name}\n{}\n", print(q));
    }
    let _ = write!(dump, "// environment\n{env}");
    let q = stages.last().cloned().unwrap_or_else(|| p.clone());
    Ok((p, q, dump))
}

/// A block program made ready to run: as written (`p`) and optimised
/// (`q`), its pruned graph and the critical-path plan on the grid.
#[derive(Clone, Debug)]
pub struct Planned {
    pub p: Program,
    pub q: Program,
    pub g: Graph,
    pub plan: Plan,
    pub cfg: GridConfig,
    /// The scheduler that made `plan`.
    pub scheduler: Scheduler,
    /// The program after every pass, and the environment.
    pub dump: String,
}

/// Parses, optimises, builds the graph and schedules it within the budget.
pub fn plan(args: &BlockOptions) -> Result<Planned, Vec<Diagnostic>> {
    let (p, q, dump) = front(args)?;
    only_f32(&p)?;
    let mut cfg = GridConfig::new(args.grid.0, args.grid.1);
    cfg.source = crate::dist::RankIndex2D::new(args.source_rank.0, args.source_rank.1);
    let g = prune(&build(&q, cfg).map_err(|d| vec![d])?);
    let budget = args.budget.unwrap_or(u64::MAX);
    let plan = schedule(&g, cfg.n_ranks(), args.scheduler.policy(budget));
    Ok(Planned {
        p,
        q,
        g,
        plan,
        cfg,
        scheduler: args.scheduler,
        dump,
    })
}

/// The text of every `--emit`; block bodies are compiled for `target`
/// with the schedule `pick` chooses.
pub fn emit_all(
    args: &BlockOptions,
    planned: &Planned,
    target: &texpr::Target,
    pick: &SchedulePicker,
) -> Result<String, Diagnostic> {
    let mut out = String::new();
    for e in &args.emit {
        let text = match e {
            Emit::Texpr => texpr_text(&planned.g, target, pick)?,
            _ => emit(*e, planned),
        };
        out.push_str(&text);
    }
    Ok(out)
}

fn emit(e: Emit, planned: &Planned) -> String {
    let Planned {
        q,
        g,
        plan,
        cfg,
        dump,
        scheduler,
        ..
    } = planned;
    match e {
        Emit::Ir => print(q),
        Emit::Passes => dump.clone(),
        Emit::Stages => print_stages(q, &lower(q)),
        Emit::Graph => graph_text(g),
        Emit::Dot => to_dot(g, &q.name),
        Emit::Plan => plan_text(g, plan, *cfg, *scheduler),
        Emit::Texpr => String::new(),
    }
}

/// One line per node kind with its count, then the edge count.
pub fn graph_text(g: &Graph) -> String {
    let mut out = String::new();
    for kind in [
        "Source",
        "Sink",
        "Tensor",
        "BlockOp",
        "BlockShard",
        "TensorChunk",
        "TensorView",
        "TensorCopy",
        "Partial",
        "TensorReduce",
    ] {
        let _ = writeln!(out, "{kind}: {}", g.count(kind));
    }
    let _ = writeln!(out, "edges: {}", g.edges.len());
    out
}

/// Both schedulers' cost (the one that made `plan`, which runs, marked),
/// then `plan` step by step.
pub fn plan_text(g: &Graph, plan: &Plan, cfg: GridConfig, runs: Scheduler) -> String {
    let other = match runs {
        Scheduler::Greedy => Scheduler::CriticalPath,
        Scheduler::CriticalPath => Scheduler::Greedy,
    };
    // Beside a greedy plan, the critical-path one is shown without a budget.
    let other_plan = schedule(g, cfg.n_ranks(), other.policy(u64::MAX));
    let (greedy, critical) = match runs {
        Scheduler::Greedy => (plan, &other_plan),
        Scheduler::CriticalPath => (&other_plan, plan),
    };
    let mut out = String::new();
    let _ = writeln!(
        out,
        "grid {}x{}, {} tasks",
        cfg.grid.rows(),
        cfg.grid.cols(),
        plan.steps.len()
    );
    for (sched, pl) in [
        (Scheduler::Greedy, greedy),
        (Scheduler::CriticalPath, critical),
    ] {
        let name = sched.name();
        let runs = if sched == runs { " (runs)" } else { "" };
        let _ = writeln!(
            out,
            "{name}{runs}: makespan {}, sent {:?} B, received {:?} B, peak {:?} B{}",
            pl.makespan,
            pl.sent,
            pl.received,
            pl.peak,
            if pl.over_budget { " (over budget)" } else { "" }
        );
    }
    out.push_str(&holdings_text(g, cfg.n_ranks()));
    for s in &plan.steps {
        let what = match g.kind(s.node) {
            crate::graph::NodeKind::BlockShard {
                op,
                tile,
                work: crate::graph::node::Work::Reduce(part),
                ..
            } => format!(
                "step #{} ({}, {}) of ({}, {})",
                op.0, tile.0, tile.1, part.src_tile.0, part.src_tile.1
            ),
            crate::graph::NodeKind::BlockShard {
                op,
                tile,
                work: crate::graph::node::Work::Linalg(step),
                ..
            } => format!("{step} #{} ({}, {})", op.0, tile.0, tile.1),
            crate::graph::NodeKind::BlockShard { op, tile, .. } => {
                format!("shard #{} ({}, {})", op.0, tile.0, tile.1)
            }
            crate::graph::NodeKind::TensorReduce {
                tensor,
                tile,
                along,
                ..
            } => format!(
                "reduce #{} ({}, {}) along the grid's {}",
                tensor.0,
                tile.0,
                tile.1,
                if *along == crate::air::SumAxis::Rows {
                    "row"
                } else {
                    "column"
                }
            ),
            _ => format!("copy n{}", s.node.0),
        };
        let _ = writeln!(out, "  {} {what} [{}, {})", s.rank, s.start, s.end);
    }
    out
}

/// What each rank holds: each matrix it holds tiles of, one allocation
/// (the padded local tile layout), then its panels and partials.
fn holdings_text(g: &Graph, n_ranks: usize) -> String {
    let mem = crate::graph::memory::Memory::new(g, &crate::graph::tasks::tasks(g), n_ranks);
    let mut out = String::new();
    for r in 0..n_ranks {
        let (matrices, own) = mem.holdings(r);
        let list: Vec<String> = matrices
            .iter()
            .map(|(reg, bytes)| format!("#{} {bytes} B", reg.0))
            .collect();
        let _ = writeln!(
            out,
            "memory r{r}: {} matrices, one buffer each ({}), and {own} panels and partials",
            matrices.len(),
            list.join(", ")
        );
    }
    out
}

/// Every distinct block body, once, as the optimizer schedules it for `target`.
pub fn texpr_text(
    g: &Graph,
    target: &texpr::Target,
    pick: &SchedulePicker,
) -> Result<String, Diagnostic> {
    let mut seen: Vec<&crate::stage::Kernel> = Vec::new();
    for n in &g.nodes {
        if let crate::graph::NodeKind::BlockShard { kernel, .. } = &n.kind
            && !seen.contains(&kernel)
        {
            seen.push(kernel);
        }
    }
    let mut out = String::new();
    for (k, kernel) in seen.iter().enumerate() {
        let compiled = compile_body(kernel, target, pick)?;
        let src = texpr_ir::print::program(kernel);
        let scheduled = texpr_ir::print::program(&compiled.scheduled);
        let _ = write!(out, "// kernel k{k}\n{src}// scheduled\n{scheduled}\n");
    }
    Ok(out)
}

/// The longest reduction in the program (matmul inner size, summed extent).
fn reduction_len(p: &Program) -> u64 {
    p.insts
        .iter()
        .map(|i| match &i.op {
            Op::Matmul { a, .. } => p.ty(*a).shape.cols,
            Op::Reduce(_, _, x) => p.ty(*x).shape.len(),
            _ => 1,
        })
        .max()
        .unwrap_or(1)
}

/// Relative tolerance of a distributed result against the dense reference.
pub fn tolerance(p: &Program) -> f32 {
    1e-5 + 2e-6 * reduction_len(p) as f32
}
