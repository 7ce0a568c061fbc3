//! Code generation against the device limits: just under each limit compiles
//! and validates, just over gives the coded error (or, for the dispatch, folds
//! into y), on hand-built IR so the tests do not depend on the front end.

use texpr::{DeviceLimits, Options, ScheduleChoice, Target, compile};
use texpr_codegen::emit;
use texpr_ir::build::*;
use texpr_ir::{BinOp, ElemTy, Level, MemLevel, ReduceOp};
use texpr_ir::{Program, Ty, VecRef};
use texpr_tests::needs;

fn codes<T>(r: Result<T, Vec<texpr_ir::Diagnostic>>) -> Vec<&'static str> {
    r.err()
        .map(|ds| ds.iter().map(|d| d.code).collect())
        .unwrap_or_default()
}

/// `compute@grid 1 |g| let@shared s = compute@group 64 |l| fill (len/64 each)
/// in compute@group 64 |l| s[l]`, with `s` of `len` f32s.
fn shared_of(len: u64) -> Program {
    let mut p = program();
    let x = input(&mut p, "x", ElemTy::F32, len);
    let g = index(&mut p, "g", 1);
    let e = index(&mut p, "e", len);
    let s = vector(&mut p, "s", Ty::new(ElemTy::F32, len));
    let value = compute(Some(Level::Thread), len, e, read(&p, x, tv(e)));
    let l = index(&mut p, "l", 64);
    let body = compute(Some(Level::Group), 64, l, read(&p, VecRef::Local(s), tv(l)));
    let root = compute(
        Some(Level::Grid),
        1,
        g,
        let_(Some(MemLevel::Shared), s, value, body),
    );
    output(&mut p, "y", root);
    p
}

#[test]
fn workgroup_storage_just_under_and_just_over() {
    let opts = Options::default();
    let ok = compile(&shared_of(4096), &opts).expect("16384 bytes fit");
    assert!(ok.module.wgsl.contains("var<workgroup>"));
    let err = compile(&shared_of(4097), &opts).unwrap_err();
    assert_eq!(err.iter().map(|d| d.code).collect::<Vec<_>>(), ["E0310"]);
    assert!(err[0].message.contains("16388"), "{}", err[0].message);
    // a device with more workgroup memory takes it
    let big = Options {
        target: with_limits(DeviceLimits {
            max_workgroup_storage_bytes: 32768,
            ..Default::default()
        }),
        ..opts
    };
    assert!(compile(&shared_of(4097), &big).is_ok());
}

/// The portable target with other limits.
fn with_limits(limits: DeviceLimits) -> Target {
    Target {
        limits,
        ..Target::default()
    }
}

/// `compute@grid 1 |g| compute@group n |l| x[l]`, already scheduled.
fn group_of(n: u64) -> Program {
    let mut p = program();
    let x = input(&mut p, "x", ElemTy::F32, n);
    let g = index(&mut p, "g", 1);
    let l = index(&mut p, "l", n);
    let root = compute(
        Some(Level::Grid),
        1,
        g,
        compute(Some(Level::Group), n, l, read(&p, x, tv(l))),
    );
    output(&mut p, "y", root);
    p
}

#[test]
fn invocations_per_workgroup_just_under_and_just_over() {
    let limits = Target::default();
    let m = emit(&group_of(256), &limits).expect("256 invocations fit");
    assert_eq!(m.kernels[0].workgroup_size, [256, 1, 1]);
    assert_eq!(codes(emit(&group_of(257), &limits)), ["E0311"]);
    // the schedule reports it first when compiling
    assert_eq!(
        codes(compile(&group_of(257), &Options::default())),
        ["E0202"]
    );
    let narrow = with_limits(DeviceLimits {
        max_workgroup_size: [128, 128, 64],
        ..limits.limits
    });
    assert_eq!(codes(emit(&group_of(256), &narrow)), ["E0312"]);
}

/// One output reading `n` inputs: `n + 1` bindings in one kernel.
fn reading(n: usize) -> Program {
    let mut p = program();
    let xs: Vec<VecRef> = (0..n)
        .map(|k| input(&mut p, &format!("x{k}"), ElemTy::F32, 64))
        .collect();
    let i = index(&mut p, "i", 64);
    let sum = xs
        .iter()
        .map(|&x| read(&p, x, tv(i)))
        .reduce(|a, b| binary(BinOp::Add, a, b))
        .unwrap();
    output(&mut p, "y", compute(None, 64, i, sum));
    p
}

#[test]
fn storage_buffers_per_stage_just_under_and_just_over() {
    let opts = Options::default();
    let ok = compile(&reading(7), &opts).expect("8 bindings fit");
    assert_eq!(ok.module.kernels[0].bindings.len(), 8);
    let errs = compile(&reading(8), &opts).unwrap_err();
    assert_eq!(errs.iter().map(|d| d.code).collect::<Vec<_>>(), ["E0313"]);
    // It names the kernel, and what it reads and writes.
    let e = &errs[0];
    assert!(
        e.message.contains("kernel `k0_y` binds 9 storage buffers"),
        "{e:#?}"
    );
    assert!(
        e.notes
            .iter()
            .any(|n| n.contains("`x0`") && n.contains("`x7`")),
        "{e:#?}"
    );
    assert!(e.notes.iter().any(|n| n.contains("writes `y`")), "{e:#?}");
}

