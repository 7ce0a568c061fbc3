//! `check_workgroup`: the kernel's workgroup fits the target. Its
//! workgroup arrays together within `max_workgroup_storage_bytes` (E0310,
//! labelled at each array's source, the largest first), and its workgroup
//! size within `max_invocations_per_workgroup` (E0311) and
//! `max_workgroup_size[0]` (E0312), pointing at the node that sets it.
//!
//! A check: it changes nothing. Every element counts four bytes (an `f16`
//! array's too, as the optimizer's staging budget assumes).

use super::Outcome;
use crate::kir::Kernel;
use texpr_ir::Diagnostic;
use texpr_target::Target;

/// The workgroup memory `k` declares, in bytes.
pub fn workgroup_bytes(k: &Kernel) -> u64 {
    k.shared.iter().map(|s| u64::from(s.len) * 4).sum()
}

pub fn check_workgroup(k: &Kernel, target: &Target) -> Outcome {
    let limits = &target.limits;
    let mut errs = Vec::new();
    let bytes = workgroup_bytes(k);
    if bytes > limits.max_workgroup_storage_bytes as u64 {
        let mut d = Diagnostic::error(
            "E0310",
            format!(
                "kernel `{}` needs {bytes} bytes of workgroup memory; the device allows {}",
                k.name, limits.max_workgroup_storage_bytes
            ),
        );
        let mut parts: Vec<_> = k.shared.iter().collect();
        parts.sort_by_key(|s| std::cmp::Reverse(s.len));
        for (i, s) in parts.iter().enumerate() {
            let msg = format!("{} bytes of workgroup memory", u64::from(s.len) * 4);
            d = match i {
                0 => d.with_primary(s.span, msg),
                _ => d.with_secondary(s.span, msg),
            };
        }
        errs.push(d);
    }
    let w = k.workgroup_size;
    let at = k.spans.workgroup_size;
    if w > limits.max_invocations_per_workgroup {
        errs.push(
            Diagnostic::error(
                "E0311",
                format!(
                    "a workgroup of {w} invocations is over the device's limit of {}",
                    limits.max_invocations_per_workgroup
                ),
            )
            .with_primary(at, format!("{w} invocations")),
        );
    } else if w > limits.max_workgroup_size[0] {
        errs.push(
            Diagnostic::error(
                "E0312",
                format!(
                    "a workgroup {w} wide is over the device's x size limit of {}",
                    limits.max_workgroup_size[0]
                ),
            )
            .with_primary(at, format!("{w} invocations in x")),
        );
    }
    match errs.is_empty() {
        true => Ok(()),
        false => Err(errs),
    }
}
