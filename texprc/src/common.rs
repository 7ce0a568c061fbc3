//! What every subcommand shares: reading a source, `-D` overrides, running the
//! front end, the schedule flags (which schedule is `texpr_tune`'s
//! [`texpr_tune::schedule_source`]), and reporting failures as rendered
//! diagnostics.

use crate::codes;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use texpr::{Compiled, Options, Schedule, ScheduleChoice};
use texpr_ir::Program;
use texpr_ir::diag::render_with;
use texpr_ir::{Diagnostic, Span};
use texpr_runtime::GpuInfo;
use texpr_tune::cache::Cache;
pub use texpr_tune::schedule_source::{Chosen, Origin};

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
    /// A usage error (bad arguments): exit code 2, not 1.
    pub usage: bool,
}

impl Failure {
    pub fn new(src: &Source, diags: Vec<Diagnostic>) -> Failure {
        Failure {
            file: src.name.clone(),
            source: src.text.clone(),
            diags,
            usage: false,
        }
    }

    /// One diagnostic about the command line or a file, not about a span of source.
    pub fn about(src: &Source, diag: Diagnostic) -> Failure {
        Failure::new(src, vec![diag])
    }

    /// Prints the diagnostics to stderr; exit code 1, or 2 for a usage error.
    pub fn report(&self) -> ExitCode {
        eprint!(
            "{}",
            render_with(&self.file, &self.source, &self.diags, color())
        );
        ExitCode::from(if self.usage { 2 } else { 1 })
    }
}

/// Colour only on a terminal, and never when `NO_COLOR` is set.
pub fn color() -> bool {
    std::io::stderr().is_terminal() && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
}

