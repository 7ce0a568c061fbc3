//! Parser, printer, builder and type-rule tests of block programs.

use super::*;
use crate::codes;
use proptest::prelude::*;

const GEMM: &str = "param M = 300
param T = 128
func gemm_bias_relu {
  %a = input : f32[M x 200, T x 64]
  %b = input : f32[200x260, 64x T]
  %bias = input : f32[1x260, 1x128]
  %0 = matmul %a, %b
  %1 = add %0, %bias
  %2 = map relu, %1
  ret %2
}
";

fn code(src: &str) -> &'static str {
    match parse(src, &[]) {
        Ok(p) => panic!("expected an error, got\n{}", print(&p)),
        Err(d) => d[0].code,
    }
}

#[test]
fn parses_and_infers_types() {
    let p = parse(GEMM, &[]).unwrap();
    assert_eq!(p.insts.len(), 6);
    assert_eq!(p.ty(Reg(3)), BlockTy::f32(300, 260, 128, 128));
    assert_eq!(p.ty(p.ret), BlockTy::f32(300, 260, 128, 128));
    assert_eq!(p.inputs(), vec![Reg(0), Reg(1), Reg(2)]);
    verify(&p).unwrap();
}

#[test]
fn printed_text_is_canonical_and_parses_back() {
    let p = parse(GEMM, &[]).unwrap();
    let text = print(&p);
    assert!(
        text.contains("  %1 = add %0, %bias : f32[300x260, 128x128]\n"),
        "{text}"
    );
    assert!(text.contains("param M = 300\n"));
    let q = parse(&text, &[]).unwrap();
    assert_eq!(print(&q), text);
}

#[test]
fn overrides_replace_params() {
    let p = parse(GEMM, &[("M".into(), 1000)]).unwrap();
    assert_eq!(p.ty(Reg(0)).shape, Dims::new(1000, 200));
}

#[test]
fn fused_and_epilogue_forms_round_trip() {
    let src = "func f {
  %a = input : f32[4x6, 2x3]
  %b = input : f32[6x5, 3x2]
  %r = input : f32[1x5, 1x2]
  %c = input : f32[4x1, 2x1]
  %m = matmul %a, %b epilogue %r.row { relu(add($acc, $0)) }
  %f = fused %m, %c.col, %r.row { div(sub($0, $1), max1($2)) }
  ret %f
}";
    // `max1` is no function
    assert_eq!(code(src), codes::UNKNOWN_FN);
    let src = src.replace("max1($2)", "add(exp($2), -1.5e-3)");
    let p = parse(&src, &[]).unwrap();
    let text = print(&p);
    assert!(
        text.contains("epilogue %r.row { relu(add($acc, $0)) }"),
        "{text}"
    );
    assert!(text.contains("add(exp($2), -0.0015)"), "{text}");
    assert_eq!(print(&parse(&text, &[]).unwrap()), text);
}

#[test]
fn builder_matches_parser() {
    let mut b = Builder::new("gemm_bias_relu");
    b.param("M", 300);
    b.param("T", 128);
    let a = b.input("a", BlockTy::f32(300, 200, 128, 64)).unwrap();
    let w = b.input("b", BlockTy::f32(200, 260, 64, 128)).unwrap();
    let bias = b.input("bias", BlockTy::f32(1, 260, 1, 128)).unwrap();
    let m = b.matmul(a, w).unwrap();
    let s = b.add(m, bias).unwrap();
    let r = b.map(UnaryFn::Relu, s).unwrap();
    let p = b.ret(r);
    assert_eq!(print(&p), print(&parse(GEMM, &[]).unwrap()));
}

