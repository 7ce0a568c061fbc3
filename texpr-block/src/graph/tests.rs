//! Block graph tests: structure, pruning, DOT, and the schedulers' invariants.

use super::tasks::tasks;
use super::*;
use crate::air::{Program, parse};
use crate::passes::{Env, optimize};

fn prog(src: &str) -> Program {
    parse(src, &[]).unwrap_or_else(|d| panic!("{}", texpr_ir::diag::render("t", src, &d)))
}

const GEMM: &str = "func gemm {
  %a = input : f32[5x4, 2x2]
  %b = input : f32[4x3, 2x2]
  %bias = input : f32[1x3, 1x2]
  %unused = input : f32[2x2, 2x2]
  %m = matmul %a, %b
  %c = add %m, %bias
  %dead = map exp, %c
  %r = map relu, %c
  ret %r
}";

const GRAM: &str = "func gram {
  %a = input : f32[6x4, 2x2]
  %t = transpose %a
  %g = matmul %t, %a
  ret %g
}";

fn graph(src: &str, p: usize, q: usize, opt: bool) -> Graph {
    let mut prog = prog(src);
    if opt {
        prog = optimize(&prog, &mut Env::new()).unwrap();
    }
    prune(&build(&prog, GridConfig::new(p, q)).unwrap())
}

#[test]
fn optimized_gemm_has_one_shard_per_output_tile() {
    let g = graph(GEMM, 2, 2, true);
    assert_eq!(g.count("BlockShard"), 3 * 2);
    assert_eq!(g.count("BlockOp"), 1);
    assert_eq!(g.count("Source"), 1);
    assert_eq!(g.count("Sink"), 1);
    // a: 3 row panels, b: 2 column panels, each a concatenation view
    assert_eq!(g.count("TensorView"), 5);
    // a, b, bias and the result; %unused has no path to Sink
    assert_eq!(g.count("Tensor"), 4);
}

