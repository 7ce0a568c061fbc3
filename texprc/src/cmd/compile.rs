//! `texprc compile FILE`: compile a program and print (or write) one stage of it:
//! the AST, the typed or scheduled TExpr, the kernel plan, WGSL, or another
//! shading language through naga's back ends; the schedule it used
//! (`--emit schedule`), or the program after a pass (`--dump-after`).

use crate::codes;
use crate::common::{
    Defines, Failure, ScheduleArgs, Source, compile_chosen, frontend, read_source,
};
use crate::targets::compile_target;
use std::path::PathBuf;
use texpr::{Language, Options, Target, Translated};
use texpr_ir::Diagnostic;
use texpr_tune::cache::Cache;

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Emit {
    /// The parsed syntax tree
    Ast,
    /// The checked program: types resolved, broadcasts and casts explicit
    Typed,
    /// The scheduled program: a level on every compute, reduce and let
    Scheduled,
    /// The schedule used: one `item: strategy` a line (a valid --schedule file)
    Schedule,
    /// The kernel plan: buffers, kernels, workgroup sizes, dispatch, bindings
    Kernels,
    /// The kernel plan as JSON (`texpr-plan`, versioned; docs/plan-json.md):
    /// the WGSL, buffers with roles and constant contents, kernels,
    /// bindings, loops, and the extensions and limits the device must offer
    PlanJson,
    /// The kernel IR: each kernel's values, memory, loops and barriers
    Kir,
    /// The WGSL module (validated by naga)
    Wgsl,
    /// SPIR-V (binary; written to -o, or to stdout when it is not a terminal)
    Spirv,
    /// Metal Shading Language
    Msl,
    /// HLSL
    Hlsl,
    /// GLSL (one compute shader per entry point; compiled without 64-bit
    /// integers, so without the wide loads of CPU targets)
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
    /// Print the program after pass PASS instead of --emit's output; `all`:
    /// after every pass, each under a `// after PASS` line
    #[arg(long, value_name = "PASS")]
    pub dump_after: Option<String>,
    /// Compile for the device whose name contains NAME, as `texprc tune`
    /// stored it in the schedule cache: its target (limits, features), and
    /// the schedule tuned for this program there (else the heuristic's)
    #[arg(long, value_name = "NAME", conflicts_with_all = ["schedule", "default_schedule"])]
    pub device: Option<String>,
    /// Compile for this target: a built-in (wgpu-default, webgpu, llvmpipe, nvidia)
    /// or a target file (`texprc target NAME` prints one); default: the
    /// --device's, else wgpu-default
    #[arg(long, value_name = "NAME|FILE")]
    pub target: Option<String>,
    #[command(flatten)]
    pub schedule: ScheduleArgs,
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
            crate::out::bytes(&bytes);
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
        return Ok(texpr_ir::print::program(&program).into_bytes());
    }
    let cache = match &args.device {
        Some(_) => crate::common::schedule_cache(),
        None => Cache::default(),
    };
    let chosen = args
        .schedule
        .choose_named(&program, args.device.as_deref(), &cache)?;
    let mut target = compile_target(args.target.as_deref(), args.device.as_deref(), &cache)?;
    if args.emit == Emit::Glsl {
        // naga's GLSL writer has no 64-bit integers: no wide loads.
        target.features.int64 = false;
    }
    if let Some(pass) = &args.dump_after {
        return dump_after(src, &program, &target, &chosen.choice, pass);
    }
    let opts = Options {
        target,
        overrides: args.defines.defines.clone(),
        schedule: chosen.choice.clone(),
    };
    let (compiled, chosen) = compile_chosen(src, &program, &opts, chosen)?;
    let text = match args.emit {
        Emit::Schedule => format!("# schedule: {}\n{}", chosen.origin, compiled.schedule),
        Emit::Scheduled => texpr_ir::print::program(&compiled.scheduled),
        Emit::Kernels => compiled.module.to_string(),
        Emit::PlanJson => {
            let plan = texpr_codegen::plan_json::plan_json(&compiled.module, &opts.target);
            serde_json::to_string_pretty(&plan).expect("JSON values print") + "\n"
        }
        Emit::Kir => texpr_codegen::emit::kir_text(&compiled.scheduled, &opts.target)
            .map_err(|d| Failure::new(src, d))?,
        Emit::Wgsl => compiled.module.wgsl,
        Emit::Spirv | Emit::Msl | Emit::Hlsl | Emit::Glsl => {
            let language = match args.emit {
                Emit::Spirv => Language::Spirv,
                Emit::Msl => Language::Msl,
                Emit::Hlsl => Language::Hlsl,
                _ => Language::Glsl,
            };
            return match texpr::translate(&compiled.module, language) {
                Ok(Translated::Binary(b)) => Ok(b),
                Ok(Translated::Text(t)) => Ok(t.into_bytes()),
                Err(d) => Err(Failure::about(src, d)),
            };
        }
        Emit::Ast | Emit::Typed => unreachable!("handled above"),
    };
    Ok(text.into_bytes())
}

/// `--dump-after PASS`: the program after that pass (or every pass, for
/// `all`), as the chosen schedule runs them (the baseline skips the
/// optimizing passes).
fn dump_after(
    src: &Source,
    program: &texpr_ir::Program,
    target: &Target,
    choice: &texpr::ScheduleChoice,
    pass: &str,
) -> Result<Vec<u8>, Failure> {
    let names = texpr_opt::pipeline::pass_names();
    let all = pass == "all";
    if !all && !names.contains(&pass) {
        let msg = format!("there is no pass `{pass}`");
        let note = format!("the passes, in order: {} (or `all`)", names.join(", "));
        return Err(Failure::about(
            src,
            Diagnostic::error(codes::UNKNOWN_PASS, msg).with_note(note),
        ));
    }
    let mut out = String::new();
    let mut ran = false;
    let mut hook = |name: &str, p: &texpr_ir::Program| {
        if all {
            out.push_str(&format!("// after {name}\n"));
        }
        if all || name == pass {
            ran = true;
            out.push_str(&texpr_ir::print::program(p));
        }
    };
    texpr_opt::pipeline::run_with(program, target, choice, &texpr::verdict(target), &mut hook)
        .map_err(|d| Failure::new(src, d))?;
    if !ran {
        eprintln!("note: pass `{pass}` does not run with this schedule");
    }
    Ok(out.into_bytes())
}
