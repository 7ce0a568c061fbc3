//! Hand-built sample programs covering every IR node, for tests in this and
//! later crates (written as IR, so they do not depend on the front end).

use texpr_ir::MapKind;
use texpr_ir::build::*;
use texpr_ir::{BinOp, ElemTy, Level, MemLevel, ReduceOp, TermOp};
use texpr_ir::{Func, IndexMap, Program, Scalar, Ty, UnaryOp};

/// `out = compute n |i| a[0] * x[i] + y[i]`
pub fn saxpy(n: u64) -> Program {
    let mut p = program();
    let a = input(&mut p, "a", ElemTy::F32, 1);
    let x = input(&mut p, "x", ElemTy::F32, n);
    let y = input(&mut p, "y", ElemTy::F32, n);
    let i = index(&mut p, "i", n);
    let ax = binary(BinOp::Mul, read(&p, a, tc(0)), read(&p, x, tv(i)));
    let body = binary(BinOp::Add, ax, read(&p, y, tv(i)));
    let e = compute(None, n, i, body);
    output(&mut p, "out", e);
    p
}

/// `out = compute r |i| reduce c |j| m[i*c + j] * x[j]`
pub fn matvec(r: u64, c: u64) -> Program {
    let mut p = program();
    let m = input(&mut p, "m", ElemTy::F32, r * c);
    let x = input(&mut p, "x", ElemTy::F32, c);
    let i = index(&mut p, "i", r);
    let j = index(&mut p, "j", c);
    let prod = binary(
        BinOp::Mul,
        read(&p, m, tlin(tv(i), c as i64, tv(j))),
        read(&p, x, tv(j)),
    );
    let e = compute(None, r, i, reduce(None, ReduceOp::Add, c, j, prod));
    output(&mut p, "out", e);
    p
}

/// Blocks of 3 with the index as a value, a transposing index map, and a
/// `let` read backwards.
pub fn blocks() -> Program {
    let mut p = program();
    let x = input(&mut p, "x", ElemTy::F32, 30);
    let i = index(&mut p, "i", 10);
    let j = index(&mut p, "j", 3);
    let scaled = binary(
        BinOp::Mul,
        read(&p, x, tlin(tv(i), 3, tv(j))),
        cast(var_value(j), ElemTy::F32),
    );
    output(
        &mut p,
        "blocks",
        compute(None, 10, i, compute(None, 3, j, scaled)),
    );
    // transpose a 3x2 block: out[k] = raw[(k % 3) * 2 + k / 3]
    let i2 = index(&mut p, "i", 3);
    let j2 = index(&mut p, "j", 2);
    let k = index(&mut p, "k", 6);
    let map_term = tlin(
        tb(TermOp::Rem, tv(k), tc(3)),
        2,
        tb(TermOp::Div, tv(k), tc(3)),
    );
    let inner = compute(None, 2, j2, read(&p, x, tlin(tv(i2), 2, tv(j2))));
    let map = IndexMap {
        var: k,
        len: 6,
        kind: MapKind::Term(map_term),
    };
    output(&mut p, "transposed", compute_map(None, 3, i2, map, inner));
    // let t = compute 8 |i| x[i] * 2 in compute 8 |i| t[7 - i] + t[i]
    let ti = index(&mut p, "i", 8);
    let t = vector(&mut p, "t", Ty::new(ElemTy::F32, 8));
    let value = compute(
        None,
        8,
        ti,
        binary(BinOp::Mul, read(&p, x, tv(ti)), f32c(2.0)),
    );
    let ui = index(&mut p, "i", 8);
    let back = read(
        &p,
        texpr_ir::VecRef::Local(t),
        tb(TermOp::Sub, tc(7), tv(ui)),
    );
    let body = compute(
        None,
        8,
        ui,
        binary(
            BinOp::Add,
            back,
            read(&p, texpr_ir::VecRef::Local(t), tv(ui)),
        ),
    );
    output(&mut p, "mirrored", let_(None, t, value, body));
    p
}

