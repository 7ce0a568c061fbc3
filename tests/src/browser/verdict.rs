//! What the test sends the page (a [`Shader`]) and what the page says of it
//! (a [`Verdict`]), with the JSON each travels as.

use serde_json::{Value, json};

/// One WGSL module for the browser to compile.
#[derive(Clone, Debug)]
pub struct Shader {
    /// Names the program, target and schedule it came from (unique in a batch).
    pub name: String,
    pub wgsl: String,
    /// Every compute entry point: one pipeline each.
    pub entry_points: Vec<String>,
    /// The WGSL extensions it uses (`subgroups`, `f16`), which the device
    /// must have been given as features.
    pub extensions: Vec<String>,
    /// Its plan's `requires` (plan-json, docs/plan-json.md), which the page
    /// checks against the device as a host would, or `Null`.
    pub requires: Value,
    /// What the page needs to run it once accepted ([`super::run_plan`]),
    /// or `Null`: compile only.
    pub run: Value,
}

impl Shader {
    pub(crate) fn to_json(&self) -> Value {
        json!({
            "name": self.name,
            "wgsl": self.wgsl,
            "entry_points": self.entry_points,
            "extensions": self.extensions,
            "requires": self.requires,
            "run": self.run,
        })
    }
}

/// One message of Tint's (or Dawn's) about a shader.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Message {
    /// Where it came from: `plan requires` (the device does not meet the
    /// plan's requirements), `createShaderModule`,
    /// `createComputePipeline(ENTRY)`, `run`, or `device` (the device was
    /// lost).
    pub stage: String,
    /// 1-based line and column in the WGSL, where the browser gives them.
    pub line: Option<u64>,
    pub column: Option<u64>,
    pub text: String,
}

/// The browser's verdict on one shader.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Its module compiled and every entry point's pipeline was created.
    Accepted,
    /// Tint (or Dawn) refused it: every error message.
    Rejected(Vec<Message>),
    /// Not tried: the device lacks a feature it needs (the reason).
    Skipped(String),
}

/// What the page reports of its adapter.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Adapter {
    pub vendor: String,
    pub architecture: String,
    /// The adapter's subgroup sizes, smallest and largest, where it says.
    pub subgroup_sizes: (Option<u64>, Option<u64>),
    /// The optional features the device was created with (`subgroups`, `shader-f16`).
    pub features: Vec<String>,
}

/// The page's answer: its adapter and one verdict per shader, in order,
/// with the words of each output buffer of each shader it ran.
#[derive(Clone, Debug)]
pub struct Report {
    pub adapter: Adapter,
    pub verdicts: Vec<Verdict>,
    pub outputs: Vec<Option<Vec<Vec<u32>>>>,
}

impl Report {
    /// Reads the page's JSON for `n` shaders; `Err` says what is wrong with it
    /// (the page's own error, or JSON of the wrong shape).
    pub(crate) fn from_json(body: &str, n: usize) -> Result<Report, String> {
        let j: Value = serde_json::from_str(body)
            .map_err(|e| format!("the page posted malformed JSON ({e}): {body:.500}"))?;
        if let Some(e) = j.get("error") {
            return Err(format!(
                "the page failed: {}",
                e.as_str().unwrap_or_default()
            ));
        }
        let text = |v: &Value| v.as_str().unwrap_or_default().to_string();
        let a = &j["adapter"];
        let adapter = Adapter {
            vendor: text(&a["vendor"]),
            architecture: text(&a["architecture"]),
            subgroup_sizes: (
                a["subgroup_sizes"][0].as_u64(),
                a["subgroup_sizes"][1].as_u64(),
            ),
            features: (a["features"].as_array().into_iter().flatten())
                .map(text)
                .collect(),
        };
        let results = j["results"]
            .as_array()
            .filter(|r| r.len() == n)
            .ok_or_else(|| format!("the page did not answer for all {n} shaders: {body:.500}"))?;
        let verdicts = results.iter().map(verdict).collect::<Result<_, _>>()?;
        let words = |o: &Value| serde_json::from_value::<Vec<Vec<u32>>>(o.clone()).ok();
        let outputs = results.iter().map(|r| words(&r["outputs"])).collect();
        Ok(Report {
            adapter,
            verdicts,
            outputs,
        })
    }
}

fn verdict(r: &Value) -> Result<Verdict, String> {
    if let Some(reason) = r["skipped"].as_str() {
        return Ok(Verdict::Skipped(reason.to_string()));
    }
    let errors = r["errors"]
        .as_array()
        .ok_or_else(|| format!("a result without errors or skipped: {r}"))?;
    if errors.is_empty() {
        return Ok(Verdict::Accepted);
    }
    let message = |e: &Value| Message {
        stage: e["stage"].as_str().unwrap_or_default().to_string(),
        line: e["line"].as_u64(),
        column: e["column"].as_u64(),
        text: e["text"].as_str().unwrap_or_default().to_string(),
    };
    Ok(Verdict::Rejected(errors.iter().map(message).collect()))
}