#[test]
fn every_op_types() {
    let src = "func all {
  %a = input : f32[10x8, 4x4]
  %t = transpose %a
  %s = slice %a, 4..10, 0..8
  %r = sum_rows %a
  %c = sum_cols %a
  %x = sum %a
  %k = scale %a, 2
  %d = div %k, %r
  %e = sub %d, %c
  %g = mul %e, %x
  %bc = broadcast %c : f32[10x8, 4x4]
  %h = matmul %t, %g
  ret %h
}";
    let p = parse(src, &[]).unwrap();
    let ty = |n: &str| p.ty(p.find(n).unwrap());
    assert_eq!(ty("t"), BlockTy::f32(8, 10, 4, 4));
    assert_eq!(ty("s"), BlockTy::f32(6, 8, 4, 4));
    assert_eq!(ty("r"), BlockTy::f32(10, 1, 4, 1));
    assert_eq!(ty("c"), BlockTy::f32(1, 8, 1, 4));
    assert_eq!(ty("x"), BlockTy::f32(1, 1, 1, 1));
    assert_eq!(ty("g"), BlockTy::f32(10, 8, 4, 4));
    assert_eq!(ty("h"), BlockTy::f32(8, 8, 4, 4));
    assert_eq!(print(&parse(&print(&p), &[]).unwrap()), print(&p));
}

#[test]
fn errors_are_coded_and_point_at_the_op() {
    let head = "func f {\n  %a = input : f32[8x8, 4x4]\n  %b = input : f32[8x6, 4x2]\n";
    let cases = [
        ("  %c = add %a, %b\n  ret %c\n}", codes::SHAPE_MISMATCH),
        ("  %c = matmul %b, %a\n  ret %c\n}", codes::MATMUL_SHAPE),
        (
            "  %c = matmul %a, %b\n  %d = matmul %c, %c\n  ret %d\n}",
            codes::MATMUL_SHAPE,
        ),
        ("  %c = slice %a, 2..2, 0..8\n  ret %c\n}", codes::BAD_SLICE),
        ("  %c = concat_rows %a, %b\n  ret %c\n}", codes::BAD_CONCAT),
        ("  %c = concat_cols %a\n  ret %c\n}", codes::BAD_CONCAT),
        (
            "  %c = filter_rows %a, [1, 8]\n  ret %c\n}",
            codes::BAD_FILTER,
        ),
        ("  %c = slice %a, 0..9, 0..8\n  ret %c\n}", codes::BAD_SLICE),
        (
            "  %c = broadcast %a : f32[16x8, 4x4]\n  ret %c\n}",
            codes::BAD_BROADCAST,
        ),
        (
            "  %c = transpose %a : f32[8x8, 2x2]\n  ret %c\n}",
            codes::TYPE_DIFFERS,
        ),
        ("  %c = frob %a\n  ret %c\n}", codes::UNKNOWN_OP),
        ("  %c = add %a, %zz\n  ret %c\n}", codes::UNKNOWN_REG),
        ("  %a = transpose %a\n  ret %a\n}", codes::DUPLICATE_REG),
        ("  %c = map frob, %a\n  ret %c\n}", codes::UNKNOWN_FN),
        (
            "  %c = fused %a { add($0, $1) }\n  ret %c\n}",
            codes::BAD_BODY,
        ),
        (
            "  %c = fused %a { add($0, $acc) }\n  ret %c\n}",
            codes::BAD_BODY,
        ),
        ("  %c = input\n  ret %c\n}", codes::MISSING_TYPE),
        ("  ret %a\n", codes::EXPECTED),
        ("  %c = add %a, %a\n  ret %c\n} x", codes::BAD_FUNC),
        (
            "  %c = add %a, %a : f32[N x 8, 4x4]\n  ret %c\n}",
            codes::UNKNOWN_PARAM,
        ),
        (
            "  %c = add %a, %a : f32[0x8, 4x4]\n  ret %c\n}",
            codes::BAD_NUMBER,
        ),
        (
            "  %c = add %a, %a : bool[8x8, 4x4]\n  ret %c\n}",
            codes::BAD_ELEM,
        ),
        ("  %c = add %a, %a @\n  ret %c\n}", codes::BAD_CHAR),
    ];
    for (tail, want) in cases {
        let src = format!("{head}{tail}");
        let diags = parse(&src, &[]).expect_err(tail);
        assert_eq!(diags[0].code, want, "{tail}\n{}", diags[0]);
        let span = diags[0].primary_span().expect("a primary label");
        assert!(
            span.end as usize <= src.len() && span.start as usize >= head.len() - 1,
            "{tail}: {span:?}"
        );
        let rendered = texpr_ir::diag::render("f.air", &src, &diags);
        assert!(rendered.contains(want), "{rendered}");
    }
}