#[test]
fn grids_fold_into_y_beyond_the_dimension_limit() {
    let opts = Options {
        schedule: ScheduleChoice::Default,
        ..Options::default()
    };
    let at = compile(&texpr_opt::samples::saxpy(65535 * 256), &opts).unwrap();
    assert_eq!(at.module.kernels[0].dispatch, [65535, 1, 1]);
    assert!(!at.module.wgsl.contains("in_grid"));
    let over = compile(&texpr_opt::samples::saxpy(65536 * 256), &opts).unwrap();
    assert_eq!(over.module.kernels[0].dispatch, [65535, 2, 1]);
    // the kernel recomputes the linear group id and guards the excess groups
    assert!(
        over.module.wgsl.contains("wid.x + wid.y * 65535u"),
        "{}",
        over.module.wgsl
    );
    assert!(over.module.wgsl.contains("in_grid"));
}

#[test]
fn buffers_over_the_binding_and_buffer_size_limits() {
    let opts = Options {
        target: with_limits(DeviceLimits {
            max_storage_buffer_binding_size: 4096,
            max_buffer_size: 8192,
            ..Default::default()
        }),
        ..Options::default()
    };
    assert!(compile(&texpr_opt::samples::saxpy(1024), &opts).is_ok());
    assert_eq!(
        codes(compile(&texpr_opt::samples::saxpy(1025), &opts)),
        ["E0314", "E0314", "E0314"]
    );
    assert_eq!(
        codes(compile(&texpr_opt::samples::saxpy(2049), &opts)),
        ["E0315", "E0315", "E0315"]
    );
}

#[test]
fn workgroup_reductions_count_toward_workgroup_memory() {
    // reduce@group 256 over f32[64] bodies: 256 * 64 * 4 = 65536 bytes
    let mut p = program();
    let x = input(&mut p, "x", ElemTy::F32, 256 * 64);
    let g = index(&mut p, "g", 1);
    let l = index(&mut p, "l", 256);
    let j = index(&mut p, "j", 64);
    let body = compute(
        Some(Level::Thread),
        64,
        j,
        read(&p, x, tlin(tv(l), 64, tv(j))),
    );
    let root = compute(
        Some(Level::Grid),
        1,
        g,
        reduce(Some(Level::Group), ReduceOp::Add, 256, l, body),
    );
    output(&mut p, "y", root);
    assert_eq!(codes(emit(&p, &Target::default())), ["E0310"]);
}

#[test]
fn unscheduled_or_unmappable_programs_are_coded_errors() {
    let limits = Target::default();
    // not scheduled at all
    assert_eq!(
        codes(emit(&texpr_opt::samples::saxpy(8), &limits)),
        ["E0301"]
    );
    // a grid with a permuting index map
    let mut p = program();
    let x = input(&mut p, "x", ElemTy::F32, 4);
    let (g, k) = (index(&mut p, "g", 4), index(&mut p, "k", 4));
    let map = texpr_ir::IndexMap {
        var: k,
        len: 4,
        kind: texpr_ir::MapKind::Term(tb(texpr_ir::TermOp::Sub, tc(3), tv(k))),
    };
    let root = compute_map(Some(Level::Grid), 4, g, map, read(&p, x, tv(g)));
    output(&mut p, "y", root);
    assert_eq!(codes(emit(&p, &limits)), ["E0302"]);
}

/// Every example, checked, with its name.
fn examples() -> Vec<(String, Program)> {
    if !texpr_tests::golden::repo_root().join("examples").is_dir() {
        return Vec::new();
    }
    texpr_tests::golden::inputs("examples", "te")
        .into_iter()
        .map(|path| {
            let src = std::fs::read_to_string(&path).unwrap();
            let name = path.file_stem().unwrap().to_string_lossy().into_owned();
            let p = texpr_syntax::frontend(&src, &[]).unwrap_or_else(|e| panic!("{name}: {e:#?}"));
            (name, p)
        })
        .collect()
}

/// Examples and the hand-built samples of `texpr-opt`.
fn programs() -> Vec<(String, Program)> {
    let samples = texpr_opt::samples::all()
        .into_iter()
        .map(|(n, p)| (n.to_string(), p));
    examples().into_iter().chain(samples).collect()
}

#[test]
fn the_verifier_accepts_the_program_after_every_pass() {
    for (name, p) in programs() {
        texpr_ir::verify(&p).unwrap_or_else(|e| panic!("{name} before scheduling: {e:#?}"));
        texpr_opt::pipeline::run_with(
            &p,
            &Target::default(),
            &texpr_opt::ScheduleChoice::Heuristic,
            &texpr_opt::accept_all,
            &mut |pass, q| {
                if let Err(e) = texpr_ir::verify(q) {
                    panic!(
                        "{name} after {pass}: {e:#?}\n{}",
                        texpr_ir::print::program(q)
                    );
                }
            },
        )
        .unwrap_or_else(|e| panic!("{name}: {e:#?}"));
    }
}

#[test]
fn scheduled_programs_print_and_check_back_equal() {
    use texpr_syntax::check::canonicalize;
    for (name, p) in programs() {
        let s = texpr_opt::schedule(&p, &Target::default(), &ScheduleChoice::Default).unwrap();
        let text = texpr_ir::print::program(&s);
        let back =
            texpr_syntax::frontend(&text, &[]).unwrap_or_else(|e| panic!("{name}: {e:#?}\n{text}"));
        assert_eq!(canonicalize(&back), canonicalize(&s), "{name}:\n{text}");
    }
}

/// Bit patterns of every output, so NaNs and signed zeros compare exactly.
fn bits(vs: &[texpr_interp::Value]) -> Vec<Vec<u32>> {
    vs.iter().map(texpr_interp::Value::bits).collect()
}

