//! Code generation against the device limits: just under each limit compiles
//! and validates, just over gives the coded error (or, for the dispatch, folds
//! into y), on hand-built IR so the tests do not depend on the front end.

use texpr_codegen::{DeviceLimits, Options, compile, emit};
use texpr_opt::build::*;
use texpr_syntax::ast::{BinOp, ElemTy, Level, MemLevel, ReduceOp};
use texpr_syntax::ir::{Program, Ty, VecRef};

fn codes<T>(r: Result<T, Vec<texpr_syntax::Diagnostic>>) -> Vec<&'static str> {
    r.err().map(|ds| ds.iter().map(|d| d.code).collect()).unwrap_or_default()
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
    let root = compute(Some(Level::Grid), 1, g, let_(Some(MemLevel::Shared), s, value, body));
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
    let big = Options { limits: DeviceLimits { max_workgroup_storage_bytes: 32768, ..Default::default() }, ..opts };
    assert!(compile(&shared_of(4097), &big).is_ok());
}

/// `compute@grid 1 |g| compute@group n |l| x[l]`, already scheduled.
fn group_of(n: u64) -> Program {
    let mut p = program();
    let x = input(&mut p, "x", ElemTy::F32, n);
    let g = index(&mut p, "g", 1);
    let l = index(&mut p, "l", n);
    let root = compute(Some(Level::Grid), 1, g, compute(Some(Level::Group), n, l, read(&p, x, tv(l))));
    output(&mut p, "y", root);
    p
}

#[test]
fn invocations_per_workgroup_just_under_and_just_over() {
    let limits = DeviceLimits::default();
    let m = emit(&group_of(256), &limits).expect("256 invocations fit");
    assert_eq!(m.kernels[0].workgroup_size, [256, 1, 1]);
    assert_eq!(codes(emit(&group_of(257), &limits)), ["E0311"]);
    // the schedule reports it first when compiling
    assert_eq!(codes(compile(&group_of(257), &Options::default())), ["E0202"]);
    let narrow = DeviceLimits { max_workgroup_size: [128, 128, 64], ..limits };
    assert_eq!(codes(emit(&group_of(256), &narrow)), ["E0312"]);
}

/// One output reading `n` inputs: `n + 1` bindings in one kernel.
fn reading(n: usize) -> Program {
    let mut p = program();
    let xs: Vec<VecRef> = (0..n).map(|k| input(&mut p, &format!("x{k}"), ElemTy::F32, 64)).collect();
    let i = index(&mut p, "i", 64);
    let sum = xs.iter().map(|&x| read(&p, x, tv(i))).reduce(|a, b| binary(BinOp::Add, a, b)).unwrap();
    output(&mut p, "y", compute(None, 64, i, sum));
    p
}

#[test]
fn storage_buffers_per_stage_just_under_and_just_over() {
    let opts = Options::default();
    let ok = compile(&reading(7), &opts).expect("8 bindings fit");
    assert_eq!(ok.module.kernels[0].bindings.len(), 8);
    assert_eq!(codes(compile(&reading(8), &opts)), ["E0313"]);
}

#[test]
fn grids_fold_into_y_beyond_the_dimension_limit() {
    let opts = Options::default();
    let at = compile(&texpr_opt::samples::saxpy(65535 * 256), &opts).unwrap();
    assert_eq!(at.module.kernels[0].dispatch, [65535, 1, 1]);
    assert!(!at.module.wgsl.contains("in_grid"));
    let over = compile(&texpr_opt::samples::saxpy(65536 * 256), &opts).unwrap();
    assert_eq!(over.module.kernels[0].dispatch, [65535, 2, 1]);
    // the kernel recomputes the linear group id and guards the excess groups
    assert!(over.module.wgsl.contains("wid.x + wid.y * 65535u"), "{}", over.module.wgsl);
    assert!(over.module.wgsl.contains("in_grid"));
}

#[test]
fn buffers_over_the_binding_and_buffer_size_limits() {
    let limits = DeviceLimits { max_storage_buffer_binding_size: 4096, max_buffer_size: 8192, ..Default::default() };
    let opts = Options { limits, ..Options::default() };
    assert!(compile(&texpr_opt::samples::saxpy(1024), &opts).is_ok());
    assert_eq!(codes(compile(&texpr_opt::samples::saxpy(1025), &opts)), ["E0314", "E0314", "E0314"]);
    assert_eq!(codes(compile(&texpr_opt::samples::saxpy(2049), &opts)), ["E0315", "E0315", "E0315"]);
}

#[test]
fn workgroup_reductions_count_toward_workgroup_memory() {
    // reduce@group 256 over f32[64] bodies: 256 * 64 * 4 = 65536 bytes
    let mut p = program();
    let x = input(&mut p, "x", ElemTy::F32, 256 * 64);
    let g = index(&mut p, "g", 1);
    let l = index(&mut p, "l", 256);
    let j = index(&mut p, "j", 64);
    let body = compute(Some(Level::Thread), 64, j, read(&p, x, tlin(tv(l), 64, tv(j))));
    let root = compute(Some(Level::Grid), 1, g, reduce(Some(Level::Group), ReduceOp::Add, 256, l, body));
    output(&mut p, "y", root);
    assert_eq!(codes(emit(&p, &DeviceLimits::default())), ["E0310"]);
}

#[test]
fn unscheduled_or_unmappable_programs_are_coded_errors() {
    let limits = DeviceLimits::default();
    // not scheduled at all
    assert_eq!(codes(emit(&texpr_opt::samples::saxpy(8), &limits)), ["E0301"]);
    // a grid with a permuting index map
    let mut p = program();
    let x = input(&mut p, "x", ElemTy::F32, 4);
    let (g, k) = (index(&mut p, "g", 4), index(&mut p, "k", 4));
    let map = texpr_syntax::ir::IndexMap { var: k, len: 4, term: tb(texpr_syntax::ast::TermOp::Sub, tc(3), tv(k)) };
    let root = compute_map(Some(Level::Grid), 4, g, map, read(&p, x, tv(g)));
    output(&mut p, "y", root);
    assert_eq!(codes(emit(&p, &limits)), ["E0302"]);
}
