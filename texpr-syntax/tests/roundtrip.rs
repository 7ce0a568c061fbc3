//! Property: printing any surface tree and parsing the text back gives the
//! same tree (up to spans), with no diagnostics, and printing is idempotent.
//!
//! The generator covers every syntax form with valid identifiers (never a
//! keyword); the trees need not be well typed.

use proptest::collection::vec;
use proptest::option;
use proptest::prelude::*;
use proptest::sample::select;
use texpr_ir::Span;
use texpr_syntax::ast::*;
use texpr_syntax::parse::{parse, strip_spans};
use texpr_syntax::print;

const NAMES: [&str; 14] = [
    "a",
    "b",
    "x",
    "y",
    "N",
    "M",
    "i",
    "j",
    "_",
    "t0",
    "long_name_9",
    "f32",
    "exp",
    "maxi",
];
const FUNCS: [&str; 8] = ["max", "min", "exp", "select", "f32", "u32", "pow", "fma"];

fn id(name: &str) -> Ident {
    Ident {
        name: name.to_string(),
        span: Span::DUMMY,
    }
}

fn name() -> impl Strategy<Value = Ident> + Clone {
    select(&NAMES[..]).prop_map(id)
}

fn spanned<L>(l: L) -> (L, Span) {
    (l, Span::DUMMY)
}

/// Whether a literal of value `x` is an f32 (not rounded to infinity or to 0).
fn in_f32_range(x: f64) -> bool {
    let f = x as f32;
    f.is_finite() && (f != 0.0 || x == 0.0)
}

fn lit() -> BoxedStrategy<Literal> {
    let floats = vec![
        0.0,
        -0.0,
        1.5,
        -2.5,
        0.1,
        1e-7,
        3.4e38,
        1e-45,
        f64::INFINITY,
        f64::NEG_INFINITY,
    ];
    prop_oneof![
        ((i64::MIN + 1)..=i64::MAX).prop_map(LitValue::Int),
        (-3i64..4).prop_map(LitValue::Int),
        (-3i64..1i64 << 33).prop_map(LitValue::I32),
        (-3i64..1i64 << 33).prop_map(LitValue::U32),
        any::<f64>()
            .prop_filter("NaN cannot be written", |x| !x.is_nan())
            .prop_filter("only f32's range can be written", |x| in_f32_range(*x))
            .prop_map(LitValue::Float),
        select(floats).prop_map(LitValue::Float),
    ]
    .prop_map(|value| Literal {
        value,
        span: Span::DUMMY,
    })
    .boxed()
}

fn mk_term(kind: TermKind) -> Term {
    Term {
        kind,
        span: Span::DUMMY,
    }
}

fn term_op() -> impl Strategy<Value = TermOp> + Clone {
    select(vec![
        TermOp::Add,
        TermOp::Sub,
        TermOp::Mul,
        TermOp::Div,
        TermOp::Rem,
    ])
}

fn term() -> BoxedStrategy<Term> {
    let leaf = prop_oneof![
        ((i64::MIN + 1)..=i64::MAX).prop_map(TermKind::Int),
        (-3i64..20).prop_map(TermKind::Int),
        name().prop_map(TermKind::Name),
    ];
    leaf.prop_map(mk_term)
        .prop_recursive(4, 12, 2, |inner| {
            prop_oneof![
                inner.clone().prop_map(|t| TermKind::Neg(Box::new(t))),
                (term_op(), inner.clone(), inner).prop_map(|(op, a, b)| TermKind::Binary(
                    op,
                    Box::new(a),
                    Box::new(b)
                )),
            ]
            .prop_map(mk_term)
        })
        .boxed()
}

fn level() -> impl Strategy<Value = (Level, Span)> + Clone {
    select(vec![Level::Grid, Level::Group, Level::Thread]).prop_map(spanned)
}

/// A `reduce` may also run at `subgroup`.
fn reduce_level() -> impl Strategy<Value = (Level, Span)> + Clone {
    select(vec![
        Level::Grid,
        Level::Group,
        Level::Subgroup,
        Level::Thread,
    ])
    .prop_map(spanned)
}

fn mem_level() -> impl Strategy<Value = (MemLevel, Span)> + Clone {
    select(vec![MemLevel::Global, MemLevel::Shared, MemLevel::Reg]).prop_map(spanned)
}

fn loads() -> impl Strategy<Value = (Loads, Span)> + Clone {
    select(Loads::ALL.to_vec()).prop_map(spanned)
}

fn reduce_op() -> impl Strategy<Value = (ReduceOp, Span)> + Clone {
    select(vec![
        ReduceOp::Add,
        ReduceOp::Mul,
        ReduceOp::Max,
        ReduceOp::Min,
        ReduceOp::Lse,
    ])
    .prop_map(spanned)
}

fn bin_op() -> impl Strategy<Value = BinOp> + Clone {
    use BinOp::*;
    select(vec![Add, Sub, Mul, Div, Rem, Lt, Le, Gt, Ge, Eq, Ne])
}

fn index_map() -> impl Strategy<Value = IndexMapAst> {
    let body = prop_oneof![
        term().prop_map(MapBody::Term),
        layout(true).prop_map(MapBody::Layout)
    ];
    (name(), option::of(term()), body).prop_map(|(var, len, body)| IndexMapAst {
        var,
        len,
        body,
        span: Span::DUMMY,
    })
}

