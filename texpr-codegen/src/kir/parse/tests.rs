//! The reader on hand-written text: every construct the printer writes
//! reads back to the same text, and bad text is a located E0397, never a
//! panic (every truncation and every line dropped of a good kernel).

use crate::kir::{parse, print, verify};

/// One kernel with every kind of declaration, statement and operation.
const SAMPLE: &str = "kernel k0_y workgroup_size 64
  // kernel 0: y
  binding 0 b0_x: array<vec4<f32>> read (b0)
  binding 1 b0_y: array<f32> read_write (b1)
  shared s_part: array<f32, 64>
  private c_w_0: array<f32, 3> = [1.5f, (-2.0f), bitcast<f32>(0xff800000u)]
  var acc_3: f32
  var r_4: i32[4]
  %g_1: i32 = convert WorkgroupId(0)
  %l_2: i32 = convert LocalId(0)
  declare var acc_3 = 0.0f
  declare var r_4 = [1i, (-2i), bitcast<i32>(0x80000000u), 0x01000000u]
  loop %k_5 = 0i to 16i step +4 uniform (at most 4 trips) {
    %t_6: vec4<f32> = load buffer b0_x[%k_5]
    %t_7: f32 = %t_6.y
    %t_8: f32 = %t_6[%l_2]
    %t_9: f32 = read var acc_3
    %t_10: f32 = fma(%t_7, %t_8, %t_9)
    assign var acc_3 = %t_10
    assign var r_4[%l_2] = %k_5
  }
  %t_11: f32 = read var acc_3
  store shared s_part[%l_2]: f32 = %t_11
  barrier
  loop %s_12 = 32i to 0i step /2 uniform (at most 6 trips) {
    %t_13: bool = %l_2 < %s_12
    if %t_13 {
      %t_14: i32 = %l_2 + %s_12
      %t_15: f32 = load shared s_part[%t_14]
      store shared s_part[%l_2]: f32 = %t_15
    } else {
      %t_16: bool = not %t_13
      %t_17: bool = %t_16 & true
    }
    barrier
  }
  %t_18: f32 = load private c_w_0[%l_2]
  %t_19: f32 = subgroupAdd(%t_18)
  %t_20: u32 = SubgroupSize >> 1u
  %t_21: u32 = %t_20 & 7u
  %t_22: vec2<f32> = construct(%t_18, 0.25h)
  %t_27: vec4<f16> = construct(infh, (-infh), NaNh, (-0.0h))
  %t_23: f32 = neg %t_19
  %t_24: u32 = bitcast %t_23
  %t_26: bool = %g_1 == 0i
  %t_25: f32 = select(%t_23, 1e-7f, %t_26)
  storage_barrier
  store buffer b0_y[%g_1]: f32 = %t_25
";

#[test]
fn every_construct_reads_back_as_printed() {
    let k = parse::kernel(SAMPLE).unwrap_or_else(|d| panic!("{d:#?}"));
    assert_eq!(print::kernel(&k), SAMPLE);
    // `&` is logical on booleans, bitwise on integers.
    let ops: Vec<_> = k.values.iter().map(|v| format!("{:?}", v.op)).collect();
    assert!(ops.iter().any(|o| o.starts_with("Binary(And")));
    assert!(ops.iter().any(|o| o.starts_with("Binary(BitAnd")));
}

#[test]
fn cooperative_matrix_statements_read_back() {
    let text = "kernel k0_c workgroup_size 32
  binding 0 b0_a: array<f16> read (b0)
  binding 1 b0_c: array<f32> read_write (b1)
  coop a_1: coop_mat16x16<f16,A>
  coop b_2: coop_mat16x16<f16,B>
  coop c_3: coop_mat16x16<f32,C>
  a_1 = coopLoadT<coop_mat16x16<f16,A>>(&buffer b0_a[0i], 16u);
  b_2 = coopLoadT<coop_mat16x16<f16,B>>(&buffer b0_a[256i], 16u);
  c_3 = coopMultiplyAdd(a_1, b_2, c_3);
  coopStoreT(c_3, &buffer b0_c[0i], 16u);
";
    let k = parse::kernel(text).unwrap_or_else(|d| panic!("{d:#?}"));
    assert_eq!(print::kernel(&k), text);
    assert!(verify(&k).is_empty(), "{:?}", verify(&k));
}

#[test]
fn several_kernels_and_comments_between_them() {
    let text = format!(
        "// kernel IR: 2 kernels\n\n{SAMPLE}\n{}",
        SAMPLE.replace("k0_y", "k1_y")
    );
    let ks = parse::kernels(&text).unwrap_or_else(|d| panic!("{d:#?}"));
    assert_eq!(ks.len(), 2);
    assert_eq!(ks[1].name, "k1_y");
    assert!(parse::kernel(&text).is_err(), "`kernel` wants exactly one");
}

/// The error `text` gives, with the text its primary label points at.
fn error_at(text: &str) -> (String, String) {
    let d = parse::kernel(text).expect_err("bad text");
    assert_eq!(d.code, parse::CODE);
    let span = d.labels[0].span;
    let at = text
        .get(span.start as usize..span.end as usize)
        .unwrap_or("");
    (d.message, at.to_string())
}

#[test]
fn bad_text_is_a_located_error() {
    let head = "kernel k workgroup_size 1\n  binding 0 b0_x: array<f32> read_write (b0)\n";
    let cases = [
        ("  %t_1: f32 = %nowhere_2 + 1.0f\n", "nowhere_2"),
        ("  %t_1: f33 = 1.0f\n", "f"),
        ("  %t_1: vec5<f32> = 1.0f\n", "<"),
        ("  %t_1: f32 = frobnicate(1.0f)\n", "f"),
        ("  %t_1: i32 = 99999999999i\n", "99999999999i"),
        ("  store buffer b0_q[0i]: f32 = 1.0f\n", "b"),
        ("  store buffer b0_x[0i]: i32 = 1.0f\n", ""),
        ("  loop %i_1 = 0i to 4i step +1 (at most 4 trips) {\n", ""),
        ("  }\n", ""),
        ("  jump 3\n", "j"),
        ("  %t_1: f32 = 1.0f 2.0f\n", "2"),
    ];
    for (line, at) in cases {
        let text = format!("{head}{line}");
        let (msg, found) = error_at(&text);
        assert!(msg.starts_with("kernel IR: "), "{msg}");
        assert!(found.starts_with(at), "{line:?}: {msg} at {found:?}");
    }
}

#[test]
fn no_truncation_or_dropped_line_panics() {
    for end in 0..SAMPLE.len() {
        if SAMPLE.is_char_boundary(end) {
            let _ = parse::kernels(&SAMPLE[..end]);
        }
    }
    let lines: Vec<&str> = SAMPLE.lines().collect();
    for drop in 0..lines.len() {
        let mut kept = lines.clone();
        kept.remove(drop);
        if let Ok(ks) = parse::kernels(&kept.join("\n")) {
            // What reads may break the verifier's rules, never panic it.
            ks.iter().for_each(|k| drop_result(verify(k)));
        }
    }
}

fn drop_result<T>(_: T) {}