/// Literals, fill, broadcast, guarded reads, casts, select, max-reduce,
/// integer ops and a global read by an output.
pub fn assorted() -> Program {
    let mut p = program();
    let x = input(&mut p, "x", ElemTy::F32, 16);
    let n = input(&mut p, "n", ElemTy::I32, 16);
    // let g = compute 16 |i| max over j<4 of x[i + j] else -inf
    let i = index(&mut p, "i", 16);
    let j = index(&mut p, "j", 4);
    let shifted = read_else(
        &p,
        x,
        tb(TermOp::Add, tv(i), tv(j)),
        Scalar::F32(f32::NEG_INFINITY),
    );
    let g = global(
        &mut p,
        "g",
        compute(None, 16, i, reduce(None, ReduceOp::Max, 4, j, shifted)),
    );
    // out = select(g > [..]*broadcast(x[0]), g, fill(-1.5)) + f32(n / 3 % 2) ...
    let lits = veclit((0..16).map(|k| Scalar::F32(k as f32 * 0.25)).collect());
    let scaled = binary(BinOp::Mul, lits, broadcast(read(&p, x, tc(0)), 16));
    let cond = binary(BinOp::Gt, whole(&p, g), scaled.clone());
    let chosen = call(
        Func::Select,
        vec![cond, whole(&p, g), fill(Scalar::F32(-1.5), 16)],
    );
    let ints = binary(
        BinOp::Rem,
        binary(
            BinOp::Div,
            whole(&p, n),
            broadcast(konst(Scalar::I32(3)), 16),
        ),
        broadcast(konst(Scalar::I32(2)), 16),
    );
    let e = binary(
        BinOp::Add,
        chosen,
        unary(UnaryOp::Abs, cast(ints, ElemTy::F32)),
    );
    output(&mut p, "out", e);
    // an integer output with a cast to u32 and a min-reduce
    let k = index(&mut p, "k", 16);
    let u = cast(whole(&p, n), ElemTy::U32);
    let r = reduce(
        None,
        ReduceOp::Min,
        16,
        k,
        broadcast(cast(read(&p, n, tv(k)), ElemTy::U32), 16),
    );
    output(&mut p, "umin", binary(BinOp::Add, u, r));
    p
}

/// A user schedule: `compute@grid 4 |g| let@shared s = compute@group 64 |l|
/// x[g*64 + l] in compute@group 64 |l| s[63 - l] + reduce 64 |j| s[j]`, and a
/// workgroup sum `compute@grid 4 |g| reduce@group 64 |l| x[g*64 + l]`.
pub fn user_scheduled() -> Program {
    let mut p = program();
    let x = input(&mut p, "x", ElemTy::F32, 256);
    let g = index(&mut p, "g", 4);
    let l = index(&mut p, "l", 64);
    let s = vector(&mut p, "s", Ty::new(ElemTy::F32, 64));
    let fillv = compute(
        Some(Level::Group),
        64,
        l,
        read(&p, x, tlin(tv(g), 64, tv(l))),
    );
    let l2 = index(&mut p, "l", 64);
    let j = index(&mut p, "j", 64);
    let sv = texpr_ir::VecRef::Local(s);
    let total = reduce(None, ReduceOp::Add, 64, j, read(&p, sv, tv(j)));
    let rev = binary(
        BinOp::Add,
        read(&p, sv, tb(TermOp::Sub, tc(63), tv(l2))),
        total,
    );
    let body = let_(
        Some(MemLevel::Shared),
        s,
        fillv,
        compute(Some(Level::Group), 64, l2, rev),
    );
    output(&mut p, "rev", compute(Some(Level::Grid), 4, g, body));
    let g2 = index(&mut p, "g", 4);
    let l3 = index(&mut p, "l", 64);
    let sum = reduce(
        Some(Level::Group),
        ReduceOp::Add,
        64,
        l3,
        read(&p, x, tlin(tv(g2), 64, tv(l3))),
    );
    output(&mut p, "sums", compute(None, 4, g2, sum));
    p
}

/// Every sample above, by name.
pub fn all() -> Vec<(&'static str, Program)> {
    vec![
        ("saxpy_1000", saxpy(1000)),
        ("saxpy_1024", saxpy(1024)),
        ("saxpy_1", saxpy(1)),
        ("matvec", matvec(300, 7)),
        ("blocks", blocks()),
        ("assorted", assorted()),
        ("user_scheduled", user_scheduled()),
    ]
}
