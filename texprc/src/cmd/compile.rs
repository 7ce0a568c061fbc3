//! `texprc compile FILE`: compile a program and print (or write) one stage of it:
//! the AST, the typed or scheduled TExpr, the kernel plan, WGSL, or another
//! shading language through naga's back ends.

use crate::codes;
use crate::common::{Defines, Failure, Source, frontend, read_source};
use std::io::Write as _;
use std::path::PathBuf;
use texpr_codegen::{Options, Target, Translated};
use texpr_syntax::Diagnostic;

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Emit {
    /// The parsed syntax tree
    Ast,
    /// The checked program: types resolved, broadcasts and casts explicit
    Typed,
    /// The scheduled program: a level on every compute, reduce and let
    Scheduled,
    /// The kernel plan: buffers, kernels, workgroup sizes, dispatch, bindings
    Kernels,
    /// The WGSL module (validated by naga)
    Wgsl,
    /// SPIR-V (binary; written to -o, or to stdout when it is not a terminal)
    Spirv,
    /// Metal Shading Language
    Msl,
    /// HLSL
    Hlsl,
    /// GLSL (one compute shader per entry point)
    Glsl,
}

#[derive(Debug, clap::Args)]
pub struct Args {
    /// The program to compile (a .te file)
    pub file: PathBuf,
    /// What to emit
    #[arg(long, value_enum, default_value = "wgsl")]
    pub emit: Emit,
    /// Write to this file instead of stdout
    #[arg(short = 'o', long = "output", value_name = "OUT")]
    pub output: Option<PathBuf>,
    #[command(flatten)]
    pub defines: Defines,
}

pub fn run(args: Args) -> Result<(), Failure> {
    let src = read_source(&args.file)?;
    let bytes = emit(&src, &args)?;
    match &args.output {
        Some(path) => std::fs::write(path, &bytes).map_err(|e| {
            let msg = format!("cannot write `{}`: {e}", path.display());
            Failure::about(&src, Diagnostic::error(codes::WRITE_OUTPUT, msg))
        }),
        None => {
            if args.emit == Emit::Spirv && std::io::IsTerminal::is_terminal(&std::io::stdout()) {
                let msg = "SPIR-V is binary: give -o FILE or redirect stdout";
                return Err(Failure::about(
                    &src,
                    Diagnostic::error(codes::BINARY_TO_TERMINAL, msg),
                ));
            }
            let _ = std::io::stdout().write_all(&bytes);
            Ok(())
        }
    }
}

fn emit(src: &Source, args: &Args) -> Result<Vec<u8>, Failure> {
    if args.emit == Emit::Ast {
        let (file, diags) = texpr_syntax::parse(&src.text);
        if diags.iter().any(|d| d.is_error()) {
            return Err(Failure::new(src, diags));
        }
        return Ok(texpr_syntax::parse::dump(&file).into_bytes());
    }
    let program = frontend(src, &args.defines)?;
    if args.emit == Emit::Typed {
        return Ok(texpr_syntax::print::program(&program).into_bytes());
    }
    let opts = Options {
        overrides: args.defines.defines.clone(),
        schedule: texpr_codegen::ScheduleChoice::Default,
        ..Options::default()
    };
    let compiled = texpr_codegen::compile(&program, &opts).map_err(|d| Failure::new(src, d))?;
    let text = match args.emit {
        Emit::Scheduled => texpr_syntax::print::program(&compiled.scheduled),
        Emit::Kernels => compiled.module.to_string(),
        Emit::Wgsl => compiled.module.wgsl,
        Emit::Spirv | Emit::Msl | Emit::Hlsl | Emit::Glsl => {
            let target = match args.emit {
                Emit::Spirv => Target::Spirv,
                Emit::Msl => Target::Msl,
                Emit::Hlsl => Target::Hlsl,
                _ => Target::Glsl,
            };
            return match texpr_codegen::translate(&compiled.module, target) {
                Ok(Translated::Binary(b)) => Ok(b),
                Ok(Translated::Text(t)) => Ok(t.into_bytes()),
                Err(d) => Err(Failure::about(src, d)),
            };
        }
        Emit::Ast | Emit::Typed => unreachable!("handled above"),
    };
    Ok(text.into_bytes())
}
