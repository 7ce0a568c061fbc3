//! Block stages that compose and the plan that runs: an elementwise chain
//! is one body per tile whose globals (the chain's leaves) each reach a
//! rank once; `--scheduler` picks the plan the executor follows.

use texpr_block::air::parse;
use texpr_block::driver::run::run_cli;
use texpr_block::driver::{BlockOptions, Scheduler, plan};
use texpr_block::graph::NodeKind;
use texpr_block::stage::{GlobalVal, lower};
use texpr_tests::golden;

fn example(name: &str) -> String {
    let path = golden::repo_root().join(format!("examples/blocks/{name}.air"));
    std::fs::read_to_string(path).unwrap()
}

fn cli(name: &str, src: &str, f: impl FnOnce(&mut BlockOptions)) -> String {
    let mut args = BlockOptions::new(name, src);
    f(&mut args);
    run_cli(&args).unwrap_or_else(|d| panic!("{}", texpr_ir::diag::render(name, src, &d)))
}

/// `ran N shards` of a run report.
fn shards(report: &str) -> u64 {
    let rest = report.split("ran ").nth(1).expect("a run report");
    rest.split(' ').next().unwrap().parse().unwrap()
}

/// Each rank's measured peak, from the report's `r<K> ... peak (plan)` rows.
fn measured_peaks(report: &str) -> Vec<u64> {
    report
        .lines()
        .filter(|l| l.starts_with('r') && l[1..].starts_with(|c: char| c.is_ascii_digit()))
        .map(|l| {
            let words: Vec<&str> = l.split_whitespace().collect();
            words[words.len() - 2].parse().unwrap()
        })
        .collect()
}

#[test]
fn an_elementwise_chain_runs_as_one_body_per_tile() {
    let src = example("elementwise");
    let tiles = 5 * 4; // 9 x 7 in tiles of 2
    let fused = cli("elementwise", &src, |a| {
        a.run = true;
        a.check = true;
    });
    assert!(fused.contains("): ok\n"), "{fused}");
    assert_eq!(shards(&fused), tiles, "one body per tile: {fused}");
    let unfused = cli("elementwise", &src, |a| {
        a.run = true;
        a.check = true;
        a.fuse = false;
    });
    assert!(unfused.contains("): ok\n"), "{unfused}");
    // o, lo, hi, e, q, gt, y and the broadcasts of c and r: a kernel each per tile.
    assert_eq!(shards(&unfused), 9 * tiles, "{unfused}");
}

#[test]
fn a_composed_stage_keeps_its_childrens_globals_once() {
    let src = example("elementwise");
    let planned = plan(&BlockOptions::new("elementwise", &src)).unwrap();
    let stages = lower(&planned.q);
    let last = stages.last().unwrap();
    let globals: Vec<&str> = last.global_vals.iter().map(|(n, _)| n.as_str()).collect();
    // The chain's leaves, each once, though c and r are read by several of its ops.
    assert_eq!(globals, ["a", "b", "c", "r"], "{globals:?}");
    for (_, g) in &last.global_vals {
        let GlobalVal::Matrix { reg, .. } = g else {
            panic!("inputs are matrices: {g:?}")
        };
        assert!(matches!(
            planned.q.inst(*reg).op,
            texpr_block::air::Op::Input
        ));
    }
    // Broadcast once: each rank receives each tile of another rank at most once.
    let parsed = parse(&src, &[]).unwrap();
    assert!(parsed.insts.len() > 5, "a chain of several ops");
    let mut seen = std::collections::BTreeSet::new();
    for n in &planned.g.nodes {
        if let NodeKind::TensorCopy { rank, panel, .. } = &n.kind {
            assert!(
                seen.insert((*rank, *panel)),
                "{panel:?} copied twice to {rank:?}"
            );
        }
    }
    assert!(!seen.is_empty(), "on 2x2 some tiles cross ranks");
}

