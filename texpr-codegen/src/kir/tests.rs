//! Hand-built kernels: the verifier's rules, and every kernel that verifies
//! both printed as WGSL that naga parses and validates, and built as a naga
//! module that validates without any text.

use super::*;
use naga::valid::{Capabilities, ValidationFlags, Validator};

fn validate_both(k: &Kernel) {
    assert_eq!(verify(k), Vec::<String>::new(), "{}", print::kernel(k));
    let text = wgsl::for_naga(k, &wgsl::kernel(k));
    let parsed = naga::front::wgsl::parse_str(&text)
        .unwrap_or_else(|e| panic!("{}\n{text}", e.emit_to_string(&text)));
    let caps = Capabilities::SUBGROUP
        | Capabilities::SHADER_INT64
        | Capabilities::SHADER_FLOAT16
        | Capabilities::COOPERATIVE_MATRIX;
    Validator::new(ValidationFlags::all(), caps)
        .validate(&parsed)
        .unwrap_or_else(|e| panic!("{}\n{text}", e.emit_to_string(&text)));
    let built = to_naga::module(k);
    Validator::new(ValidationFlags::all(), caps)
        .validate(&built)
        .unwrap_or_else(|e| panic!("{e:?}\n{}\n{text}", print::kernel(k)));
}

/// `y[i] = sum of x[i*4 .. i*4+4]` with a loop, a shared array, a barrier,
/// a variable, an `if` and a non-finite constant.
fn sample() -> Kernel {
    let mut b = Builder::new("k0_y", "kernel 0: y");
    b.set_workgroup_size(64);
    let x = b.bind(BufferId(0), "b0_x".into(), Access::Read, Ty::F32);
    let y = b.bind(BufferId(1), "b0_y".into(), Access::ReadWrite, Ty::F32);
    let sh = b.declare_shared("s0_part".into(), Ty::F32, 64, texpr_ir::Span::DUMMY);
    let wid = b.builtin(Builtin::WorkgroupId(0));
    let lid = b.builtin(Builtin::LocalId(0));
    let g = b.convert(Ty::I32, wid);
    let l = b.convert(Ty::I32, lid);
    let zero = b.f32(0.0);
    let acc = b.var("acc", Ty::F32, None, Init::Value(zero));
    let c64 = b.i32(64);
    let base = b.binary(BinOp::Mul, g, c64);
    let (s, e) = (b.i32(0), b.i32(4));
    let k = b.open_loop("k", (s, e, LoopStep::Up(1)), true, 4);
    let at = b.binary(BinOp::Add, base, l);
    let c4 = b.i32(4);
    let at4 = b.binary(BinOp::Mul, at, c4);
    let idx = b.binary(BinOp::Add, at4, k);
    let xv = b.load(Mem::Buffer(x), idx);
    let cur = b.read_var(acc);
    let sum = b.binary(BinOp::Add, cur, xv);
    b.assign(acc, None, sum);
    b.close();
    let total = b.read_var(acc);
    b.store(sh, l, total);
    b.barrier().unwrap();
    let first = b.binary(BinOp::Eq, l, s);
    let inf = b.f32(f32::NEG_INFINITY);
    b.open_if(first, false);
    let mine = b.load(sh, l);
    let picked = b.select(first, mine, inf);
    let gi = b.binary(BinOp::Add, base, l);
    b.store(Mem::Buffer(y), gi, picked);
    b.close();
    let mut k = b.finish();
    passes::run(&mut k, &texpr_target::Target::default()).expect("the passes");
    k
}

#[test]
fn a_kernel_prints_and_builds_into_valid_shaders() {
    let k = sample();
    validate_both(&k);
    let text = wgsl::kernel(&k);
    // The infinity is a run-time value, defined once at the top
    // (`passes::spell_nonfinite`).
    assert!(text.contains("(wid.x & 0u)"), "{text}");
    assert!(!text.contains("bitcast<f32>(0xff800000u)"), "{text}");
    // Single-use pure values are written into their use.
    assert!(text.contains("b0_x[(t_4 + t_2) * 4i + k_5]"), "{text}");
    let kir = print::kernel(&k);
    assert!(kir.contains("load buffer b0_x"), "{kir}");
    assert!(kir.contains("barrier"), "{kir}");
}

