//! The text form of a [`Target`]: one `key = value` a line, `#` starts a
//! comment. Every key of [`KEYS`] is written by `Display` in that order and
//! read back by [`Target::parse`], so the two cannot drift apart. A key a
//! file leaves out keeps its `wgpu-default` value (`name` becomes `custom`).
//!
//! ```text
//! name = nvidia
//! kind = discrete-gpu
//! vendor = nvidia
//! compute_units = 132
//! max_workgroup_storage_bytes = 49152
//! max_invocations_per_workgroup = 1024
//! max_workgroup_size = 1024x1024x64
//! max_workgroups_per_dimension = 65535
//! max_storage_buffers_per_stage = 96
//! max_storage_buffer_binding_size = 4294967295
//! max_buffer_size = 4294967295
//! max_loop_iterations = none
//! max_unrolled_elements = 64
//! max_private_elements = 2048
//! max_unrolled_statements = 2048
//! subgroup_size = 32
//! timestamps = true
//! int64 = true
//! shader_f16 = true
//! cooperative_matrix = 16x8x8 f16>f16, ..., 16x16x16 f16>f32
//! enables = f16, wgpu_cooperative_matrix
//! ```

use crate::{DeviceKind, Extension, Target};
use std::fmt;

/// A target description that does not read: the line (1-based; 0 when not
/// about a line), a stable code (E0601-E0605) and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TargetError {
    pub line: usize,
    pub code: &'static str,
    pub message: String,
}

impl fmt::Display for TargetError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            0 => write!(f, "{}: {}", self.code, self.message),
            l => write!(f, "line {l}: {}: {}", self.code, self.message),
        }
    }
}

impl std::error::Error for TargetError {}

/// One key of the text form: its name, what it means, and how to write and
/// read its value.
pub struct Key {
    pub name: &'static str,
    pub doc: &'static str,
    get: fn(&Target) -> String,
    set: fn(&mut Target, &str) -> Result<(), String>,
}

impl fmt::Debug for Key {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name)
    }
}

/// A key whose value is a number field of the target (`limits.x`).
macro_rules! number_key {
    ($name:literal, $doc:literal, $($field:ident).+) => {
        Key {
            name: $name,
            doc: $doc,
            get: |t| t.$($field).+.to_string(),
            set: |t, v| number(v).map(|n| t.$($field).+ = n),
        }
    };
}

/// A key whose value is an optional number field (`none` written as `$none`).
macro_rules! optional_key {
    ($name:literal, $doc:literal, $none:literal, $($field:ident).+) => {
        Key {
            name: $name,
            doc: $doc,
            get: |t| optional(t.$($field).+, $none),
            set: |t, v| read_optional(v, $none).map(|n| t.$($field).+ = n),
        }
    };
}

