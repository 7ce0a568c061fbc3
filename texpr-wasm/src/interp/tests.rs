use super::*;
use serde_json::json;
use texpr_interp::Data;

const SAXPY: &str = "param N = 8\ninput a: f32[1]\ninput x: f32[N]\ninput y: f32[N]\noutput out: f32[N] = compute N |i| a[0] * x[i] + y[i]";

fn codes_of(diags: &[Diagnostic]) -> Vec<&str> {
    diags.iter().map(|d| d.code).collect()
}

#[test]
fn random_inputs_are_the_clis_and_follow_defines() {
    let got = random_inputs(SAXPY, &json!({"defines": {"N": 16}, "seed": 3})).unwrap();
    let names: Vec<&str> = got.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["a", "x", "y"]);
    assert_eq!(got[1].1.len(), 16);
    let p = texpr_syntax::frontend(SAXPY, &[("N".into(), 16)]).unwrap();
    let cli: Vec<Value> = texpr_interp::random_inputs(&p, 3);
    assert_eq!(got.into_iter().map(|(_, v)| v).collect::<Vec<_>>(), cli);
}

#[test]
fn evaluate_computes_the_outputs() {
    let inputs = vec![
        ("y".to_string(), Value::f32(vec![1.0; 8])),
        ("a".to_string(), Value::f32(vec![2.0])),
        (
            "x".to_string(),
            Value::f32((0..8).map(|i| i as f32).collect()),
        ),
    ];
    let out = evaluate(SAXPY, inputs, &Json::Null).unwrap();
    assert_eq!(out[0].0, "out");
    assert_eq!(
        out[0].1.data,
        Data::F32((0..8).map(|i| 2.0 * i as f32 + 1.0).collect())
    );
}

#[test]
fn inputs_that_do_not_fit_are_coded() {
    let inputs = vec![
        ("a".to_string(), Value::i32(vec![2])),
        ("x".to_string(), Value::f32(vec![0.0; 7])),
        ("z".to_string(), Value::f32(vec![0.0; 8])),
    ];
    let diags = evaluate(SAXPY, inputs, &Json::Null).unwrap_err();
    // a: wrong type; x: wrong length; y: missing; z: unknown.
    assert_eq!(codes_of(&diags), [codes::INPUTS; 4]);
    let text: Vec<String> = diags.iter().map(|d| d.message.clone()).collect();
    assert!(text[2].contains("no value for the input `y`"), "{text:?}");
    assert!(text[3].contains("no input `z`"), "{text:?}");
}

#[test]
fn source_errors_and_budgets_are_diagnostics() {
    let diags = evaluate("output y = compute 4 |i| q[i]", Vec::new(), &Json::Null).unwrap_err();
    assert!(diags.iter().all(|d| d.is_error()) && !diags.is_empty());
    let inputs = random_inputs(SAXPY, &Json::Null).unwrap();
    let diags = evaluate(SAXPY, inputs, &json!({"maxOps": 3})).unwrap_err();
    assert_eq!(codes_of(&diags), [codes::EVAL_BUDGET]);
}

#[test]
fn compare_passes_the_interpreters_outputs_and_names_a_wrong_element() {
    let inputs = random_inputs(SAXPY, &Json::Null).unwrap();
    let outputs = evaluate(SAXPY, inputs.clone(), &Json::Null).unwrap();
    let report = compare(SAXPY, inputs.clone(), outputs.clone(), &Json::Null).unwrap();
    assert_eq!(
        (report["ok"].clone(), report["complete"].clone()),
        (json!(true), json!(true))
    );
    assert_eq!(report["outputs"][0]["compared"], 8);

    let mut wrong = outputs;
    if let Data::F32(v) = &mut wrong[0].1.data {
        v[5] += 0.5;
    }
    let report = compare(SAXPY, inputs, wrong, &Json::Null).unwrap();
    assert_eq!(report["ok"], false);
    let m = &report["outputs"][0]["mismatch"];
    assert_eq!(
        (m["index"].as_u64(), m["count"].as_u64()),
        (Some(5), Some(1))
    );
}

#[test]
fn compare_codes_outputs_that_do_not_fit() {
    let inputs = random_inputs(SAXPY, &Json::Null).unwrap();
    let diags = compare(
        SAXPY,
        inputs,
        vec![("out".into(), Value::u32(vec![0; 8]))],
        &Json::Null,
    )
    .unwrap_err();
    assert_eq!(codes_of(&diags), [codes::OUTPUTS]);
}

#[test]
fn random_inputs_over_the_memory_budget_are_refused_before_they_are_made() {
    // 2^29 f32 elements: 2 GiB, more than a 32-bit memory can give a vector.
    let huge = "input x: f32[536870912]\noutput y = compute 1 |i| x[i]";
    let diags = random_inputs(huge, &Json::Null).unwrap_err();
    assert_eq!(codes_of(&diags), [codes::EVAL_BUDGET]);
    assert!(diags[0].message.contains("2147483648 bytes"), "{diags:?}");
    // N = 8: a, x and y hold 17 elements, 68 bytes.
    assert!(random_inputs(SAXPY, &json!({"maxMemory": 68})).is_ok());
    let diags = random_inputs(SAXPY, &json!({"maxMemory": 67})).unwrap_err();
    assert_eq!(codes_of(&diags), [codes::EVAL_BUDGET]);
}

#[test]
fn a_comparison_is_budgeted_with_its_error_bounds() {
    let p = texpr_syntax::frontend(SAXPY, &[]).unwrap();
    let bytes = texpr_interp::footprint(&p).bytes;
    let budget = json!({ "maxMemory": bytes });
    let inputs = random_inputs(SAXPY, &Json::Null).unwrap();
    let outputs = evaluate(SAXPY, inputs.clone(), &budget).unwrap();
    // The same budget holds the values but not a bound beside each.
    let diags = compare(SAXPY, inputs.clone(), outputs.clone(), &budget).unwrap_err();
    assert_eq!(codes_of(&diags), [codes::EVAL_BUDGET]);
    assert!(diags[0].notes[0].contains("`maxMemory`"), "{diags:?}");
    let each = 4 + size_of::<texpr_interp::accuracy::Bound>() as u64;
    let roomy = json!({ "maxMemory": bytes / 4 * each });
    assert_eq!(compare(SAXPY, inputs, outputs, &roomy).unwrap()["ok"], true);
}
