//! No constant expression of an emitted shader evaluates to an infinity or
//! a NaN (E0394, an internal error).
//!
//! Tint, Chromium's WGSL compiler, evaluates every constant expression
//! (anything built only from literals, `const`s and builtins over them,
//! `bitcast` included, also a `var<private>` initializer) and rejects the
//! module when one is not finite (`value -inf cannot be represented as
//! 'f32'`); naga accepts such modules. The emitter spells every non-finite
//! value as a run-time one (`kir::Builder::lit`); this check walks naga's
//! IR of each kernel so that the rule can never silently regress.
//!
//! It evaluates, in each expression arena (the module's global expressions,
//! then every function's), the expressions whose operands are all constant:
//! literals, `const`s, zero values, and composes, swizzles, accesses,
//! unary and binary operators, `select`, conversions, bitcasts and the
//! common math builtins over them. Anything read at run time (an argument
//! such as `workgroup_id`, a load, a call's result, an override) is not
//! constant, nor is anything computed from it, nor a `let`'s name (WGSL
//! evaluates its initializer as a constant expression, checked as such, but
//! the name is a run-time value). naga folds arithmetic on literals itself
//! (and rejects an overflow), not a `bitcast`, so most of what this finds
//! is a `bitcast` of a non-finite bit pattern, or arithmetic on one. An
//! operation the check cannot evaluate (a rare builtin) is let through.

use crate::consteval::{Val, eval};
use naga::Expression as E;
use texpr_ir::Diagnostic;

/// Fails (E0394) when a constant expression of `module` (parsed from `wgsl`)
/// evaluates to an infinity or a NaN, naming the first such expression.
pub fn check(module: &naga::Module, wgsl: &str) -> Result<(), Diagnostic> {
    let globals = values(module, &module.global_expressions, &[], None).map_err(|(h, x)| {
        found(
            module.global_expressions.get_span(h),
            x,
            "module scope",
            wgsl,
        )
    })?;
    let functions = module.functions.iter().map(|(_, f)| f);
    let entries = module.entry_points.iter().map(|e| &e.function);
    for f in functions.chain(entries) {
        let name = f.name.as_deref().unwrap_or("a function");
        values(module, &f.expressions, &globals, Some(f))
            .map_err(|(h, x)| found(f.expressions.get_span(h), x, name, wgsl))?;
    }
    Ok(())
}

type Arena = naga::Arena<naga::Expression>;

/// The constant value of each expression of `arena` (`None` where it is not
/// constant or not evaluated), or the first one that is not finite.
/// `globals` are the module's global expressions' values, for `const`s.
fn values(
    module: &naga::Module,
    arena: &Arena,
    globals: &[Option<Val>],
    function: Option<&naga::Function>,
) -> Result<Vec<Option<Val>>, (naga::Handle<naga::Expression>, f64)> {
    let mut vals: Vec<Option<Val>> = Vec::with_capacity(arena.len());
    for (h, e) in arena.iter() {
        // Operands precede their users in an arena: `vals` holds them. A
        // `let`'s name is a run-time value.
        let named = |o| function.is_some_and(|f| f.named_expressions.contains_key(&o));
        let at = |o: naga::Handle<naga::Expression>| match named(o) {
            true => None,
            false => vals.get(o.index()).cloned().flatten(),
        };
        let v = match e {
            // A `const`'s value, in the global arena.
            E::Constant(c) => {
                let init = module.constants[*c].init;
                match function {
                    Some(_) => globals.get(init.index()).cloned().flatten(),
                    None => at(init),
                }
            }
            _ => eval(module, e, &at),
        };
        if let Some(x) = v.as_ref().and_then(Val::non_finite) {
            return Err((h, x));
        }
        vals.push(v);
    }
    Ok(vals)
}

fn found(span: naga::Span, x: f64, place: &str, wgsl: &str) -> Diagnostic {
    let text = span
        .to_range()
        .and_then(|r| wgsl.get(r.start..call_end(wgsl, r.end)))
        .unwrap_or("(no source)");
    Diagnostic::error(
        "E0394",
        "internal error: a constant expression of the generated shader is not finite",
    )
    .with_note(format!(
        "in {place}, `{text}` evaluates to {x} at shader creation; Tint (Chromium's WGSL \
         compiler) rejects such a module, so every infinity and NaN must be a run-time value"
    ))
    .with_note(format!("the shader:\n{wgsl}"))
}