/// The examples with every param of 64 or more shrunk to 24 (where that still
/// checks), so the interpreter runs them quickly; padding paths included.
fn small_examples() -> Vec<(String, Program)> {
    examples()
        .into_iter()
        .map(|(name, p)| {
            let src = std::fs::read_to_string(
                texpr_tests::golden::repo_root().join(format!("examples/{name}.te")),
            )
            .unwrap();
            let small: Vec<(String, i64)> = p
                .params
                .iter()
                .filter(|(_, v)| *v >= 64)
                .map(|(n, _)| (n.clone(), 24))
                .collect();
            (name, texpr_syntax::frontend(&src, &small).unwrap_or(p))
        })
        .collect()
}

#[test]
fn the_schedule_keeps_every_result_bit_for_bit() {
    let samples = texpr_opt::samples::all()
        .into_iter()
        .map(|(n, p)| (n.to_string(), p));
    for (name, p) in small_examples().into_iter().chain(samples) {
        let s = texpr_opt::schedule(&p, &Target::default(), &ScheduleChoice::Default).unwrap();
        let inputs = texpr_interp::random_inputs(&p, 7);
        // The schedule keeps what the passes before it made (`shift_lse`
        // rounds differently from the source; see `tolerance.rs`).
        let base = texpr_opt::pipeline::rounding_rewrite(&p).unwrap_or_else(|| p.clone());
        let want = texpr_interp::eval(&base, &inputs).unwrap_or_else(|e| panic!("{name}: {e:?}"));
        let got =
            texpr_interp::eval(&s, &inputs).unwrap_or_else(|e| panic!("{name} scheduled: {e:?}"));
        assert!(
            bits(&want) == bits(&got),
            "{name}: the scheduled program computes something else"
        );
    }
}

#[test]
fn every_example_compiles_validates_and_translates() {
    use texpr_codegen::{Language, translate};
    for (name, p) in examples() {
        let opts = Options {
            target: needs::default_target(&p),
            ..Options::default()
        };
        let c = compile(&p, &opts).unwrap_or_else(|e| panic!("{name}: {e:#?}"));
        texpr_codegen::validate::validate(&c.module.wgsl, &opts.target.features).unwrap();
        for t in [
            Language::Spirv,
            Language::Msl,
            Language::Hlsl,
            Language::Glsl,
        ] {
            let got = translate(&c.module, t);
            // naga's GLSL writer has no f16: a coded refusal, never a panic.
            if t == Language::Glsl && needs::uses_f16(&p) {
                let e = got.expect_err("GLSL with f16");
                assert!(
                    e.code == "E0393" && e.message.contains("f16"),
                    "{name}: {e}"
                );
                continue;
            }
            got.unwrap_or_else(|e| panic!("{name} to {t:?}: {e}"));
        }
    }
}

/// `translate` builds naga's module from the kernels' IR the module keeps,
/// never from its text: with the WGSL gone a module translates to the same
/// output, and one that keeps no IR (hand-written WGSL) is E0393.
#[test]
fn translation_reads_the_kernel_ir_not_the_text() {
    use texpr_codegen::{Language, Module, translate};
    let src = "input x: f32[256]\n\
               output s: f32[4] = compute@grid 4 |g| reduce@subgroup 64 |l| x[g*64 + l]\n\
               output y: f32[256] = compute 256 |i| x[i] * 2.0\n";
    // Subgroups, declared as Tint wants (`enable subgroups;`, which naga's
    // WGSL front end rejects); no 64-bit loads, which GLSL lacks.
    let target: Target = "name = tint\nsubgroup_size = 4..64\nenables = subgroups\n"
        .parse()
        .expect("a target");
    let opts = Options {
        target,
        ..Options::default()
    };
    let m = texpr::compile_source(src, &opts)
        .unwrap_or_else(|e| panic!("{e:?}"))
        .module;
    assert_eq!(m.kir.len(), m.kernels.len());
    assert!(m.wgsl.contains("enable subgroups;"), "{}", m.wgsl);
    let blank = Module {
        wgsl: String::new(),
        ..m.clone()
    };
    for language in [
        Language::Spirv,
        Language::Msl,
        Language::Hlsl,
        Language::Glsl,
    ] {
        let want = translate(&m, language).unwrap_or_else(|e| panic!("{language:?}: {e}"));
        assert_eq!(
            translate(&blank, language).ok(),
            Some(want.clone()),
            "{language:?}"
        );
        if let texpr_codegen::Translated::Text(text) = want {
            for k in &m.kernels {
                assert!(
                    text.contains(&k.entry_point),
                    "{language:?}: {}",
                    k.entry_point
                );
            }
        }
    }
    let no_ir = Module {
        kir: Vec::new(),
        ..m
    };
    let err = translate(&no_ir, Language::Spirv).expect_err("no kernel IR");
    assert_eq!(err.code, "E0393", "{err:?}");
}

/// User schedules the default schedule never makes: a tree reduction over a
/// non-power-of-two workgroup with vector bodies, a shared let filled
/// strided and read by a group compute of 4-element bodies, a truncated grid
/// with a `let@reg` on its spine.
const HAND_SCHEDULED: &[&str] = &[
    "input x: f32[300]\noutput y = compute@grid 1 |g| reduce@group 100 |l| compute@thread 3 |j| x[l*3 + j]",
    "input x: f32[300]\noutput y = compute@grid 2 |g| reduce@group max 50 |l| compute@thread 3 |j| x[(g*50 + l)*3 + j]",
    "input x: f32[1000]\noutput y = compute@grid 10 |g| let@shared s = compute@thread 100 |e| x[g*100 + e] in compute@group 32 |l| compute@thread 4 |j| s[(l*4 + j) % 100]",
    "input x: f32[1000]\noutput y = compute@grid 4 {k < 1000 -> k} |g| let@reg c = x[0] in compute@group 256 |l| x[(g*256 + l) % 1000] * c",
    "input x: i32[256]\noutput y = compute@grid 4 |g| let@shared s = compute@group 64 |l| x[g*64 + l] in compute@group 64 |l| s[63 - l] + (reduce@thread 64 |j| s[j])",
];

