//! `--emit schedule` prints a schedule that names every item and compiles
//! back to the identical module (the baseline's too, whose items are the
//! program as written), and a tuned schedule whose item no longer fits
//! falls back for that item alone, with one warning.

mod common;

use common::{example, fnv1a, scratch, stderr, stdout, texprc_in, with, write};

/// A top-level let the optimizing passes fuse into the output.
const FUSABLE: &str = "param N = 1024\ninput x: f32[N]\nlet t = compute N |i| x[i] * 2.0\n\
                       output y = compute N |i| t[i] + 1.0\n";

/// `texprc compile FILE ARGS --emit WHAT`, which must succeed.
fn emit(cache: &std::path::Path, file: &str, args: &[&str], what: &str) -> String {
    let o = texprc_in(cache, &with(&["compile", file, "--emit", what], args));
    assert_eq!(o.status.code(), Some(0), "{file} {args:?}: {}", stderr(&o));
    stdout(&o)
}

/// The item names of a printed schedule.
fn items(schedule: &str) -> Vec<String> {
    schedule
        .lines()
        .filter(|l| !l.starts_with('#') && l.contains(':'))
        .map(|l| l.split(':').next().unwrap().to_string())
        .collect()
}

/// The regression: the baseline's schedule names the top-level let and the
/// output, and pinned it compiles to the module `--default-schedule` does.
#[test]
fn the_default_schedule_prints_every_item_and_compiles_back() {
    let (dir, cache) = scratch("sched-default");
    let file = write(&dir, "fusable.te", FUSABLE);
    let printed = emit(&cache, &file, &["--default-schedule"], "schedule");
    assert_eq!(
        printed,
        "# schedule: default\noptimize = off\nt: default\ny: default\n"
    );
    let pinned = write(&dir, "s.txt", &printed);
    let want = emit(&cache, &file, &["--default-schedule"], "wgsl");
    assert_eq!(want.matches("@compute").count(), 2, "{want}");
    assert_eq!(emit(&cache, &file, &["--schedule", &pinned], "wgsl"), want);
    // The heuristic's schedule names the one item left after fusion.
    let heur = emit(&cache, &file, &[], "schedule");
    assert_eq!(items(&heur), ["y"], "{heur}");
}

/// Every example: the heuristic's printed schedule names every item of the
/// optimized program, and pinned it compiles to the same WGSL.
#[test]
fn every_printed_schedule_compiles_back_to_the_same_module() {
    let (dir, cache) = scratch("sched-back");
    let files = std::fs::read_dir(example("")).unwrap();
    let mut seen = 0;
    for f in files.map(|f| f.unwrap().path()) {
        if f.extension().is_none_or(|e| e != "te") {
            continue;
        }
        let file = f.to_string_lossy().into_owned();
        // An f16 example: the default target refuses it (E0395); `nvidia`
        // (shader-f16, tensor cores) compiles it.
        let first = texprc_in(&cache, &["compile", &file, "--emit", "schedule"]);
        let target: &[&str] = match stderr(&first).contains("error[E0395]") {
            true => &["--target", "nvidia"],
            false => &[],
        };
        let printed = emit(&cache, &file, target, "schedule");
        let optimized = emit(
            &cache,
            &file,
            &with(&["--dump-after", "fuse_globals"], target),
            "wgsl",
        );
        // Items are the `let`s and outputs, a loop's block's too (indented),
        // each printed with its type (an expression's `let` has none); a
        // loop's states are not items.
        let names: Vec<String> = optimized
            .lines()
            .filter(|l| !l.contains("= iterate "))
            .filter_map(|l| {
                let item = ["let@global ", "let ", "output "];
                item.iter().find_map(|k| l.trim_start().strip_prefix(k))
            })
            .filter(|l| l.split(' ').next().is_some_and(|w| w.ends_with(':')))
            .map(|l| l.split([' ', ':', '=']).next().unwrap().to_string())
            .collect();
        assert_eq!(items(&printed), names, "{file}:\n{printed}");
        let pinned = write(&dir, "s.txt", &printed);
        let want = emit(&cache, &file, target, "wgsl");
        assert_eq!(
            emit(
                &cache,
                &file,
                &with(&["--schedule", &pinned], target),
                "wgsl"
            ),
            want,
            "{file}"
        );
        seen += 1;
    }
    assert!(seen >= 10, "{seen} examples");
}

/// A tuned schedule (in the cache) with a `combine=subgroup` item, for a
/// device without subgroups: that item falls back to the heuristic's
/// strategy with one E0220 warning; the other item keeps its tuned one.
#[test]
fn a_tuned_item_that_no_longer_fits_falls_back_alone() {
    let (dir, cache) = scratch("sched-fallback");
    let src = "param N = 4096\ninput x: f32[N]\noutput total = reduce N |i| x[i]\n\
               output z = compute N |i| x[i] * 3.0\n";
    let file = write(&dir, "two.te", src);
    let typed = emit(&cache, &file, &[], "typed");
    let record = format!(
        "[program={:016x} device=Test Device (Vulkan)]\n\
         total: multipass parts=64 group=64 combine=subgroup\n\
         z: coarsen group=64 per_thread=8\n# median_ms=1.0\n",
        fnv1a(typed.as_bytes())
    );
    std::fs::create_dir_all(cache.parent().unwrap()).unwrap();
    std::fs::write(&cache, record).unwrap();
    let o = texprc_in(
        &cache,
        &["compile", &file, "--device", "test", "--emit", "schedule"],
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let (out, err) = (stdout(&o), stderr(&o));
    assert!(
        out.starts_with("# schedule: tuned for Test Device (Vulkan)"),
        "{out}"
    );
    assert!(out.contains("z: coarsen group=64 per_thread=8"), "{out}");
    assert!(!out.contains("combine=subgroup"), "{out}");
    let heur = emit(&cache, &file, &[], "schedule");
    let total = |s: &str| {
        s.lines()
            .find(|l| l.starts_with("total:"))
            .unwrap()
            .to_string()
    };
    assert_eq!(total(&out), total(&heur));
    assert_eq!(err.matches("warning[E0220]").count(), 1, "{err}");
    assert!(err.contains("`total`") && err.contains("E0215"), "{err}");
}
