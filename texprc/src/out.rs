//! Standard output: everything texprc prints there goes through
//! [`outln!`] and [`out!`] (or [`bytes`]), never `println!`.
//!
//! When the reader of stdout goes away (`texprc run prog.te | head -1`),
//! the next write fails with a broken pipe. Rust ignores `SIGPIPE`, so
//! `println!` would panic; instead texprc ends at once, quietly, with exit
//! status 0: whoever closed the pipe has read all it wanted. (The
//! alternative convention, death by `SIGPIPE` and status 141, would make a
//! `set -o pipefail` pipeline through `head` fail.) Each write is flushed,
//! so a closed pipe ends texprc at the first line nobody reads rather than
//! in the middle of later work. Any other write error is reported (E0910)
//! with exit status 1.

use std::io::Write;

/// Prints a formatted line on stdout (see the module docs).
macro_rules! outln {
    () => {
        $crate::out::text(format_args!("\n"))
    };
    ($($arg:tt)*) => {
        $crate::out::line(format_args!($($arg)*))
    };
}

/// Prints formatted text on stdout (see the module docs).
macro_rules! out {
    ($($arg:tt)*) => {
        $crate::out::text(format_args!($($arg)*))
    };
}

/// `args` and a newline.
pub fn line(args: std::fmt::Arguments<'_>) {
    write_with(|o| {
        o.write_fmt(args)?;
        o.write_all(b"\n")
    });
}

/// `args` as they are.
pub fn text(args: std::fmt::Arguments<'_>) {
    write_with(|o| o.write_fmt(args));
}

/// Raw bytes (a SPIR-V module).
pub fn bytes(b: &[u8]) {
    write_with(|o| o.write_all(b));
}

fn write_with(f: impl FnOnce(&mut std::io::StdoutLock<'static>) -> std::io::Result<()>) {
    let mut o = std::io::stdout().lock();
    let written = f(&mut o).and_then(|()| o.flush());
    drop(o);
    match written {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => std::process::exit(0),
        Err(e) => {
            eprintln!(
                "error[{}]: cannot write to standard output: {e}",
                crate::codes::WRITE_OUTPUT
            );
            std::process::exit(1);
        }
    }
}