#[test]
fn nodes_without_a_path_to_sink_are_removed() {
    let full = build(&prog(GEMM), GridConfig::new(2, 2)).unwrap();
    let g = prune(&full);
    assert!(g.nodes.len() < full.nodes.len());
    let names: Vec<&str> = g
        .nodes
        .iter()
        .filter_map(|n| match &n.kind {
            NodeKind::Tensor { name, .. } => Some(name.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(names, vec!["a", "b", "bias", "m", "c", "r"]);
    // every remaining node reaches Sink
    assert_eq!(prune(&g), g);
}

#[test]
fn transpose_is_a_view_not_a_shard() {
    let g = graph(GRAM, 2, 1, true);
    let transposes = g
        .nodes
        .iter()
        .filter(|n| {
            n.kind
                == NodeKind::TensorView {
                    view: ViewKind::Transpose,
                }
        })
        .count();
    // t's row panel i is a's column panel i (3 tiles), copied once to the
    // rank of output row i and read transposed there: one view per panel.
    assert_eq!(transposes, 2);
    assert_eq!(
        g.count("TensorCopy"),
        4,
        "t's 2 row panels, a's 2 column panels"
    );
    // only the matmul has shards: 2x2 output tiles
    assert_eq!(g.count("BlockShard"), 4);
    let dot = to_dot(&g, "gram");
    assert!(dot.contains("TensorView\\ntranspose"));
}

#[test]
fn dot_is_deterministic_and_well_formed() {
    let a = to_dot(&graph(GEMM, 2, 2, true), "gemm");
    let b = to_dot(&graph(GEMM, 2, 2, true), "gemm");
    assert_eq!(a, b);
    assert!(a.starts_with("digraph \"gemm\" {\n") && a.ends_with("}\n"));
    let g = graph(GEMM, 2, 2, true);
    assert_eq!(a.matches(" -> ").count(), g.edges.len());
}

fn check_plan(g: &Graph, plan: &Plan) {
    let t = tasks(g);
    assert_eq!(plan.steps.len(), t.ids.len(), "every task runs once");
    let mut end = std::collections::BTreeMap::new();
    let mut rank_free = vec![0u64; plan.sent.len()];
    for s in &plan.steps {
        let k = t.ids.binary_search(&s.node).unwrap();
        for d in &t.deps[k] {
            let de = end.get(&t.ids[*d]).expect("dependencies run first");
            assert!(*de <= s.start);
        }
        assert!(
            s.start >= rank_free[s.rank.0],
            "a rank runs one task at a time"
        );
        rank_free[s.rank.0] = s.end;
        end.insert(s.node, s.end);
    }
    assert_eq!(
        plan.sent.iter().sum::<u64>(),
        plan.received.iter().sum::<u64>()
    );
}

#[test]
fn schedules_are_valid_and_count_bytes() {
    for (src, p, q) in [(GEMM, 2, 2), (GRAM, 3, 2), (GEMM, 1, 3)] {
        let g = graph(src, p, q, true);
        let greedy = schedule(&g, p * q, Policy::Greedy);
        check_plan(&g, &greedy);
        let cp = schedule(&g, p * q, Policy::CriticalPath { budget: u64::MAX });
        check_plan(&g, &cp);
        assert!(!cp.over_budget);
        assert!(
            greedy.sent.iter().sum::<u64>() > 0,
            "tiles move between ranks"
        );
    }
    let g = graph(GEMM, 1, 1, true);
    let plan = schedule(&g, 1, Policy::Greedy);
    assert_eq!(plan.sent, vec![0]);
}

#[test]
fn critical_path_respects_a_budget_when_it_can() {
    // Each matrix is one allocation for as long as any of its tiles is
    // needed; what a tighter budget can still save is panels: a matmul's K
    // panels, made one output tile at a time rather than all at once.
    let g = graph(GEMM, 1, 1, true);
    let roomy = schedule(&g, 1, Policy::CriticalPath { budget: u64::MAX });
    let (budget, tight) = (5..10)
        .map(|k| roomy.peak[0] * k / 10)
        .map(|b| (b, schedule(&g, 1, Policy::CriticalPath { budget: b })))
        .find(|(_, t)| !t.over_budget)
        .expect("some budget below the roomy peak fits");
    check_plan(&g, &tight);
    assert!(budget < roomy.peak[0]);
    assert!(
        tight.peak[0] <= budget,
        "peak {:?} budget {budget}",
        tight.peak
    );
    let impossible = schedule(&g, 1, Policy::CriticalPath { budget: 1 });
    check_plan(&g, &impossible);
    assert!(impossible.over_budget);
}

#[test]
fn critical_path_is_no_slower_than_greedy_on_the_examples() {
    for (src, p, q) in [(GEMM, 2, 2), (GRAM, 2, 2)] {
        let g = graph(src, p, q, true);
        let greedy = schedule(&g, p * q, Policy::Greedy);
        let cp = schedule(&g, p * q, Policy::CriticalPath { budget: u64::MAX });
        assert!(
            cp.makespan <= greedy.makespan,
            "{} > {}",
            cp.makespan,
            greedy.makespan
        );
    }
}

#[test]
fn shards_running_one_program_share_one_kernel() {
    // Tiles of one size run one program: the graph holds it once, however
    // many shards (and whatever their op: a block, a reduction's step or a
    // factorization's task) run it.
    let src = "func f {
  %a = input : f32[8x8, 2x2]
  %m = matmul %a, %a
  %s = sum_rows %m
  %l = cholesky %m
  ret %l
}";
    // Unpruned, so that the reduction no one reads has its shards too.
    let g = build(&prog(src), GridConfig::new(2, 2)).unwrap();
    let kernels: Vec<&crate::stage::Kernel> = g
        .nodes
        .iter()
        .filter_map(|n| match &n.kind {
            NodeKind::BlockShard { kernel, .. } => Some(kernel),
            _ => None,
        })
        .collect();
    let mut distinct: Vec<&crate::stage::Kernel> = Vec::new();
    for k in &kernels {
        match distinct.iter().find(|d| ***d == **k) {
            Some(d) => assert!(std::sync::Arc::ptr_eq(d, k), "equal kernels, two copies"),
            None => distinct.push(k),
        }
    }
    assert!(distinct.len() < kernels.len(), "{} shards", kernels.len());
}