/// Compiles `p` for `target`, runs it on the test GPU and compares with the
/// interpreter within the tolerance the program allows.
fn check_on_gpu(gpu: &texpr_runtime::Gpu, name: &str, p: &Program, target: Target) {
    use texpr_tests::gpu::{compare, from_host, reference, to_host};
    let c = compile(
        p,
        &Options {
            target,
            overrides: vec![],
            schedule: ScheduleChoice::Default,
        },
    )
    .unwrap_or_else(|e| panic!("{name}: {e:#?}"));
    let inputs = texpr_interp::random_inputs(p, 3);
    let want = reference(p, &inputs).unwrap();
    let hosts: Vec<_> = inputs.iter().map(to_host).collect();
    let got = gpu
        .run(&c.module, &hosts)
        .unwrap_or_else(|e| panic!("{name}: {e:?}"));
    for (k, out) in p.outputs.iter().enumerate() {
        if let Err(m) = compare(&out.name, &from_host(&got.outputs[k]), &want[k]) {
            panic!("{name}: {m:?}\n{}", c.module.wgsl);
        }
    }
}

#[test]
fn hand_scheduled_kernels_match_the_interpreter_on_the_gpu() {
    let Some(gpu) = texpr_tests::gpu::gpu() else {
        return;
    };
    for (k, src) in HAND_SCHEDULED.iter().enumerate() {
        let p = texpr_syntax::frontend(src, &[]).unwrap_or_else(|e| panic!("{src}: {e:#?}"));
        check_on_gpu(
            gpu,
            &format!("hand-scheduled {k}"),
            &p,
            gpu.target().clone(),
        );
    }
    for (name, p) in texpr_opt::samples::all() {
        check_on_gpu(gpu, name, &p, gpu.target().clone());
    }
}

#[test]
fn folded_dispatches_run_on_the_gpu() {
    let Some(gpu) = texpr_tests::gpu::gpu() else {
        return;
    };
    // 40 workgroups on a device allowing 16 per dimension: [16, 3, 1], 8 idle
    let mut limits = gpu.target().clone();
    limits.limits.max_workgroups_per_dimension = 16;
    limits.limits.max_invocations_per_workgroup = 256;
    limits.limits.max_workgroup_size = [256, 256, 64];
    let p = texpr_opt::samples::saxpy(10000);
    let c = compile(
        &p,
        &Options {
            target: limits.clone(),
            overrides: vec![],
            schedule: ScheduleChoice::Default,
        },
    )
    .unwrap();
    assert_eq!(c.module.kernels[0].dispatch, [16, 3, 1]);
    check_on_gpu(gpu, "folded saxpy", &p, limits.clone());
    // into z as well: 300 groups with 8 per dimension -> [8, 8, 5]
    limits.limits.max_workgroups_per_dimension = 8;
    limits.limits.max_invocations_per_workgroup = 1;
    let p = texpr_opt::samples::matvec(300, 5);
    let c = compile(
        &p,
        &Options {
            target: limits.clone(),
            overrides: vec![],
            schedule: ScheduleChoice::Default,
        },
    )
    .unwrap();
    assert_eq!(c.module.kernels[0].dispatch, [8, 8, 5]);
    check_on_gpu(gpu, "folded matvec", &p, limits);
}

/// Loop iterations per invocation: a device with a loop budget (llvmpipe's
/// 65,535 for all loops of an invocation together) gets E0316 past it, nested
/// loops counted as the product of their trip counts; without a budget the
/// same program compiles.
#[test]
fn loop_iterations_per_invocation_against_the_device_budget() {
    let budget = with_limits(DeviceLimits {
        max_loop_iterations: Some(65_535),
        ..DeviceLimits::default()
    });
    let opts = Options {
        target: budget,
        overrides: Vec::new(),
        schedule: ScheduleChoice::Default,
    };
    let sum = |n: u64| format!("input x: f32[{n}]\noutput s = reduce {n} |i| x[i]");
    let compiled = |src: &str, opts: &Options| {
        texpr::compile_source(src, opts)
            .map(|_| ())
            .map_err(|ds| ds.iter().map(|d| d.code).collect::<Vec<_>>())
    };
    assert_eq!(compiled(&sum(65_535), &opts), Ok(()));
    // 65,537 is prime: the loop cannot be unrolled and runs 65,537 times.
    assert_eq!(compiled(&sum(65_537), &opts), Err(vec!["E0316"]));
    let unlimited = Options {
        schedule: ScheduleChoice::Default,
        ..Options::default()
    };
    assert_eq!(compiled(&sum(65_537), &unlimited), Ok(()));
    // 65,536 = 8 * 8,192: unrolled by 8, the loop runs 8,192 times.
    assert_eq!(compiled(&sum(65_536), &opts), Ok(()));
    // 257 reduce iterations, each filling a 257-element register vector: 257 * 258 in all.
    let nested = "output o: f32[1] = reduce 257 |i| (let v = fill(2.0, 257) in fill(1.0, 1))";
    let err = texpr::compile_source(nested, &opts).expect_err("over the budget");
    assert_eq!(err[0].code, "E0316");
    assert!(err[0].message.contains("66306"), "{}", err[0].message);
}

