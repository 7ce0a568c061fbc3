//! What every subcommand shares: reading a source, `-D` overrides, running the
//! front end, and reporting failures as rendered diagnostics.

use crate::codes;
use std::io::IsTerminal;
use std::path::Path;
use std::process::ExitCode;
use texpr_syntax::Diagnostic;
use texpr_syntax::diag::render_with;
use texpr_syntax::ir::Program;

/// `-D NAME=VALUE` param overrides.
#[derive(Clone, Debug, Default, clap::Args)]
pub struct Defines {
    /// Override a param, e.g. `-D N=4096` (repeatable; the last one for a name wins)
    #[arg(short = 'D', value_name = "NAME=VALUE", value_parser = parse_define)]
    pub defines: Vec<(String, i64)>,
}

fn parse_define(s: &str) -> Result<(String, i64), String> {
    let (name, value) = s.split_once('=').ok_or("expected NAME=VALUE")?;
    let value = value
        .trim()
        .parse::<i64>()
        .map_err(|e| format!("`{value}` is not an integer: {e}"))?;
    Ok((name.trim().to_string(), value))
}

/// A source file's name (as given) and text.
#[derive(Clone, Debug)]
pub struct Source {
    pub name: String,
    pub text: String,
}

/// Why a command failed: diagnostics, rendered against the source they point into.
#[derive(Debug)]
pub struct Failure {
    pub file: String,
    pub source: String,
    pub diags: Vec<Diagnostic>,
}

impl Failure {
    pub fn new(src: &Source, diags: Vec<Diagnostic>) -> Failure {
        Failure {
            file: src.name.clone(),
            source: src.text.clone(),
            diags,
        }
    }

    /// One diagnostic about the command line or a file, not about a span of source.
    pub fn about(src: &Source, diag: Diagnostic) -> Failure {
        Failure::new(src, vec![diag])
    }

    /// Prints the diagnostics to stderr; exit code 1.
    pub fn report(&self) -> ExitCode {
        eprint!(
            "{}",
            render_with(&self.file, &self.source, &self.diags, color())
        );
        ExitCode::from(1)
    }
}

/// Colour only on a terminal, and never when `NO_COLOR` is set.
pub fn color() -> bool {
    std::io::stderr().is_terminal() && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
}

pub fn read_source(path: &Path) -> Result<Source, Failure> {
    let name = path.display().to_string();
    match std::fs::read_to_string(path) {
        Ok(text) => Ok(Source { name, text }),
        Err(e) => {
            let src = Source {
                name: name.clone(),
                text: String::new(),
            };
            let diag = Diagnostic::error(codes::READ_SOURCE, format!("cannot read `{name}`: {e}"));
            Err(Failure::about(&src, diag))
        }
    }
}

/// Parses and checks a source; prints warnings to stderr when it succeeds.
pub fn frontend(src: &Source, defines: &Defines) -> Result<Program, Failure> {
    let (file, diags) = texpr_syntax::parse(&src.text);
    if diags.iter().any(|d| d.is_error()) {
        return Err(Failure::new(src, diags));
    }
    let prog = texpr_syntax::check(&file, &defines.defines).map_err(|d| Failure::new(src, d))?;
    if !diags.is_empty() {
        eprint!("{}", render_with(&src.name, &src.text, &diags, color()));
    }
    Ok(prog)
}
