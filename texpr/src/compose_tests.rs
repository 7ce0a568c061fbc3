//! `texpr_ir::compose`: a pipeline of programs as one program that prints
//! as text checking back to it, computes what the stages compute one after
//! another, and compiles into fewer kernels than the stages' sum.

use crate::{Options, compile};
use texpr_interp::{Value, eval, random_inputs};
use texpr_ir::compose::{Result as Out, Source, Stage, compose};
use texpr_ir::{Program, print};
use texpr_syntax::frontend;

fn program(src: &str) -> Program {
    frontend(src, &[]).unwrap_or_else(|d| panic!("{src}: {d:#?}"))
}

/// The first stage has a `let`, a loop and a variable named like the
/// second's input; the second a variable named like the first's input and
/// an item named like the first's `let`.
const STEP1: &str = "param N = 64
input x: f32[N]
let t = compute N |i| x[i] * 2.0
let u = iterate 3 from t |u, k| compute N |j| u[j] + f32(k)
output y = compute N |y0| u[y0] + 1.0
";
const STEP2: &str = "param N = 64
input y: f32[N]
input b: f32[N]
let t = compute N |x| y[x] * y[x]
output z = compute N |i| t[i] - b[i] + (reduce N |k| y[k])
";

fn pipeline(p1: &Program, p2: &Program, results: &[Out]) -> Program {
    let inputs = vec![p1.inputs[0].clone(), p2.inputs[1].clone()];
    let s1 = [Source::Input(0)];
    let s2 = [
        Source::Output {
            stage: 0,
            output: 0,
        },
        Source::Input(1),
    ];
    let stages = [
        Stage {
            program: p1,
            inputs: &s1,
        },
        Stage {
            program: p2,
            inputs: &s2,
        },
    ];
    compose(&inputs, &stages, results).unwrap()
}

fn out(name: &str, stage: usize, output: usize) -> Out {
    Out {
        name: name.into(),
        stage,
        output,
    }
}

/// The stages run one after another in the interpreter: every output of
/// both, by name.
fn staged(p1: &Program, p2: &Program, x: &Value, b: &Value) -> Vec<(String, Value)> {
    let y = eval(p1, std::slice::from_ref(x)).unwrap().remove(0);
    let z = eval(p2, &[y.clone(), b.clone()]).unwrap().remove(0);
    vec![("y".into(), y), ("z".into(), z)]
}

#[test]
fn a_composed_pipeline_prints_checks_back_and_computes_what_its_stages_do() {
    let (p1, p2) = (program(STEP1), program(STEP2));
    let both = pipeline(&p1, &p2, &[out("z", 1, 0)]);
    let text = print::program(&both);
    let again = program(&text);
    assert_eq!(print::program(&again), text, "round trip:\n{text}");
    // The intermediate is a `let` (fusable), the one result an output.
    assert_eq!(again.outputs.len(), 1);
    assert!(again.globals.iter().any(|g| g.name == "y"), "{text}");
    assert!(
        text.contains("let t_2: f32[64] = compute 64 |x_1|"),
        "{text}"
    );
    let ins = random_inputs(&again, 7);
    let want = staged(&p1, &p2, &ins[0], &ins[1]);
    let got = eval(&again, &ins).unwrap();
    assert_eq!(got[0], want[1].1);
}

#[test]
fn an_intermediate_that_is_also_returned_is_kept_once_and_copied_out() {
    let (p1, p2) = (program(STEP1), program(STEP2));
    let both = pipeline(&p1, &p2, &[out("y", 0, 0), out("z", 1, 0)]);
    let again = program(&print::program(&both));
    let names: Vec<&str> = again.outputs.iter().map(|o| o.name.as_str()).collect();
    assert_eq!(names, ["z", "y"]);
    let ins = random_inputs(&again, 3);
    let want = staged(&p1, &p2, &ins[0], &ins[1]);
    let got = eval(&again, &ins).unwrap();
    assert_eq!(got[1], want[0].1);
    assert_eq!(got[0], want[1].1);
}

#[test]
fn composing_fuses_across_the_stages() {
    let a = program("param N = 4096\ninput x: f32[N]\noutput y = compute N |i| x[i] * 2.0 + 1.0\n");
    let b =
        program("param N = 4096\ninput y: f32[N]\noutput z = compute N |i| y[i] * y[i] - 0.5\n");
    let stages = [
        Stage {
            program: &a,
            inputs: &[Source::Input(0)],
        },
        Stage {
            program: &b,
            inputs: &[Source::Output {
                stage: 0,
                output: 0,
            }],
        },
    ];
    let both = compose(&a.inputs, &stages, &[out("z", 1, 0)]).unwrap();
    let c = compile(&program(&print::program(&both)), &Options::default()).unwrap();
    assert_eq!(c.module.kernels.len(), 1, "{}", c.schedule);
}

#[test]
fn malformed_pipelines_are_refused_with_a_reason() {
    let (p1, p2) = (program(STEP1), program(STEP2));
    let inputs = vec![p1.inputs[0].clone(), p2.inputs[1].clone()];
    let refused = |stages: &[Stage<'_>]| compose(&inputs, stages, &[out("z", 1, 0)]).unwrap_err();
    // A stage reading itself or a later stage.
    let own = [
        Source::Output {
            stage: 1,
            output: 0,
        },
        Source::Input(1),
    ];
    let e = refused(&[
        Stage {
            program: &p1,
            inputs: &[Source::Input(0)],
        },
        Stage {
            program: &p2,
            inputs: &own,
        },
    ]);
    assert!(e.contains("not before it"), "{e}");
    // A type that differs from the input it feeds.
    let scalar = program("input x: f32[8]\noutput y = compute 8 |i| x[i]\n");
    let s2 = [
        Source::Output {
            stage: 0,
            output: 0,
        },
        Source::Input(1),
    ];
    let e = refused(&[
        Stage {
            program: &scalar,
            inputs: &[Source::Input(1)],
        },
        Stage {
            program: &p2,
            inputs: &s2,
        },
    ]);
    assert!(
        e.contains("input `x` of stage 0 is f32[8], given f32[64]"),
        "{e}"
    );
    // Too few inputs.
    let e = refused(&[
        Stage {
            program: &p1,
            inputs: &[],
        },
        Stage {
            program: &p2,
            inputs: &s2,
        },
    ]);
    assert!(e.contains("has 1 inputs, given 0"), "{e}");
}