/// A `let@shared` inside the invocations' code: in a loop every invocation
/// runs alike it is refilled between barriers; where invocations diverge (a
/// per-element loop) it is refused with E0303, not miscompiled.
#[test]
fn shared_lets_inside_invocations_need_uniform_control_flow() {
    let limits = Target::default();
    let compile_text = |src: &str| {
        let p = texpr_syntax::frontend(src, &[]).expect("checks");
        compile(
            &p,
            &Options {
                target: limits.clone(),
                ..Options::default()
            },
        )
    };
    let uniform = "input x: f32[64]\n\
        output y = compute@grid 1 |g| compute@group 4 |l| \
        reduce@thread 4 |kb| let@shared s = compute@thread 16 |q| x[kb * 16 + q] in s[l * 4 + kb]\n";
    let c = compile_text(uniform).expect("compiles");
    let barriers = c.module.wgsl.matches("workgroupBarrier()").count();
    assert_eq!(barriers, 2, "{}", c.module.wgsl);
    // A per-element loop all invocations run alike is uniform too.
    let per_element = "input x: f32[64]\n\
        output y = compute@grid 1 |g| compute@group 4 |l| compute@thread 32 |t| \
        let@shared s = compute@thread 4 |q| x[q] in s[t % 4]\n";
    let c = compile_text(per_element).expect("compiles");
    assert_eq!(c.module.wgsl.matches("workgroupBarrier()").count(), 2);
    // Elements dealt out `l, l+W, ...`: invocations run different trips.
    let diverging = "input x: f32[64]\n\
        output y = compute@grid 1 |g| let@shared a = compute@group 4 |l| x[l] in \
        compute@thread 30 |t| let@shared s = compute@thread 4 |q| x[q] + a[0] in s[t % 4]\n";
    assert_eq!(codes(compile_text(diverging)), ["E0303"]);
}

/// Register tiles of unit-stride, aligned reads load four at a time: the
/// buffer is declared `array<vec4<f32>>`; padded columns (`% N` reads) and
/// narrow tiles stay scalar.
#[test]
fn aligned_register_tiles_load_vec4() {
    let src = std::fs::read_to_string(texpr_tests::golden::repo_root().join("examples/matmul.te"))
        .unwrap();
    let wgsl = |defs: &[(&str, i64)], sched: &str| {
        let ov: Vec<(String, i64)> = defs.iter().map(|(k, v)| (k.to_string(), *v)).collect();
        let p = texpr_syntax::frontend(&src, &ov).expect("checks");
        let opts = Options {
            schedule: ScheduleChoice::Given(sched.parse().expect("a schedule")),
            ..Options::default()
        };
        compile(&p, &opts).expect("compiles").module.wgsl
    };
    let dims = [("M", 64), ("N", 64), ("K", 16)];
    let quad = wgsl(&dims, "c: tile group=4x4 reg=4x8");
    assert!(quad.contains("b0_b: array<vec4<f32>>"), "{quad}");
    // Per reduction step (the loop is unrolled): two vec4 loads of `b`
    // (8 wide) and four scalar loads of `a` (4 rows, strided).
    let (b_loads, a_loads) = (
        quad.matches("vec4<f32> = b0_b[").count(),
        quad.matches("= b0_a[").count(),
    );
    assert!(
        b_loads >= 2 && a_loads == 2 * b_loads,
        "{b_loads} {a_loads}\n{quad}"
    );
    assert!(quad.contains("b0_a: array<f32>"), "{quad}");
    let narrow = wgsl(&dims, "c: tile group=4x4 reg=4x2");
    assert!(!narrow.contains("vec4"), "{narrow}");
    let padded = wgsl(
        &[("M", 64), ("N", 60), ("K", 16)],
        "c: tile group=4x4 reg=4x8",
    );
    assert!(!padded.contains("vec4"), "{padded}");
}

