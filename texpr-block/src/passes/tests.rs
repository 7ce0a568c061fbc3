//! Pass tests: what each pass does to small programs, and that the pipeline keeps every program's meaning.

use super::env::*;
use super::*;
use crate::air::{BlockTy, Builder, Op, Program, UnaryFn, parse, print};
use crate::exec::{eval_dense, max_rel_diff, random_inputs};
use proptest::prelude::*;

fn prog(body: &str) -> Program {
    let src = format!(
        "func f {{\n  %a = input : f32[6x5, 4x2]\n  %b = input : f32[6x5, 4x2]\n  %r = input : f32[1x5, 1x2]\n  %w = input : f32[5x5, 2x2]\n{body}\n}}"
    );
    parse(&src, &[]).unwrap_or_else(|d| panic!("{}", texpr_ir::diag::render("f", &src, &d)))
}

fn ops(p: &Program) -> Vec<&'static str> {
    p.insts
        .iter()
        .filter(|i| !matches!(i.op, Op::Input))
        .map(|i| i.op.name())
        .collect()
}

#[test]
fn explicit_broadcast_inserts_broadcasts() {
    let p = prog("  %c = add %a, %r\n  ret %c");
    let mut env = Env::new();
    let q = broadcast::explicit_broadcast(&p, &mut env);
    assert_eq!(ops(&q), vec!["broadcast", "add"]);
    assert_eq!(env.int_or(BROADCASTS_INSERTED, 0), 1);
    assert!(
        print(&q).contains("%0 = broadcast %r : f32[6x5, 4x2]"),
        "{}",
        print(&q)
    );
}

#[test]
fn dce_keeps_inputs_and_what_ret_needs() {
    let p = prog("  %c = add %a, %b\n  %d = mul %a, %b\n  ret %d");
    let mut env = Env::new();
    let q = dce::dce(&p, &mut env);
    assert_eq!(ops(&q), vec!["mul"]);
    assert_eq!(q.inputs().len(), 4);
    assert_eq!(env.int_or(DCE_REMOVED, 0), 1);
}

#[test]
fn cse_merges_commuted_adds_but_not_subs() {
    let p = prog(
        "  %c = add %a, %b\n  %d = add %b, %a\n  %e = sub %a, %b\n  %f = sub %b, %a\n  %g = mul %c, %d\n  %h = mul %e, %f\n  %i = add %g, %h\n  ret %i",
    );
    let mut env = Env::new();
    let q = cse::cse(&p, &mut env);
    assert_eq!(env.int_or(CSE_MERGED, 0), 1);
    assert!(print(&q).contains("%g = mul %c, %c"), "{}", print(&q));
}

#[test]
fn annotate_records_metadata() {
    let p = prog("  %c = add %a, %b\n  %d = sub %c, %b\n  %e = matmul %d, %w\n  ret %e");
    let mut env = Env::new();
    annotate::annotate(&p, &mut env);
    let text = env.to_string();
    assert!(
        text.contains("%c add: commutative,associative,elementwise"),
        "{text}"
    );
    assert!(text.contains("%d sub: elementwise"), "{text}");
    assert!(text.contains("%e matmul: associative"), "{text}");
}

#[test]
fn elementwise_chain_becomes_one_body_and_epilogue_joins_matmul() {
    let p = prog(
        "  %m = matmul %a, %w\n  %c = add %m, %r\n  %d = scale %c, 0.5\n  %e = map relu, %d\n  ret %e",
    );
    let mut env = Env::new();
    let q = optimize(&p, &mut env).unwrap();
    assert_eq!(ops(&q), vec!["matmul"]);
    let text = print(&q);
    assert!(
        text.contains("%e = matmul %a, %w epilogue %r.row { relu(mul(add($acc, $0), 0.5)) }"),
        "{text}"
    );
    assert_eq!(env.int_or(FUSED_EPILOGUES, 0), 1);
    assert_eq!(env.int_or(FUSED_ELEMENTWISE, 0), 1);
}

