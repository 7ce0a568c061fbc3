//! Device limits on the GPU: a workgroup at the adapter's largest size, and a
//! grid beyond 65535 workgroups folded into y / z, both compiled from TExpr.

use texpr::{Options, compile};
use texpr_tests::gpu::{check_program, gpu};

fn compile_src(src: &str) -> (texpr_ir::Program, texpr_codegen::Module) {
    let gpu = gpu().expect("only called with a GPU");
    let p = texpr_syntax::frontend(src, &[]).unwrap_or_else(|d| panic!("{d:?}\n{src}"));
    let opts = Options {
        target: gpu.target().clone(),
        overrides: Vec::new(),
        schedule: texpr::ScheduleChoice::Default,
    };
    let c = compile(&p, &opts).unwrap_or_else(|d| panic!("{d:?}\n{src}"));
    (p, c.module)
}

#[test]
fn a_group_at_the_adapters_max_invocations_runs() {
    let Some(gpu) = gpu() else { return };
    let l = &gpu.target().limits;
    let m = l.max_invocations_per_workgroup.min(l.max_workgroup_size[0]);
    let src = format!(
        "param M = {m}\ninput x: f32[M]\n\
         output y = compute@grid 1 |g| compute@group M |i| x[i] * 2.0 + f32(i)\n"
    );
    let (p, module) = compile_src(&src);
    let sizes: Vec<u32> = module
        .kernels
        .iter()
        .map(|k| k.workgroup_size.iter().product())
        .collect();
    assert!(
        sizes.contains(&m),
        "workgroup sizes {sizes:?}, want one of {m}"
    );
    check_program(gpu, &p, 7).unwrap_or_else(|e| panic!("{e}"));
}

#[test]
fn a_grid_beyond_65535_workgroups_folds_and_runs() {
    let Some(gpu) = gpu() else { return };
    let groups = gpu.target().limits.max_workgroups_per_dimension as u64 * 2 + 3;
    let src = format!(
        "param G = {groups}\ninput x: u32[G]\n\
         output y = compute@grid G |g| compute@group 1 |_| x[g] * 3u + u32(g)\n"
    );
    let (p, module) = compile_src(&src);
    let d = module.kernels[0].dispatch;
    assert!(d[1] > 1 || d[2] > 1, "dispatch {d:?} is not folded");
    let total: u64 = d.iter().map(|&v| v as u64).product();
    assert!(
        total >= groups,
        "dispatch {d:?} covers fewer than {groups} groups"
    );
    check_program(gpu, &p, 3).unwrap_or_else(|e| panic!("{e}"));
}
