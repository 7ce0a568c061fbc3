//! Recomputation along chains: `inline`, `fuse_globals` and `flash` never
//! copy a shared value unboundedly. Chains of `let`s that each read the
//! previous one several times (top-level, nested in bodies, nested in
//! values, halving trees) keep the optimized program within the cost rule's
//! factor of the work as written and [`MAX_COPIES`] of its size, and mean
//! the same; fusion stops at the target's storage buffers per kernel.

use super::{applied, cpu};
use crate::passes::fuse_globals::buffers;
use crate::passes::recompute::{MAX_COPIES, nodes, work};
use crate::schedule::Schedule;
use texpr_interp::{Value, eval, random_inputs};
use texpr_ir::Program;
use texpr_target::Target;

fn src(text: &str) -> Program {
    texpr_syntax::frontend(text, &[]).unwrap_or_else(|e| panic!("{text}: {e:#?}"))
}

fn bits(vs: &[Value]) -> Vec<Vec<u32>> {
    vs.iter().map(Value::bits).collect()
}

fn optimized(p: &Program, target: &Target) -> Program {
    crate::optimize(p, target)
        .expect("the passes run")
        .optimized
}

/// `n` top-level lets, each reading the one before at `reads` places per element.
fn global_chain(n: usize, reads: usize) -> String {
    let mut s = String::from("param N = 64\ninput x: f32[N]\n");
    let mut prev = "x".to_string();
    for k in 0..n {
        let terms: Vec<String> = (0..reads)
            .map(|r| format!("{prev}[(i + {r}) % N] * 0.25"))
            .collect();
        s += &format!("let a{k} = compute N |i| {}\n", terms.join(" + "));
        prev = format!("a{k}");
    }
    s + &format!("output y = compute N |i| {prev}[i]\n")
}

/// `n` local lets in one output, each reading the one before three times.
fn body_chain(n: usize) -> String {
    let mut s = String::from("param N = 64\ninput x: f32[N]\noutput y =\n");
    let mut prev = "x".to_string();
    for k in 0..n {
        s += &format!(
            "  let b{k} = compute N |i{k}| {prev}[i{k}] * 0.5 + {prev}[(i{k} + 1) % N] * 0.25 + {prev}[(i{k} + N - 1) % N] * 0.25 in\n"
        );
        prev = format!("b{k}");
    }
    s + &format!("  compute N |j| {prev}[j]\n")
}

/// `n` local lets each nested in the next one's value, each read three times.
fn value_chain(n: usize) -> String {
    let mut value = "compute N |i| x[i] * 0.5".to_string();
    for k in 0..n {
        value = format!(
            "(let c{k} = {value} in compute N |i{k}| c{k}[i{k}] + c{k}[(i{k} + 1) % N] * 0.5 + c{k}[(i{k} + N - 1) % N] * 0.25)"
        );
    }
    format!("param N = 64\ninput x: f32[N]\noutput y = {value}\n")
}

/// A sum as a tree of `levels` top-level lets, each half as long as the one
/// before: every element read once, by ever fewer and larger readers.
fn halving_tree(levels: u32) -> String {
    let mut s = format!("input x: f32[{}]\n", 1u64 << levels);
    let mut prev = "x".to_string();
    for k in 1..=levels {
        let n = 1u64 << (levels - k);
        s += &format!("let h{k} = compute {n} |i| {prev}[2 * i] + {prev}[2 * i + 1]\n");
        prev = format!("h{k}");
    }
    s + &format!("output y = compute 1 |i| {prev}[i]\n")
}

fn total(p: &Program, f: impl Fn(&texpr_ir::Expr) -> u64) -> u64 {
    p.items().into_iter().map(|it| f(it.root(p))).sum()
}

/// Each chain, optimized: the work at most 4 times (the factor of an
/// elementwise value) the program as written, the size at most
/// `MAX_COPIES` times, the same bits. Without the rule along chains each of
/// these grows as 3^n (or 2^levels copies of a read, the tree).
#[test]
fn chains_stay_within_the_cost_rule_and_the_copies_bound() {
    let cases = [
        ("global chain, 3 reads", global_chain(24, 3)),
        ("global chain, 2 reads", global_chain(24, 2)),
        ("global chain, 5 reads", global_chain(12, 5)),
        ("body chain", body_chain(12)),
        ("value chain", value_chain(10)),
        ("halving tree", halving_tree(12)),
    ];
    for (name, text) in cases {
        let p = src(&text);
        let q = optimized(&p, &Target::default());
        let (w0, w1) = (total(&p, work), total(&q, work));
        let (n0, n1) = (total(&p, nodes), total(&q, nodes));
        let shown = texpr_ir::print::program(&q);
        assert!(w1 <= 4 * w0, "{name}: work {w0} -> {w1}\n{shown}");
        assert!(n1 <= MAX_COPIES * n0, "{name}: nodes {n0} -> {n1}\n{shown}");
        let inputs = random_inputs(&p, 4);
        assert_eq!(
            bits(&eval(&q, &inputs).unwrap()),
            bits(&eval(&p, &inputs).unwrap()),
            "{name}"
        );
    }
}

/// Read three times per element, a global is fused into its reader (3 <= 4
/// recomputations); the one before it would then be computed 9 times per
/// element of that reader, so it stays a kernel, and so on: runs of two.
#[test]
fn a_chain_read_three_times_fuses_in_runs_of_two() {
    let q = optimized(&src(&global_chain(10, 3)), &Target::default());
    let kept: Vec<&str> = q.globals.iter().map(|g| g.name.as_str()).collect();
    assert_eq!(kept, ["a1", "a3", "a5", "a7"]);
    // Read once each, a chain still fuses whole (up to the nesting bound).
    let q = optimized(&src(&global_chain(10, 1)), &Target::default());
    assert!(q.globals.is_empty(), "{}", texpr_ir::print::program(&q));
}

