//! The interpreter for JavaScript: random inputs, evaluation, and the
//! comparison of another device's outputs (a page's WebGPU run) with it,
//! each element within its own error bound (`texpr_interp::accuracy`, the
//! rule every GPU test of the workspace applies).
//!
//! Vectors cross as `(name, Value)` pairs; `crate::bindings` turns them into
//! typed arrays and back.

use serde_json::{Value as Json, json};
use texpr_interp::Value;
use texpr_interp::accuracy::{Reference, check_report};
use texpr_ir::Diagnostic;
use texpr_ir::{ElemTy, Program};

use crate::codes;
use crate::compile::frontend;
use crate::diagnostics::api_error;
use crate::options::{Settings, read};

/// Named vectors: a program's inputs or outputs.
pub type Named = Vec<(String, Value)>;

/// The program and settings of a call.
fn program(source: &str, options: &Json) -> Result<(Program, Settings), Vec<Diagnostic>> {
    let s = read(options).map_err(|d| vec![d])?;
    Ok((frontend(source, &s)?, s))
}

/// Deterministic inputs for every input of `source`: `texprc eval --random
/// SEED`'s (the seed is `options.seed`, 1 unless given).
/// Refused (E0705) when they would hold more than `maxMemory` bytes.
pub fn random_inputs(source: &str, options: &Json) -> Result<Named, Vec<Diagnostic>> {
    let (p, s) = program(source, options)?;
    let elements = (p.inputs.iter()).fold(0u64, |n, i| n.saturating_add(i.ty.len));
    let bytes = elements.saturating_mul(ELEMENT_BYTES);
    if bytes > s.max_memory {
        let what = "bytes of random inputs";
        return Err(vec![over_budget(what, bytes, s.max_memory, "maxMemory")]);
    }
    let values = texpr_interp::random_inputs(&p, s.seed);
    Ok(names(p.inputs.iter().map(|i| &i.name), values))
}

/// Every output of `source` on `inputs`, as the interpreter computes it.
/// Refused (E0705) when [`texpr_interp::footprint`] exceeds the budget.
pub fn evaluate(source: &str, inputs: Named, options: &Json) -> Result<Named, Vec<Diagnostic>> {
    let (p, s) = program(source, options)?;
    let inputs = bind(&p, inputs)?;
    budget(&p, &s, Held::Values)?;
    let outputs = texpr_interp::eval(&p, &inputs).map_err(eval_error)?;
    Ok(names(p.outputs.iter().map(|o| &o.name), outputs))
}

/// `outputs` (computed elsewhere from `inputs`) against the interpreter:
/// `{ok, complete, outputs: [{name, ok, compared, unspecified, unbounded,
/// largest_diff, mismatch}]}`. `ok`: no element beyond its tolerance;
/// `complete`: every element compared (none unspecified or without a
/// finite bound); `mismatch`: `null`, or the worst element `{index, got,
/// want, diff, tolerance, count, text}`. The bounds allow for the
/// optimizer's rounding rewrite of the program, as every GPU test's do.
pub fn compare(
    source: &str,
    inputs: Named,
    outputs: Named,
    options: &Json,
) -> Result<Json, Vec<Diagnostic>> {
    let (p, s) = program(source, options)?;
    let inputs = bind(&p, inputs)?;
    let got = bind_outputs(&p, outputs)?;
    budget(&p, &s, Held::Bounded)?;
    let want = reference(&p, &inputs).map_err(eval_error)?;
    let reports: Vec<Json> = (p.outputs.iter().zip(check_report(&p, &got, &want)))
        .map(|(o, r)| match r {
            Ok(c) => json!({
                "name": o.name, "ok": true, "compared": c.compared,
                "unspecified": c.unspecified, "unbounded": c.unbounded,
                "largest_diff": c.largest_diff, "mismatch": null,
            }),
            Err(m) => json!({
                "name": o.name, "ok": false, "compared": null, "unspecified": null,
                "unbounded": null, "largest_diff": null,
                "mismatch": {
                    "index": m.index, "got": m.got, "want": m.want, "diff": finite(m.diff),
                    "tolerance": m.tolerance, "count": m.count, "text": m.to_string(),
                },
            }),
        })
        .collect();
    let ok = reports.iter().all(|r| r["ok"] == true);
    let complete = ok && (reports.iter()).all(|r| r["unspecified"] == 0 && r["unbounded"] == 0);
    Ok(json!({"ok": ok, "complete": complete, "outputs": reports}))
}

/// The reference a device running the optimizer's rewrite must meet.
fn reference(p: &Program, inputs: &[Value]) -> Result<Vec<Reference>, texpr_interp::EvalError> {
    match texpr_opt::pipeline::rounding_rewrite(p) {
        Some(q) => texpr_interp::accuracy::reference_rewritten(p, &q, inputs),
        None => texpr_interp::accuracy::reference(p, inputs),
    }
}