/// On a CPU device with one subgroup width (llvmpipe: 8 lanes a SIMD
/// vector), a `vec4` register tile every lane of a subgroup loads alike is
/// loaded once per subgroup: lane `s` loads runs `s, s + 8, ...` and the
/// others take them with `subgroupBroadcast`, where the schedule says so
/// (`lanes=on`, `let@lanes`). Not without it, not on a device of several
/// subgroup widths, not where the tile's rows differ within a subgroup,
/// not for fewer runs than lanes.
#[test]
fn lane_uniform_register_tiles_load_once_per_subgroup_on_cpus() {
    let src = std::fs::read_to_string(texpr_tests::golden::repo_root().join("examples/matmul.te"))
        .unwrap();
    let wgsl = |target: &str, sched: &str| {
        let ov = vec![("M".to_string(), 64), ("N".into(), 64), ("K".into(), 16)];
        let p = texpr_syntax::frontend(&src, &ov).expect("checks");
        let opts = Options {
            target: Target::builtin(target).expect("a built-in target"),
            schedule: ScheduleChoice::Given(sched.parse().expect("a schedule")),
            ..Options::default()
        };
        compile(&p, &opts).expect("compiles").module.wgsl
    };
    let count = |w: &str, pat: &str| w.matches(pat).count();
    // Rows `l / 8` in groups of 8 x 8: each subgroup shares its 8 rows.
    let shared = wgsl("llvmpipe", "c: tile group=8x8 reg=8x8 kstep=4 lanes=on");
    assert_eq!(count(&shared, "subgroupBroadcast("), 8, "{shared}");
    assert_eq!(count(&shared, "vec4<f32> = b0_a["), 1, "{shared}");
    assert!(shared.contains("i32(sgl)"), "{shared}");
    // 16 rows: two loads a lane.
    let two = wgsl("llvmpipe", "c: tile group=8x8 reg=16x4 kstep=4 lanes=on");
    assert_eq!(count(&two, "subgroupBroadcast("), 16, "{two}");
    assert_eq!(count(&two, "vec4<f32> = b0_a["), 2, "{two}");
    // Without `lanes=on` every lane loads every row itself, on any device.
    for target in ["llvmpipe", "nvidia"] {
        let own = wgsl(target, "c: tile group=8x8 reg=8x8 kstep=4");
        assert!(!own.contains("subgroupBroadcast"), "{own}");
        assert_eq!(count(&own, "vec4<f32> = b0_a["), 8, "{own}");
    }
    // A GPU whose subgroups are 32 wide shares a run only among lanes that
    // need it: 8 x 8 groups put four row blocks in a subgroup, so none.
    let gpu = wgsl("nvidia", "c: tile group=8x8 reg=8x8 kstep=4 lanes=on");
    assert!(!gpu.contains("subgroupBroadcast"), "{gpu}");
    // Rows `l / 4`: two row blocks in each subgroup of 8.
    let split = wgsl("llvmpipe", "c: tile group=16x4 reg=8x8 kstep=4 lanes=on");
    assert!(!split.contains("subgroupBroadcast"), "{split}");
    // Four rows for eight lanes.
    let short = wgsl("llvmpipe", "c: tile group=8x8 reg=4x8 kstep=4 lanes=on");
    assert!(!short.contains("subgroupBroadcast"), "{short}");
}

/// Eight `f32`s a load where the schedule says `loads=wide`: `gridstride
/// width=8` reads one `vec4<u64>` per eight terms and splits it, and a read
/// of the same buffer at a fixed index takes its half of one, on llvmpipe
/// and on a GPU alike (the schedule's choice, not the device kind's); with
/// `loads=vec4` the same schedule makes two `vec4<f32>` loads instead; a
/// device without 64-bit integers refuses `loads=wide` (E0217).
#[test]
fn wide_loads_read_eight_f32s_as_one_vec4_of_u64() {
    let src = "input x: f32[4096]\noutput o = reduce 4096 |i| x[i] - x[3]\n";
    let sched = "o: gridstride groups=2 group=8 width=8";
    let wgsl = |target: Target, loads: &str| wgsl_for(src, target, &format!("{sched} {loads}"));
    let count = |w: &str, pat: &str| w.matches(pat).count();
    let llvmpipe = Target::builtin("llvmpipe").expect("a built-in target");
    let nvidia = Target::builtin("nvidia").expect("a built-in target");
    let mut loads = 0;
    for target in [llvmpipe.clone(), nvidia.clone()] {
        let wide = wgsl(target, "loads=wide");
        // The first kernel's (the second folds the partials, wide too).
        let wide = wide.split("// kernel 1").next().unwrap().to_string();
        assert!(
            wide.contains("var<storage, read> b0_x: array<vec4<u64>>;"),
            "{wide}"
        );
        loads = count(&wide, "vec4<u64> = b0_x[");
        assert!(loads > 0 && !wide.contains("vec4<f32> = b0_x["), "{wide}");
        // Four high halves a load, and `x[3]`: the high half of entry 0's `y`.
        assert_eq!(count(&wide, " >> 32u))"), 4 * loads + 1, "{wide}");
        assert!(
            wide.contains("bitcast<f32>(u32(b0_x[0i].y >> 32u))"),
            "{wide}"
        );
    }
    let mut no_int64 = llvmpipe.clone();
    no_int64.features.int64 = false;
    for narrow in [
        wgsl(no_int64.clone(), ""),
        wgsl(llvmpipe, "loads=vec4"),
        wgsl(nvidia, ""),
    ] {
        assert!(!narrow.contains("u64"), "{narrow}");
        // Two `vec4<f32>` loads for each wide one, and `x[3]`.
        assert_eq!(count(&narrow, "b0_x["), 2 * loads + 1, "{narrow}");
    }
    let p = texpr_syntax::frontend(src, &[]).expect("checks");
    let opts = Options {
        target: no_int64,
        schedule: ScheduleChoice::Given(format!("{sched} loads=wide").parse().unwrap()),
        ..Options::default()
    };
    let errs = compile(&p, &opts).unwrap_err();
    assert_eq!(errs.iter().map(|d| d.code).collect::<Vec<_>>(), ["E0217"]);
}