#[test]
fn pure_values_are_reused_and_reads_of_assigned_variables_are_not() {
    let mut b = Builder::new("k", "");
    let lid = b.builtin(Builtin::LocalId(0));
    let l = b.convert(Ty::I32, lid);
    let c = b.i32(3);
    let a1 = b.binary(BinOp::Mul, l, c);
    let a2 = b.binary(BinOp::Mul, l, c);
    assert_eq!(a1, a2);
    let v = b.var("v", Ty::I32, None, Init::Value(a1));
    let r1 = b.read_var(v);
    let r2 = b.read_var(v);
    assert_eq!(r1, r2, "a variable never assigned reads as a constant");
    b.assign(v, None, a1);
    let r3 = b.read_var(v);
    assert_ne!(r1, r3, "after an assignment the variable is read again");
    // Inside a block, outer values are reused; a value made inside is not
    // seen after the block closes.
    let (s, e) = (b.i32(0), b.i32(2));
    b.open_loop("i", (s, e, LoopStep::Up(1)), true, 2);
    assert_eq!(b.binary(BinOp::Mul, l, c), a1);
    let inner = b.binary(BinOp::Add, l, c);
    b.close();
    assert_ne!(b.binary(BinOp::Add, l, c), inner);
}

#[test]
fn the_verifier_refuses_broken_kernels() {
    let mut k = sample();
    // A value read before its definition: move the last store to the top.
    let last = k.body.stmts.pop().unwrap();
    k.body.stmts.insert(0, last);
    assert!(!verify(&k).is_empty());
    let mut b = Builder::new("k", "");
    let lid = b.builtin(Builtin::LocalId(0));
    b.open_if(
        b.kernel()
            .values
            .first()
            .map(|_| lid)
            .map(|_| {
                // a condition: lid == 0u
                lid
            })
            .unwrap(),
        false,
    );
    b.close();
    let k = b.finish();
    assert!(
        verify(&k).iter().any(|e| e.contains("not a bool")),
        "{:?}",
        verify(&k)
    );
    // A barrier in non-uniform control flow is refused by the builder.
    let mut b = Builder::new("k", "");
    let t = b.lit(Lit::Bool(true));
    b.open_if(t, false);
    assert!(b.barrier().is_err());
}

/// A read of an assigned variable used once is written into its use when
/// no assignment to the variable comes between them, and stays a `let`
/// when one does (it must see the value before that assignment).
#[test]
fn reads_of_variables_move_into_their_use_only_past_no_assignment() {
    let mut b = Builder::new("k0_y", "");
    b.set_workgroup_size(1);
    let y = b.bind(BufferId(0), "b0_y".into(), Access::ReadWrite, Ty::F32);
    let one = b.f32(1.0);
    let acc = b.var("acc", Ty::F32, None, Init::Value(one));
    let (s, e) = (b.i32(0), b.i32(4));
    b.open_loop("i", (s, e, LoopStep::Up(1)), true, 4);
    // acc = acc * 2: the read moves into the assignment.
    let cur = b.read_var(acc);
    let two = b.f32(2.0);
    let next = b.binary(BinOp::Mul, cur, two);
    b.assign(acc, None, next);
    b.close();
    // old = acc; acc = 0; y[0] = old: the read stays before the reset.
    let old = b.read_var(acc);
    let zero = b.f32(0.0);
    b.assign(acc, None, zero);
    let at = b.i32(0);
    b.store(Mem::Buffer(y), at, old);
    let k = b.finish();
    validate_both(&k);
    let text = wgsl::kernel(&k);
    let acc = &k.var(acc).name;
    assert!(text.contains(&format!("{acc} = {acc} * 2.0f;")), "{text}");
    let old = &k.value(old).name;
    assert!(text.contains(&format!("let {old}: f32 = {acc};")), "{text}");
    assert!(text.contains(&format!("b0_y[0i] = {old};")), "{text}");
}