/// A layout call (the checker decides which names and arguments mean
/// something); with `nest`, arguments may be layouts once more.
fn layout(nest: bool) -> BoxedStrategy<LayoutAst> {
    let digit =
        (term(), term(), term()).prop_map(|(r, o, w)| LayoutArg::Digit([r, o, w], Span::DUMMY));
    let plain = prop_oneof![term().prop_map(LayoutArg::Size), digit];
    let arg = if nest {
        prop_oneof![3 => plain, 1 => layout(false).prop_map(LayoutArg::Layout)].boxed()
    } else {
        plain.boxed()
    };
    (name(), prop::collection::vec(arg, 0..4))
        .prop_map(|(name, args)| LayoutAst {
            name,
            args,
            span: Span::DUMMY,
        })
        .boxed()
}

fn mk_expr(kind: ExprKind) -> Expr {
    Expr {
        kind,
        span: Span::DUMMY,
    }
}

fn leaf_expr() -> BoxedStrategy<ExprKind> {
    prop_oneof![
        name().prop_map(ExprKind::Name),
        lit().prop_map(ExprKind::Lit),
        (name(), term(), option::of(lit())).prop_map(|(vec, index, guard)| ExprKind::Index {
            vec,
            index,
            guard
        }),
        (lit(), term()).prop_map(|(value, n)| ExprKind::Fill { value, n }),
        vec(lit(), 1..4).prop_map(ExprKind::VecLit),
    ]
    .boxed()
}

fn open_expr(inner: BoxedStrategy<Expr>) -> BoxedStrategy<ExprKind> {
    prop_oneof![
        (
            option::of(level()),
            term(),
            option::of(index_map()),
            name(),
            inner.clone()
        )
            .prop_map(|(level, n, map, var, body)| ExprKind::Compute {
                level,
                n,
                map,
                var,
                body: Box::new(body),
            }),
        (
            option::of(reduce_level()),
            option::of(reduce_op()),
            term(),
            name(),
            inner.clone()
        )
            .prop_map(|(level, op, n, var, body)| ExprKind::Reduce {
                level,
                op,
                n,
                var,
                body: Box::new(body),
            }),
        (option::of(mem_level()), name(), inner.clone(), inner).prop_map(
            |(level, name, value, body)| ExprKind::Let {
                level,
                name,
                value: Box::new(value),
                body: Box::new(body),
            }
        ),
    ]
    .boxed()
}

fn operator_expr(inner: BoxedStrategy<Expr>) -> BoxedStrategy<ExprKind> {
    let funcs = select(&FUNCS[..]).prop_map(id);
    prop_oneof![
        (inner.clone(), term()).prop_map(|(arg, n)| ExprKind::Broadcast {
            arg: Box::new(arg),
            n
        }),
        inner.clone().prop_map(|arg| ExprKind::Unary {
            op: UnOp::Neg,
            arg: Box::new(arg)
        }),
        (bin_op(), inner.clone(), inner.clone()).prop_map(|(op, lhs, rhs)| ExprKind::Binary {
            op,
            lhs: Box::new(lhs),
            rhs: Box::new(rhs),
        }),
        (funcs, vec(inner, 0..4)).prop_map(|(func, args)| ExprKind::Call { func, args }),
    ]
    .boxed()
}

fn expr() -> BoxedStrategy<Expr> {
    leaf_expr()
        .prop_map(mk_expr)
        .prop_recursive(5, 32, 3, |inner| {
            prop_oneof![open_expr(inner.clone()), operator_expr(inner)].prop_map(mk_expr)
        })
        .boxed()
}

fn ty_ann() -> impl Strategy<Value = TyAnn> {
    let vector =
        (select(vec![ElemTy::F32, ElemTy::I32, ElemTy::U32]), term()).prop_map(|(elem, len)| {
            TyAnn {
                elem,
                elem_span: Span::DUMMY,
                len,
                span: Span::DUMMY,
                scalar: false,
            }
        });
    let scalar = select(vec![ElemTy::F32, ElemTy::I32, ElemTy::U32]).prop_map(|elem| TyAnn {
        elem,
        elem_span: Span::DUMMY,
        len: Term {
            kind: TermKind::Int(1),
            span: Span::DUMMY,
        },
        span: Span::DUMMY,
        scalar: true,
    });
    prop_oneof![3 => vector, 1 => scalar]
}

fn item() -> impl Strategy<Value = Item> {
    prop_oneof![
        (name(), term()).prop_map(|(name, value)| ItemKind::Param { name, value }),
        (name(), ty_ann()).prop_map(|(name, ty)| ItemKind::Input { name, ty }),
        (
            name(),
            option::of(mem_level()),
            option::of(loads()),
            option::of(ty_ann()),
            expr()
        )
            .prop_map(|(name, level, loads, ty, value)| ItemKind::Let {
                name,
                level,
                loads,
                ty,
                value
            }),
        (name(), option::of(loads()), option::of(ty_ann()), expr()).prop_map(
            |(name, loads, ty, value)| ItemKind::Output {
                name,
                loads,
                ty,
                value
            }
        ),
    ]
    .prop_map(|kind| Item {
        kind,
        span: Span::DUMMY,
    })
}

fn file() -> impl Strategy<Value = File> {
    vec(item(), 0..5).prop_map(|items| File { items })
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 10_000,
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn print_then_parse_gives_the_same_tree(file in file()) {
        let text = print::file(&file);
        let (mut parsed, diags) = parse(&text);
        prop_assert!(diags.is_empty(), "{}\n{:?}", text, diags);
        strip_spans(&mut parsed);
        prop_assert_eq!(&parsed, &file, "printed as:\n{}", text);
        prop_assert_eq!(print::file(&parsed), text);
    }
}
