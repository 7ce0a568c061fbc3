//! The crates' module structure, read from their sources: no import cycle
//! among a crate's files, and no optimizer file over 500 lines.
//!
//! A file imports another when it names a path into it (`use crate::a::b`,
//! `super::x`, `self::y`, or a child module by name). A module naming one of
//! its ancestors (`use super::Thing`, `crate::Error`) is not counted: the
//! ancestor owns it, as Rust's own layout has it. Tests (`tests.rs`,
//! `#[cfg(test)]` code) and comments are left out.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use texpr_tests::golden::repo_root;

/// Every crate of the workspace, by directory.
const CRATES: [&str; 14] = [
    "texpr-target",
    "texpr-ir",
    "texpr-syntax",
    "texpr-interp",
    "texpr-opt",
    "texpr-codegen",
    "texpr-runtime",
    "texpr",
    "texpr-tune",
    "texpr-block",
    "texprc",
    "texpr-wasm",
    "tests",
    "python",
];

/// A module's path inside its crate (`["schedule", "tile"]`; empty for the root).
type Module = Vec<String>;

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("a directory entry").path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|x| x == "rs") {
            out.push(path);
        }
    }
}

fn module_of(src: &Path, file: &Path) -> Module {
    let rel = file
        .strip_prefix(src)
        .expect("a file under src/")
        .with_extension("");
    let mut m: Module = rel
        .iter()
        .map(|c| c.to_string_lossy().into_owned())
        .collect();
    if matches!(m.last().map(String::as_str), Some("mod" | "lib" | "main")) {
        m.pop();
    }
    m
}

/// The code a module's imports are read from: no comments, nothing after
/// the first `#[cfg(test)]`.
fn code_of(text: &str) -> String {
    let text = text.split("#[cfg(test)]").next().unwrap_or_default();
    text.lines()
        .map(|l| l.split("//").next().unwrap_or_default())
        .collect::<Vec<_>>()
        .join("\n")
}

/// Identifiers, `::`, and the braces and commas of `use` groups.
fn tokens(code: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut chars = code.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        if c.is_alphanumeric() || c == '_' {
            let mut end = i + c.len_utf8();
            while let Some(&(j, d)) = chars.peek() {
                if !(d.is_alphanumeric() || d == '_') {
                    break;
                }
                end = j + d.len_utf8();
                chars.next();
            }
            out.push(code[i..end].to_string());
        } else if c == ':' && chars.peek().is_some_and(|&(_, d)| d == ':') {
            chars.next();
            out.push("::".into());
        } else if matches!(c, '{' | '}' | ',') {
            out.push(c.to_string());
        } else if !c.is_whitespace() {
            out.push(" ".into());
        }
    }
    out
}

/// Every path the code names (`a::b::c`), with `use` groups expanded to
/// each member's leading path.
fn paths(tokens: &[String]) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    let mut prefixes: Vec<Vec<String>> = Vec::new();
    let mut k = 0;
    while k < tokens.len() {
        let starts = tokens[k].chars().all(|c| c.is_alphanumeric() || c == '_')
            && (k == 0 || tokens[k - 1] != "::");
        if !starts {
            if tokens[k] == "}" {
                prefixes.pop();
            }
            k += 1;
            continue;
        }
        let mut path = prefixes.last().cloned().unwrap_or_default();
        path.push(tokens[k].clone());
        k += 1;
        while k + 1 < tokens.len() && tokens[k] == "::" && tokens[k + 1] != "{" {
            path.push(tokens[k + 1].clone());
            k += 2;
        }
        if k + 1 < tokens.len() && tokens[k] == "::" && tokens[k + 1] == "{" {
            prefixes.push(path.clone());
            k += 2;
        }
        out.push(path);
    }
    out
}