/// Coarsened elementwise kernels eight at a time under `loads=wide`: each
/// eight of every read one `vec4<u64>` load, computed as two `vec4<f32>`s,
/// stored as one `vec4<u64>`; reads four apart, or `loads=vec4`, keep
/// `vec4<f32>`s; `loads=scalar` moves one element an access.
#[test]
fn wide_loads_store_eight_f32s_as_one_vec4_of_u64() {
    let wgsl = |target: &str, off: u32, loads: &str| {
        let src = format!(
            "input x: f32[2056]\ninput a: f32[1]\n\
             output y = compute 2048 |i| x[i] * a[0] + x[i + {off}]\n"
        );
        let target = Target::builtin(target).expect("a built-in target");
        wgsl_for(
            &src,
            target,
            &format!("y: coarsen group=8 per_thread=16 {loads}"),
        )
    };
    let count = |w: &str, pat: &str| w.matches(pat).count();
    let wide = wgsl("llvmpipe", 8, "loads=wide");
    assert!(wide.contains("b0_y: array<vec4<u64>>;"), "{wide}");
    assert!(wide.contains("b0_x: array<vec4<u64>>;"), "{wide}");
    // Two eights an invocation, reading x at i and at i + 8: three entries,
    // each loaded once for both halves (and both eights); two stores.
    assert_eq!(count(&wide, "vec4<u64> = b0_x["), 3, "{wide}");
    assert_eq!(count(&wide, "b0_y["), 2, "{wide}");
    assert!(!wide.contains("vec4<f32> = b0_x["), "{wide}");
    assert_eq!(
        wgsl("nvidia", 8, "loads=wide"),
        wgsl("llvmpipe", 8, "loads=wide")
    );
    for narrow in [wgsl("llvmpipe", 4, "loads=wide"), wgsl("llvmpipe", 8, "")] {
        assert!(!narrow.contains("u64"), "{narrow}");
        assert!(narrow.contains("b0_x: array<vec4<f32>>;"), "{narrow}");
        let loads = count(&narrow, "b0_x[");
        assert!(loads > count(&wide, "vec4<u64> = b0_x["), "{narrow}");
    }
    let scalar = wgsl("llvmpipe", 8, "loads=scalar");
    assert!(!scalar.contains("vec4"), "{scalar}");
    assert!(scalar.contains("b0_x: array<f32>;"), "{scalar}");
}

/// Wide folds under `loads=wide`: matvec's row fold reads its row eight
/// elements a load; softmax reads its row so in its fold and in its output
/// loop, and stores its output eight a `vec4<u64>`; a row read more often
/// outside such loops than in them keeps `f32` loads; `loads=vec4` never
/// loads wide.
#[test]
fn wide_folds_read_rows_eight_at_a_time_where_most_reads_fold() {
    let root = texpr_tests::golden::repo_root();
    let example =
        |name: &str| std::fs::read_to_string(root.join(format!("examples/{name}.te"))).unwrap();
    let wgsl = |src: &str, loads: &str| {
        let target = Target::builtin("llvmpipe").expect("a built-in target");
        wgsl_for(src, target, &format!("y: rows group=64 {loads}"))
    };
    let matvec = wgsl(&example("matvec"), "loads=wide");
    assert!(matvec.contains("b0_a: array<vec4<u64>>;"), "{matvec}");
    assert_eq!(matvec.matches("vec4<u64> = b0_a[").count(), 1, "{matvec}");
    assert!(matvec.contains(") >> 3u]"), "{matvec}");
    let softmax = wgsl(&example("softmax"), "loads=wide");
    assert!(softmax.contains("b0_x: array<vec4<u64>>;"), "{softmax}");
    assert!(softmax.contains("b0_y: array<vec4<u64>>;"), "{softmax}");
    assert_eq!(softmax.matches("vec4<u64> = b0_x[").count(), 2, "{softmax}");
    assert_eq!(softmax.matches("b0_y[").count(), 1, "{softmax}");
    let mostly_apart = "param R = 256\nparam C = 64\ninput x: f32[R * C]\n\
        output y = compute R |r| (reduce C |j| x[r * C + j]) + x[r * C] * x[r * C + 1]\n";
    assert!(!wgsl(mostly_apart, "loads=wide").contains("u64"));
    assert!(!wgsl(&example("matvec"), "").contains("u64"));
    assert!(!wgsl(&example("softmax"), "").contains("u64"));
}

/// The WGSL of `src` compiled for `target` under schedule `sched`.
fn wgsl_for(src: &str, target: Target, sched: &str) -> String {
    let p = texpr_syntax::frontend(src, &[]).expect("checks");
    let opts = Options {
        target,
        schedule: ScheduleChoice::Given(sched.parse().expect("a schedule")),
        ..Options::default()
    };
    compile(&p, &opts).expect("compiles").module.wgsl
}

/// The `enable` directives are the target's data: a consumer that wants
/// `enable subgroups;` (Chromium's Tint) gets it at the top of a module
/// whose kernels use subgroups, and only then; naga's targets never do;
/// the module still validates (on the built module) and translates.
#[test]
fn enable_directives_follow_the_target_and_what_the_kernels_use() {
    let subgroups = "input x: f32[256]\n\
                     output s: f32[4] = compute@grid 4 |g| reduce@subgroup 64 |l| x[g*64 + l]\n";
    let plain = "input x: f32[256]\noutput y: f32[256] = compute 256 |i| x[i] * 2.0\n";
    let tint: Target = "name = tint\nsubgroup_size = 4..64\nenables = subgroups, f16\n"
        .parse()
        .expect("a target");
    let naga = Target::builtin("llvmpipe").expect("a built-in target");
    let compiled = |src: &str, target: &Target| {
        let opts = Options {
            target: target.clone(),
            ..Options::default()
        };
        texpr::compile_source(src, &opts)
            .unwrap_or_else(|e| panic!("{e:?}"))
            .module
    };
    let m = compiled(subgroups, &tint);
    assert_eq!(m.enables, [texpr_target::Extension::Subgroups]);
    let directive = m.wgsl.lines().position(|l| l == "enable subgroups;");
    let first_decl = m
        .wgsl
        .lines()
        .position(|l| !l.starts_with("//") && !l.starts_with("enable"));
    assert!(directive.is_some() && directive < first_decl, "{}", m.wgsl);
    texpr_codegen::translate(&m, texpr_codegen::Language::Spirv).expect("translates");
    for (src, target) in [(subgroups, &naga), (plain, &tint), (plain, &naga)] {
        let m = compiled(src, target);
        assert!(
            m.enables.is_empty() && !m.wgsl.contains("enable "),
            "{}",
            m.wgsl
        );
    }
}

