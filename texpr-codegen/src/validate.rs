//! naga validation of every emitted module: parse, then validate with every
//! check on and the capabilities the device allows, then check that no
//! constant expression is an infinity or a NaN (`finite`, E0394). A failure
//! is an internal error (E0390) carrying naga's message and the WGSL.

use naga::valid::{Capabilities, ModuleInfo, ValidationFlags, Validator};
use texpr_syntax::Diagnostic;
use texpr_target::Features;

/// The capabilities the device's features imply.
pub fn capabilities(features: &Features) -> Capabilities {
    let mut caps = Capabilities::default();
    if features.subgroup_size.is_some() {
        caps |= Capabilities::SUBGROUP;
    }
    if features.int64 {
        caps |= Capabilities::SHADER_INT64;
    }
    caps
}

/// Parses and validates `wgsl`; its constant expressions must be finite
/// ([`crate::finite::check`]).
pub fn validate(wgsl: &str, features: &Features) -> Result<(naga::Module, ModuleInfo), Diagnostic> {
    let module = naga::front::wgsl::parse_str(wgsl).map_err(|e| {
        internal(
            format!(
                "naga cannot parse the generated WGSL: {}",
                e.emit_to_string(wgsl)
            ),
            wgsl,
        )
    })?;
    let info = Validator::new(ValidationFlags::all(), capabilities(features))
        .validate(&module)
        .map_err(|e| {
            internal(
                format!(
                    "naga rejects the generated WGSL: {}",
                    e.emit_to_string(wgsl)
                ),
                wgsl,
            )
        })?;
    crate::finite::check(&module, wgsl)?;
    Ok((module, info))
}

/// Validates a kernel built in the kernel IR: verified (debug builds), its
/// naga module built directly and validated, its constant expressions
/// finite; `wgsl` is its printed text, for the error message (and, in
/// debug builds, parsed and validated too, a cross-check of the printer).
pub fn validate_kir(
    k: &crate::kir::Kernel,
    wgsl: &str,
    features: &Features,
) -> Result<(), Diagnostic> {
    if cfg!(debug_assertions) {
        let errs = crate::kir::verify(k);
        if !errs.is_empty() {
            return Err(internal(
                format!("the kernel IR does not verify: {}", errs.join("; ")),
                wgsl,
            ));
        }
    }
    let module = crate::kir::to_naga::module(k);
    Validator::new(ValidationFlags::all(), capabilities(features))
        .validate(&module)
        .map_err(|e| internal(format!("naga rejects the kernel's module: {e:?}"), wgsl))?;
    crate::finite::check(&module, wgsl)?;
    if cfg!(debug_assertions) {
        validate(wgsl, features)?;
    }
    Ok(())
}

fn internal(message: String, wgsl: &str) -> Diagnostic {
    Diagnostic::error(
        "E0390",
        "internal error: the generated shader does not validate",
    )
    .with_note(message)
    .with_note(format!("the shader:\n{wgsl}"))
}

/// Validates each kernel's text (each declares everything it uses), skipping
/// a kernel that is one already validated with its own names: two kernels
/// with the same [`renaming_key`] differ only by a one-to-one renaming of
/// their module-scope names, which changes nothing naga checks.
pub fn validate_kernels<'a>(
    texts: impl IntoIterator<Item = &'a str>,
    features: &Features,
) -> Result<(), Diagnostic> {
    let texts: Vec<&str> = texts.into_iter().collect();
    if let [text] = texts[..] {
        return validate(text, features).map(|_| ());
    }
    let mut valid: std::collections::HashSet<String> = std::collections::HashSet::new();
    for (k, text) in texts.into_iter().enumerate() {
        let key = renaming_key(text, k);
        if !valid.contains(&key) {
            validate(text, features)?;
            valid.insert(key);
        }
    }
    Ok(())
}

/// Kernel `k`'s text without its header comment, with each of its
/// module-scope names (`b{k}_..`, `c{k}_..`, `k{k}_..`, `s{k}_..`: buffers,
/// literals, the entry point, workgroup arrays) replaced by its letter, `#`
/// (which no WGSL name holds) and the order of its first use. Equal keys of
/// kernels `a` and `b` mean equal texts but for a one-to-one renaming: where
/// one has a renamed name the other has one with the same first use, and a
/// name left alone in one is left alone in the other (`b`'s `Xb_s` would
/// show as `X#..` in `b`'s key, never as itself).
pub fn renaming_key(text: &str, k: usize) -> String {
    let body = match text.strip_prefix("// kernel ") {
        Some(rest) => rest.split_once('\n').map_or("", |(_, b)| b),
        None => text,
    };
    let number = k.to_string();
    let mut names: std::collections::BTreeMap<&str, usize> = Default::default();
    let mut key = String::with_capacity(body.len());
    let mut rest = body;
    while let Some(start) = rest.find(|c: char| c.is_ascii_alphanumeric() || c == '_') {
        key.push_str(&rest[..start]);
        let word = &rest[start..];
        let len = word
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(word.len());
        let word = &word[..len];
        let module_scope = word.strip_prefix(['b', 'c', 'k', 's']).is_some_and(|tail| {
            tail.strip_prefix(number.as_str())
                .is_some_and(|t| t.starts_with('_'))
        });
        match module_scope {
            true => {
                let next = names.len();
                let order = *names.entry(word).or_insert(next);
                key.push_str(&word[..1]);
                key.push('#');
                key.push_str(&order.to_string());
            }
            false => key.push_str(word),
        }
        rest = &rest[start + len..];
    }
    key.push_str(rest);
    key
}

#[cfg(test)]
mod tests {
    use super::renaming_key;

    const K3: &str = "// kernel 3: t3\nvar<storage> b3_t2: array<f32>;\nfn k3_t3() { let b3_x: f32 = 64f; let b30_q = 3i; }\n";

    /// Kernels that differ only in their number's names share a key; a name
    /// of another kernel's number, or any other change, does not.
    #[test]
    fn kernels_alike_but_for_their_names_share_a_key() {
        let k4 = K3
            .replace("b3_", "b4_")
            .replace("k3_", "k4_")
            .replace("kernel 3: t3", "kernel 4: t4");
        assert_eq!(renaming_key(K3, 3), renaming_key(&k4, 4));
        assert!(renaming_key(K3, 3).contains("b#0:") && renaming_key(K3, 3).contains("b30_q"));
        assert_ne!(renaming_key(K3, 3), renaming_key(&k4, 3));
        assert_ne!(
            renaming_key(K3, 3),
            renaming_key(&K3.replace("64f", "65f"), 3)
        );
    }
}
