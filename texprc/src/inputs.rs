//! Program inputs on the command line: `--input NAME=PATH.npy` and `--random SEED`,
//! shared by `eval`, `run` and `bench` (conversions to and from the runtime's
//! buffers are `texpr_tune::values`).

use crate::{codes, npy};
use std::collections::BTreeMap;
use std::path::PathBuf;
use texpr_interp::Value;
use texpr_ir::Diagnostic;
use texpr_ir::{ElemTy, Input, Program};

#[derive(Debug, Default, clap::Args)]
pub struct InputArgs {
    /// Read input NAME from a .npy file, or for a scalar input (`input a: f32`)
    /// take a number (repeatable)
    #[arg(short = 'i', long = "input", value_name = "NAME=PATH|NUMBER", value_parser = parse_input)]
    pub inputs: Vec<(String, PathBuf)>,
    /// Fill the inputs not given with --input with random values from SEED
    #[arg(long, value_name = "SEED")]
    pub random: Option<u64>,
}

fn parse_input(s: &str) -> Result<(String, PathBuf), String> {
    let (name, path) = s.split_once('=').ok_or("expected NAME=PATH")?;
    Ok((name.trim().to_string(), PathBuf::from(path)))
}

/// One value per program input: from its `--input` file, else random, else an error.
pub fn gather_inputs(prog: &Program, args: &InputArgs) -> Result<Vec<Value>, Diagnostic> {
    let mut given: BTreeMap<&str, &PathBuf> = BTreeMap::new();
    for (name, path) in &args.inputs {
        if !prog.inputs.iter().any(|i| &i.name == name) {
            let names: Vec<&str> = prog.inputs.iter().map(|i| i.name.as_str()).collect();
            let msg = format!("the program has no input `{name}`");
            let note = format!("its inputs are: {}", names.join(", "));
            return Err(Diagnostic::error(codes::UNKNOWN_INPUT, msg).with_note(note));
        }
        if given.insert(name, path).is_some() {
            let msg = format!("input `{name}` is given more than once");
            return Err(Diagnostic::error(codes::DUPLICATE_INPUT, msg));
        }
    }
    let missing: Vec<&str> = prog
        .inputs
        .iter()
        .filter(|i| !given.contains_key(i.name.as_str()))
        .map(|i| i.name.as_str())
        .collect();
    let random = match (args.random, missing.is_empty()) {
        (Some(seed), _) => texpr_interp::random_inputs(prog, seed),
        (None, true) => Vec::new(),
        (None, false) => {
            let msg = format!(
                "no value for input{} `{}`",
                plural(missing.len()),
                missing.join("`, `")
            );
            let note = "give each with --input NAME=PATH.npy (a number for a scalar input), or use --random SEED";
            return Err(Diagnostic::error(codes::MISSING_INPUTS, msg).with_note(note));
        }
    };
    prog.inputs
        .iter()
        .enumerate()
        .map(|(k, input)| match given.get(input.name.as_str()) {
            Some(path) => match scalar_value(input, path)? {
                Some(v) => Ok(v),
                None => npy::read(path, input),
            },
            None => Ok(random[k].clone()),
        })
        .collect()
}

/// The value of a scalar input given as a number (`--input a=2.5`);
/// `None` when the input is a vector or `text` is not a number (a path).
fn scalar_value(input: &Input, text: &std::path::Path) -> Result<Option<Value>, Diagnostic> {
    let Some(text) = text.to_str().map(str::trim) else {
        return Ok(None);
    };
    if !input.scalar || text.parse::<f64>().is_err() {
        return Ok(None);
    }
    let elem = input.ty.elem;
    let value = match elem {
        ElemTy::F32 => text.parse::<f32>().ok().map(|x| Value::f32(vec![x])),
        ElemTy::F16 => text
            .parse::<f32>()
            .ok()
            .map(|x| Value::f16(vec![half::f16::from_f32(x)])),
        ElemTy::I32 => text.parse::<i32>().ok().map(|x| Value::i32(vec![x])),
        ElemTy::U32 => text.parse::<u32>().ok().map(|x| Value::u32(vec![x])),
        ElemTy::Bool => None,
    };
    value.map(Some).ok_or_else(|| {
        let msg = format!(
            "`{text}` is not a value of input `{}`'s type, `{}`",
            input.name,
            elem.name()
        );
        Diagnostic::error(codes::SCALAR_VALUE, msg)
            .with_note("an integer input takes a whole number within its type's range")
    })
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}
