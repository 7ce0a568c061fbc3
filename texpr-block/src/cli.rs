//! `texprc block`: everything but argument parsing and printing, as a library function.
//!
//! `texprc block FILE [--grid PxQ] [--tile N] [-D NAME=V] [--emit ir|passes|stages|graph|dot|plan|texpr]
//! [--budget BYTES] [--no-fuse] [--run [--check] [--device cpu|gpu]]`
//!
//! `--tile N` sets the program's `param T` (the examples' tile size).

use crate::air::{Op, Program, parse, print};
use crate::codes;
use crate::exec::{
    InterpRunner, KernelRunner, Matrix, eval_dense, max_rel_diff, random_inputs, run_plan,
};
use crate::graph::{Graph, GridConfig, Plan, Policy, build, prune, schedule, to_dot};
use crate::passes::{Env, EnvValue, env::FUSE, run as run_passes};
use crate::stage::{lower, print_stages};
use std::fmt::Write as _;
use texpr_syntax::Diagnostic;

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

impl Emit {
    pub fn parse(s: &str) -> Result<Emit, Diagnostic> {
        Ok(match s {
            "ir" => Emit::Ir,
            "passes" => Emit::Passes,
            "stages" => Emit::Stages,
            "graph" => Emit::Graph,
            "dot" => Emit::Dot,
            "plan" => Emit::Plan,
            "texpr" => Emit::Texpr,
            _ => {
                return Err(bad_arg(format!(
                    "unknown --emit `{s}` (ir, passes, stages, graph, dot, plan, texpr)"
                )));
            }
        })
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
pub struct BlockArgs {
    pub file_name: String,
    pub source: String,
    pub grid: (usize, usize),
    pub tile: Option<u64>,
    pub defines: Vec<(String, u64)>,
    pub emit: Vec<Emit>,
    pub budget: Option<u64>,
    pub fuse: bool,
    pub run: bool,
    pub check: bool,
    pub device: Device,
    /// Seed of the random inputs of `--run`.
    pub seed: u64,
}

impl BlockArgs {
    pub fn new(file_name: &str, source: &str) -> BlockArgs {
        BlockArgs {
            file_name: file_name.into(),
            source: source.into(),
            grid: (2, 2),
            tile: None,
            defines: Vec::new(),
            emit: Vec::new(),
            budget: None,
            fuse: true,
            run: false,
            check: false,
            device: Device::Cpu,
            seed: 1,
        }
    }
}

fn bad_arg(msg: String) -> Diagnostic {
    Diagnostic::error(codes::BAD_ARG, msg)
}

/// `PxQ` (e.g. `2x2`, `1x3`).
pub fn parse_grid(s: &str) -> Result<(usize, usize), Diagnostic> {
    let bad = || bad_arg(format!("--grid wants PxQ with P, Q >= 1, not `{s}`"));
    let (p, q) = s.split_once('x').ok_or_else(bad)?;
    let (p, q): (usize, usize) = (p.parse().map_err(|_| bad())?, q.parse().map_err(|_| bad())?);
    if p == 0 || q == 0 || p * q > 1024 {
        return Err(bad());
    }
    Ok((p, q))
}

/// Parses (with overrides) and optimises; the program before and after, and the pass dump.
fn front(args: &BlockArgs) -> Result<(Program, Program, String), Vec<Diagnostic>> {
    let mut defines = args.defines.clone();
    if let Some(t) = args.tile {
        if !args.source.contains("param T ") {
            return Err(vec![bad_arg(
                "--tile sets `param T`, which this program does not declare".into(),
            )]);
        }
        defines.push(("T".into(), t));
    }
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

/// Runs `texprc block`: the text to print, or diagnostics to render against the source.
pub fn run_cli(args: &BlockArgs) -> Result<String, Vec<Diagnostic>> {
    let (p, q, dump) = front(args)?;
    let cfg = GridConfig::new(args.grid.0, args.grid.1);
    let g = prune(&build(&q, cfg).map_err(|d| vec![d])?);
    let budget = args.budget.unwrap_or(u64::MAX);
    let plan = schedule(&g, cfg.n_ranks(), Policy::CriticalPath { budget });
    let mut out = String::new();
    for e in &args.emit {
        out.push_str(&emit(*e, &q, &g, &plan, cfg, &dump));
    }
    if args.run {
        out.push_str(&run(args, &p, &q, &g, &plan).map_err(|d| vec![d])?);
    }
    Ok(out)
}

fn emit(e: Emit, q: &Program, g: &Graph, plan: &Plan, cfg: GridConfig, dump: &str) -> String {
    match e {
        Emit::Ir => print(q),
        Emit::Passes => dump.to_string(),
        Emit::Stages => print_stages(q, &lower(q)),
        Emit::Graph => graph_text(g),
        Emit::Dot => to_dot(g, &q.name),
        Emit::Plan => plan_text(g, plan, cfg),
        Emit::Texpr => texpr_text(g),
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
    ] {
        let _ = writeln!(out, "{kind}: {}", g.count(kind));
    }
    let _ = writeln!(out, "edges: {}", g.edges.len());
    out
}

/// Both schedulers' cost, then the critical-path schedule step by step.
pub fn plan_text(g: &Graph, plan: &Plan, cfg: GridConfig) -> String {
    let greedy = schedule(g, cfg.n_ranks(), Policy::Greedy);
    let mut out = String::new();
    let _ = writeln!(
        out,
        "grid {}x{}, {} tasks",
        cfg.grid.rows(),
        cfg.grid.cols(),
        plan.steps.len()
    );
    for (name, pl) in [("greedy", &greedy), ("critical-path", plan)] {
        let _ = writeln!(
            out,
            "{name}: makespan {}, sent {:?} B, received {:?} B, peak {:?} B{}",
            pl.makespan,
            pl.sent,
            pl.received,
            pl.peak,
            if pl.over_budget { " (over budget)" } else { "" }
        );
    }
    for s in &plan.steps {
        let what = match g.kind(s.node) {
            crate::graph::NodeKind::BlockShard { op, tile, .. } => {
                format!("shard #{} ({}, {})", op.0, tile.0, tile.1)
            }
            _ => format!("copy n{}", s.node.0),
        };
        let _ = writeln!(out, "  {} {what} [{}, {})", s.rank, s.start, s.end);
    }
    out
}

/// Every distinct block body, once.
pub fn texpr_text(g: &Graph) -> String {
    let mut seen: Vec<&str> = Vec::new();
    for n in &g.nodes {
        if let crate::graph::NodeKind::BlockShard { kernel, .. } = &n.kind
            && !seen.contains(&kernel.as_str())
        {
            seen.push(kernel);
        }
    }
    seen.iter()
        .enumerate()
        .map(|(k, src)| format!("// kernel k{k}\n{src}\n"))
        .collect()
}

/// The longest reduction in the program (matmul inner size, summed extent).
fn reduction_len(p: &Program) -> u64 {
    p.insts
        .iter()
        .map(|i| match &i.op {
            Op::Matmul { a, .. } => p.ty(*a).shape.cols,
            Op::Sum(_, x) => p.ty(*x).shape.len(),
            _ => 1,
        })
        .max()
        .unwrap_or(1)
}

/// Relative tolerance of a distributed result against the dense reference.
pub fn tolerance(p: &Program) -> f32 {
    1e-5 + 2e-6 * reduction_len(p) as f32
}

fn run(
    args: &BlockArgs,
    p: &Program,
    q: &Program,
    g: &Graph,
    plan: &Plan,
) -> Result<String, Diagnostic> {
    let inputs = random_inputs(q, args.seed);
    let (report, device) = match args.device {
        Device::Cpu => (
            run_plan(q, g, plan, &inputs, &mut InterpRunner::default())?,
            "the interpreter".to_string(),
        ),
        Device::Gpu => run_gpu(q, g, plan, &inputs)?,
    };
    let mut out = format!(
        "ran {} shards on a {}x{} grid with {} distinct kernels on {device}\nbytes sent per rank {:?}, received {:?}\n",
        report.shards, args.grid.0, args.grid.1, report.kernels, plan.sent, plan.received
    );
    if args.check {
        out.push_str(&check(p, &inputs, &report.result)?);
    }
    Ok(out)
}

fn run_gpu(
    q: &Program,
    g: &Graph,
    plan: &Plan,
    inputs: &[Matrix],
) -> Result<(crate::exec::RunReport, String), Diagnostic> {
    let gpu = texpr_codegen::runtime::Gpu::open_from_env()
        .map_err(|e| Diagnostic::error(codes::NO_GPU, format!("no GPU adapter: {e}")))?;
    let mut runner = crate::exec::gpu::GpuRunner::new(&gpu);
    let report = run_plan(q, g, plan, inputs, &mut runner)?;
    let kernels = runner.compiled();
    Ok((
        crate::exec::RunReport { kernels, ..report },
        gpu.info().to_string(),
    ))
}

/// Compares with the dense reference of the unoptimised program.
fn check(p: &Program, inputs: &[Matrix], got: &Matrix) -> Result<String, Diagnostic> {
    let want = eval_dense(p, inputs)?;
    let tol = tolerance(p);
    let diff = max_rel_diff(&want, got).unwrap_or(f32::INFINITY);
    if diff <= tol {
        return Ok(format!(
            "check: max relative difference {diff:.3e} (tolerance {tol:.3e}): ok\n"
        ));
    }
    Err(Diagnostic::error(
        codes::CHECK_FAILED,
        format!("the result differs from the dense reference by {diff:.3e} (tolerance {tol:.3e})"),
    ))
}