#[test]
fn the_chosen_scheduler_is_the_one_that_runs() {
    let src = example("gathers");
    let peaks = |s: Scheduler| {
        let mut args = BlockOptions::new("gathers", &src);
        args.scheduler = s;
        plan(&args).unwrap().plan.peak
    };
    let (greedy, critical) = (peaks(Scheduler::Greedy), peaks(Scheduler::CriticalPath));
    assert_ne!(greedy, critical, "the two plans differ here");
    for (s, want) in [
        (Scheduler::Greedy, &greedy),
        (Scheduler::CriticalPath, &critical),
    ] {
        let report = cli("gathers", &src, |a| {
            a.scheduler = s;
            a.run = true;
            a.check = true;
        });
        assert!(report.contains("): ok\n"), "{report}");
        assert_eq!(&measured_peaks(&report), want, "{}: {report}", s.name());
        let text = cli("gathers", &src, |a| {
            a.scheduler = s;
            a.emit = vec![texpr_block::driver::Emit::Plan];
        });
        assert!(text.contains(&format!("{} (runs):", s.name())), "{text}");
    }
}

#[test]
fn a_random_matrix_is_made_where_its_tiles_live() {
    use texpr_block::driver::run::{Backend, job, run_in_process};
    use texpr_block::exec::RandomSource;
    use texpr_block::exec::device::heuristic;
    use texpr_block::exec::random::random_element;
    let src = "func noise {\n  %w = random 7 : f32[9x8, 2x3]\n  %y = map exp, %w\n  ret %y\n}";
    let mut args = BlockOptions::new("noise", src);
    args.grid = (2, 2);
    let planned = plan(&args).unwrap();
    // The seed is the global: no tile crosses ranks.
    assert_eq!(planned.g.count("TensorCopy"), 0);
    assert!(
        planned.plan.sent.iter().all(|&b| b == 0),
        "{:?}",
        planned.plan.sent
    );
    let stages = texpr_block::stage::print_stages(&planned.q, &lower(&planned.q));
    assert!(
        stages.contains("global w = random 7 : f32[9x8, 2x3]"),
        "{stages}"
    );
    let job = job(&args, &planned).unwrap();
    let backend = Backend {
        gpu: None,
        pick: &heuristic,
    };
    let out = run_in_process(&job, &RandomSource { seed: 1 }, backend).unwrap();
    let got = out.gathered.result.as_ref().unwrap();
    for i in 0..9 {
        for j in 0..8 {
            let want = random_element(7, i, j).exp();
            assert!((got.at(i, j) - want).abs() <= 1e-6 * want, "({i}, {j})");
        }
    }
    // Two tiles differ: the matrix is not one tile repeated.
    assert_ne!(got.at(0, 0), got.at(2, 3));
}

#[test]
fn each_rank_reports_its_time_computing_waiting_and_communicating() {
    use texpr_block::driver::run::{Backend, job, report, run_in_process};
    use texpr_block::exec::RandomSource;
    use texpr_block::exec::device::heuristic;
    let src = example("gemm_bias_relu");
    let mut args = BlockOptions::new("gemm_bias_relu", &src);
    args.grid = (2, 2);
    let planned = plan(&args).unwrap();
    let job = job(&args, &planned).unwrap();
    let backend = Backend {
        gpu: None,
        pick: &heuristic,
    };
    let outcome = run_in_process(&job, &RandomSource { seed: 2 }, backend).unwrap();
    let stats = &outcome.gathered.stats;
    // The three are disjoint parts of each rank's run, and every rank that
    // ran a task spent time in it.
    for (r, st) in stats.iter().enumerate() {
        assert!(st.shards > 0 && st.compute_ns > 0, "rank {r}: {st:?}");
        let parts = st.compute_ns + st.wait_ns + st.comm_ns;
        assert!(parts <= st.run_ns, "rank {r}: {parts} of {}", st.run_ns);
    }
    let text = report(
        &job,
        &outcome.gathered,
        "threads",
        "the interpreter",
        outcome.wall,
    );
    assert!(text.contains("compute ms  wait ms  comm ms"), "{text}");
}
