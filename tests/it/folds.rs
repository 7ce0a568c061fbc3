//! `max`/`min` folds start from an element, never from the type's extreme
//! value, in every kind of fold the code generator writes: thread loops (with
//! and without unrolling), register-tile accumulators (with `vec4` loads),
//! workgroup trees (`reduce@group`, `wide_rows`), subgroup folds and the
//! `_partials` kernels and final folds of multi-pass and grid-stride
//! reductions (with their tails and epilogues).
//!
//! NVIDIA's Vulkan driver (580.159) miscompiles `max(acc, -x)` on `i32` when
//! `acc` starts at `i32::MIN` (`tests/data/repro/nvidia/`); no seed constant
//! means no identity can meet a negation. Every case also runs on the GPU
//! against the interpreter.

use texpr::{Options, Schedule, ScheduleChoice, Target, compile};
use texpr_tests::gpu::{check_program_with, gpu};

/// Seeds an integer extreme value would be written as (`i32::MIN`/`MAX`,
/// `u32::MAX`, in hexadecimal and decimal).
const SEEDS: [&str; 6] = [
    "0x80000000",
    "0x7fffffff",
    "2147483648",
    "2147483647",
    "4294967295",
    "0xffffffff",
];

/// `(name, program, schedule)`: one of each kind of fold, each over a
/// negated value. `{T}` is the element type, `{OP}` `max` or `min`.
pub(crate) const CASES: [(&str, &str, &str); 12] = [
    (
        "thread loop",
        "input x: {T}[999]\noutput o: {T}[1] = reduce {OP} 999 |i| {NEG}x[i]",
        "",
    ),
    (
        "unrolled loop",
        "input x: {T}[16]\noutput o: {T}[1] = reduce {OP} 16 |i| {NEG}x[i]",
        "",
    ),
    (
        "register tile",
        "input a: {T}[256]\ninput b: {T}[256]\noutput o: {T}[256] = compute 16 |i| compute 16 |j| reduce {OP} 16 |k| {NEG}(a[i * 16 + k] * b[k * 16 + j])",
        "o: tile group=4x4 reg=4x4",
    ),
    (
        "rows",
        "input x: {T}[4096]\noutput o: {T}[64] = compute 64 |r| reduce {OP} 64 |c| {NEG}x[r * 64 + c]",
        "o: rows group=16",
    ),
    (
        "wide rows (workgroup tree)",
        "input x: {T}[4096]\noutput o: {T}[64] = compute 64 |r| reduce {OP} 64 |c| {NEG}x[r * 64 + c]",
        "o: wide_rows group=32",
    ),
    (
        "reduce@group",
        "input x: {T}[256]\noutput o: {T}[4] = compute@grid 4 |g| reduce@group 64 |r| {NEG}x[g * 64 + r]",
        "",
    ),
    (
        "multipass, serial combine",
        "input x: {T}[4096]\noutput o: {T}[1] = reduce {OP} 4096 |i| {NEG}x[i]",
        "o: multipass parts=256 group=16",
    ),
    (
        "multipass, tree combine",
        "input x: {T}[4096]\noutput o: {T}[1] = reduce {OP} 4096 |i| {NEG}x[i]",
        "o: multipass parts=256 group=16 combine=tree",
    ),
    (
        "multipass, subgroup combine",
        "input x: {T}[4096]\noutput o: {T}[1] = reduce {OP} 4096 |i| {NEG}x[i]",
        "o: multipass parts=256 group=16 combine=subgroup",
    ),
    (
        "gridstride, contiguous runs, a tail of 3",
        "input x: {T}[4099]\noutput o: {T}[1] = reduce {OP} 4099 |i| {NEG}x[i]",
        "o: gridstride groups=4 group=16 chunk=16",
    ),
    (
        "gridstride, grid order, subgroup combine",
        "input x: {T}[4096]\noutput o: {T}[1] = reduce {OP} 4096 |i| {NEG}x[i]",
        "o: gridstride groups=4 group=16 combine=subgroup",
    ),
    (
        "gridstride, chunks of 4, tree combine, an epilogue",
        "input x: {T}[4100]\noutput o: {T}[1] = (reduce {OP} 4100 |i| {NEG}x[i]) / 2",
        "o: gridstride groups=4 group=16 chunk=4 combine=tree",
    ),
];

