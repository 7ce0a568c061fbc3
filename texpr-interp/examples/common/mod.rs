//! What the interpreter's examples share: `FILE [NAME=VALUE ...]` from the
//! command line, as a checked program with its defines applied.

use texpr_ir::Program;

/// The program `FILE` names with its defines, and both as given; exits
/// with a usage line (naming `example`) when no file is given.
pub fn program_from_args(example: &str) -> (String, Vec<(String, i64)>, Program) {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some((file, defines)) = args.split_first() else {
        eprintln!("usage: {example} FILE [NAME=VALUE ...]");
        std::process::exit(2);
    };
    let defines: Vec<(String, i64)> = defines
        .iter()
        .map(|d| {
            let (k, v) = d.split_once('=').expect("NAME=VALUE");
            (k.to_string(), v.parse().expect("an integer value"))
        })
        .collect();
    let src = std::fs::read_to_string(file).expect("a readable file");
    let p = texpr_syntax::frontend(&src, &defines).unwrap_or_else(|d| panic!("{d:?}"));
    (file.clone(), defines, p)
}
