//! Targets on the command line: `compile --target NAME|FILE` compiles for a
//! device this machine lacks, `texprc target` prints a target as a file
//! `--target` reads back, bad target files are coded errors at their line,
//! and `compile --device NAME` compiles with the target the schedule cache
//! stores for that device (a tuned `combine=subgroup` stands offline).

mod common;

use common::{example, fnv1a, scratch, stderr, stdout, texprc_in, write};

/// A 1 GiB input: over wgpu-default's binding size, within an H100's.
const SUM_1GIB: [&str; 2] = ["-D", "N=268435456"];

#[test]
fn the_nvidia_target_compiles_a_gibibyte_without_a_gpu() {
    let (_dir, cache) = scratch("target-nvidia");
    let sum = example("sum.te");
    let args = |extra: &[&'static str]| -> Vec<String> {
        let mut v: Vec<String> = ["compile", sum.as_str(), "--emit", "wgsl"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        v.extend(SUM_1GIB.iter().chain(extra).map(|s| s.to_string()));
        v
    };
    let run = |a: Vec<String>| {
        let a: Vec<&str> = a.iter().map(String::as_str).collect();
        texprc_in(&cache, &a)
    };
    let o = run(args(&["--target", "nvidia"]));
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let wgsl = stdout(&o);
    assert!(
        wgsl.contains("subgroupAdd("),
        "the heuristic folds with subgroups:\n{wgsl}"
    );
    let portable = run(args(&[]));
    assert_eq!(portable.status.code(), Some(1));
    assert!(
        stderr(&portable).contains("error[E0315]"),
        "{}",
        stderr(&portable)
    );
}

#[test]
fn a_printed_target_reads_back_and_bad_ones_are_coded() {
    let (dir, cache) = scratch("target-file");
    let printed = texprc_in(&cache, &["target", "nvidia"]);
    assert_eq!(printed.status.code(), Some(0), "{}", stderr(&printed));
    let text = stdout(&printed);
    assert!(
        text.contains("max_workgroup_storage_bytes = 49152"),
        "{text}"
    );
    let file = write(&dir, "h100.txt", &text);
    let m = example("matmul.te");
    let wgsl = |target: &str| {
        let o = texprc_in(&cache, &["compile", &m, "-D", "M=64", "--target", target]);
        assert_eq!(o.status.code(), Some(0), "{target}: {}", stderr(&o));
        stdout(&o)
    };
    assert_eq!(wgsl(&file), wgsl("nvidia"));
    // The file prints back unchanged.
    assert_eq!(stdout(&texprc_in(&cache, &["target", &file])), text);

    let bad = write(&dir, "bad.txt", "name = x\nkind = cpu\ncolour = red\n");
    let o = texprc_in(&cache, &["compile", &m, "--target", &bad]);
    assert_eq!(o.status.code(), Some(1));
    let err = stderr(&o);
    assert!(err.contains("error[E0602]"), "{err}");
    assert!(err.contains("bad.txt:3:1"), "{err}");
    assert!(err.contains("unknown key `colour`"), "{err}");

    let o = texprc_in(&cache, &["compile", &m, "--target", "h200"]);
    assert_eq!(o.status.code(), Some(1));
    let err = stderr(&o);
    assert!(err.contains("error[E0605]"), "{err}");
    assert!(
        err.contains("wgpu-default, webgpu, llvmpipe, nvidia"),
        "{err}"
    );
}

#[test]
fn the_device_named_compiles_with_its_cached_target() {
    let (_dir, cache) = scratch("target-device");
    let sum = example("sum.te");
    let typed = texprc_in(
        &cache,
        &["compile", &sum, "-D", "N=4096", "--emit", "typed"],
    );
    let nvidia = stdout(&texprc_in(&cache, &["target", "nvidia"]));
    let record = format!(
        "[program={:016x} device=Fake GPU (Vulkan)]\n\
         total: multipass parts=64 group=64 combine=subgroup\n# median_ms=0.5\n\
         [target device=Fake GPU (Vulkan)]\n{nvidia}",
        fnv1a(stdout(&typed).as_bytes())
    );
    std::fs::create_dir_all(cache.parent().unwrap()).unwrap();
    std::fs::write(&cache, record).unwrap();
    let args = [
        "compile", &sum, "-D", "N=4096", "--device", "fake", "--emit", "schedule",
    ];
    let o = texprc_in(&cache, &args);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(
        stdout(&o),
        "# schedule: tuned for Fake GPU (Vulkan) (0.500 ms)\ntotal: multipass parts=64 group=64 combine=subgroup\n"
    );
    assert!(!stderr(&o).contains("warning"), "{}", stderr(&o));
    // The device's limits too: a 1 GiB input compiles for it.
    let big = [
        "compile",
        &sum,
        SUM_1GIB[0],
        SUM_1GIB[1],
        "--device",
        "fake",
    ];
    let o = texprc_in(&cache, &big);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    // Without the device, wgpu-default has no subgroups: the tuned item
    // would fall back (the cache is keyed by device, so here it is unused).
    let o = texprc_in(
        &cache,
        &["compile", &sum, "-D", "N=4096", "--emit", "schedule"],
    );
    assert!(!stdout(&o).contains("combine=subgroup"), "{}", stdout(&o));
}

/// Wide loads (`vec4<u64>`, llvmpipe's) show in WGSL, HLSL and MSL; GLSL,
/// which naga writes without 64-bit integers, gets the same program four
/// at a time instead of an error.
#[test]
fn glsl_compiles_without_wide_loads() {
    let (_dir, cache) = scratch("target-glsl");
    let sum = example("sum.te");
    let emit = |what: &str| {
        let o = texprc_in(
            &cache,
            &["compile", &sum, "--target", "llvmpipe", "--emit", what],
        );
        assert_eq!(o.status.code(), Some(0), "{what}: {}", stderr(&o));
        stdout(&o)
    };
    assert!(emit("wgsl").contains("vec4<u64>"));
    assert!(emit("hlsl").contains("uint64_t4"));
    let glsl = emit("glsl");
    assert!(glsl.contains("vec4") && !glsl.contains("uint64"), "{glsl}");
}
