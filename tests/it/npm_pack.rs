//! The npm package as `npm pack` makes it: the README, both license files,
//! types for every export path and the WebAssembly in the tarball; a pack
//! without a build refused; and the README's example a program that checks.
//!
//! Skipped loudly without npm or without what building the package needs;
//! under TEXPR_REQUIRE_GPU=1 either is a failure.

use std::path::Path;
use std::process::Command;

use serde_json::Value as Json;
use texpr_tests::npm;

/// `npm pack --dry-run --json` in `dir`: its output, or its stderr.
fn pack(npm_exe: &Path, dir: &Path) -> Result<Json, String> {
    let out = Command::new(npm_exe)
        .args(["pack", "--dry-run", "--json", "--ignore-scripts=false"])
        .current_dir(dir)
        .output()
        .map_err(|e| format!("cannot run npm: {e}"))?;
    match out.status.success() {
        true => serde_json::from_slice(&out.stdout).map_err(|e| e.to_string()),
        false => Err(String::from_utf8_lossy(&out.stderr).into_owned()),
    }
}

#[test]
fn the_tarball_holds_readme_licenses_types_and_wasm() {
    let Some(npm_exe) = npm::tool("npm") else {
        return;
    };
    if !npm::package() {
        return;
    }
    let dir = npm::root().join("npm");
    let packed = pack(&npm_exe, &dir).unwrap_or_else(|e| panic!("npm pack failed: {e}"));
    let files: Vec<&str> = (packed[0]["files"].as_array().expect("the files").iter())
        .map(|f| f["path"].as_str().unwrap())
        .collect();
    for want in [
        "README.md",
        "LICENSE-MIT",
        "LICENSE-APACHE",
        "package.json",
        "index.js",
        "index.d.ts",
        "run.js",
        "run.d.ts",
        "webgpu.js",
        "refusal.js",
        "background.js",
        "background.d.ts",
        "worker.js",
        "pkg/texpr_wasm.js",
        "pkg/texpr_wasm_bg.wasm",
    ] {
        assert!(
            files.contains(&want),
            "{want} is not in the tarball: {files:?}"
        );
    }
    // Every export path has types, and every file it names is packed.
    let manifest: Json =
        serde_json::from_str(&std::fs::read_to_string(dir.join("package.json")).unwrap()).unwrap();
    for (path, entry) in manifest["exports"].as_object().expect("exports") {
        for key in ["types", "default"] {
            let file = entry[key]
                .as_str()
                .unwrap_or_else(|| panic!("{path}: no {key}"));
            let file = file.trim_start_matches("./");
            assert!(files.contains(&file), "{path}: {file} is not packed");
        }
    }
    // The README's example is a program.
    let readme = std::fs::read_to_string(dir.join("README.md")).unwrap();
    let example = (readme.split("const source = `").nth(1))
        .and_then(|rest| rest.split('`').next())
        .expect("the README's example source");
    texpr_syntax::frontend(example, &[]).expect("the README's example checks");
}

#[test]
fn packing_without_a_build_is_refused() {
    let Some(npm_exe) = npm::tool("npm") else {
        return;
    };
    // The package's own files, without pkg/ (what a fresh clone holds).
    let dir = std::env::temp_dir().join(format!("texpr-unbuilt-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let source = npm::root().join("npm");
    for f in [
        "package.json",
        "prepack.mjs",
        "index.js",
        "index.d.ts",
        "run.js",
        "README.md",
    ] {
        std::fs::copy(source.join(f), dir.join(f)).unwrap();
    }
    let refused = pack(&npm_exe, &dir);
    let _ = std::fs::remove_dir_all(&dir);
    let why = refused.expect_err("npm pack made a tarball without the WebAssembly");
    assert!(why.contains("run npm/build.sh"), "{why}");
}