/// Reads a source file: UTF-8 text (E0920 points at the first byte that is
/// not; a leading byte order mark is kept and skipped by the lexer).
pub fn read_source(path: &Path) -> Result<Source, Failure> {
    let name = path.display().to_string();
    match std::fs::read(path) {
        Ok(bytes) => String::from_utf8(bytes)
            .map(|text| Source {
                name: name.clone(),
                text,
            })
            .map_err(|e| not_utf8(name.clone(), e)),
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

/// The error for a file that is not UTF-8, against its text with the bad
/// bytes replaced (identical up to the first of them).
fn not_utf8(name: String, e: std::string::FromUtf8Error) -> Failure {
    let at = e.utf8_error().valid_up_to();
    let byte = e.as_bytes()[at];
    let text = String::from_utf8_lossy(e.as_bytes()).into_owned();
    let end = text[at..].chars().next().map_or(at, |c| at + c.len_utf8());
    let diag = Diagnostic::error(
        codes::NOT_UTF8,
        format!("`{name}` is not UTF-8 text: byte 0x{byte:02x} at offset {at}"),
    )
    .with_primary(Span::new(at, end), "not UTF-8")
    .with_note("texpr sources are UTF-8 text");
    Failure::about(&Source { name, text }, diag)
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

/// Which schedule to compile with: `--schedule FILE`, `--default-schedule`,
/// else a tuned one from the cache, else the heuristic's.
#[derive(Clone, Debug, Default, clap::Args)]
pub struct ScheduleArgs {
    /// Use the schedule in FILE: one `item: strategy key=value...` a line
    /// (e.g. `c: tile group=8x8 reg=4x4`; items not named get the default)
    #[arg(long, value_name = "FILE", conflicts_with = "default_schedule")]
    pub schedule: Option<PathBuf>,
    /// Use the default schedule (one element per invocation), not a tuned or heuristic one
    #[arg(long)]
    pub default_schedule: bool,
}

impl ScheduleArgs {
    /// The schedule to compile `program` with on `device` (`None`: not known,
    /// so no cache lookup): `--schedule FILE`, `--default-schedule`, the
    /// cache's tuned schedule for (program, device), else the heuristic.
    #[allow(dead_code)] // for commands that do not report the origin
    pub fn choose(
        &self,
        program: &Program,
        device: Option<&GpuInfo>,
    ) -> Result<ScheduleChoice, Failure> {
        self.choose_from(program, device, &schedule_cache())
            .map(|c| c.choice)
    }

    /// [`ScheduleArgs::choose`] with the schedule's origin, from `cache`.
    pub fn choose_from(
        &self,
        program: &Program,
        device: Option<&GpuInfo>,
        cache: &Cache,
    ) -> Result<Chosen, Failure> {
        match self.forced()? {
            Some(c) => Ok(c),
            None => Ok(Chosen::tuned_or_heuristic(program, device, cache)),
        }
    }

    /// For a device known only by (part of) its name, as the cache names it
    /// (`compile --device NAME`): the one tuned schedule of `program` for a
    /// device whose name contains `name`, else the heuristic.
    pub fn choose_named(
        &self,
        program: &Program,
        name: Option<&str>,
        cache: &Cache,
    ) -> Result<Chosen, Failure> {
        if let Some(c) = self.forced()? {
            return Ok(c);
        }
        Chosen::tuned_named_or_heuristic(program, name, cache).map_err(|a| {
            let msg = format!(
                "`--device {}` matches several devices the program was tuned for",
                a.name
            );
            let note = format!("tuned for: {}", a.devices.join("; "));
            Failure::about(
                &no_source(),
                Diagnostic::error(codes::AMBIGUOUS_DEVICE, msg).with_note(note),
            )
        })
    }

    /// `--schedule FILE` or `--default-schedule`, when given.
    fn forced(&self) -> Result<Option<Chosen>, Failure> {
        if self.default_schedule {
            return Ok(Some(Chosen::default_schedule()));
        }
        match &self.schedule {
            Some(path) => {
                let s = read_schedule(path)?;
                Ok(Some(Chosen::pinned(s, path.display().to_string())))
            }
            None => Ok(None),
        }
    }
}

/// The schedule cache at its default location, its warnings (records
/// skipped, a file that cannot be read) printed to stderr.
pub fn schedule_cache() -> Cache {
    let cache = Cache::open_default();
    for w in cache.warnings() {
        eprintln!("warning: {w}");
    }
    cache
}

pub fn no_source() -> Source {
    Source {
        name: "<command line>".into(),
        text: String::new(),
    }
}

/// Reads a schedule file; errors point at the file and line (E0915).
pub fn read_schedule(path: &Path) -> Result<Schedule, Failure> {
    let src = read_source(path).map_err(|mut f| {
        for d in &mut f.diags {
            d.code = codes::SCHEDULE_FILE;
            d.message = format!(
                "cannot read the schedule {}",
                d.message.trim_start_matches("cannot read ")
            );
        }
        f
    })?;
    src.text.parse::<Schedule>().map_err(|e| {
        let span = line_span(&src.text, e.line);
        let diag = Diagnostic::error(codes::SCHEDULE_FILE, "not a schedule")
            .with_primary(span, e.message.clone())
            .with_note("a schedule has one `item: strategy key=value...` a line, e.g. `c: tile group=8x8 reg=4x4`, and `optimize = off` for the baseline program")
            .with_note(format!("the strategies: {}", texpr::schedule_syntax().join("; ")));
        Failure::about(&src, diag)
    })
}

/// The bytes of 1-based line `line` (without its end of line).
pub fn line_span(text: &str, line: usize) -> Span {
    let mut start = 0;
    for (i, l) in text.split_inclusive('\n').enumerate() {
        if i + 1 == line {
            let body = l.trim_end_matches(['\n', '\r']);
            return Span::new(start, start + body.len());
        }
        start += l.len();
    }
    Span::new(text.len(), text.len())
}

/// Compiles `program` with the chosen schedule and prints the warnings
/// choosing gave (an item falling back from its tuned strategy, E0220). A
/// pinned schedule's errors say where it was pinned from.
pub fn compile_chosen(
    src: &Source,
    program: &Program,
    opts: &Options,
    chosen: Chosen,
) -> Result<(Compiled, Chosen), Failure> {
    let opts = Options {
        schedule: chosen.choice.clone(),
        ..opts.clone()
    };
    match texpr::compile(program, &opts) {
        Ok(c) => {
            if !c.warnings.is_empty() {
                eprint!(
                    "{}",
                    render_with(&src.name, &src.text, &c.warnings, color())
                );
            }
            Ok((c, chosen))
        }
        Err(mut err) => {
            if let (Origin::Pinned(file), Some(d)) = (&chosen.origin, err.first_mut()) {
                d.notes.push(format!("the schedule was pinned from {file}"));
            }
            Err(Failure::new(src, err))
        }
    }
}
