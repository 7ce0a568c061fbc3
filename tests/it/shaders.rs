//! Golden shaders: every `examples/*.te` compiles with default options (for
//! an example that needs a feature the default target lacks, such as
//! `f16`, for the first built-in target with it: `needs::default_target`)
//! to the WGSL checked in as `shaders/NAME.wgsl` (bless with
//! `UPDATE_EXPECT=1`), and every checked-in shader parses and validates
//! with naga.

use texpr::{Options, compile};
use texpr_tests::{golden, needs};

#[test]
fn examples_compile_to_the_golden_shaders() {
    let shaders = golden::repo_root().join("shaders");
    let mut failures = Vec::new();
    let examples = golden::inputs("examples", "te");
    assert!(!examples.is_empty());
    for path in &examples {
        let src = std::fs::read_to_string(path).unwrap();
        let stem = path.file_stem().unwrap().to_string_lossy().into_owned();
        let p = texpr_syntax::frontend(&src, &[]).unwrap_or_else(|d| panic!("{stem}: {d:#?}"));
        let opts = Options {
            target: needs::default_target(&p),
            ..Options::default()
        };
        match compile(&p, &opts) {
            Ok(c) => {
                if let Err(msg) =
                    golden::compare(&shaders.join(format!("{stem}.wgsl")), &c.module.wgsl)
                {
                    failures.push(msg);
                }
            }
            Err(ds) => failures.push(format!(
                "{stem} does not compile:\n{}",
                texpr_syntax::diag::render(&format!("{stem}.te"), &src, &ds)
            )),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn every_checked_in_shader_validates() {
    let files = golden::inputs("shaders", "wgsl");
    assert!(!files.is_empty(), "no shaders checked in");
    for path in files {
        let wgsl = std::fs::read_to_string(&path).unwrap();
        // Every feature a shader may use (`f16` among them); the WGSL's own
        // `enable` directives say which it does.
        let all = texpr_target::Target::builtin("nvidia")
            .expect("a built-in")
            .features;
        if let Err(d) = texpr_codegen::validate::validate(&wgsl, &all) {
            panic!("{}: {}\n{}", path.display(), d, d.notes.join("\n"));
        }
    }
}
