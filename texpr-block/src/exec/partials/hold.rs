//! Holding one recorded partial of a sum to what it should be (the
//! partial before it plus its tile's part, or the sum of the partials a
//! reduce combined), each element within its own tolerance; the worst
//! element beyond it, and the step whose part stands out least from 0.

use crate::air::{Op, Program, Reg, SumAxis};
use crate::codes;
use crate::graph::node::Part;
use texpr_interp::accuracy::{Reference, tolerance};
use texpr_ir::Diagnostic;

/// A partial element beyond its tolerance.
pub(super) struct Miss {
    /// The difference over the tolerance.
    excess: f64,
    op: Reg,
    what: String,
    got: f64,
    want: f64,
    tol: f64,
}

/// The worst partial beyond its tolerance, how many elements were, and
/// the step whose part is nearest 0 in its own tolerances.
#[derive(Default)]
pub(super) struct Worst {
    pub count: usize,
    pub compared: usize,
    pub unchecked: usize,
    pub worst: Option<Miss>,
    pub lightest: Option<Lightest>,
}

/// The step whose part stands out least from 0: its largest element's
/// part in that element's tolerances (a lost or repeated tile changes its
/// partial by the part, so it fails where this is above 1).
pub(super) struct Lightest {
    weight: f64,
    op: Reg,
    tile: (u64, u64),
    src_tile: (u64, u64),
}

impl Lightest {
    /// What a lost or repeated tile would do to the check: a step that
    /// loses its tile makes the partial before it, off by exactly the
    /// reference's part, so it fails where the part is beyond its
    /// tolerance; one that adds its tile twice is off by its own part,
    /// which may be a tolerance nearer 0.
    pub fn text(&self, q: &Program) -> String {
        let (s, t) = (self.src_tile, self.tile);
        let at = format!(
            "tile ({}, {}) into %{} ({}, {})",
            s.0,
            s.1,
            q.inst(self.op).name,
            t.0,
            t.1
        );
        let w = self.weight;
        let then = if w > 2.0 {
            "so a step that loses or repeats its tile fails"
        } else if w > 1.0 {
            "so a step that loses its tile fails"
        } else {
            return format!(
                "; {at}'s part is within its tolerance of 0 ({w:.2} of it): a step that lost it would pass"
            );
        };
        format!(
            "; every step's part is at least {w:.1} times its tolerance from 0 (nearest: {at}), {then}"
        )
    }
}

impl Worst {
    pub fn hold(
        &mut self,
        op: Reg,
        what: impl Fn() -> String,
        got: f32,
        want: f64,
        tol: Option<f64>,
    ) {
        let Some(tol) = tol.filter(|_| got.is_finite() && want.is_finite()) else {
            self.unchecked += 1;
            return;
        };
        self.compared += 1;
        let diff = (f64::from(got) - want).abs();
        if diff <= tol {
            return;
        }
        self.count += 1;
        let excess = diff / tol.max(1e-300);
        if self.worst.as_ref().is_none_or(|w| excess > w.excess) {
            let (what, got) = (what(), f64::from(got));
            self.worst = Some(Miss {
                excess,
                op,
                what,
                got,
                want,
                tol,
            });
        }
    }

    fn weigh(&mut self, l: Lightest) {
        if self.lightest.as_ref().is_none_or(|w| l.weight < w.weight) {
            self.lightest = Some(l);
        }
    }
}

/// Rounding of one `f32` addition of values as large as `m`, with room for
/// the partials' growth and a flushed subnormal (the interpreter's `EPS`
/// and `TINY`).
pub(super) fn rounding(m: f64) -> f64 {
    f64::from(f32::EPSILON) * m + f64::from(f32::MIN_POSITIVE)
}

/// E0544 at the sum whose partial `miss` is.
pub(super) fn mismatch(q: &Program, miss: &Miss, count: usize, compared: usize) -> Diagnostic {
    let Miss {
        what,
        got,
        want,
        tol,
        ..
    } = miss;
    Diagnostic::error(
        codes::CHECK_FAILED,
        format!(
            "a partial of a sum differs from the partial it was made from and its tile's part: {what} is {got:e}, want {want:e} within {tol:.3e} ({count} of {compared} partial elements beyond their tolerance)",
        ),
    )
    .with_primary(q.inst(miss.op).span, "a partial of this reduction")
    .with_note("a step that drops its tile, or adds another, fails here even where the whole sum stays within its bound")
}

/// A step of a sum: the partial it made held to the one before it plus its tile's part.
pub(super) struct Step<'a> {
    pub q: &'a Program,
    pub op: Reg,
    pub tile: (u64, u64),
    pub rank: usize,
    pub part: Part,
    pub reference: &'a Reference,
}

impl Step<'_> {
    pub fn hold(&self, w: &mut Worst, got: &[f32], before: Option<&Vec<f32>>) {
        let (reference, src) = (self.reference, self.part.src_tile);
        let want_part = reference.value.as_f32().unwrap_or(&[]);
        let mut weight: Option<f64> = None;
        for (e, &v) in got.iter().enumerate() {
            let k = part_index(self.q, self.op, self.tile, src, e);
            let prev = before.map_or(0.0, |b| f64::from(b[e]));
            let pv = f64::from(want_part[k]);
            let tol = tolerance(reference.bounds[k], true)
                .filter(|_| reference.bounds[k].specified)
                .map(|t| t + rounding(prev.abs() + pv.abs() + t));
            if let Some(t) = tol {
                weight = Some(weight.unwrap_or(0.0).max(pv.abs() / t.max(1e-300)));
            }
            let what = || {
                format!(
                    "the partial of %{} ({}, {}) on rank {} after adding tile ({}, {}), element {e}",
                    self.q.inst(self.op).name,
                    self.tile.0,
                    self.tile.1,
                    self.rank,
                    src.0,
                    src.1
                )
            };
            w.hold(self.op, what, v, prev + pv, tol);
        }
        if let Some(weight) = weight {
            w.weigh(Lightest {
                weight,
                op: self.op,
                tile: self.tile,
                src_tile: src,
            });
        }
    }
}

/// The index in reduction `op`'s parts ([`super::reference::dense_parts`])
/// of element `e` of output tile `tile`'s partial, in the step reading
/// operand tile `src`.
fn part_index(q: &Program, op: Reg, tile: (u64, u64), src: (u64, u64), e: usize) -> usize {
    let Op::Reduce(_, axis, x) = q.inst(op).op else {
        unreachable!("a reduction")
    };
    let ty = q.ty(x);
    let (rows, n) = (ty.shape.rows, ty.n_tiles());
    let e = e as u64;
    (match axis {
        SumAxis::Rows => (tile.0 * ty.tile.rows + e) + src.1 * rows,
        SumAxis::Cols => src.0 + (tile.1 * ty.tile.cols + e) * n.rows,
        SumAxis::All => src.0 + src.1 * n.rows,
    }) as usize
}
