//! Why a strategy does not fit an item: a code and a reason, turned into
//! one diagnostic that names the item and the strategy.
//!
//! Codes: E0210 a schedule naming something that is not an item; E0211 a
//! strategy that does not fit the item's shape; E0212 sizes that do not
//! divide as the strategy needs; E0213 a workgroup wider than the device
//! allows; E0215 `combine=subgroup` on a device without subgroups; E0216 more
//! workgroup memory than the device has; E0217 `loads=wide` on a device
//! without 64-bit integers; E0218 `mma` on a device without a matching
//! cooperative-matrix configuration or a fixed subgroup size.

use super::data::Strategy;
use texpr_ir::Diagnostic;
use texpr_ir::Span;

/// A strategy that does not fit: the code (E0211-E0217) and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fail {
    pub code: &'static str,
    pub why: String,
}

impl Fail {
    /// E0211: the item's shape is not the strategy's.
    pub fn shape(why: impl Into<String>) -> Fail {
        Fail::new("E0211", why)
    }

    /// E0212: sizes that do not divide (or overflow `i32` indices).
    pub fn sizes(why: impl Into<String>) -> Fail {
        Fail::new("E0212", why)
    }

    pub fn new(code: &'static str, why: impl Into<String>) -> Fail {
        Fail {
            code,
            why: why.into(),
        }
    }

    /// The diagnostic: `cannot schedule ITEM as STRATEGY: why`, at the item.
    pub fn at(self, item: &str, s: &Strategy, span: Span) -> Diagnostic {
        Diagnostic::error(
            self.code,
            format!("cannot schedule `{item}` as `{s}`: {}", self.why),
        )
        .with_primary(span, "this item")
    }
}
