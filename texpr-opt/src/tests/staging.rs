//! Staged tiles' blocks in workgroup memory: padded rows (`pad=P`, a
//! `strided` layout) and `vec4` fills (`vec4=on`) mean what the program
//! means, and sizes that do not fit are coded errors.

use super::scheduled as optimize;
use super::strategies::{check, examples};
use crate::schedule::{Schedule, ScheduleChoice};
use texpr_target::Target;

fn matmul() -> texpr_syntax::ir::Program {
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
    texpr_syntax::print::program(&q)
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