/// Every key, in the order they are written.
pub const KEYS: &[Key] = &[
    Key {
        name: "name",
        doc: "a short name for reports",
        get: |t| t.name.clone(),
        set: |t, v| {
            t.name = v.to_string();
            Ok(())
        },
    },
    Key {
        name: "kind",
        doc: "other | discrete-gpu | integrated-gpu | virtual-gpu | cpu",
        get: |t| t.profile.kind.name().into(),
        set: |t, v| {
            t.profile.kind = DeviceKind::ALL
                .into_iter()
                .find(|k| k.name() == v)
                .ok_or("expected other, discrete-gpu, integrated-gpu, virtual-gpu or cpu")?;
            Ok(())
        },
    },
    Key {
        name: "vendor",
        doc: "the vendor, lower case (may be empty)",
        get: |t| t.profile.vendor.clone(),
        set: |t, v| {
            t.profile.vendor = v.to_string();
            Ok(())
        },
    },
    optional_key!(
        "compute_units",
        "SMs / compute units, or `unknown`",
        "unknown",
        profile.compute_units
    ),
    number_key!(
        "max_workgroup_storage_bytes",
        "bytes of workgroup memory",
        limits.max_workgroup_storage_bytes
    ),
    number_key!(
        "max_invocations_per_workgroup",
        "invocations per workgroup",
        limits.max_invocations_per_workgroup
    ),
    Key {
        name: "max_workgroup_size",
        doc: "workgroup size per dimension, XxYxZ",
        get: |t| {
            let [x, y, z] = t.limits.max_workgroup_size;
            format!("{x}x{y}x{z}")
        },
        set: |t, v| {
            let parts: Vec<&str> = v.split('x').collect();
            let [x, y, z] = parts.as_slice() else {
                return Err("expected XxYxZ".into());
            };
            t.limits.max_workgroup_size = [number(x)?, number(y)?, number(z)?];
            Ok(())
        },
    },
    number_key!(
        "max_workgroups_per_dimension",
        "workgroups per dispatch dimension",
        limits.max_workgroups_per_dimension
    ),
    number_key!(
        "max_storage_buffers_per_stage",
        "storage buffers one kernel may bind",
        limits.max_storage_buffers_per_stage
    ),
    number_key!(
        "max_storage_buffer_binding_size",
        "bytes one storage binding may cover",
        limits.max_storage_buffer_binding_size
    ),
    number_key!(
        "max_buffer_size",
        "bytes of one buffer",
        limits.max_buffer_size
    ),
    optional_key!(
        "max_loop_iterations",
        "loop iterations one invocation may run in all, or `none`",
        "none",
        limits.max_loop_iterations
    ),
    number_key!(
        "max_unrolled_elements",
        "the longest register vector unrolled",
        limits.max_unrolled_elements
    ),
    number_key!(
        "max_private_elements",
        "elements of function memory one invocation may hold",
        limits.max_private_elements
    ),
    number_key!(
        "max_unrolled_statements",
        "statements unrolling may add to one kernel",
        limits.max_unrolled_statements
    ),
    Key {
        name: "subgroup_size",
        doc: "subgroup size, or MIN..MAX, or `none` (no subgroup operations)",
        get: |t| match t.features.subgroup_size {
            None => "none".into(),
            Some((a, b)) if a == b => a.to_string(),
            Some((a, b)) => format!("{a}..{b}"),
        },
        set: |t, v| {
            t.features.subgroup_size = match v {
                "none" => None,
                _ => Some(match v.split_once("..") {
                    Some((a, b)) => (number(a)?, number(b)?),
                    None => (number(v)?, number(v)?),
                }),
            };
            Ok(())
        },
    },
    Key {
        name: "timestamps",
        doc: "GPU timestamp queries: true or false",
        get: |t| t.features.timestamps.to_string(),
        set: |t, v| {
            t.features.timestamps = boolean(v)?;
            Ok(())
        },
    },
    Key {
        name: "int64",
        doc: "64-bit integers in shaders: true or false",
        get: |t| t.features.int64.to_string(),
        set: |t, v| {
            t.features.int64 = boolean(v)?;
            Ok(())
        },
    },
    Key {
        name: "shader_f16",
        doc: "16-bit floats in shaders and storage buffers: true or false",
        get: |t| t.features.shader_f16.to_string(),
        set: |t, v| {
            t.features.shader_f16 = boolean(v)?;
            Ok(())
        },
    },
    Key {
        name: "cooperative_matrix",
        doc: "cooperative-matrix configurations, `MxNxK AB>CR` comma-separated \
              (e.g. 16x16x16 f16>f32), or `none`",
        get: |t| crate::coop::format_list(&t.features.cooperative_matrix),
        set: |t, v| {
            t.features.cooperative_matrix = crate::coop::parse_list(v)?;
            Ok(())
        },
    },
    Key {
        name: "enables",
        doc: "extensions the WGSL's consumer wants declared by `enable NAME;` \
              (comma-separated: subgroups, f16), or `none`",
        get: |t| match t.features.enables.is_empty() {
            true => "none".into(),
            false => {
                let names: Vec<&str> = t.features.enables.iter().map(|e| e.name()).collect();
                names.join(", ")
            }
        },
        set: |t, v| {
            t.features.enables = extensions(v)?;
            Ok(())
        },
    },
];

/// `none`, or extension names separated by commas, each once, kept sorted.
fn extensions(v: &str) -> Result<Vec<Extension>, String> {
    if v == "none" {
        return Ok(Vec::new());
    }
    let mut out = Vec::new();
    for name in v.split(',').map(str::trim) {
        let Some(e) = Extension::ALL.into_iter().find(|e| e.name() == name) else {
            let known: Vec<&str> = Extension::ALL.iter().map(|e| e.name()).collect();
            return Err(format!(
                "unknown extension `{name}` (known: {})",
                known.join(", ")
            ));
        };
        if out.contains(&e) {
            return Err(format!("extension `{name}` given twice"));
        }
        out.push(e);
    }
    out.sort();
    Ok(out)
}

fn boolean(v: &str) -> Result<bool, String> {
    match v {
        "true" => Ok(true),
        "false" => Ok(false),
        _ => Err("expected true or false".into()),
    }
}

fn number<T: std::str::FromStr>(v: &str) -> Result<T, String> {
    v.trim()
        .parse()
        .map_err(|_| format!("expected a non-negative integer, found `{v}`"))
}

fn optional<T: ToString>(v: Option<T>, none: &str) -> String {
    v.map_or(none.to_string(), |n| n.to_string())
}

fn read_optional<T: std::str::FromStr>(v: &str, none: &str) -> Result<Option<T>, String> {
    if v == none {
        return Ok(None);
    }
    number(v).map(Some).map_err(|e| format!("{e} or `{none}`"))
}

impl fmt::Display for Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for key in KEYS {
            writeln!(f, "{} = {}", key.name, (key.get)(self))?;
        }
        Ok(())
    }
}

