//! The functions JavaScript imports (wasm-bindgen): each takes the source,
//! plain objects and typed arrays, and returns a plain object that carries
//! its diagnostics; none throws for bad source or bad arguments.
//!
//! Vectors cross as typed arrays by element type: `f32` a `Float32Array`,
//! `i32` an `Int32Array`, `u32` a `Uint32Array`, `f16` a `Uint16Array` of
//! binary16 bits (exact, and what a WebGPU buffer of the plan holds in the
//! low half of each word).

use half::f16;
use js_sys::{Array, Float32Array, Int32Array, Object, Reflect, Uint16Array, Uint32Array};
use serde::Serialize;
use serde_json::{Value as Json, json};
use texpr_interp::{Data, Value};
use texpr_syntax::Diagnostic;
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;

use crate::codes;
use crate::compile::with_diagnostics;
use crate::diagnostics::api_error;
use crate::interp::Named;

/// Runs when the module is instantiated: a panic's message goes to
/// `console.error` (a panic is a compiler bug; every error in what a caller
/// passes comes back as a diagnostic).
#[cfg(target_arch = "wasm32")]
#[wasm_bindgen(start)]
pub fn start() {
    console_error_panic_hook::set_once();
}

/// Compiles TExpr source: `{ok, target, wgsl, plan, schedule, scheduled,
/// inputs, outputs, diagnostics, rendered}` ([`crate::compile::compile`]).
#[wasm_bindgen]
pub fn compile(source: &str, options: JsValue) -> JsValue {
    let out = match options_json(options) {
        Ok(o) => crate::compile::compile(source, &o),
        Err(d) => with_diagnostics(json!({"ok": false}), source, &[d]),
    };
    to_js(&out)
}

/// Parses and type-checks only: `{ok, inputs, outputs, diagnostics,
/// rendered}` ([`crate::compile::check`]).
#[wasm_bindgen]
pub fn check(source: &str, options: JsValue) -> JsValue {
    let out = match options_json(options) {
        Ok(o) => crate::compile::check(source, &o),
        Err(d) => with_diagnostics(json!({"ok": false}), source, &[d]),
    };
    to_js(&out)
}

/// `{ok, inputs: {name: TypedArray}, diagnostics, rendered}`: the
/// interpreter's deterministic random inputs (`options.seed`).
#[wasm_bindgen(js_name = randomInputs)]
pub fn random_inputs(source: &str, options: JsValue) -> JsValue {
    let got = options_json(options)
        .map_err(|d| vec![d])
        .and_then(|o| crate::interp::random_inputs(source, &o));
    named_result(source, "inputs", got)
}

/// `{ok, outputs: {name: TypedArray}, diagnostics, rendered}`: what the
/// interpreter computes from `inputs` (`{name: TypedArray}`).
#[wasm_bindgen]
pub fn evaluate(source: &str, inputs: JsValue, options: JsValue) -> JsValue {
    let got = options_json(options).map_err(|d| vec![d]).and_then(|o| {
        let inputs = named_from_js(&inputs, "inputs", codes::INPUTS)?;
        crate::interp::evaluate(source, inputs, &o)
    });
    named_result(source, "outputs", got)
}

/// `outputs` computed elsewhere from `inputs`, against the interpreter,
/// each element within its own error bound: `{ok, complete, outputs:
/// [{name, ok, compared, ..., mismatch}], diagnostics, rendered}`
/// ([`crate::interp::compare`]).
#[wasm_bindgen]
pub fn compare(source: &str, inputs: JsValue, outputs: JsValue, options: JsValue) -> JsValue {
    let got = options_json(options).map_err(|d| vec![d]).and_then(|o| {
        let inputs = named_from_js(&inputs, "inputs", codes::INPUTS)?;
        let outputs = named_from_js(&outputs, "outputs", codes::OUTPUTS)?;
        crate::interp::compare(source, inputs, outputs, &o)
    });
    let out = match got {
        Ok(report) => with_diagnostics(report, source, &[]),
        Err(diags) => with_diagnostics(
            json!({"ok": false, "complete": false, "outputs": null}),
            source,
            &diags,
        ),
    };
    to_js(&out)
}

