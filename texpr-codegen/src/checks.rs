//! The compiler's own limit checks, for what naga does not check
//! (`../shared/design/gpu-facts.md`), from lowering's accounts and the
//! program's buffers; what the kernel IR alone shows is checked by its
//! passes (`kir::passes`: E0310-E0312 `check_workgroup`, E0313
//! `check_bindings`, E0316 `check_loops`), whose errors come first. Each error points at the source
//! responsible:
//! - E0314 a buffer over the storage-binding size limit (its declaration)
//! - E0315 a buffer over the buffer size limit (its declaration)
//! - E0318 a kernel whose invocations hold more function memory (arrays and
//!   register vectors) than the device's budget (the largest ones)
//! - E0319 a kernel that unrolling made larger than the device's budget of
//!   unrolled statements (the item)
//!
//! (E0320, a run of more dispatches than the runtime holds, is `emit`'s:
//! it counts the loops' plans.)

use crate::lower::KernelText;
use crate::plan::BufferPlan;
use texpr_ir::{Diagnostic, Span};
use texpr_target::DeviceLimits;

/// Every limit [`KernelText`] `k` must meet, the kernel IR passes' errors
/// first.
pub fn check_kernel(k: &KernelText, limits: &DeviceLimits) -> Vec<Diagnostic> {
    let mut errs = k.errors.clone();
    errs.extend(check_private(k, limits));
    if k.unrolled_statements > limits.max_unrolled_statements {
        errs.push(
            Diagnostic::error(
                "E0319",
                format!(
                    "kernel `{}` unrolls {} statements; the device's budget is {}",
                    k.kernel.entry_point, k.unrolled_statements, limits.max_unrolled_statements
                ),
            )
            .with_primary(k.kernel.span, "this computation unrolls too far")
            .with_note("the code generator keeps bodies in loops within the budget; a vector whose every element must be unrolled (a register vector) is what remains: use smaller register tiles or vectors"),
        );
    }
    errs
}

/// E0314/E0315 for `plans` (declared at `spans`).
pub fn check_buffers(
    plans: &[BufferPlan],
    spans: &[Span],
    limits: &DeviceLimits,
) -> Vec<Diagnostic> {
    let mut errs = Vec::new();
    for (b, span) in plans.iter().zip(spans) {
        let bytes = b.len * 4;
        if bytes > limits.max_buffer_size {
            errs.push(
                Diagnostic::error(
                    "E0315",
                    format!(
                        "buffer `{}` has {bytes} bytes; the device allows {} per buffer",
                        b.name, limits.max_buffer_size
                    ),
                )
                .with_primary(*span, "this buffer is too large"),
            );
        } else if bytes > limits.max_storage_buffer_binding_size {
            errs.push(
                Diagnostic::error(
                    "E0314",
                    format!("buffer `{}` has {bytes} bytes; the device binds at most {} per storage buffer", b.name, limits.max_storage_buffer_binding_size),
                )
                .with_primary(*span, "this buffer is too large to bind"),
            );
        }
    }
    errs
}

/// E0318: more function memory per invocation than the budget, naming the
/// largest arrays and register vectors.
fn check_private(k: &KernelText, limits: &DeviceLimits) -> Option<Diagnostic> {
    let total = k.peak_private;
    if total <= limits.max_private_elements {
        return None;
    }
    let d = Diagnostic::error(
        "E0318",
        format!(
            "kernel `{}` holds up to {total} elements of function memory per invocation at once; the device's budget is {}",
            k.kernel.entry_point, limits.max_private_elements
        ),
    );
    let mut parts: Vec<_> = k.private.iter().collect();
    parts.sort_by_key(|p| std::cmp::Reverse(p.len));
    let labels = parts
        .iter()
        .take(4)
        .map(|p| (p.span, format!("{} of {} elements", p.what, p.len)));
    Some(labelled(d, labels).with_note("a `let@reg` vector is held by every invocation: keep it shorter, or share it in workgroup memory (`let@shared`) or a global (`let@global`)"))
}

/// `d` with a primary label on the first of `labels`, secondary ones on the rest.
fn labelled(mut d: Diagnostic, labels: impl Iterator<Item = (Span, String)>) -> Diagnostic {
    for (i, (span, msg)) in labels.enumerate() {
        d = match i {
            0 => d.with_primary(span, msg),
            _ => d.with_secondary(span, msg),
        };
    }
    d
}