#[test]
fn tile_mismatch_points_at_the_op() {
    let src = "func f {\n  %a = input : f32[8x8, 4x4]\n  %b = input : f32[8x8, 2x4]\n  %c = add %a, %b\n  ret %c\n}";
    let d = &parse(src, &[]).unwrap_err()[0];
    assert_eq!(d.code, codes::TILE_MISMATCH);
    let span = d.primary_span().unwrap();
    assert_eq!(&src[span.range()], "%c = add %a, %b");
}

proptest! {
    #[test]
    fn arbitrary_text_never_panics(src in "[ -~\n]{0,200}") {
        let _ = parse(&src, &[]);
    }

    #[test]
    fn mutated_programs_never_panic(cut in 0usize..300, insert in "[%$.,:x0-9a-z{}() \\[\\]-]{0,6}") {
        let mut src = GEMM.to_string();
        let at = cut.min(src.len());
        src.insert_str(at, &insert);
        if let Ok(p) = parse(&src, &[]) {
            prop_assert_eq!(print(&parse(&print(&p), &[]).unwrap()), print(&p));
        }
    }
}

#[test]
fn new_ops_have_numpys_shapes() {
    let src = "func f {
  %a = input : f32[7x10, 3x4]
  %c = input : f32[7x1, 3x1]
  %r = input : f32[1x10, 1x4]
  %o = sub %c, %r
  %k = gt %c, %r
  %s = select %k, %o, %a
  %d = diag %a
  %e = concat_rows %a, %o, %s
  %f = filter_cols %a, [9, 9, 0]
  %g = slice %a, 1..6, 3..9
  %w = random 3 : f32[2x2, 1x1]
  %v = std_cols %g
  ret %v
}";
    let p = parse(src, &[]).unwrap();
    let ty = |name: &str| {
        let r = p.regs().find(|&r| p.inst(r).name == name).unwrap();
        p.ty(r)
    };
    // A column with a row: their outer product's shape, tiled by each.
    assert_eq!(ty("o"), BlockTy::f32(7, 10, 3, 4));
    assert_eq!(ty("k"), BlockTy::f32(7, 10, 3, 4));
    assert_eq!(ty("s"), BlockTy::f32(7, 10, 3, 4));
    assert_eq!(ty("d"), BlockTy::f32(7, 1, 3, 1));
    assert_eq!(ty("e"), BlockTy::f32(21, 10, 3, 4));
    assert_eq!(ty("f"), BlockTy::f32(7, 3, 3, 3));
    assert_eq!(ty("g"), BlockTy::f32(5, 6, 3, 4));
    assert_eq!(ty("w"), BlockTy::f32(2, 2, 1, 1));
    assert_eq!(ty("v"), BlockTy::f32(1, 6, 1, 4));
    verify(&p).unwrap();
    // The text form parses back to the same program.
    assert_eq!(print(&parse(&print(&p), &[]).unwrap()), print(&p));
}

#[test]
fn new_ops_refuse_what_numpy_refuses() {
    let head = "func f {\n  %a = input : f32[6x8, 3x4]\n  %i = input : i32[6x8, 3x4]\n";
    for (tail, want) in [
        ("  %c = pow %i, %i\n", codes::ELEM_MISMATCH),
        ("  %c = select %a, %i, %a\n", codes::ELEM_MISMATCH),
        ("  %c = concat_cols %a, %i\n", codes::BAD_CONCAT),
        ("  %c = filter_rows %a, [6]\n", codes::BAD_FILTER),
        ("  %c = random 1\n", codes::MISSING_TYPE),
        (
            "  %b = input : f32[6x1, 2x1]\n  %c = add %a, %b\n",
            codes::TILE_MISMATCH,
        ),
    ] {
        let src = format!("{head}{tail}  ret %c\n}}");
        assert_eq!(code(&src), want, "{tail}");
    }
}
