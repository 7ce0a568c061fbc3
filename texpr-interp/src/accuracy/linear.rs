//! The operations whose errors the running analysis follows with their
//! signs (`form`): sums and products, which a device may reassociate
//! (`chain`), negation, `fma`, the move `select` makes, and reads of stored
//! values, where a form starts. Every other operation collapses its
//! operands' forms into an unsigned bound (`running`).
//!
//! The result's form is each operand's form times the operation's
//! derivative in it (`1` and `±1` for `a ± b`; `b` and `a` for `a * b`;
//! `1/b` and `-a/b^2` for `a / b`), parts of the same value summed: its
//! first-order error. The rest of the bound is unsigned: a sum's terms'
//! unsigned rests and its rounding in any order (`chain::Sum`); for a
//! product, what `bound_ops`' formula on the operands' whole bounds charges
//! beyond the first order of their forms, so that the whole bound is never
//! above that formula's.

use super::bound::{Bound, bound, inputs_ok, leaf, num, point};
use super::bound_ops::binary;
use super::chain::{Chain, Product, Sum};
use super::est::TINY;
use super::form::{Form, value_id};
use crate::scalar::Sc;
use crate::shadow::El;
use texpr_ir::ElemTy;
use texpr_ir::{BinOp, VecRef};

/// `a` as a term of a sum.
fn sum_of((x, b): El<Bound>) -> Sum {
    Sum::of(num(x), b.err, b.form.abs(), b.chain)
}

/// `a` as a factor of a product.
fn product_of((x, b): El<Bound>) -> Product {
    Product::of(num(x), b.chain)
}

/// `a + b`, or `a - b` (`minus`), in `f32`: one chain of their terms,
/// bounded for any order (`chain::Sum`), their forms added.
pub(super) fn sum(a: El<Bound>, b: El<Bound>, minus: bool, r: Sc) -> Bound {
    let fb = if minus {
        b.1.form.scaled(-1.0)
    } else {
        b.1.form
    };
    let (form, out) = a.1.form.plus(fb);
    let s = sum_of(a).join(sum_of(b), out);
    bound(
        s.err(form.abs()),
        inputs_ok(&[a, b], r),
        Chain::Sum(s),
        form,
    )
}

/// `a * b` or `a / b` in `f32`: one chain of their factors (`chain::Product`;
/// the per-operation formula holds in any order), their forms weighted by
/// the derivatives.
pub(super) fn product(op: BinOp, a: El<Bound>, b: El<Bound>, r: Sc) -> Bound {
    let (x, y) = (num(a.0), num(b.0));
    let (p, wa, wb) = match op {
        BinOp::Div => (product_of(a).over(product_of(b)), 1.0 / y, -x / (y * y)),
        _ => (product_of(a).times(product_of(b)), y, x),
    };
    let whole = binary(op, point(a), point(b), ElemTy::F32).err + p.flush();
    let first_order = wa.abs() * a.1.form.abs() + wb.abs() * b.1.form.abs();
    let (form, out) = a.1.form.scaled(wa).plus(b.1.form.scaled(wb));
    let err = match whole.is_finite() {
        true => form.abs() + out + (whole - first_order).max(0.0),
        false => f64::INFINITY,
    };
    bound(err, inputs_ok(&[a, b], r), Chain::Product(p), form)
}

/// `-a` in `f32`: the chain it negates goes on; a flushed result may cost
/// `TINY`.
pub(super) fn neg(a: El<Bound>, r: Sc) -> Bound {
    let chain = match a.1.chain {
        Chain::Sum(s) => Chain::Sum(s.negated()),
        c => c,
    };
    let form = a.1.form.scaled(-1.0);
    bound(a.1.err + TINY, inputs_ok(&[a], r), chain, form)
}

/// `fma(a, b, c) = a * b + c` in `f32`: a product that is one term of a
/// sum. WGSL allows the product to be rounded, so it is bounded as `*` is.
pub(super) fn fma(a: El<Bound>, b: El<Bound>, c: El<Bound>, r: Sc) -> Bound {
    let p = Sc::F((num(a.0) * num(b.0)) as f32);
    let prod = product(BinOp::Mul, a, b, p);
    let s = sum((p, prod), c, false, r);
    Bound {
        specified: s.specified && prod.specified,
        ..s
    }
}

/// Element `i` of input, global or loop state `vec`, read (locals are
/// values of the expression being evaluated, and keep their forms). A
/// stored element is one value, the same wherever it is read: its whole
/// error becomes one part of the form, its own, which every read shares,
/// and a sum that reads it counts it as one term. A global's chain's reach
/// goes on (`chain`: the optimizer may fuse it into its reader); a loop
/// state's ends, since each step's value is stored before the next step
/// reads it, and no order of a later step sees the operations of an
/// earlier one: the state's chain starts again from its own value and
/// bound each step (`q + q - q` reaches `3 |q|` however many steps it takes).
pub(super) fn read(b: Bound, x: Sc, vec: VecRef, i: u64) -> Bound {
    let id = match vec {
        VecRef::Input(k) => value_id(true, k, i),
        VecRef::Global(k) => value_id(false, k, i),
        VecRef::State(k) => super::form::state_id(k, i),
        VecRef::Local(_) => return b,
    };
    let chain = match b.chain {
        _ if matches!(vec, VecRef::State(_)) => Chain::Leaf,
        Chain::Sum(s) => Chain::Sum(s.read(num(x), b.err)),
        c => c,
    };
    Bound {
        form: Form::read(id, b.err),
        chain,
        ..b
    }
}

/// `select(c, a, b)`: a move of the operand `c` picks, with its bound and
/// form (docs/language.md: specified when the condition and the picked
/// operand are; what the other operand computes does not matter). Where the
/// condition may flip in another evaluation (its bound is not 0), that
/// evaluation may pick the other operand: the bound then covers both
/// operands and the jump between them, unsigned, and is infinite
/// (ill-conditioned) when the other operand is unspecified. A `select`
/// ends any chain.
pub(super) fn select(c: El<Bound>, a: El<Bound>, b: El<Bound>) -> Bound {
    let (picked, other) = if c.0 == Sc::B(true) { (a, b) } else { (b, a) };
    let ok = c.1.specified && picked.1.specified;
    match c.1.err {
        0.0 => bound(picked.1.err, ok, Chain::Leaf, picked.1.form),
        _ if !other.1.specified => leaf(f64::INFINITY, ok),
        _ => {
            let jump = (num(a.0) - num(b.0)).abs();
            leaf(picked.1.err.max(other.1.err) + jump, ok)
        }
    }
}
