//! `compile` and `check` as JavaScript calls them: source and options in,
//! one JSON object out, diagnostics included (never an exception for bad
//! source).

use serde_json::{Value as Json, json};
use texpr_ir::Diagnostic;
use texpr_ir::Program;

use crate::diagnostics::report;
use crate::options::{Settings, read};

/// Compiles `source` with `options` (see [`crate::options::read`]):
/// `{ok, target, wgsl, plan, schedule, scheduled, inputs, outputs,
/// diagnostics, rendered}`. `plan` is plan-json (docs/plan-json.md),
/// `schedule` the schedule's text (what `--schedule FILE` reads back),
/// `scheduled` the scheduled program as TExpr, `params`, `inputs` and
/// `outputs` its signature; on errors `ok` is false and the compiled fields
/// are `null`. Warnings come with a successful compile.
pub fn compile(source: &str, options: &Json) -> Json {
    let mut out = skeleton(COMPILED);
    let result = read(options).map_err(|d| vec![d]).and_then(|s| {
        let program = frontend(source, &s)?;
        let compiled = texpr::compile(&program, &s.compile)?;
        Ok((s, program, compiled))
    });
    let diags = match result {
        Ok((s, program, compiled)) => {
            let target = &s.compile.target;
            out["ok"] = json!(true);
            set_signature(&mut out, &program);
            out["target"] = json!(target.name);
            out["wgsl"] = json!(compiled.module.wgsl);
            out["plan"] = texpr_codegen::plan_json::plan_json(&compiled.module, target);
            out["schedule"] = json!(compiled.schedule.to_string());
            out["scheduled"] = json!(texpr_ir::print::program(&compiled.scheduled));
            compiled.warnings
        }
        Err(diags) => diags,
    };
    with_diagnostics(out, source, &diags)
}

/// The front end alone (parse and type-check: what an editor shows while
/// the user types): `{ok, params, inputs, outputs, diagnostics, rendered}`.
pub fn check(source: &str, options: &Json) -> Json {
    let mut out = skeleton(CHECKED);
    let diags = match read(options)
        .map_err(|d| vec![d])
        .and_then(|s| frontend(source, &s))
    {
        Ok(program) => {
            out["ok"] = json!(true);
            set_signature(&mut out, &program);
            Vec::new()
        }
        Err(diags) => diags,
    };
    with_diagnostics(out, source, &diags)
}

/// The fields `compile` gives besides `ok` and the diagnostics.
pub const COMPILED: &[&str] = &[
    "target",
    "wgsl",
    "plan",
    "schedule",
    "scheduled",
    "params",
    "inputs",
    "outputs",
];
/// The fields `check` gives besides `ok` and the diagnostics.
pub const CHECKED: &[&str] = &["params", "inputs", "outputs"];

/// `{ok: false}` with each of `fields` `null`.
fn skeleton(fields: &[&str]) -> Json {
    let mut out = json!({"ok": false});
    for f in fields {
        out[*f] = Json::Null;
    }
    out
}

/// What `compile` (`COMPILED`) or `check` (`CHECKED`) gives when its
/// arguments cannot be read: `ok` false, the fields `null`, `diags`.
pub fn refused(fields: &[&str], source: &str, diags: &[Diagnostic]) -> Json {
    with_diagnostics(skeleton(fields), source, diags)
}

/// Parses and checks `source` with the `-D` overrides of `s`.
pub(crate) fn frontend(source: &str, s: &Settings) -> Result<Program, Vec<Diagnostic>> {
    texpr_syntax::frontend(source, &s.compile.overrides)
}

/// `out` with `diagnostics`, `hidden` (how many more there were) and
/// `rendered` set.
pub(crate) fn with_diagnostics(mut out: Json, source: &str, diags: &[Diagnostic]) -> Json {
    let (list, rendered, hidden) = report(source, diags);
    out["diagnostics"] = list;
    out["hidden"] = json!(hidden);
    out["rendered"] = json!(rendered);
    out
}

/// The program's `params` (`[{name, value}]`, after `-D`), `inputs` and
/// `outputs` (`[{name, elem, len}]` each) set in `out`.
fn set_signature(out: &mut Json, p: &Program) {
    let params = (p.params.iter()).map(|(name, value)| json!({"name": name, "value": value}));
    out["params"] = Json::Array(params.collect());
    let inputs = (p.inputs.iter())
        .map(|i| json!({"name": i.name, "elem": i.ty.elem.name(), "len": i.ty.len}))
        .collect();
    let outputs = (p.outputs.iter())
        .map(|o| json!({"name": o.name, "elem": o.value.ty.elem.name(), "len": o.value.ty.len}))
        .collect();
    out["inputs"] = Json::Array(inputs);
    out["outputs"] = Json::Array(outputs);
}

#[cfg(test)]
mod tests;
