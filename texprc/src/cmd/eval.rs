//! `texprc eval FILE`: run a program on the reference interpreter, with inputs
//! from `.npy` files or a seeded generator; print a summary of each output and
//! optionally write it to `DIR/NAME.npy`.

use crate::common::{Defines, Failure, Source, frontend, read_source};
use crate::{codes, npy, summary};
use std::collections::BTreeMap;
use std::path::PathBuf;
use texpr_interp::Value;
use texpr_syntax::Diagnostic;
use texpr_syntax::ir::Program;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// The program to run (a .te file)
    file: PathBuf,
    /// Read input NAME from a .npy file (repeatable)
    #[arg(short = 'i', long = "input", value_name = "NAME=PATH", value_parser = parse_input)]
    inputs: Vec<(String, PathBuf)>,
    /// Fill the inputs not given with --input with random values from SEED
    #[arg(long, value_name = "SEED")]
    random: Option<u64>,
    /// Write each output to DIR/NAME.npy
    #[arg(short = 'o', long = "out-dir", value_name = "DIR")]
    out_dir: Option<PathBuf>,
    #[command(flatten)]
    defines: Defines,
}

fn parse_input(s: &str) -> Result<(String, PathBuf), String> {
    let (name, path) = s.split_once('=').ok_or("expected NAME=PATH")?;
    Ok((name.trim().to_string(), PathBuf::from(path)))
}

pub fn run(args: Args) -> Result<(), Failure> {
    let src = read_source(&args.file)?;
    let prog = frontend(&src, &args.defines)?;
    let inputs = gather_inputs(&prog, &args).map_err(|d| Failure::about(&src, d))?;
    let outputs = texpr_interp::eval(&prog, &inputs).map_err(|e| {
        Failure::about(
            &src,
            Diagnostic::error(codes::EVAL, format!("evaluation failed: {e}")),
        )
    })?;
    if let Some(dir) = &args.out_dir {
        write_outputs(&src, dir, &prog, &outputs)?;
    }
    for (out, v) in prog.outputs.iter().zip(&outputs) {
        println!("{}", summary::line(&out.name, v));
    }
    Ok(())
}

/// One value per program input: from its `--input` file, else random, else an error.
fn gather_inputs(prog: &Program, args: &Args) -> Result<Vec<Value>, Diagnostic> {
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

fn write_outputs(
    src: &Source,
    dir: &PathBuf,
    prog: &Program,
    outputs: &[Value],
) -> Result<(), Failure> {
    std::fs::create_dir_all(dir).map_err(|e| {
        let msg = format!("cannot create `{}`: {e}", dir.display());
        Failure::about(src, Diagnostic::error(codes::WRITE_OUTPUT, msg))
    })?;
    for (out, v) in prog.outputs.iter().zip(outputs) {
        let path = dir.join(format!("{}.npy", out.name));
        npy::write(&path, v).map_err(|d| Failure::about(src, d))?;
    }
    Ok(())
}