/// The module `path`, named in `from`, lands in: the longest prefix that is a module.
fn resolve(modules: &BTreeSet<Module>, from: &Module, path: &[String]) -> Option<Module> {
    let (mut base, mut rest): (Module, &[String]) = match path.first()?.as_str() {
        "crate" => (Vec::new(), &path[1..]),
        "self" => (from.clone(), &path[1..]),
        "super" => (from[..from.len().checked_sub(1)?].to_vec(), &path[1..]),
        child if path.len() > 1 => {
            let mut m = from.clone();
            m.push(child.to_string());
            if !modules.contains(&m) {
                return None;
            }
            (from.clone(), path)
        }
        _ => return None,
    };
    while rest.first().is_some_and(|s| s == "super") {
        base.pop();
        rest = &rest[1..];
    }
    base.extend(rest.iter().cloned());
    (0..=base.len())
        .rev()
        .map(|n| base[..n].to_vec())
        .find(|m| modules.contains(m))
}

fn is_test(m: &Module) -> bool {
    m.iter().any(|s| s == "tests")
}

/// Each module of `krate` and the modules it imports.
fn import_graph(krate: &Path) -> BTreeMap<Module, BTreeSet<Module>> {
    let src = krate.join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let modules: BTreeSet<Module> = files.iter().map(|f| module_of(&src, f)).collect();
    let mut graph = BTreeMap::new();
    for file in &files {
        let m = module_of(&src, file);
        let text = std::fs::read_to_string(file).expect("a readable source file");
        let imports: BTreeSet<Module> = paths(&tokens(&code_of(&text)))
            .iter()
            .filter_map(|p| resolve(&modules, &m, p))
            .filter(|t| !m.starts_with(t) && !is_test(t))
            .collect();
        if !is_test(&m) {
            graph.insert(m, imports);
        }
    }
    graph
}

/// The strongly connected components of more than one module (Tarjan).
fn cycles(graph: &BTreeMap<Module, BTreeSet<Module>>) -> Vec<Vec<Module>> {
    struct Walk<'g> {
        graph: &'g BTreeMap<Module, BTreeSet<Module>>,
        index: BTreeMap<&'g Module, (usize, usize)>,
        stack: Vec<&'g Module>,
        out: Vec<Vec<Module>>,
    }
    fn visit<'g>(w: &mut Walk<'g>, v: &'g Module) {
        let n = w.index.len();
        w.index.insert(v, (n, n));
        w.stack.push(v);
        for u in w.graph.get(v).into_iter().flatten() {
            if !w.index.contains_key(u) {
                visit(w, u);
                let low = w.index[u].1.min(w.index[v].1);
                w.index.get_mut(v).unwrap().1 = low;
            } else if w.stack.contains(&u) {
                let low = w.index[u].0.min(w.index[v].1);
                w.index.get_mut(v).unwrap().1 = low;
            }
        }
        if w.index[v].0 == w.index[v].1 {
            let at = w.stack.iter().rposition(|m| *m == v).unwrap();
            let comp: Vec<Module> = w.stack.drain(at..).cloned().collect();
            if comp.len() > 1 {
                w.out.push(comp);
            }
        }
    }
    let mut w = Walk {
        graph,
        index: BTreeMap::new(),
        stack: Vec::new(),
        out: Vec::new(),
    };
    for v in graph.keys() {
        if !w.index.contains_key(v) {
            visit(&mut w, v);
        }
    }
    w.out
}

#[test]
fn no_crate_has_an_import_cycle_among_its_files() {
    let root = repo_root();
    let mut found = Vec::new();
    for krate in CRATES {
        for comp in cycles(&import_graph(&root.join(krate))) {
            let names: Vec<String> = comp
                .iter()
                .map(|m| format!("{krate}::{}", m.join("::")))
                .collect();
            found.push(names.join(" <-> "));
        }
    }
    assert!(found.is_empty(), "import cycles:\n{}", found.join("\n"));
}

