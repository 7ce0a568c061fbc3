//! The diagnostics for an index term that breaks a rule of index terms
//! ([`BoundsError`]), reported alike by the checker and the verifier.

use crate::codes;
use crate::diag::Diagnostic;
use crate::linear::{BoundsError, Range};

/// The diagnostic for a broken rule of a term (shared with the verifier).
pub fn bounds_diag(e: BoundsError) -> Diagnostic {
    match e {
        BoundsError::UnboundVar { var, span } => Diagnostic::error(
            codes::IR_UNBOUND_VAR,
            format!("variable v{} is not bound here", var.0),
        )
        .with_primary(span, "unbound variable"),
        BoundsError::DivisorNotConstant { span } => {
            Diagnostic::error(codes::BAD_DIVISOR, "divisor must be a positive constant")
                .with_primary(span, "this depends on an index variable")
                .with_note("`/` and `%` in terms divide by literals and params only")
        }
        BoundsError::DivisorNotPositive { span, value } => {
            Diagnostic::error(codes::BAD_DIVISOR, "divisor must be a positive constant")
                .with_primary(span, format!("this is {value}"))
        }
        BoundsError::DividendMaybeNegative { span, range } => {
            Diagnostic::error(codes::NEGATIVE_DIVIDEND, "dividend may be negative")
                .with_primary(span, range_label(range))
                .with_note("`/` and `%` in terms are floor division of non-negative values")
        }
        BoundsError::Overflow { span, range } => Diagnostic::error(
            codes::INT_OVERFLOW,
            if range.0 == range.1 {
                "integer overflow: the value does not fit in an i32"
            } else {
                "integer overflow: the value may not fit in an i32"
            },
        )
        .with_primary(span, range_label(range))
        .with_note("sizes and index terms are computed in 32-bit integers on the GPU"),
    }
}

/// "this is 5" or "this ranges over 0..=9".
fn range_label(range: Range) -> String {
    if range.0 == range.1 {
        format!("this is {}", range.0)
    } else {
        format!("this ranges over {}", show_range(range))
    }
}

/// `lo..=hi`, or the single value.
pub fn show_range((lo, hi): Range) -> String {
    if lo == hi {
        format!("{lo}")
    } else {
        format!("{lo}..={hi}")
    }
}
