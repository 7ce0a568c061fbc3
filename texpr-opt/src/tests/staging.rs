//! Staged tiles' blocks in workgroup memory: padded rows (`pad=P`, a
//! `strided` layout) and `vec4` fills (`vec4=on`) mean what the program
//! means, and sizes that do not fit are coded errors.

use super::scheduled as optimize;
use super::strategies::{check, examples};
use crate::schedule::{Schedule, ScheduleChoice};
use texpr_target::Target;

fn matmul() -> texpr_ir::Program {
    let ex = examples();
    ex.into_iter().find(|(n, _)| *n == "matmul").unwrap().1
}

fn codes(target: &Target, text: &str) -> Vec<&'static str> {
    let s: Schedule = text.parse().unwrap();
    let p = matmul();
    optimize(&p, target, &ScheduleChoice::Given(s))
        .err()
        .unwrap_or_default()
        .iter()
        .map(|d| d.code)
        .collect()
}

/// The matmul scheduled as `text` says on the GPU target, checked against
/// the unscheduled program (`check`), as TExpr text.
fn checked_text(text: &str) -> String {
    let p = matmul();
    let s: Schedule = text.parse().unwrap();
    let q = optimize(&p, &Target::default(), &ScheduleChoice::Given(s)).unwrap();
    check("matmul", &p, &q, text);
    texpr_ir::print::program(&q)
}

/// 32 x 16 x 8 in 2x2 workgroups of 2x2 registers, blocks of 4 steps: `a`'s
/// 4 x 4 block and `b`'s 4 x 4 block, each invocation filling one run of 4.
#[test]
fn padded_vec4_blocks_fill_runs_of_four_into_rows_laid_out_apart() {
    let text = checked_text("c: tile group=2x2 reg=2x2 shared=4 pad=1 vec4=on");
    assert_eq!(text.matches("strided(4, 5)").count(), 2, "{text}");
    assert_eq!(text.matches("compute@group 4 {y").count(), 2, "{text}");
    assert_eq!(text.matches("|v| a[").count(), 1, "{text}");
    assert_eq!(text.matches("|v_1| b[").count(), 1, "{text}");
    // Register tiles read the blocks at the padded row stride.
    assert!(text.contains(") * 5 + kk]"), "{text}");
    assert!(text.contains("stage_1[kk * 5 + "), "{text}");
}

/// `prefetch=on`: the runs are `let@prefetch` register tiles, and the
/// program still means what it meant.
#[test]
fn prefetched_blocks_load_their_runs_as_let_prefetch() {
    let text = checked_text("c: tile group=2x2 reg=2x2 shared=4 vec4=on prefetch=on");
    assert_eq!(text.matches("let@prefetch").count(), 2, "{text}");
    assert!(!text.contains("let@reg q"), "{text}");
}

#[test]
fn blocks_that_do_not_split_or_fit_are_coded_errors() {
    let gpu = Target::default();
    // 8 x 4 blocks over 16 invocations: runs of 2, not a multiple of 4.
    assert_eq!(
        codes(&gpu, "c: tile group=4x4 reg=2x2 shared=4 vec4=on"),
        ["E0212"]
    );
    // 8 x 4 blocks over 4 invocations: runs of 8 straddle the rows of 4.
    assert_eq!(
        codes(&gpu, "c: tile group=2x2 reg=4x4 shared=4 vec4=on"),
        ["E0212"]
    );
    // 8 x 8 blocks over 8 invocations: one row of 8 each.
    assert!(codes(&gpu, "c: tile group=2x4 reg=4x2 shared=8 vec4=on").is_empty());
    // Padding counts towards workgroup memory: two 8 x 8 blocks take 512
    // bytes, padded to rows of 16 twice that.
    let mut tight = Target::default();
    tight.limits.max_workgroup_storage_bytes = 512;
    assert!(codes(&tight, "c: tile group=4x4 reg=2x2 shared=8").is_empty());
    assert_eq!(
        codes(&tight, "c: tile group=4x4 reg=2x2 shared=8 pad=8"),
        ["E0216"]
    );
}

/// A block of `b` read along its rows (invocation `l` at columns
/// `(l % TJ)*RJ + r`) is padded every 32 elements rather than per row: the
/// reads of one register element by a subgroup of 32 invocations hit 32
/// distinct banks, or the same word (a broadcast), never two words of one
/// bank. Rows of `a` stay padded per row.
#[test]
fn blocks_read_along_rows_are_padded_every_bank_row() {
    use texpr_ir::{ExprKind, VarId, VecRef};
    let src = "param M = 128\nparam N = 128\nparam K = 16\n\
        input a: f32[M * K]\ninput b: f32[K * N]\n\
        output c = compute M |i| compute N |j| reduce K |k| a[i * K + k] * b[k * N + j]\n";
    let p = texpr_syntax::frontend(src, &[]).expect("checks");
    for (text, rj, cols) in [
        ("c: tile group=16x16 reg=8x8 shared=8 pad=1 vec4=on", 8, 128),
        ("c: tile group=8x16 reg=4x4 shared=8 pad=1", 4, 64),
    ] {
        let s: Schedule = text.parse().unwrap();
        let q = optimize(&p, &Target::default(), &ScheduleChoice::Given(s)).unwrap();
        check("matmul", &p, &q, text);
        let printed = texpr_ir::print::program(&q);
        assert!(printed.contains("strided(32, 33)"), "{text}\n{printed}");
        assert!(printed.contains("strided(8, 9)"), "{text}\n{printed}");
        // The register tile's read of `b`'s block, and its variables.
        let named = |name: &str| q.vars.iter().position(|v| v.name == name).unwrap();
        let (l, kk, r) = (named("l"), named("kk"), named("r_1"));
        let stage = VecRef::Local(VarId(named("stage_1") as u32));
        let mut read = None;
        q.outputs[0].value.walk(|e| {
            if let ExprKind::Index { vec, index, .. } = &e.kind
                && *vec == stage
            {
                read = Some(index.clone());
            }
        });
        let read = read.expect("a read of the staged block of b");
        for step in [0, 3] {
            for reg in 0..rj {
                let mut words = std::collections::BTreeMap::new();
                for lane in 0..32 {
                    let mut vars = vec![0; q.vars.len()];
                    (vars[l], vars[kk], vars[r]) = (lane, step, reg);
                    let at = texpr_interp::eval_term(&read, &vars).unwrap();
                    assert!(at < (8 * cols / 32 * 33) as i64, "{text}");
                    words.entry(at % 32).or_insert_with(Vec::new).push(at);
                }
                for (bank, ats) in words {
                    assert!(
                        ats.iter().all(|&a| a == ats[0]),
                        "{text}: bank {bank} {ats:?}"
                    );
                }
            }
        }
    }
}
