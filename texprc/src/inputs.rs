//! Program inputs on the command line: `--input NAME=PATH.npy` and `--random SEED`,
//! shared by `eval`, `run` and `bench`; conversions to and from the runtime's buffers.

use crate::{codes, npy};
use std::collections::BTreeMap;
use std::path::PathBuf;
use texpr_interp::{Data, Value};
use texpr_runtime::HostBuffer;
use texpr_syntax::Diagnostic;
use texpr_syntax::ast::ElemTy;
use texpr_syntax::ir::Program;

#[derive(Debug, Default, clap::Args)]
pub struct InputArgs {
    /// Read input NAME from a .npy file (repeatable)
    #[arg(short = 'i', long = "input", value_name = "NAME=PATH", value_parser = parse_input)]
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
            let note = "give each with --input NAME=PATH.npy, or use --random SEED";
            return Err(Diagnostic::error(codes::MISSING_INPUTS, msg).with_note(note));
        }
    };
    prog.inputs
        .iter()
        .enumerate()
        .map(|(k, input)| match given.get(input.name.as_str()) {
            Some(path) => npy::read(path, input),
            None => Ok(random[k].clone()),
        })
        .collect()
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

/// A value as the runtime's 4-byte words.
pub fn to_host(v: &Value) -> HostBuffer {
    match &v.data {
        Data::F32(x) => HostBuffer::from_f32(x),
        Data::I32(x) => HostBuffer::from_i32(x),
        Data::U32(x) => HostBuffer::from_u32(x),
        Data::Bool(x) => HostBuffer {
            elem: ElemTy::Bool,
            data: x.iter().map(|&b| u32::from(b)).collect(),
        },
    }
}

/// Read-back words as a value of their element type.
pub fn to_value(h: &HostBuffer) -> Value {
    match h.elem {
        ElemTy::F32 => Value::f32(h.to_f32()),
        ElemTy::I32 => Value::i32(h.to_i32()),
        ElemTy::U32 => Value::u32(h.to_u32()),
        ElemTy::Bool => Value::new(Data::Bool(h.data.iter().map(|&w| w != 0).collect())),
    }
}