/// A target with subgroups, so `reduce@subgroup` compiles without a GPU.
fn limits() -> Target {
    let mut t = Target::default();
    t.features.subgroup_size = Some((8, 32));
    t
}

/// Every case for every element type and `max`/`min`, as
/// `(label, source, schedule)`; `u32` has no negation.
fn programs() -> Vec<(String, String, String)> {
    let mut out = Vec::new();
    for (kind, src, sched) in CASES {
        for (ty, neg) in [("i32", "-"), ("u32", ""), ("f32", "-")] {
            for op in ["max", "min"] {
                let src = src
                    .replace("{T}", ty)
                    .replace("{NEG}", neg)
                    // `reduce@group` takes the op after the level.
                    .replace("reduce@group 64", &format!("reduce@group {op} 64"))
                    .replace("{OP}", op);
                out.push((format!("{kind}, {op} on {ty}"), src, sched.to_string()));
            }
        }
    }
    out
}

fn choice(sched: &str) -> ScheduleChoice {
    match sched {
        "" => ScheduleChoice::Default,
        s => ScheduleChoice::Given(s.parse::<Schedule>().unwrap()),
    }
}

/// The value a `var acc_N: T = VALUE;` declaration starts from, if any.
fn acc_inits(wgsl: &str) -> Vec<&str> {
    wgsl.lines()
        .filter_map(|l| l.trim().strip_prefix("var acc_"))
        .filter_map(|rest| rest.split_once(" = ").map(|(_, v)| v))
        .collect()
}

#[test]
fn max_min_folds_start_from_an_element() {
    for (label, src, sched) in programs() {
        let p = texpr_syntax::frontend(&src, &[]).unwrap_or_else(|d| panic!("{label}: {d:?}"));
        let opts = Options {
            target: limits(),
            schedule: choice(&sched),
            ..Options::default()
        };
        let c = compile(&p, &opts).unwrap_or_else(|d| panic!("{label}: {d:?}\n{src}"));
        let wgsl = &c.module.wgsl;
        // (`f32` programs may test NaNs by their bits: only integers here.)
        for seed in SEEDS.iter().filter(|_| !src.contains("f32")) {
            assert!(!wgsl.contains(seed), "{label}: a seed `{seed}`:\n{wgsl}");
        }
        // An accumulator starts from nothing (it takes the first element
        // in the first step) or from an element read from memory (a read,
        // or a value holding one): never from a literal.
        for init in acc_inits(wgsl) {
            assert!(
                init.starts_with(|c: char| c.is_ascii_alphabetic()),
                "{label}: an accumulator starts from `{init}`:\n{wgsl}"
            );
        }
        // (The comparison is printed into the `select`, or named when
        // several accumulators share it.)
        let takes_first = wgsl.contains(" == 0i);") || wgsl.contains(" == 0i;");
        let tree_or_subgroup = wgsl.contains("var<workgroup>");
        assert!(
            takes_first || tree_or_subgroup,
            "{label}: no fold takes its first element:\n{wgsl}"
        );
    }
}

/// The same programs on the GPU match the interpreter (the device's own
/// limits; a subgroup combine only where the device has subgroups).
#[test]
fn max_min_folds_match_the_interpreter_on_the_gpu() {
    let Some(gpu) = gpu() else { return };
    for (label, src, sched) in programs() {
        if sched.contains("subgroup") && !gpu.target().subgroups() {
            continue;
        }
        let p = texpr_syntax::frontend(&src, &[]).unwrap();
        if let Err(e) = check_program_with(gpu, &p, 7, &choice(&sched)) {
            panic!("{label}: {e}\n{src}");
        }
    }
}