#[test]
fn shared_intermediates_read_only_elementwise_are_recomputed() {
    let p = prog("  %c = add %a, %b\n  %d = map exp, %c\n  %e = mul %c, %d\n  ret %e");
    let mut env = Env::new();
    let q = optimize(&p, &mut env).unwrap();
    // %c is read twice, by elementwise ops only: recomputed in one body.
    assert_eq!(ops(&q), vec!["fused"]);
    assert!(
        print(&q).contains("%e = fused %a, %b { mul(add($0, $1), exp(add($0, $1))) }"),
        "{}",
        print(&q)
    );
}

#[test]
fn shared_intermediates_a_matmul_reads_are_stored() {
    let p = prog(
        "  %c = add %a, %b\n  %d = map exp, %c\n  %e = mul %c, %d\n  %m = matmul %c, %w\n  %s = add %e, %m\n  ret %s",
    );
    let mut env = Env::new();
    let q = optimize(&p, &mut env).unwrap();
    // %c is read by a matmul too: it is stored once and read by the rest.
    assert_eq!(ops(&q)[0], "add", "{}", print(&q));
    assert!(
        print(&q).contains("epilogue %c { add(mul($0, exp($0)), $acc) }"),
        "{}",
        print(&q)
    );
}

#[test]
fn operand_limit_is_respected() {
    let p = prog("  %c = add %a, %b\n  %d = add %c, %r\n  ret %d");
    let mut env = Env::new();
    env.set(FUSE_MAX_OPERANDS, EnvValue::Int(2));
    let q = optimize(&p, &mut env).unwrap();
    assert!(!print(&q).contains("fused"), "{}", print(&q));
}

#[test]
fn fusion_can_be_switched_off() {
    let p = prog("  %c = add %a, %b\n  %d = map exp, %c\n  ret %d");
    let mut env = Env::new();
    env.set(FUSE, EnvValue::Bool(false));
    let stages = run(&p, &mut env).unwrap();
    // annotate, expand_stats, explicit_broadcast, cse, dce: no fusion pass
    assert_eq!(stages.after.len(), 5);
    assert_eq!(ops(stages.last().unwrap()), vec!["add", "map"]);
}

/// A random program over 6x5 matrices tiled 4x2.
fn random_program(choices: &[(u8, u8, u8)]) -> Program {
    let mut b = Builder::new("rand");
    let mut full = vec![
        b.input("a", BlockTy::f32(6, 5, 4, 2)).unwrap(),
        b.input("b", BlockTy::f32(6, 5, 4, 2)).unwrap(),
    ];
    let vecs = [
        b.input("r", BlockTy::f32(1, 5, 1, 2)).unwrap(),
        b.input("c", BlockTy::f32(6, 1, 4, 1)).unwrap(),
        b.input("s", BlockTy::f32(1, 1, 1, 1)).unwrap(),
    ];
    let w = b.input("w", BlockTy::f32(5, 5, 2, 2)).unwrap();
    for &(kind, x, y) in choices {
        let x = full[x as usize % full.len()];
        let yf = full[y as usize % full.len()];
        let yv = vecs[y as usize % vecs.len()];
        let r = match kind % 8 {
            0 => b.add(x, yf),
            1 => b.sub(x, yv),
            2 => b.mul(yv, x),
            3 => b.scale(x, 0.75),
            4 => b.map(
                [UnaryFn::Tanh, UnaryFn::Relu, UnaryFn::Square, UnaryFn::Neg][y as usize % 4],
                x,
            ),
            5 => b.matmul(x, w),
            6 => b.div(x, yf).and_then(|d| b.map(UnaryFn::Tanh, d)),
            _ => b.add(yf, x),
        };
        full.push(r.unwrap());
    }
    let ret = *full.last().unwrap();
    b.ret(ret)
}

proptest! {
    #[test]
    fn pipeline_keeps_the_meaning(choices in prop::collection::vec((0u8..8, 0u8..16, 0u8..16), 1..12)) {
        let p = random_program(&choices);
        let inputs = random_inputs(&p, 7);
        let want = eval_dense(&p, &inputs).unwrap();
        let mut env = Env::new();
        let stages = run(&p, &mut env).unwrap();
        for (name, q) in &stages.after {
            let got = eval_dense(q, &inputs).unwrap();
            let d = max_rel_diff(&want, &got).unwrap();
            prop_assert!(d <= 1e-6, "after {}: diff {}\n{}", name, d, print(q));
            prop_assert_eq!(print(&parse(&print(q), &[]).unwrap()), print(q));
        }
    }
}
