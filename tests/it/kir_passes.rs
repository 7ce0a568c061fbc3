//! Kernel-IR pass filetests: each `tests/data/kir/<pass>/*.kir` holds
//! kernel IR (`texprc compile --emit kir`'s text) with a header naming the
//! target (`// target: NAME`, `// target-line: KEY = VALUE`, as the other
//! filetests have); the pass named by the directory runs alone on each of
//! its kernels (verified before and after, `kir::passes::run_with`), and
//! the golden `*.out` beside it holds the kernels after the pass, then the
//! errors the pass reported (code, message, labels and notes). Bless with `UPDATE_EXPECT=1`.

use std::fmt::Write as _;
use texpr_codegen::kir::{self, passes};
use texpr_tests::golden::{self, header};

const DIR: &str = "tests/data/kir";

#[test]
fn each_pass_turns_its_kernels_into_their_golden_output() {
    for (name, pass) in passes::PASSES {
        let dir = format!("{DIR}/{name}");
        let files = golden::inputs(&dir, "kir");
        assert!(
            files.len() >= 3,
            "{dir}: {} filetests, 3 wanted",
            files.len()
        );
        golden::run_dir(&dir, "kir", "out", |path, src| {
            let (target, _) = header(src);
            let mut ks =
                kir::parse::kernels(src).unwrap_or_else(|d| panic!("{}: {d:#?}", path.display()));
            assert!(!ks.is_empty(), "{}: no kernel", path.display());
            let mut out = format!("// after {name}\n");
            let mut errors = Vec::new();
            for k in &mut ks {
                let one = [(*name, *pass)];
                if let Err(e) = passes::run_with(k, &target, &one, &mut |_, _| {}) {
                    errors.extend(e);
                }
                out.push('\n');
                out += &kir::print::kernel(k);
            }
            for d in &errors {
                let _ = write!(out, "\n// error[{}]: {}", d.code, d.message);
                for l in &d.labels {
                    let _ = write!(out, "\n//   label: {}", l.message);
                }
                for n in &d.notes {
                    let _ = write!(out, "\n//   note: {n}");
                }
            }
            if !errors.is_empty() {
                out.push('\n');
            }
            out
        });
    }
}

/// Every directory of pass filetests is a pass's.
#[test]
fn every_pass_directory_names_a_pass() {
    let root = golden::repo_root().join(DIR);
    for entry in std::fs::read_dir(&root).unwrap().filter_map(Result::ok) {
        if entry.path().is_dir() {
            let name = entry.file_name().to_string_lossy().to_string();
            assert!(
                passes::by_name(&name).is_some(),
                "{DIR}/{name} is no pass's"
            );
        }
    }
}