impl Target {
    /// Reads the text form (see the module docs); keys left out keep their
    /// `wgpu-default` values.
    pub fn parse(text: &str) -> Result<Target, TargetError> {
        let mut t = Target {
            name: "custom".into(),
            ..Target::default()
        };
        let mut seen: Vec<&str> = Vec::new();
        for (i, line) in text.lines().enumerate() {
            let err = |code, message: String| TargetError {
                line: i + 1,
                code,
                message,
            };
            let line = line.split('#').next().unwrap_or("").trim();
            if line.is_empty() {
                continue;
            }
            let Some((key, value)) = line.split_once('=') else {
                return Err(err(
                    "E0601",
                    format!("expected `key = value`, found `{line}`"),
                ));
            };
            let (key, value) = (key.trim(), value.trim());
            let Some(k) = KEYS.iter().find(|k| k.name == key) else {
                let names: Vec<&str> = KEYS.iter().map(|k| k.name).collect();
                return Err(err(
                    "E0602",
                    format!("unknown key `{key}` (the keys: {})", names.join(", ")),
                ));
            };
            if seen.contains(&k.name) {
                return Err(err("E0604", format!("`{key}` is given twice")));
            }
            seen.push(k.name);
            (k.set)(&mut t, value).map_err(|m| err("E0603", format!("`{key}`: {m}")))?;
        }
        Ok(t)
    }
}

impl std::str::FromStr for Target {
    type Err = TargetError;
    fn from_str(s: &str) -> Result<Target, TargetError> {
        Target::parse(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_builtin_round_trips_through_text() {
        for name in Target::BUILTINS {
            let t = Target::builtin(name).unwrap();
            let text = t.to_string();
            assert_eq!(Target::parse(&text).unwrap(), t, "{text}");
            assert_eq!(text.lines().count(), KEYS.len());
        }
    }

    #[test]
    fn extensions_to_enable_read_in_any_order_and_print_sorted() {
        let t = Target::parse("enables = f16, subgroups").unwrap();
        assert_eq!(t.features.enables, [Extension::Subgroups, Extension::F16]);
        assert!(t.to_string().contains("enables = subgroups, f16\n"));
        assert!(
            Target::parse("enables = none")
                .unwrap()
                .features
                .enables
                .is_empty()
        );
        // naga's rules for the targets wgpu runs, Tint's for the browser's.
        for name in Target::BUILTINS {
            let t = Target::builtin(name).unwrap();
            let want: &[Extension] = match name {
                "webgpu" => &[Extension::Subgroups, Extension::F16],
                _ => &[Extension::F16, Extension::CooperativeMatrix],
            };
            assert_eq!(t.features.enables, want, "{name}");
        }
    }

    #[test]
    fn missing_keys_keep_the_portable_defaults() {
        let t =
            Target::parse("# a comment\nname = tiny\n\nsubgroup_size = 4..64 # range\n").unwrap();
        assert_eq!(t.name, "tiny");
        assert_eq!(t.features.subgroup_size, Some((4, 64)));
        assert_eq!(t.limits, crate::DeviceLimits::default());
        assert!(t.subgroups() && !t.cpu());
        assert_eq!(Target::parse("").unwrap().name, "custom");
    }

    #[test]
    fn bad_text_says_which_line_which_code_and_why() {
        let cases = [
            ("name = a\nkind discrete-gpu", 2, "E0601", "key = value"),
            ("colour = red", 1, "E0602", "unknown key `colour`"),
            ("max_workgroup_size = 1x2", 1, "E0603", "XxYxZ"),
            ("max_buffer_size = -1", 1, "E0603", "non-negative integer"),
            ("max_loop_iterations = lots", 1, "E0603", "or `none`"),
            ("timestamps = yes", 1, "E0603", "true or false"),
            ("int64 = 1", 1, "E0603", "true or false"),
            (
                "enables = tensors",
                1,
                "E0603",
                "unknown extension `tensors`",
            ),
            ("enables = f16, f16", 1, "E0603", "given twice"),
            ("kind = gpu", 1, "E0603", "discrete-gpu"),
            ("name = a\n\nname = b", 3, "E0604", "given twice"),
        ];
        for (text, line, code, msg) in cases {
            let e = Target::parse(text).expect_err(text);
            assert_eq!((e.line, e.code), (line, code), "{text}: {e}");
            assert!(e.message.contains(msg), "{text}: {e}");
        }
        let e = Target::builtin("h100").unwrap_err();
        assert_eq!((e.line, e.code), (0, "E0605"));
        assert!(
            e.message.contains("wgpu-default, webgpu, llvmpipe, nvidia"),
            "{e}"
        );
    }

    #[test]
    fn the_nvidia_target_binds_a_gibibyte() {
        let t = Target::builtin("nvidia").unwrap();
        assert!(t.limits.max_storage_buffer_binding_size >= 1 << 30);
        assert!(t.limits.max_buffer_size >= 2 << 30);
        assert_eq!(t.limits.max_workgroup_storage_bytes, 48 << 10);
        assert_eq!(t.features.subgroup_size, Some((32, 32)));
        assert!(t.features.timestamps && !t.cpu());
        assert!(t.features.int64);
    }

    #[test]
    fn int64_round_trips() {
        let llvmpipe = Target::builtin("llvmpipe").unwrap();
        assert!(llvmpipe.features.int64);
        let parsed = Target::parse(&llvmpipe.to_string()).unwrap();
        assert_eq!(parsed, llvmpipe);
        let narrow = Target::parse(
            &llvmpipe
                .to_string()
                .replace("int64 = true", "int64 = false"),
        );
        assert!(!narrow.unwrap().features.int64);
    }
}