/// One subgroup's `C = A B` in tensor cores: `coop_mat16x16<f16,A>` and
/// `<f16,B>` loaded from a workgroup array and a buffer, multiplied into an
/// `f32` accumulator and stored to a buffer; naga validates both the text
/// and the built module, and the verifier refuses a multiply-add whose
/// roles or types do not fit and an operation in non-uniform control flow.
#[test]
fn cooperative_matrices_print_and_build_into_valid_shaders() {
    let mut b = Builder::new("k0_c", "kernel 0: c");
    b.set_workgroup_size(32);
    let a = b.bind(BufferId(0), "b0_a".into(), Access::Read, Ty::F16);
    let bb = b.bind(BufferId(1), "b0_b".into(), Access::Read, Ty::F16);
    let c = b.bind(BufferId(2), "b0_c".into(), Access::ReadWrite, Ty::F32);
    let sa = b.declare_shared("s0_a".into(), Ty::F16, 256, texpr_ir::Span::DUMMY);
    let ma = b.coop("a", 16, Scalar::F16, Role::A);
    let mb = b.coop("b", 16, Scalar::F16, Role::B);
    let acc = b.coop("acc", 16, Scalar::F32, Role::C);
    let lid = b.builtin(Builtin::LocalId(0));
    let l = b.convert(Ty::I32, lid);
    let x = b.load(Mem::Buffer(a), l);
    b.store(sa, l, x);
    b.barrier().unwrap();
    let zero = b.i32(0);
    let load = |coop, mem| CoopStmt::Load {
        coop,
        mem,
        offset: zero,
        stride: 16,
    };
    b.coop_stmt(load(ma, sa)).unwrap();
    b.coop_stmt(load(mb, Mem::Buffer(bb))).unwrap();
    b.coop_stmt(CoopStmt::MulAdd { acc, a: ma, b: mb }).unwrap();
    let store = CoopStmt::Store {
        coop: acc,
        mem: Mem::Buffer(c),
        offset: zero,
        stride: 16,
    };
    b.coop_stmt(store.clone()).unwrap();
    let k = b.finish();
    validate_both(&k);
    let text = wgsl::kernel(&k);
    assert!(text.contains("var acc_"), "{text}");
    assert!(text.contains(": coop_mat16x16<f32,C>;"), "{text}");
    assert!(
        text.contains("coopLoadT<coop_mat16x16<f16,A>>(&s0_a[0i], 16u);"),
        "{text}"
    );
    assert!(text.contains("coopStoreT("), "{text}");
    let uses = k.extensions();
    assert!(uses.contains(&texpr_target::Extension::CooperativeMatrix));
    assert!(uses.contains(&texpr_target::Extension::F16));

    // A multiply-add with A and B swapped; a store into a read-only buffer.
    let mut bad = k.clone();
    bad.body
        .stmts
        .push(Stmt::Coop(CoopStmt::MulAdd { acc, a: mb, b: ma }));
    bad.body.stmts.push(Stmt::Coop(CoopStmt::Store {
        coop: acc,
        mem: Mem::Buffer(a),
        offset: zero,
        stride: 16,
    }));
    let errs = verify(&bad).join("; ");
    assert!(errs.contains("a multiply-add of"), "{errs}");
    assert!(errs.contains("read-only buffer"), "{errs}");

    // Every lane of a subgroup takes part: never in non-uniform control flow.
    let mut b = Builder::new("k1_c", "");
    let m = b.coop("acc", 16, Scalar::F32, Role::C);
    let lid = b.builtin(Builtin::LocalId(0));
    let l = b.convert(Ty::I32, lid);
    let one = b.i32(1);
    let cond = b.binary(BinOp::Lt, l, one);
    b.open_if(cond, false);
    let c = b.bind(BufferId(0), "b0_c".into(), Access::ReadWrite, Ty::F32);
    let err = b.coop_stmt(CoopStmt::Store {
        coop: m,
        mem: Mem::Buffer(c),
        offset: l,
        stride: 16,
    });
    assert_eq!(err.map_err(|d| d.code), Err("E0391"));
}
