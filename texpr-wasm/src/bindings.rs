//! The functions JavaScript imports (wasm-bindgen): each takes the source,
//! plain objects and typed arrays, and returns a plain object that carries
//! its diagnostics; none traps or throws, whatever its arguments are
//! (each is a `JsValue`, read by [`crate::args`]).
//!
//! Vectors cross as typed arrays by element type: `f32` a `Float32Array`,
//! `i32` an `Int32Array`, `u32` a `Uint32Array`, `f16` a `Uint16Array` of
//! binary16 bits (exact, and what a WebGPU buffer of the plan holds in the
//! low half of each word).

use js_sys::{Float32Array, Int32Array, Object, Reflect, Uint16Array, Uint32Array};
use serde::Serialize;
use serde_json::{Value as Json, json};
use texpr_interp::Data;
use texpr_ir::Diagnostic;
use wasm_bindgen::prelude::*;

use crate::args;
use crate::codes;
use crate::compile::with_diagnostics;
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
pub fn compile(source: JsValue, options: JsValue) -> JsValue {
    to_js(&match source_and_options(&source, &options) {
        Ok((src, o)) => crate::compile::compile(&src, &o),
        Err((src, d)) => crate::compile::refused(crate::compile::COMPILED, &src, &d),
    })
}

/// Parses and type-checks only: `{ok, inputs, outputs, diagnostics,
/// rendered}` ([`crate::compile::check`]).
#[wasm_bindgen]
pub fn check(source: JsValue, options: JsValue) -> JsValue {
    to_js(&match source_and_options(&source, &options) {
        Ok((src, o)) => crate::compile::check(&src, &o),
        Err((src, d)) => crate::compile::refused(crate::compile::CHECKED, &src, &d),
    })
}

/// `{ok, inputs: {name: TypedArray}, diagnostics, rendered}`: the
/// interpreter's deterministic random inputs (`options.seed`), within
/// `options.maxMemory`.
#[wasm_bindgen(js_name = randomInputs)]
pub fn random_inputs(source: JsValue, options: JsValue) -> JsValue {
    match source_and_options(&source, &options) {
        Ok((src, o)) => named_result(&src, "inputs", crate::interp::random_inputs(&src, &o)),
        Err((src, d)) => named_result(&src, "inputs", Err(d)),
    }
}

/// `{ok, outputs: {name: TypedArray}, diagnostics, rendered}`: what the
/// interpreter computes from `inputs` (`{name: TypedArray}`).
#[wasm_bindgen]
pub fn evaluate(source: JsValue, inputs: JsValue, options: JsValue) -> JsValue {
    let got = source_and_options(&source, &options).and_then(|(src, o)| {
        let budget = max_memory(&o).map_err(|d| (src.clone(), d))?;
        let inputs = args::named(&inputs, "inputs", codes::INPUTS, budget);
        let got = inputs.and_then(|i| crate::interp::evaluate(&src, i, &o));
        Ok((src, got))
    });
    match got {
        Ok((src, got)) => named_result(&src, "outputs", got),
        Err((src, d)) => named_result(&src, "outputs", Err(d)),
    }
}

/// `outputs` computed elsewhere from `inputs`, against the interpreter,
/// each element within its own error bound: `{ok, complete, outputs:
/// [{name, ok, compared, ..., mismatch}], diagnostics, rendered}`
/// ([`crate::interp::compare`]).
#[wasm_bindgen]
pub fn compare(source: JsValue, inputs: JsValue, outputs: JsValue, options: JsValue) -> JsValue {
    let got = source_and_options(&source, &options).and_then(|(src, o)| {
        let budget = max_memory(&o).map_err(|d| (src.clone(), d))?;
        let got = args::named(&inputs, "inputs", codes::INPUTS, budget).and_then(|i| {
            let outputs = args::named(&outputs, "outputs", codes::OUTPUTS, budget)?;
            crate::interp::compare(&src, i, outputs, &o)
        });
        Ok((src, got))
    });
    let (src, got) = match got {
        Ok(pair) => pair,
        Err((src, d)) => (src, Err(d)),
    };
    to_js(&match got {
        Ok(report) => with_diagnostics(report, &src, &[]),
        Err(diags) => with_diagnostics(
            json!({"ok": false, "complete": false, "outputs": null}),
            &src,
            &diags,
        ),
    })
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

/// The source and the options, read (E0707, E0701); on an error, the
/// source (empty when it is not a string) and the diagnostic.
fn source_and_options(
    source: &JsValue,
    options: &JsValue,
) -> Result<(String, Json), (String, Vec<Diagnostic>)> {
    let src = args::source(source).map_err(|d| (String::new(), vec![d]))?;
    match args::options(options) {
        Ok(o) => Ok((src, o)),
        Err(d) => Err((src, vec![d])),
    }
}

/// The options' memory budget (before any typed array is copied).
fn max_memory(options: &Json) -> Result<u64, Vec<Diagnostic>> {
    crate::options::read(options)
        .map(|s| s.max_memory)
        .map_err(|d| vec![d])
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
