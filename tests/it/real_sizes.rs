//! The oracle at the sizes people run (issue 41): the factorizations and
//! the solve at N = 256 and the stencils over 1,000 steps match the
//! interpreter on the GPU with every element compared by its rigorous
//! bound, under the default schedule and the heuristic's, against one
//! reference each (`tools/check-ratio` times the same checks through
//! `texprc`).

use texpr::ScheduleChoice;
use texpr_interp::accuracy::check_report;
use texpr_syntax::frontend;
use texpr_tests::golden::repo_root;
use texpr_tests::gpu::{gpu, reference, run_program_with};

const CASES: &[(&str, &[(&str, i64)])] = &[
    ("lu", &[("N", 256)]),
    ("cholesky", &[("N", 256)]),
    ("ludcmp", &[("N", 256)]),
    ("trisolv", &[("N", 256)]),
    ("jacobi2d", &[("N", 64), ("T", 1000)]),
    ("heat3d", &[("N", 16), ("T", 1000)]),
];

#[test]
fn factorizations_and_long_stencils_match_at_real_sizes() {
    let Some(gpu) = gpu() else { return };
    for &(name, defines) in CASES {
        let src = std::fs::read_to_string(repo_root().join(format!("examples/{name}.te"))).unwrap();
        let d: Vec<(String, i64)> = defines.iter().map(|&(n, v)| (n.to_string(), v)).collect();
        let p = frontend(&src, &d).unwrap_or_else(|e| panic!("{name}: {e:?}"));
        let inputs = texpr_interp::random_inputs(&p, 1);
        let want = reference(&p, &inputs).unwrap_or_else(|e| panic!("{name}: {e:?}"));
        for choice in [ScheduleChoice::Default, ScheduleChoice::Heuristic] {
            let (got, _) = run_program_with(gpu, &p, &inputs, &choice)
                .unwrap_or_else(|e| panic!("{name} {defines:?} ({choice:?}): {e}"));
            for (o, checked) in p.outputs.iter().zip(check_report(&p, &got, &want)) {
                match checked {
                    Ok(c) => assert!(
                        c.all_compared(),
                        "{name} {defines:?} ({choice:?}) {}: {c:?}",
                        o.name
                    ),
                    Err(m) => panic!("{name} {defines:?} ({choice:?}) {}: {m:?}", o.name),
                }
            }
        }
    }
}
