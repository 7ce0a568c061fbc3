//! `texprc fmt FILE [--check]`: print the canonical text, or check that the file is canonical.

use crate::codes;
use crate::common::{Failure, read_source};
use std::path::PathBuf;
use texpr_ir::Diagnostic;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// The program to format (a .te file); it must parse
    file: PathBuf,
    /// Print nothing and exit 1 (saying where it first differs) if the file is not canonical
    #[arg(long)]
    check: bool,
}

pub fn run(args: Args) -> Result<(), Failure> {
    let src = read_source(&args.file)?;
    let canonical =
        texpr_syntax::print::format_source(&src.text).map_err(|d| Failure::new(&src, d))?;
    if !args.check {
        out!("{canonical}");
        return Ok(());
    }
    match first_difference(&src.text, &canonical) {
        None => Ok(()),
        Some(note) => {
            let msg = format!("`{}` is not in canonical form", src.name);
            let hint = format!("run `texprc fmt {}` to see the canonical text", src.name);
            let diag = Diagnostic::error(codes::NOT_CANONICAL, msg)
                .with_note(note)
                .with_note(hint);
            Err(Failure::about(&src, diag))
        }
    }
}

/// The first line where `text` and `canonical` differ, as a short `-`/`+` diff.
fn first_difference(text: &str, canonical: &str) -> Option<String> {
    if text == canonical {
        return None;
    }
    let (mut a, mut b) = (text.lines(), canonical.lines());
    let mut line = 1;
    loop {
        match (a.next(), b.next()) {
            (Some(x), Some(y)) if x == y => line += 1,
            (None, None) => return Some("only line endings or the final newline differ".into()),
            (x, y) => {
                let show =
                    |s: Option<&str>| s.map_or("(end of file)".to_string(), |s| s.to_string());
                return Some(format!("line {line}:\n- {}\n+ {}", show(x), show(y)));
            }
        }
    }
}