/// The browser's target: every example and sample compiles for `webgpu`
/// under the heuristic and the default schedule within WebGPU's default
/// limits, with no 64-bit integer (WebGPU has none); on a browser adapter
/// with subgroups (Chromium's: 4 lanes at least), every module that uses
/// them opens with `enable subgroups;`, and no lane broadcast assumes more
/// lanes than the minimum.
#[test]
fn every_program_compiles_for_the_browser_as_tint_wants_it() {
    let webgpu = Target::builtin("webgpu").expect("a built-in target");
    let with_subgroups: Target = format!("{webgpu}\nsubgroup_size = 4..128")
        .lines()
        .filter(|l| !l.starts_with("subgroup_size = none"))
        .collect::<Vec<_>>()
        .join("\n")
        .parse()
        .expect("a target");
    let mut subgroup_modules = 0;
    let programs = programs();
    assert!(programs.len() > 20, "{} programs", programs.len());
    for (name, p) in programs {
        for target in [&webgpu, &with_subgroups] {
            for schedule in [ScheduleChoice::Heuristic, ScheduleChoice::Default] {
                let opts = Options {
                    target: target.clone(),
                    schedule: schedule.clone(),
                    ..Options::default()
                };
                if needs::lacks(&p, target) {
                    let got = compile(&p, &opts).map(drop);
                    needs::refusal(&name, target, got).unwrap_or_else(|e| panic!("{e}"));
                    continue;
                }
                let m = compile(&p, &opts)
                    .unwrap_or_else(|d| panic!("{name} for {}: {d:#?}", target.name))
                    .module;
                assert!(!m.wgsl.contains("u64"), "{name}: u64 in\n{}", m.wgsl);
                let uses = m.wgsl.contains("subgroup");
                let declared = m.wgsl.contains("enable subgroups;\n");
                assert_eq!(uses, declared, "{name}:\n{}", m.wgsl);
                subgroup_modules += usize::from(uses);
                for (at, _) in m.wgsl.match_indices("subgroupBroadcast(") {
                    let lane = m.wgsl[at..].split([',', ')']).nth(1).unwrap_or_default();
                    let lane = lane.trim().trim_end_matches('u');
                    assert!(
                        lane.parse::<u32>().map_or(true, |k| k < 4),
                        "{name}: a broadcast from lane {lane}"
                    );
                }
            }
        }
    }
    // Subgroups are used somewhere (the check above is not vacuous).
    assert!(subgroup_modules > 0);
}

/// The schedule states every choice code generation carries out: the
/// heuristic's schedule, printed and pinned, gives the same module (WGSL,
/// kernels, buffers) for every example and sample on every built-in target;
/// so does the scheduled program's text, compiled as written. A device's
/// kind reaches code generation only through the schedule: the same pinned
/// schedule gives the same module for a CPU and a GPU target of equal
/// limits and features.
#[test]
fn a_pinned_schedule_reproduces_the_heuristics_module() {
    for (name, p) in programs() {
        for target in Target::BUILTINS.map(|t| Target::builtin(t).expect("a built-in")) {
            let opts = |schedule| Options {
                target: target.clone(),
                schedule,
                ..Options::default()
            };
            if needs::lacks(&p, &target) {
                let got = compile(&p, &opts(ScheduleChoice::Heuristic)).map(drop);
                needs::refusal(&name, &target, got).unwrap_or_else(|e| panic!("{e}"));
                continue;
            }
            let chosen = compile(&p, &opts(ScheduleChoice::Heuristic))
                .unwrap_or_else(|d| panic!("{name} for {}: {d:#?}", target.name));
            let text = chosen.schedule.to_string();
            let pinned = ScheduleChoice::Given(text.parse().expect("a printed schedule parses"));
            let again = compile(&p, &opts(pinned.clone())).expect("the pinned schedule compiles");
            assert_eq!(
                again.module, chosen.module,
                "{name} on {}:\n{text}",
                target.name
            );
            let scheduled = texpr_ir::print::program(&chosen.scheduled);
            let q = texpr_syntax::frontend(&scheduled, &[]).expect("the scheduled text checks");
            let written = compile(&q, &opts(ScheduleChoice::Default))
                .unwrap_or_else(|d| panic!("{name} on {}: {d:#?}\n{scheduled}", target.name));
            // FIXME: the text states a loop run whole in one workgroup
            // (`Loop::group`) in a comment only (no syntax yet), so its
            // levels written back dispatch the loop a step at a time.
            let whole = chosen.scheduled.loops.iter().any(|l| l.group.is_some());
            if !whole {
                assert_eq!(
                    written.module.wgsl, chosen.module.wgsl,
                    "{name} on {}",
                    target.name
                );
            }
            let mut other = target.clone();
            other.profile.kind = match target.cpu() {
                true => texpr_target::DeviceKind::DiscreteGpu,
                false => texpr_target::DeviceKind::Cpu,
            };
            let elsewhere = compile(
                &p,
                &Options {
                    target: other,
                    ..opts(pinned)
                },
            )
            .expect("the pinned schedule compiles for the other kind");
            assert_eq!(elsewhere.module, chosen.module, "{name} on {}", target.name);
        }
    }
}