/// `n` top-level lets, each of the one before and an input of its own:
/// fused whole, one kernel would read all `n` inputs.
fn inputs_chain(n: usize) -> String {
    let mut s = String::from("param N = 64\n");
    for k in 0..n {
        s += &format!("input x{k}: f32[N]\n");
    }
    s += "let a0 = compute N |i| x0[i] * 2.0\n";
    for k in 1..n {
        s += &format!("let a{k} = compute N |i| a{}[i] * 0.5 + x{k}[i]\n", k - 1);
    }
    s + &format!("output y = compute N |i| a{}[i] + 1.0\n", n - 1)
}

/// On every built-in target (8, 32 and 96 storage buffers per kernel) the
/// chain fuses up to the limit and no further: every item binds at most the
/// limit, and no more items stay than the limit requires.
#[test]
fn fusion_stops_at_the_targets_storage_buffers() {
    let p = src(&inputs_chain(120));
    let inputs = random_inputs(&p, 6);
    let want = bits(&eval(&p, &inputs).unwrap());
    for name in ["wgpu-default", "llvmpipe", "nvidia"] {
        let target = Target::builtin(name).unwrap();
        let limit = u64::from(target.limits.max_storage_buffers_per_stage);
        let q = optimized(&p, &target);
        for it in q.items() {
            let b = buffers(it.root(&q));
            assert!(b <= limit, "{name}: `{}` binds {b} > {limit}", it.name(&q));
        }
        // Each kept item reads the item before, its own inputs and writes
        // itself: at least `limit - 2` inputs per item but the last.
        let items = q.items().len() as u64;
        assert!(
            items <= 120u64.div_ceil(limit - 2) + 1,
            "{name}: {items} items for a limit of {limit}"
        );
        assert!(items > 1 || limit > 121, "{name}: fused past the limit");
        assert_eq!(bits(&eval(&q, &inputs).unwrap()), want, "{name}");
    }
}

/// An item that reads more buffers as written than the target allows is
/// the user's to split: fusion makes it no worse (nothing is fused into it).
#[test]
fn fusion_never_takes_an_item_further_past_the_limit() {
    let mut s = String::from("param N = 16\n");
    let mut sum = Vec::new();
    for k in 0..10 {
        s += &format!("input x{k}: f32[N]\n");
        sum.push(format!("x{k}[i]"));
    }
    s += "let t = compute N |i| x0[i] * 2.0 + x1[i]\n";
    s += &format!("output y = compute N |i| t[i] + {}\n", sum.join(" + "));
    let p = src(&s);
    let target = Target::default();
    let q = optimized(&p, &target);
    // `t` reads nothing `y` does not: fused, `y` binds one buffer fewer
    // (x0..x9 and itself; 12 as written, with `t`).
    assert!(q.globals.is_empty());
    assert_eq!(buffers(&q.outputs[0].value), 11);
    // Reading two inputs `y` does not, `t` would take it one further: kept.
    let s2 = s
        .replace("x0[i] * 2.0 + x1[i]", "x0[i] * 2.0 + z[i] + w[i]")
        .replacen(
            "param N = 16\n",
            "param N = 16\ninput z: f32[N]\ninput w: f32[N]\n",
            1,
        );
    let q = optimized(&src(&s2), &target);
    assert_eq!(q.globals.len(), 1, "fusing `t` would bind one buffer more");
    assert_eq!(buffers(&q.outputs[0].value), 12);
}

/// `flash` recomputes a row's vector `let`s where they are read: a chain
/// of them each read three times by the next would copy the row 3^n times,
/// so past `MAX_COPIES` times the row it does not fit (E0211); a short
/// chain streams and means the same.
#[test]
fn flash_refuses_a_row_that_recomputing_would_copy_unboundedly() {
    let row = |n: usize| {
        let mut s = String::from(
            "param R = 4\nparam T = 8\nparam C = 4\ninput x: f32[R * T]\ninput v: f32[T * C]\n\
             output o = compute R |r|\n  let s0 = compute T |j| x[r * T + j] * 0.5 in\n",
        );
        for k in 1..=n {
            let p = k - 1;
            s += &format!(
                "  let s{k} = compute T |j| s{p}[j] + s{p}[(j + 1) % T] * 0.5 + s{p}[(j + T - 1) % T] * 0.25 in\n"
            );
        }
        s + &format!("  compute C |c| reduce T |j| s{n}[j] * v[j * C + c]\n")
    };
    let flash: Schedule = "optimize = off\no: flash group=4 split=1\n"
        .parse()
        .unwrap();
    let p = src(&row(1));
    let q = applied(&p, &cpu(false), &flash).unwrap_or_else(|e| panic!("{e:#?}"));
    let inputs = random_inputs(&p, 2);
    assert_eq!(
        bits(&eval(&q, &inputs).unwrap()),
        bits(&eval(&p, &inputs).unwrap())
    );
    let errs = applied(&src(&row(12)), &cpu(false), &flash).unwrap_err();
    assert_eq!(errs[0].code, "E0211", "{errs:#?}");
    assert!(errs[0].message.contains("more than 16 times"), "{errs:#?}");
}