#[test]
fn the_checker_resolves_paths_and_finds_cycles() {
    let modules: BTreeSet<Module> = [vec![], vec!["a".to_string()], vec!["a".into(), "b".into()]]
        .into_iter()
        .collect();
    let child = vec!["a".to_string(), "b".to_string()];
    let parent = vec!["a".to_string()];
    let named = |from: &Module, code: &str| -> Vec<Option<Module>> {
        paths(&tokens(code))
            .iter()
            .map(|p| resolve(&modules, from, p))
            .collect()
    };
    // A group's prefix is a path of its own; `use`, `let`, a lone variable
    // and a number are paths of one segment that name no module.
    assert_eq!(
        named(&child, "use super::{Thing, super::a::b::X}; let b = 1;"),
        [
            None,
            Some(parent.clone()),
            Some(parent.clone()),
            Some(child.clone()),
            None,
            None,
            None
        ]
    );
    assert_eq!(
        named(&parent, "pub use b::Thing;"),
        [None, None, Some(child.clone())]
    );
    assert_eq!(
        named(&vec![], "crate::a::b::f(x)"),
        [Some(child.clone()), None]
    );
    let c = vec!["c".to_string()];
    let mut graph = BTreeMap::from([
        (vec![], BTreeSet::new()),
        (parent.clone(), BTreeSet::from([c.clone()])),
        (child.clone(), BTreeSet::new()),
        (c.clone(), BTreeSet::from([child.clone()])),
    ]);
    assert!(cycles(&graph).is_empty());
    graph.get_mut(&child).unwrap().insert(c.clone());
    assert_eq!(cycles(&graph), [vec![c, child]]);
}

#[test]
fn no_optimizer_file_is_over_500_lines() {
    let src = repo_root().join("texpr-opt/src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let long: Vec<String> = files
        .iter()
        .filter(|f| !is_test(&module_of(&src, f)))
        .filter_map(|f| {
            let lines = std::fs::read_to_string(f)
                .expect("a readable source file")
                .lines()
                .count();
            (lines > 500).then(|| format!("{}: {lines} lines", f.display()))
        })
        .collect();
    assert!(long.is_empty(), "{}", long.join("\n"));
}

/// A crate's own dependencies, from the `[dependencies]` table of its
/// `Cargo.toml` (names only; dev- and build-dependencies are not linked
/// into its users).
fn dependencies(krate: &str) -> Vec<String> {
    let path = repo_root().join(krate).join("Cargo.toml");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut deps = Vec::new();
    let mut in_deps = false;
    for line in text.lines().map(str::trim) {
        if line.starts_with('[') {
            in_deps = line == "[dependencies]";
        } else if in_deps && !line.is_empty() && !line.starts_with('#') {
            let name = line.split(['=', '.', ' ']).next().unwrap_or_default();
            deps.push(name.to_string());
        }
    }
    deps
}

/// The compiler, from the front end to the facade, names no device API:
/// it builds for `wasm32-unknown-unknown` (a browser or Python host brings
/// its own device), and running a plan is `texpr-runtime`'s. The npm
/// package's crate (`texpr-wasm`, the compiler and the interpreter for
/// JavaScript) names none either: the page's WebGPU runs its plans.
#[test]
fn the_compiler_crates_depend_on_no_device_api() {
    const DEVICE: [&str; 3] = ["wgpu", "pollster", "mpi"];
    let mut seen = BTreeSet::new();
    let mut todo = vec!["texpr".to_string(), "texpr-wasm".to_string()];
    let mut bad = Vec::new();
    while let Some(krate) = todo.pop() {
        if !seen.insert(krate.clone()) {
            continue;
        }
        for dep in dependencies(&krate) {
            if DEVICE.contains(&dep.as_str()) {
                bad.push(format!("{krate} depends on {dep}"));
            } else if CRATES.contains(&dep.as_str()) {
                todo.push(dep);
            }
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
    // The walk reached the whole compiler, so the check covers it.
    for krate in [
        "texpr-ir",
        "texpr-syntax",
        "texpr-target",
        "texpr-opt",
        "texpr-codegen",
        "texpr-interp",
    ] {
        assert!(
            seen.contains(krate),
            "{krate} not reached from texpr or texpr-wasm"
        );
    }
    // And the runtime is where the device API is.
    assert!(dependencies("texpr-runtime").contains(&"wgpu".to_string()));
}
