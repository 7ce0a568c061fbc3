use super::*;
use serde_json::json;

const SRC: &str = "param N = 1000\ninput x: f32[N]\noutput y = compute N |i| exp(x[i]) * 2.0";

#[test]
fn compiles_to_wgsl_plan_and_schedule() {
    let out = compile(SRC, &json!({"defines": {"N": 4096}}));
    assert_eq!(out["ok"], true, "{}", out["rendered"]);
    assert_eq!(out["target"], "webgpu");
    assert!(out["wgsl"].as_str().unwrap().contains("@compute"));
    assert_eq!(out["plan"]["format"], "texpr-plan");
    assert_eq!(out["plan"]["buffers"][0]["len"], 4096);
    assert_eq!(
        out["inputs"],
        json!([{"name": "x", "elem": "f32", "len": 4096}])
    );
    assert!(!out["schedule"].as_str().unwrap().is_empty());
    // The scheduled program is TExpr that checks back.
    assert!(texpr_syntax::frontend(out["scheduled"].as_str().unwrap(), &[]).is_ok());
    assert_eq!(out["diagnostics"], json!([]));
}

#[test]
fn the_plan_is_the_libraries() {
    let opts = texpr::Options {
        target: texpr::Target::builtin("llvmpipe").unwrap(),
        schedule: texpr::ScheduleChoice::Default,
        ..texpr::Options::default()
    };
    let lib = texpr::compile_source(SRC, &opts).unwrap();
    let out = compile(SRC, &json!({"target": "llvmpipe", "schedule": "default"}));
    assert_eq!(
        out["plan"],
        texpr_codegen::plan_json::plan_json(&lib.module, &opts.target)
    );
    assert_eq!(out["wgsl"], json!(lib.module.wgsl));
    assert_eq!(out["schedule"], json!(lib.schedule.to_string()));
}

#[test]
fn a_given_schedule_is_followed() {
    let heuristic = compile(SRC, &Json::Null);
    let given = compile(
        SRC,
        &json!({"schedule": "y: coarsen group=64 per_thread=8"}),
    );
    assert_eq!(given["ok"], true, "{}", given["rendered"]);
    assert_eq!(
        given["schedule"].as_str().unwrap().trim(),
        "y: coarsen group=64 per_thread=8"
    );
    assert_ne!(given["plan"]["kernels"], heuristic["plan"]["kernels"]);
}

#[test]
fn errors_come_as_objects_and_as_the_clis_text() {
    let src = "input x: f32[4]\noutput y = compute 4 |i| x[i] + q";
    let out = compile(src, &Json::Null);
    assert_eq!(out["ok"], false);
    assert_eq!(out["wgsl"], Json::Null);
    let d = &out["diagnostics"][0];
    assert_eq!(d["severity"], "error");
    assert_eq!(d["labels"][0]["line"], 2);
    let rendered = out["rendered"].as_str().unwrap();
    let cli = texpr_ir::diag::render(
        crate::diagnostics::SOURCE_NAME,
        src,
        &texpr_syntax::frontend(src, &[]).unwrap_err(),
    );
    assert_eq!(rendered, cli);
    assert!(rendered.contains(&format!("error[{}]", d["code"].as_str().unwrap())));
    assert_eq!(check(src, &Json::Null)["diagnostics"], out["diagnostics"]);
}

#[test]
fn bad_options_and_limits_are_diagnostics_not_panics() {
    let out = compile(SRC, &json!({"defines": {"N": 1.5}}));
    assert_eq!(out["diagnostics"][0]["code"], crate::codes::OPTIONS);
    // A define over what an i32 index holds.
    let out = compile(SRC, &json!({"defines": {"N": 1_i64 << 40}}));
    assert_eq!(out["ok"], false);
    assert!(
        out["diagnostics"][0]["code"]
            .as_str()
            .unwrap()
            .starts_with("E0")
    );
    let out = check("", &Json::Null);
    assert_eq!(out["ok"], false);
}

#[test]
fn check_gives_the_signature() {
    let out = check(SRC, &json!({"defines": {"N": 8}}));
    assert_eq!(out["ok"], true);
    assert_eq!(
        out["outputs"],
        json!([{"name": "y", "elem": "f32", "len": 8}])
    );
    assert_eq!(out["params"], json!([{"name": "N", "value": 8}]));
}
