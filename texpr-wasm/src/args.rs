//! What JavaScript passes, read without trusting it: any value in any
//! argument gives a coded diagnostic, never a trap or an exception.
//!
//! wasm-bindgen's `&str` parameters trap on a number and throw on `null`,
//! so every export takes `JsValue`s and reads them here. Reading calls no
//! code of the caller's outside a `catch` (a getter, a `Proxy` trap): the
//! only calls that may run it, `Object.entries`, are declared `catch`, and
//! a typed array is copied only when `ArrayBuffer.isView` says it is one.
//! Objects are read to a bounded depth and breadth, so a cyclic or huge
//! options object is an error, not a stack overflow.

use half::f16;
use js_sys::{Array, ArrayBuffer, Float32Array, Int32Array, Reflect, Uint16Array, Uint32Array};
use serde_json::{Map, Number, Value as Json};
use texpr_interp::{Data, Value};
use texpr_ir::Diagnostic;
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;

use crate::codes;
use crate::diagnostics::api_error;
use crate::interp::Named;

#[wasm_bindgen]
extern "C" {
    /// `Object.entries(v)`, whose getters and traps may throw.
    #[wasm_bindgen(catch, js_namespace = Object, js_name = entries)]
    fn entries(v: &JsValue) -> Result<Array, JsValue>;
    /// `Array.isArray(v)`, which throws for a revoked `Proxy`.
    #[wasm_bindgen(catch, js_namespace = Array, js_name = isArray)]
    fn is_array_or_throw(v: &JsValue) -> Result<bool, JsValue>;
}

/// `Array.isArray(v)`, `false` where it throws.
fn is_array(v: &JsValue) -> bool {
    is_array_or_throw(v).unwrap_or(false)
}

/// How deep an options object may nest (`{defines: {N: 1}}` is two).
const MAX_DEPTH: usize = 4;
/// How many entries one object or array of the options may have.
const MAX_ENTRIES: usize = 4096;

/// The source: a string (E0707 for anything else).
pub fn source(v: &JsValue) -> Result<String, Diagnostic> {
    v.as_string().ok_or_else(|| {
        api_error(
            codes::SOURCE,
            format!("the source must be a string, not {}", kind(v)),
        )
    })
}

/// The options as JSON (`undefined` and `null` as `null`; keys whose value
/// is `undefined` left out): E0701 for what JSON cannot hold (a function, a
/// symbol, a bigint, a number that is not finite) or too deep or wide.
pub fn options(v: &JsValue) -> Result<Json, Diagnostic> {
    plain(v, "options", 0).map_err(|m| api_error(codes::OPTIONS, m))
}

fn plain(v: &JsValue, at: &str, depth: usize) -> Result<Json, String> {
    if v.is_undefined() || v.is_null() {
        return Ok(Json::Null);
    }
    if let Some(b) = v.as_bool() {
        return Ok(Json::Bool(b));
    }
    if let Some(s) = v.as_string() {
        return Ok(Json::String(s));
    }
    if let Some(x) = v.as_f64() {
        return number(x)
            .ok_or_else(|| format!("`{at}` must be a finite number, not {}", js_number(x)));
    }
    if v.is_function() || v.is_symbol() || v.is_bigint() || !v.is_object() {
        return Err(format!("`{at}` cannot be {}", kind(v)));
    }
    if depth >= MAX_DEPTH {
        return Err(format!(
            "`{at}` nests deeper than the options ever do ({MAX_DEPTH} levels)"
        ));
    }
    let pairs = entries(v).map_err(|e| format!("`{at}` cannot be read: {}", thrown(&e)))?;
    if pairs.length() as usize > MAX_ENTRIES {
        return Err(format!("`{at}` has more than {MAX_ENTRIES} entries"));
    }
    let list_like = is_array(v);
    let mut map = Map::new();
    let mut list = Vec::new();
    for pair in pairs.iter() {
        let pair: Array = pair.unchecked_into();
        let key = pair.get(0).as_string().unwrap_or_default();
        let value = pair.get(1);
        let inner = match list_like {
            true => format!("{at}[{key}]"),
            false if at == "options" => key.clone(),
            false => format!("{at}.{key}"),
        };
        let json = plain(&value, &inner, depth + 1)?;
        match list_like {
            true => list.push(json),
            false if value.is_undefined() => {}
            false => {
                map.insert(key, json);
            }
        }
    }
    Ok(match list_like {
        true => Json::Array(list),
        false => Json::Object(map),
    })
}

/// A finite number as JSON: an integer where it is one exactly.
fn number(x: f64) -> Option<Json> {
    const EXACT: f64 = 9_007_199_254_740_992.0; // 2^53
    if x.fract() == 0.0 && x.abs() <= EXACT {
        return Some(Json::from(x as i64));
    }
    Number::from_f64(x).map(Json::Number)
}

/// A number as JavaScript prints it where Rust differs (`Infinity`).
fn js_number(x: f64) -> String {
    match x {
        f64::INFINITY => "Infinity".into(),
        f64::NEG_INFINITY => "-Infinity".into(),
        _ => x.to_string(),
    }
}

