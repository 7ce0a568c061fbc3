//! `texpr-plan` (the kernel plan as JSON, docs/plan-json.md) says all a host
//! needs to run a module itself, and says it as the plan has it.

use texpr::{Options, ScheduleChoice, Target, compile, compile_source};
use texpr_codegen::plan::BufferRole;
use texpr_codegen::plan_json::{VERSION, plan_json};
use texpr_tests::browser::webgpu_with_subgroups;
use texpr_tests::golden::repo_root;

/// A loop (states in two buffers, bindings that move with the step), a
/// constant buffer (a literal over 16 elements) and an input and output.
const SRC: &str = "param N = 64\n\
    input x: f32[N]\n\
    let c = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0, 17.0, 18.0]\n\
    output y = iterate 5 from x |s, t| {\n\
        yield compute N |i| s[i] * 0.5 + c[i % 18]\n\
    }\n";

#[test]
fn the_json_plan_is_the_module_plan() {
    let target = Target::builtin("webgpu").expect("a built-in target");
    // The default schedule: a dispatch a step (the heuristic runs a loop
    // this small whole in one workgroup).
    let opts = Options {
        target: target.clone(),
        schedule: ScheduleChoice::Default,
        ..Options::default()
    };
    let p = texpr_syntax::frontend(SRC, &[]).unwrap_or_else(|d| panic!("{d:#?}"));
    let m = compile(&p, &opts)
        .unwrap_or_else(|d| panic!("{d:#?}"))
        .module;
    let text = serde_json::to_string_pretty(&plan_json(&m, &target)).unwrap();
    let j: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(
        (j["format"].as_str(), j["version"].as_u64()),
        (Some("texpr-plan"), Some(u64::from(VERSION)))
    );
    assert_eq!(j["wgsl"].as_str(), Some(m.wgsl.as_str()));

    // Every buffer, its role, size, and a constant buffer's contents.
    let buffers = j["buffers"].as_array().unwrap();
    assert_eq!(buffers.len(), m.buffers.len());
    let mut constants = 0;
    for (b, jb) in m.buffers.iter().zip(buffers) {
        assert_eq!(jb["name"].as_str(), Some(b.name.as_str()));
        assert_eq!(jb["len"].as_u64(), Some(b.len));
        if b.role == BufferRole::Constant {
            constants += 1;
            let bits: Vec<u32> = serde_json::from_value(jb["init_bits"].clone()).unwrap();
            assert_eq!(bits, b.init);
        }
    }
    assert_eq!(constants, 1, "{text}");
    let roles: Vec<&str> = buffers
        .iter()
        .map(|b| b["role"].as_str().unwrap())
        .collect();
    assert!(
        roles.contains(&"input") && roles.contains(&"output") && roles.contains(&"state"),
        "{roles:?}"
    );

    // The kernels in dispatch order, bindings as planned, the loop over them.
    let kernels = j["kernels"].as_array().unwrap();
    assert_eq!(kernels.len(), m.kernels.len());
    for (k, jk) in m.kernels.iter().zip(kernels) {
        assert_eq!(jk["entry_point"].as_str(), Some(k.entry_point.as_str()));
        assert_eq!(jk["bindings"].as_array().unwrap().len(), k.bindings.len());
    }
    let moving = kernels
        .iter()
        .flat_map(|k| k["bindings"].as_array().unwrap())
        .filter(|b| b.get("step").is_some());
    assert!(moving.count() > 0, "{text}");
    assert_eq!(j["loops"][0]["count"].as_u64(), Some(5));

    // What the device must offer is within what the target offers.
    let limits = &j["requires"]["limits"];
    let need = |k: &str| limits[k].as_u64().unwrap();
    assert!(
        need("max_compute_invocations_per_workgroup")
            <= u64::from(target.limits.max_invocations_per_workgroup)
    );
    assert!(
        need("max_storage_buffers_per_shader_stage")
            <= u64::from(target.limits.max_storage_buffers_per_stage)
    );
    assert!(need("max_buffer_size") <= target.limits.max_buffer_size);

    // Deterministic: the same program gives the same text.
    let again = compile(&p, &opts).unwrap().module;
    assert_eq!(
        serde_json::to_string_pretty(&plan_json(&again, &target)).unwrap(),
        text
    );
}

/// Bytes of `var<workgroup>` arrays declared in `wgsl` (every one is an
/// `array<T, N>` of 4-byte elements).
fn workgroup_bytes_declared(wgsl: &str) -> u64 {
    wgsl.lines()
        .filter(|l| l.trim_start().starts_with("var<workgroup>"))
        .map(|l| {
            let n = l.rsplit(',').next().unwrap_or_default();
            let n = n.trim_matches(|c: char| !c.is_ascii_digit());
            4 * n
                .parse::<u64>()
                .unwrap_or_else(|_| panic!("an array length in {l}"))
        })
        .sum()
}

/// A kernel's workgroup memory is in the plan (the kernel's own, and the
/// most any kernel needs under `requires.limits`), as its WGSL declares it.
#[test]
fn the_json_plan_states_workgroup_memory() {
    let src = std::fs::read_to_string(repo_root().join("examples/matmul.te")).unwrap();
    let target = Target::builtin("webgpu").expect("a built-in target");
    let schedule = "c: tile group=16x16 reg=4x4 shared=8"
        .parse()
        .expect("a schedule");
    let opts = Options {
        target: target.clone(),
        schedule: ScheduleChoice::Given(schedule),
        ..Options::default()
    };
    let m = compile_source(&src, &opts)
        .unwrap_or_else(|d| panic!("{d:#?}"))
        .module;
    assert_eq!(m.kernels.len(), 1, "{}", m.wgsl);
    let j = plan_json(&m, &target);
    let bytes = j["kernels"][0]["workgroup_storage_bytes"].as_u64().unwrap();
    assert!(bytes > 0, "{}", m.wgsl);
    assert_eq!(bytes, workgroup_bytes_declared(&m.wgsl), "{}", m.wgsl);
    let limits = &j["requires"]["limits"];
    assert_eq!(
        limits["max_compute_workgroup_storage_size"].as_u64(),
        Some(bytes)
    );
    assert!(bytes <= u64::from(target.limits.max_workgroup_storage_bytes));
}

/// Where the kernels use subgroups, the plan asks for the extension and
/// states the least subgroup size they assume (the target's smallest:
/// Chromium's adapters have 4 lanes); elsewhere neither.
#[test]
fn the_json_plan_states_the_subgroup_size_it_assumes() {
    let mut with_subgroups = 0;
    for name in ["sum", "dot", "softmax", "layernorm", "max", "matvec"] {
        let path = repo_root().join(format!("examples/{name}.te"));
        let src = std::fs::read_to_string(path).unwrap();
        for target in [Target::builtin("webgpu").unwrap(), webgpu_with_subgroups()] {
            let opts = Options {
                target: target.clone(),
                ..Options::default()
            };
            let m = compile_source(&src, &opts)
                .unwrap_or_else(|d| panic!("{name}: {d:#?}"))
                .module;
            let j = plan_json(&m, &target);
            let uses = m.wgsl.contains("subgroup");
            let extensions = j["requires"]["extensions"].as_array().unwrap();
            assert_eq!(
                extensions.contains(&serde_json::json!("subgroups")),
                uses,
                "{name} for {}",
                target.name
            );
            let min = j["requires"]["subgroup_min_size"].as_u64();
            assert_eq!(min, uses.then_some(4), "{name} for {}", target.name);
            with_subgroups += usize::from(uses);
        }
    }
    // Some of them use subgroups (the check above is not vacuous).
    assert!(with_subgroups > 0);
}