/// The built-in targets' names (`options.target` also takes a target
/// description's text).
#[wasm_bindgen]
pub fn targets() -> Vec<String> {
    texpr::Target::BUILTINS
        .iter()
        .map(|s| s.to_string())
        .collect()
}

/// The compiler's version (the workspace's).
#[wasm_bindgen]
pub fn version() -> String {
    env!("CARGO_PKG_VERSION").to_string()
}

/// A JSON value as a plain JavaScript value (objects as objects, not Maps).
fn to_js(v: &Json) -> JsValue {
    v.serialize(&serde_wasm_bindgen::Serializer::json_compatible())
        .unwrap_or(JsValue::NULL)
}

/// The options object as JSON (`undefined` and `null` as `null`).
fn options_json(v: JsValue) -> Result<Json, Diagnostic> {
    if v.is_undefined() || v.is_null() {
        return Ok(Json::Null);
    }
    serde_wasm_bindgen::from_value(v).map_err(|e| {
        api_error(
            codes::OPTIONS,
            format!("options that are not plain data: {e}"),
        )
    })
}

/// `{ok, KEY: {name: TypedArray} | null, diagnostics, rendered}`.
fn named_result(source: &str, key: &str, got: Result<Named, Vec<Diagnostic>>) -> JsValue {
    let (named, diags) = match got {
        Ok(n) => (Some(n), Vec::new()),
        Err(d) => (None, d),
    };
    let out = to_js(&with_diagnostics(
        json!({"ok": named.is_some()}),
        source,
        &diags,
    ));
    let arrays = named.map_or(JsValue::NULL, |n| named_to_js(&n));
    let _ = Reflect::set(&out, &JsValue::from_str(key), &arrays);
    out
}

/// `{name: TypedArray}` of `named`.
fn named_to_js(named: &Named) -> JsValue {
    let obj = Object::new();
    for (name, v) in named {
        let array: JsValue = match &v.data {
            Data::F32(x) => Float32Array::from(&x[..]).into(),
            Data::F16(x) => {
                Uint16Array::from(&x.iter().map(|h| h.to_bits()).collect::<Vec<_>>()[..]).into()
            }
            Data::I32(x) => Int32Array::from(&x[..]).into(),
            Data::U32(x) => Uint32Array::from(&x[..]).into(),
            Data::Bool(x) => {
                Uint32Array::from(&x.iter().map(|&b| b as u32).collect::<Vec<_>>()[..]).into()
            }
        };
        let _ = Reflect::set(&obj, &JsValue::from_str(name), &array);
    }
    obj.into()
}

/// `{name: TypedArray}` as named vectors (E0703 / E0706 for anything else).
fn named_from_js(v: &JsValue, what: &str, code: &'static str) -> Result<Named, Vec<Diagnostic>> {
    let Some(obj) = v
        .dyn_ref::<Object>()
        .filter(|_| !v.is_function() && !Array::is_array(v))
    else {
        return Err(vec![api_error(
            code,
            format!("the {what} must be an object of typed arrays by name"),
        )]);
    };
    let mut named = Vec::new();
    let mut diags = Vec::new();
    for entry in Object::entries(obj).iter() {
        let pair: Array = entry.unchecked_into();
        let name = pair.get(0).as_string().unwrap_or_default();
        let array = pair.get(1);
        let data = if let Some(a) = array.dyn_ref::<Float32Array>() {
            Data::F32(a.to_vec())
        } else if let Some(a) = array.dyn_ref::<Int32Array>() {
            Data::I32(a.to_vec())
        } else if let Some(a) = array.dyn_ref::<Uint32Array>() {
            Data::U32(a.to_vec())
        } else if let Some(a) = array.dyn_ref::<Uint16Array>() {
            Data::F16(a.to_vec().into_iter().map(f16::from_bits).collect())
        } else {
            diags.push(api_error(
                code,
                format!("`{what}.{name}` must be a Float32Array (f32), Int32Array (i32), Uint32Array (u32) or Uint16Array (f16 bits)"),
            ));
            continue;
        };
        named.push((name, Value::new(data)));
    }
    match diags.is_empty() {
        true => Ok(named),
        false => Err(diags),
    }
}