/// JSON has no infinity: a difference that is not finite is `null`.
fn finite(x: f64) -> Json {
    if x.is_finite() { json!(x) } else { Json::Null }
}

fn names<'a>(names: impl Iterator<Item = &'a String>, values: Vec<Value>) -> Named {
    names.cloned().zip(values).collect()
}

fn eval_error(e: texpr_interp::EvalError) -> Vec<Diagnostic> {
    vec![api_error(
        codes::EVAL,
        format!("the interpreter rejected the program: {e}"),
    )]
}

/// The bytes [`texpr_interp::footprint`] counts for one element.
const ELEMENT_BYTES: u64 = 4;

/// How evaluating `p` is held.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Held {
    /// Values only (`evaluate`).
    Values,
    /// Each value with its error bound (`compare`'s reference).
    Bounded,
}

/// E0705 when evaluating `p` would pass the budget. A comparison holds an
/// error bound beside every element, so its bytes are the footprint's
/// elements times the size of both.
fn budget(p: &Program, s: &Settings, held: Held) -> Result<(), Vec<Diagnostic>> {
    let f = texpr_interp::footprint(p);
    let bytes = match held {
        Held::Values => f.bytes,
        Held::Bounded => {
            let each = ELEMENT_BYTES + size_of::<texpr_interp::accuracy::Bound>() as u64;
            (f.bytes / ELEMENT_BYTES).saturating_mul(each)
        }
    };
    if f.ops > s.max_ops {
        let what = "element operations";
        return Err(vec![over_budget(what, f.ops, s.max_ops, "maxOps")]);
    }
    if bytes > s.max_memory {
        let what = "bytes of vectors";
        return Err(vec![over_budget(what, bytes, s.max_memory, "maxMemory")]);
    }
    Ok(())
}

/// E0705: `n` of `what` over the budget `max` that option `key` sets.
pub(crate) fn over_budget(what: &str, n: u64, max: u64, key: &str) -> Diagnostic {
    api_error(
        codes::EVAL_BUDGET,
        format!("the call needs {n} {what}, over the budget of {max}"),
    )
    .with_note(format!(
        "a larger `{key}` option runs it anyway (at most {})",
        match key {
            "maxMemory" => crate::options::MAX_MEMORY,
            _ => crate::options::MAX_SAFE_INTEGER,
        }
    ))
}

/// `given`, in the order of `p`'s inputs, checked (E0703).
fn bind(p: &Program, given: Named) -> Result<Vec<Value>, Vec<Diagnostic>> {
    let wanted: Vec<(&str, ElemTy, u64)> = (p.inputs.iter())
        .map(|i| (i.name.as_str(), i.ty.elem, i.ty.len))
        .collect();
    match_names(&wanted, given, "input", codes::INPUTS)
}

/// Outputs to compare, in the order of `p`'s outputs, checked (E0706).
fn bind_outputs(p: &Program, given: Named) -> Result<Vec<Value>, Vec<Diagnostic>> {
    let wanted: Vec<(&str, ElemTy, u64)> = (p.outputs.iter())
        .map(|o| (o.name.as_str(), o.value.ty.elem, o.value.ty.len))
        .collect();
    match_names(&wanted, given, "output", codes::OUTPUTS)
}

/// One value per `wanted` name, of its element type and length: every
/// problem is one diagnostic (a name missing, unknown or given twice, a
/// wrong type or length).
fn match_names(
    wanted: &[(&str, ElemTy, u64)],
    mut given: Named,
    what: &str,
    code: &'static str,
) -> Result<Vec<Value>, Vec<Diagnostic>> {
    let mut diags = Vec::new();
    let mut values = Vec::new();
    for &(name, elem, len) in wanted {
        let Some(at) = given.iter().position(|(n, _)| n == name) else {
            diags.push(api_error(
                code,
                format!("no value for the {what} `{name}` ({}[{len}])", elem.name()),
            ));
            continue;
        };
        let (_, v) = given.remove(at);
        if v.elem() != elem || v.len() as u64 != len {
            diags.push(api_error(
                code,
                format!(
                    "the {what} `{name}` is {}[{len}], but a {}[{}] was given",
                    elem.name(),
                    v.elem().name(),
                    v.len()
                ),
            ));
        }
        values.push(v);
    }
    for (name, _) in &given {
        let known: Vec<&str> = wanted.iter().map(|w| w.0).collect();
        let again = known.contains(&name.as_str());
        diags.push(api_error(
            code,
            match again {
                true => format!("the {what} `{name}` is given twice"),
                false => format!(
                    "the program has no {what} `{name}` (its {what}s: {})",
                    known.join(", ")
                ),
            },
        ));
    }
    match diags.is_empty() {
        true => Ok(values),
        false => Err(diags),
    }
}

#[cfg(test)]
mod tests;
