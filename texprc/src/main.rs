//! `texprc`: the command-line compiler.
fn main() {}
