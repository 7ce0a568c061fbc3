//! A loop's costs are compile-time, source-located errors: a run of more
//! dispatches than the runtime holds is E0320 at the loop (never the
//! runtime's malformed plan, E0410), and E0313 names a loop's states and
//! step as the program has them, not the buffers they alternate between.

use texpr::{Options, ScheduleChoice, Target, compile};

fn compile_src(src: &str, target: &str, schedule: ScheduleChoice) -> Vec<texpr_ir::Diagnostic> {
    let p = texpr_syntax::frontend(src, &[]).unwrap_or_else(|d| panic!("{d:?}"));
    let opts = Options {
        target: Target::builtin(target).unwrap(),
        schedule,
        ..Options::default()
    };
    compile(&p, &opts).err().unwrap_or_default()
}

#[test]
fn a_loop_past_the_dispatches_a_run_holds_is_refused_at_compile_time() {
    let long = "input x: f32[4]\noutput y = iterate 2147483647 from x |y| compute 4 |i| y[i] * 0.5";
    let nested = "input x: f32[4]\n\
                  output y = iterate 9000 from x |y| {\n\
                      let z = iterate 9000 from y |z| compute 4 |i| z[i] * 0.5\n\
                      yield compute 4 |i| z[i] + y[i]\n\
                  }";
    // The nested loop: 9000 outer steps of the inner loop's 9000 dispatches
    // and two kernels of the outer step's own.
    for (src, what) in [(long, "2147483647"), (nested, "81018000")] {
        for choice in [ScheduleChoice::Default, ScheduleChoice::Heuristic] {
            let d = compile_src(src, "llvmpipe", choice.clone());
            assert_eq!(d.len(), 1, "{d:#?}");
            assert_eq!(d[0].code, "E0320", "{d:#?}");
            assert!(d[0].message.contains("dispatches"), "{d:#?}");
            // At the outer loop, which dispatches its kernels past the limit.
            let label = &d[0].labels[0];
            assert_eq!(&src[label.span.start as usize..][..7], "iterate", "{d:#?}");
            assert!(label.message.contains(what), "{choice:?}: {d:#?}");
        }
    }
}

#[test]
fn too_many_bindings_name_a_loops_states_and_step() {
    let src = "param N = 4\n\
               input x0: f32[N]\ninput x1: f32[N]\ninput x2: f32[N]\n\
               input x3: f32[N]\ninput x4: f32[N]\ninput x5: f32[N]\n\
               output y = iterate 3 from x0 |s, t| compute N |i| s[i] + x1[i] + x2[i] + x3[i] + x4[i] + x5[i] + f32(t)";
    let d = compile_src(src, "wgpu-default", ScheduleChoice::Default);
    assert_eq!(
        d.iter().map(|d| d.code).collect::<Vec<_>>(),
        ["E0313"],
        "{d:#?}"
    );
    let notes = d[0].notes.join("\n");
    assert!(notes.contains("state `y_state`"), "{notes}");
    assert!(
        notes.contains("the next value of state `y_state`"),
        "{notes}"
    );
    assert!(notes.contains("the step of loop 0"), "{notes}");
    assert!(notes.contains("the next step of loop 0"), "{notes}");
    assert!(
        !notes.contains("step0_") && !notes.contains("_state_a"),
        "{notes}"
    );
}