/// Where the text at `end` closes: past the parenthesised arguments when a
/// call's name ends there (naga's span of a call is its name), else `end`.
fn call_end(wgsl: &str, end: usize) -> usize {
    let rest = wgsl.get(end..).unwrap_or("");
    if !rest.starts_with('(') {
        return end;
    }
    let mut depth = 0;
    for (i, c) in rest.char_indices() {
        match c {
            '(' => depth += 1,
            ')' if depth == 1 => return end + i + 1,
            ')' => depth -= 1,
            _ => {}
        }
    }
    end
}

#[cfg(test)]
mod tests {
    use super::check;

    fn verdict(body: &str) -> Result<(), String> {
        let src = format!(
            "@group(0) @binding(0) var<storage, read_write> o: array<f32>;\n\
             @compute @workgroup_size(1)\n\
             fn main(@builtin(workgroup_id) wid: vec3<u32>) {{\n{body}\n}}\n"
        );
        let module = naga::front::wgsl::parse_str(&src).unwrap_or_else(|e| panic!("{e}\n{src}"));
        check(&module, &src).map_err(|d| format!("{}: {}", d.code, d.notes.join("\n")))
    }

    /// The forms Tint rejects: an infinity or NaN spelled as a constant,
    /// alone, inside a `select`, negated, in a vector, made by arithmetic
    /// or a builtin over constants, or at module scope.
    #[test]
    fn non_finite_constant_expressions_are_internal_errors() {
        for body in [
            "let a = bitcast<f32>(0xff800000u); o[0] = a;",
            "o[0] = select(bitcast<f32>(0xff800000u), o[1], o[2] > 0.0f);",
            "o[0] = -bitcast<f32>(0x7f800000u);",
            "var v = vec2<f32>(1.0f, bitcast<f32>(0x7fc00000u)); o[0] = v.x;",
            "o[0] = o[1] + bitcast<f32>(0x7f7fffffu) * 2.0f;",
            "o[0] = exp(bitcast<f32>(0x42c80000u));",
            "var x: f32 = bitcast<f32>(0xff800000u); o[0] = x;",
        ] {
            let err = verdict(body).expect_err(body);
            assert!(err.starts_with("E0394"), "{body}: {err}");
            assert!(err.contains("evaluates to"), "{body}: {err}");
            if body.starts_with("let a") {
                let quoted = "in main, `bitcast<f32>(0xff800000u)` evaluates to -inf";
                assert!(err.contains(quoted), "{err}");
            }
        }
        // naga's front end refuses a non-finite initializer (or a bitcast)
        // at module scope: an infinity put there by hand.
        let src = "var<private> c: array<f32, 2> = array<f32, 2>(1.0f, 2.0f);\n\
                   @compute @workgroup_size(1) fn main() { let x = c[0]; }\n";
        let mut module = naga::front::wgsl::parse_str(src).unwrap();
        for (_, e) in module.global_expressions.iter_mut() {
            if *e == naga::Expression::Literal(naga::Literal::F32(2.0)) {
                *e = naga::Expression::Literal(naga::Literal::F32(f32::INFINITY));
            }
        }
        let err = check(&module, src).expect_err("a module-scope initializer");
        assert!(err.notes[0].contains("module scope"), "{:?}", err.notes);
    }

    /// Run-time values pass, however constant they look: the emitter's
    /// `bitcast<f32>(BITS | runtime_zero)`; finite constants pass, `-0.0`
    /// and `i32::MIN` spelled by bitcasts included.
    #[test]
    fn run_time_and_finite_values_pass() {
        for body in [
            "let runtime_zero: u32 = wid.x & 0u;\n\
             o[0] = select(bitcast<f32>(0xff800000u | runtime_zero), o[1], o[2] > 0.0f);",
            "o[0] = bitcast<f32>(0x80000000u) + f32(bitcast<i32>(0x80000000u));",
            "var c: f32 = 1e38f; o[0] = c * 10.0f + exp(2.0f) + max(1.0f, 2.0f);",
            "let c = 1e38f; o[0] = c * 10.0f;",
            "o[0] = f32(vec2<u32>(1u, 2u).y) + o[u32(wid.x * 0u)];",
        ] {
            verdict(body).unwrap_or_else(|e| panic!("{body}: {e}"));
        }
    }
}
