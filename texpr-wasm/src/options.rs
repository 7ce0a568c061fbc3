//! The options object every function takes, read from JSON:
//! `{defines, target, schedule, seed, maxOps, maxMemory}` (each optional).

use serde_json::Value as Json;
use texpr::{Options, Schedule, ScheduleChoice, Target};
use texpr_ir::Diagnostic;

use crate::codes;
use crate::diagnostics::api_error;

/// The target a page compiles for unless told: WebGPU's defaults.
pub const DEFAULT_TARGET: &str = "webgpu";
/// The evaluation budgets unless told: element operations, and bytes held.
pub const DEFAULT_MAX_OPS: u64 = 200_000_000;
pub const DEFAULT_MAX_MEMORY: u64 = 256 << 20;
/// The largest `maxMemory`: half of what a 32-bit WebAssembly memory
/// addresses (the rest holds the compiler and the copies that cross to
/// JavaScript), and the most one vector there may hold.
pub const MAX_MEMORY: u64 = 2 << 30;
/// The largest integer JavaScript's numbers hold exactly (2^53 - 1): the
/// most `seed` and `maxOps` may be.
pub const MAX_SAFE_INTEGER: u64 = (1 << 53) - 1;

/// Every option, read and checked.
#[derive(Clone, Debug)]
pub struct Settings {
    /// Target, `-D` overrides and schedule, as `texpr::compile` takes them.
    pub compile: Options,
    /// The seed of `randomInputs` (1 unless given).
    pub seed: u64,
    pub max_ops: u64,
    pub max_memory: u64,
}

const KEYS: [&str; 6] = [
    "defines",
    "target",
    "schedule",
    "seed",
    "maxOps",
    "maxMemory",
];

/// Reads `options` (`null` or an object): `defines` an object of integers
/// (`{N: 4096}`), `target` a built-in name or a target description's text
/// (`key = value` lines, docs/targets), `schedule` `"heuristic"` (the
/// default), `"default"` or a schedule's text. Errors are coded: E0701 for
/// the object's shape, E0702 for a schedule, E0601-E0605 for a target.
pub fn read(options: &Json) -> Result<Settings, Diagnostic> {
    let empty = serde_json::Map::new();
    let map = match options {
        Json::Null => &empty,
        Json::Object(m) => m,
        other => return Err(shape(format!("options must be an object, not {other}"))),
    };
    if let Some(k) = map.keys().find(|k| !KEYS.contains(&k.as_str())) {
        return Err(shape(format!(
            "unknown option `{k}` (the options: {})",
            KEYS.join(", ")
        )));
    }
    let overrides = match map.get("defines") {
        None | Some(Json::Null) => Vec::new(),
        Some(Json::Object(d)) => (d.iter())
            .map(
                |(name, v)| match v.as_i64().filter(|n| n.unsigned_abs() <= MAX_SAFE_INTEGER) {
                    Some(n) => Ok((name.clone(), n)),
                    None => Err(shape(format!(
                        "`defines.{name}` must be an integer (of at most 2^53 in size), not {v}"
                    ))),
                },
            )
            .collect::<Result<_, _>>()?,
        Some(other) => return Err(shape(format!("`defines` must be an object, not {other}"))),
    };
    let target = match map.get("target") {
        None | Some(Json::Null) => Target::builtin(DEFAULT_TARGET).expect("a built-in"),
        Some(Json::String(t)) => target(t)?,
        Some(other) => return Err(shape(format!("`target` must be a string, not {other}"))),
    };
    let schedule = match map.get("schedule") {
        None | Some(Json::Null) => ScheduleChoice::Heuristic,
        Some(Json::String(s)) => schedule(s)?,
        Some(other) => return Err(shape(format!("`schedule` must be a string, not {other}"))),
    };
    Ok(Settings {
        compile: Options {
            target,
            overrides,
            schedule,
        },
        seed: count(map, "seed", 1, MAX_SAFE_INTEGER)?,
        max_ops: count(map, "maxOps", DEFAULT_MAX_OPS, MAX_SAFE_INTEGER)?,
        max_memory: count(map, "maxMemory", DEFAULT_MAX_MEMORY, MAX_MEMORY)?,
    })
}

fn shape(message: String) -> Diagnostic {
    api_error(codes::OPTIONS, message)
}