/// Named typed arrays, `{name: TypedArray}` (`code` for anything else),
/// refused (E0705) before anything is copied when they hold more than
/// `max_bytes` together.
pub fn named(
    v: &JsValue,
    what: &str,
    code: &'static str,
    max_bytes: u64,
) -> Result<Named, Vec<Diagnostic>> {
    let not_named = |why: String| {
        vec![api_error(
            code,
            format!("the {what} must be an object of typed arrays by name, {why}"),
        )]
    };
    if !v.is_object() || v.is_function() || is_array(v) || ArrayBuffer::is_view(v) {
        return Err(not_named(format!("not {}", kind(v))));
    }
    let pairs =
        entries(v).map_err(|e| not_named(format!("but reading it threw {}", thrown(&e))))?;
    let mut arrays = Vec::new();
    let mut diags = Vec::new();
    let mut bytes = 0u64;
    for pair in pairs.iter() {
        let pair: Array = pair.unchecked_into();
        let name = pair.get(0).as_string().unwrap_or_default();
        let array = pair.get(1);
        match typed(&array) {
            Some(t) => {
                bytes = bytes.saturating_add(t.bytes());
                arrays.push((name, t));
            }
            None => diags.push(api_error(
                code,
                format!("`{what}.{name}` must be a Float32Array (f32), Int32Array (i32), Uint32Array (u32) or Uint16Array (f16 bits), not {}", kind(&array)),
            )),
        }
    }
    if !diags.is_empty() {
        return Err(diags);
    }
    if bytes > max_bytes {
        return Err(vec![crate::interp::over_budget(
            &format!("bytes of {what} to copy"),
            bytes,
            max_bytes,
            "maxMemory",
        )]);
    }
    Ok(arrays.into_iter().map(|(n, t)| (n, t.value())).collect())
}

/// A typed array of one of the four element types.
enum Typed {
    F32(Float32Array),
    I32(Int32Array),
    U32(Uint32Array),
    F16(Uint16Array),
}

/// `v` as one of the typed arrays the API takes: a view (`ArrayBuffer.isView`,
/// which no object can fake) of one of the four classes.
fn typed(v: &JsValue) -> Option<Typed> {
    if !ArrayBuffer::is_view(v) {
        return None;
    }
    if let Some(a) = v.dyn_ref::<Float32Array>() {
        Some(Typed::F32(a.clone()))
    } else if let Some(a) = v.dyn_ref::<Int32Array>() {
        Some(Typed::I32(a.clone()))
    } else if let Some(a) = v.dyn_ref::<Uint32Array>() {
        Some(Typed::U32(a.clone()))
    } else {
        v.dyn_ref::<Uint16Array>().map(|a| Typed::F16(a.clone()))
    }
}

impl Typed {
    fn bytes(&self) -> u64 {
        u64::from(match self {
            Typed::F32(a) => a.byte_length(),
            Typed::I32(a) => a.byte_length(),
            Typed::U32(a) => a.byte_length(),
            Typed::F16(a) => a.byte_length(),
        })
    }

    /// The elements, copied. An empty array is not read: one whose buffer
    /// was detached (transferred) is empty, and copying from it throws.
    fn value(self) -> Value {
        if self.bytes() == 0 {
            return Value::new(match self {
                Typed::F32(_) => Data::F32(Vec::new()),
                Typed::I32(_) => Data::I32(Vec::new()),
                Typed::U32(_) => Data::U32(Vec::new()),
                Typed::F16(_) => Data::F16(Vec::new()),
            });
        }
        Value::new(match self {
            Typed::F32(a) => Data::F32(a.to_vec()),
            Typed::I32(a) => Data::I32(a.to_vec()),
            Typed::U32(a) => Data::U32(a.to_vec()),
            Typed::F16(a) => Data::F16(a.to_vec().into_iter().map(f16::from_bits).collect()),
        })
    }
}

/// What `v` is, for a message: `a number`, `null`, `an array`, ...
fn kind(v: &JsValue) -> String {
    if v.is_null() {
        return "null".into();
    }
    if is_array(v) {
        return "an array".into();
    }
    if ArrayBuffer::is_view(v) {
        return "a typed array of another kind".into();
    }
    match v.js_typeof().as_string().as_deref() {
        Some("undefined") => "undefined".into(),
        Some(t @ ("number" | "string" | "bigint" | "boolean" | "symbol" | "function")) => {
            format!("a {t}")
        }
        _ => "an object".into(),
    }
}

/// What a caller's code threw, as text (its message where it has one).
fn thrown(e: &JsValue) -> String {
    let message = match e.is_object() {
        true => Reflect::get(e, &JsValue::from_str("message"))
            .ok()
            .and_then(|m| m.as_string()),
        false => None,
    };
    message
        .or_else(|| e.as_string())
        .unwrap_or_else(|| "a value that is not an error".into())
}
