//! `check_bindings`: the storage buffers a kernel binds fit the target's
//! `max_storage_buffers_per_stage` (E0313). The error points at the item
//! whose kernel it is and names what the kernel reads and writes (a kernel
//! computes its item with every value fused into it, so it may read more
//! than the item as written names), each binding by what it holds in the
//! program's words (`BufferDecl::what`, else its name).
//!
//! A check: it changes nothing.

use super::Outcome;
use crate::buffer_id::Access;
use crate::kir::Kernel;
use texpr_ir::Diagnostic;
use texpr_target::Target;

/// How many names a note lists before "and N more".
const SHOWN: usize = 12;

pub fn check_bindings(k: &Kernel, target: &Target) -> Outcome {
    let max = target.limits.max_storage_buffers_per_stage;
    let n = k.bindings.len();
    if n as u64 <= max as u64 {
        return Ok(());
    }
    let names = |access: Access| {
        let all: Vec<String> = (k.bindings.iter())
            .filter(|b| b.access == access)
            .map(|b| match b.what.is_empty() {
                true => format!("`{}`", b.name),
                false => b.what.clone(),
            })
            .collect();
        let mut text = all
            .iter()
            .take(SHOWN)
            .cloned()
            .collect::<Vec<_>>()
            .join(", ");
        if all.len() > SHOWN {
            text += &format!(" and {} more", all.len() - SHOWN);
        }
        (all.len(), text)
    };
    let (reads, read) = names(Access::Read);
    let (writes, written) = names(Access::ReadWrite);
    Err(vec![
        Diagnostic::error(
            "E0313",
            format!("kernel `{}` binds {n} storage buffers; the device allows {max}", k.name),
        )
        .with_primary(
            k.spans.item,
            format!("this item's kernel reads {reads} buffers and writes {writes}"),
        )
        .with_note(format!("it reads {read}"))
        .with_note(format!("it writes {written}"))
        .with_note("split the computation into items that each read fewer vectors (the optimizer never fuses past the limit)"),
    ])
}