/// An integer option from 0 to `max` (E0701 naming it for anything else:
/// a fraction, a negative number, one over `max`, a string).
fn count(
    map: &serde_json::Map<String, Json>,
    key: &str,
    default: u64,
    max: u64,
) -> Result<u64, Diagnostic> {
    match map.get(key) {
        None | Some(Json::Null) => Ok(default),
        Some(v) => v.as_u64().filter(|n| *n <= max).ok_or_else(|| {
            shape(format!(
                "`{key}` must be an integer from 0 to {max}, not {v}"
            ))
        }),
    }
}

/// A built-in target's name, or a description's text (it has an `=`).
fn target(text: &str) -> Result<Target, Diagnostic> {
    let parsed = if text.contains('=') {
        Target::parse(text)
    } else {
        Target::builtin(text.trim())
    };
    parsed.map_err(|e| {
        let at = if e.line > 0 {
            format!(" (line {})", e.line)
        } else {
            String::new()
        };
        Diagnostic::error(e.code, format!("{}{at}", e.message))
    })
}

/// `heuristic`, `default`, or a schedule's text (`item: strategy key=value`
/// lines, as `texprc compile --schedule FILE` reads).
fn schedule(text: &str) -> Result<ScheduleChoice, Diagnostic> {
    match text.trim() {
        "heuristic" => Ok(ScheduleChoice::Heuristic),
        "default" => Ok(ScheduleChoice::Default),
        _ => text.parse::<Schedule>().map(ScheduleChoice::Given).map_err(|e| {
            api_error(codes::SCHEDULE, format!("not a schedule: line {}: {}", e.line, e.message))
                .with_note("`heuristic`, `default`, or one `item: strategy key=value...` a line, e.g. `c: tile group=8x8 reg=4x4`")
                .with_note(format!("the strategies: {}", texpr::schedule_syntax().join("; ")))
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn defaults_are_webgpu_and_the_heuristic() {
        let s = read(&Json::Null).unwrap();
        assert_eq!(s.compile.target.name, "webgpu");
        assert_eq!(s.compile.schedule, ScheduleChoice::Heuristic);
        assert_eq!((s.seed, s.max_ops), (1, DEFAULT_MAX_OPS));
    }

    #[test]
    fn reads_every_option() {
        let s = read(
            &json!({"defines": {"N": 64}, "target": "llvmpipe", "schedule": "default", "seed": 7}),
        )
        .unwrap();
        assert_eq!(s.compile.overrides, vec![("N".to_string(), 64)]);
        assert_eq!(s.compile.target.name, "llvmpipe");
        assert_eq!(s.compile.schedule, ScheduleChoice::Default);
        assert_eq!(s.seed, 7);
        let t = read(&json!({"target": "max_invocations_per_workgroup = 128"})).unwrap();
        assert_eq!(t.compile.target.limits.max_invocations_per_workgroup, 128);
    }

    #[test]
    fn bad_options_are_coded() {
        let code = |o: Json| read(&o).unwrap_err().code;
        assert_eq!(code(json!({"defines": {"N": "x"}})), codes::OPTIONS);
        assert_eq!(code(json!({"target": 3})), codes::OPTIONS);
        assert_eq!(code(json!({"colour": true})), codes::OPTIONS);
        assert_eq!(code(json!([1])), codes::OPTIONS);
        assert_eq!(code(json!({"target": "gtx"})), "E0605");
        assert_eq!(code(json!({"target": "nonsense = 1"})), "E0602");
        assert_eq!(code(json!({"schedule": "c: warp_magic"})), codes::SCHEDULE);
    }

    #[test]
    fn numbers_out_of_range_are_coded_and_name_the_option() {
        let message = |o: Json| {
            let d = read(&o).unwrap_err();
            assert_eq!(d.code, codes::OPTIONS, "{o}");
            d.message
        };
        for (key, bad) in [
            ("seed", json!(-1)),
            ("seed", json!(1.5)),
            ("seed", json!(1_u64 << 53)),
            ("seed", json!("7")),
            ("maxOps", json!(1e300)),
            ("maxOps", json!(-0.5)),
            ("maxMemory", json!(MAX_MEMORY + 1)),
            ("maxMemory", json!(true)),
        ] {
            let m = message(json!({ key: bad }));
            assert!(m.contains(&format!("`{key}`")), "{m}");
        }
        let m = message(json!({"defines": {"N": 1e20}}));
        assert!(m.contains("`defines.N`"), "{m}");
        let top = read(&json!({"seed": MAX_SAFE_INTEGER, "maxMemory": MAX_MEMORY})).unwrap();
        assert_eq!((top.seed, top.max_memory), (MAX_SAFE_INTEGER, MAX_MEMORY));
    }
}
