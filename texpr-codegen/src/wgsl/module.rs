//! Assembling the module: per kernel, its buffer declarations (bindings in
//! buffer order, only the buffers it uses), its workgroup arrays and its
//! entry point; kernels in order (globals first, then outputs).

use super::ctx::{Budget, Ctx, Ix, PrivateDecl, SharedDecl, buffer_var};
use super::kernel::{Destination, workgroup_size};
use super::lit;
use crate::buffers::BufferTable;
use crate::dispatch;
use crate::grid::grid_root;
use crate::plan::{Access, Binding, BufferId, Kernel};
use texpr_syntax::ast::Level;
use texpr_syntax::ir::{Expr, ExprKind, LoopId, Program};
use texpr_syntax::{Diagnostic, Span};
use texpr_target::Target;

/// One kernel's text and plan, plus what the limit checks need.
#[derive(Debug)]
pub struct KernelText {
    pub text: String,
    pub kernel: Kernel,
    pub shared: Vec<SharedDecl>,
    /// The node that set the workgroup size.
    pub size_span: Span,
    /// Loop iterations one invocation runs, all loops together (an upper bound).
    pub loop_iterations: u64,
    /// Function memory the kernel declares (arrays and register vectors),
    /// and the most one invocation holds at once.
    pub private: Vec<PrivateDecl>,
    pub peak_private: u64,
    /// Statements unrolling added.
    pub unrolled_statements: u64,
    /// Scratch buffers for arrays past the memory budget (`spill.rs`), with
    /// the `let` each holds.
    pub spills: Vec<(crate::plan::BufferPlan, Span)>,
    /// The `let`s [`super::inline::single_uses`] may write into their use.
    pub movable: super::lets::Lets,
    /// The buffers bound, in binding order.
    pub used: Vec<BufferId>,
    /// Some buffer is read or written four or eight elements at a time
    /// (`vec4.rs`, `wide.rs`): a choice [`crate::lower`] does not make yet.
    pub vectorized: bool,
    /// The kernel as lowered to the kernel IR, when [`crate::lower`]
    /// builds it (then its text is printed from it).
    pub kir: Option<crate::kir::Kernel>,
    /// Why it is not (`None` before [`crate::emit`] tries).
    pub not_lowered: Option<&'static str>,
}

/// Where a kernel's item stands among the program's loops: the loop it is
/// computed in, and the loops whose step it advances (it is the last kernel
/// of their steps, and a kernel reads their step).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct InLoop {
    pub within: Option<LoopId>,
    pub ticks: Vec<LoopId>,
}

/// Writes kernel number `k` for item `name` (root `root`) into `buffer`;
/// its spill buffers (if any) are numbered from `first_spill`.
pub fn kernel(
    p: &Program,
    bufs: &BufferTable,
    (k, first_spill): (usize, u32),
    (name, root, span, out): (&str, &Expr, Span, BufferId),
    in_loop: &InLoop,
    target: &Target,
) -> Result<KernelText, Diagnostic> {
    let sh = grid_root(root)?;
    check_subgroups(root, target)?;
    let (w, size_span) = workgroup_size(sh.body);
    let limits = &target.limits;
    let dispatch = dispatch::fold(sh.groups, limits.max_workgroups_per_dimension, root.span)?;
    let dispatched = dispatch.iter().map(|&d| d as u64).product::<u64>();
    let padded = dispatched > sh.groups;
    let budget = Budget {
        private: limits.max_private_elements,
        unrolled: limits.max_unrolled_statements,
        register_vector: limits.max_unrolled_elements,
    };
    let mut cx = Ctx::new(p, bufs, k, budget);
    cx.item = name.to_string();
    cx.first_spill = first_spill;
    cx.lanes = super::ctx::Lanes::of(target, w);
    cx.wide_loads = target.wide_loads();
    cx.out = Some(out);
    cx.within = in_loop.within;
    let out_var = cx.buffer(out);
    for builtin in ["wid", "lid", "sgl", "sgid", "nsg", "sgs", "glin", "g", "l"] {
        cx.w.immutable(builtin);
    }
    cx.w.immutable(lit::RUNTIME_ZERO);
    read_steps(&mut cx, root, in_loop.within);
    let g = grid_id(&mut cx, sh.groups, dispatch, padded);
    cx.w.line("let l: i32 = i32(lid.x);");
    cx.invocations = dispatched.saturating_mul(w);
    let group = if padded { "i32(glin)" } else { "g" };
    cx.inv_expr = format!(
        "{group} * {} + l",
        lit::i32_lit(w.min(i32::MAX as u64) as i32)
    );
    cx.inv_at = Some(cx.w.mark());
    let dest = Destination {
        buffer: out_var,
        id: out,
        per_group: sh.per_group,
        len: sh.len,
        guard_group: padded,
        guard_len: sh.len < sh.groups * sh.per_group,
        perm: sh.perm,
    };
    cx.kernel_body(&sh, w, g, &dest)?;
    for &l in &in_loop.ticks {
        advance_step(
            &mut cx,
            l,
            "all(wid == vec3<u32>(0u)) && all(lid == vec3<u32>(0u))",
        );
    }
    let kernel = Kernel {
        entry_point: format!("k{k}_{name}"),
        workgroup_size: [w.min(u32::MAX as u64) as u32, 1, 1],
        dispatch,
        bindings: bindings(&cx, out),
        span,
    };
    Ok(assemble(cx, kernel, name, size_span))
}

/// Kernel number `k` that only advances loop `l`'s step (the step's last
/// kernel is another loop's, or reads it in no way it could add to).
pub fn step_kernel(
    p: &Program,
    bufs: &BufferTable,
    k: usize,
    l: LoopId,
    target: &Target,
) -> KernelText {
    let budget = Budget {
        private: target.limits.max_private_elements,
        unrolled: target.limits.max_unrolled_statements,
        register_vector: target.limits.max_unrolled_elements,
    };
    let mut cx = Ctx::new(p, bufs, k, budget);
    let name = format!("step{l}");
    cx.item = name.clone();
    cx.within = Some(l);
    advance_step(&mut cx, l, "true");
    let kernel = Kernel {
        entry_point: format!("k{k}_{name}"),
        workgroup_size: [1, 1, 1],
        dispatch: [1, 1, 1],
        bindings: bindings(&cx, BufferId(u32::MAX)),
        span: p.loops[l as usize].span,
    };
    assemble(cx, kernel, &name, p.loops[l as usize].span)
}

/// Binds each step of a loop around the item that its root reads:
/// `let t: i32 = step[0];` from the step's slot.
fn read_steps(cx: &mut Ctx<'_>, root: &Expr, within: Option<LoopId>) {
    let p = cx.p;
    let mut l = within;
    while let Some(x) = l {
        let lp = &p.loops[x as usize];
        if let Some(step) = cx.bufs.step(x)
            && root.mentions(lp.var)
        {
            let buf = cx.buffer(step.current);
            let t = cx.w.fresh("step");
            cx.w.line(format!("let {t}: i32 = {buf}[0];"));
            cx.w.immutable(&t);
            cx.idx.insert(lp.var, Ix::Name(t));
        }
        l = lp.within;
    }
}

/// Writes the next step of loop `l` (one more than this one) from the one
/// invocation for which `only` holds.
fn advance_step(cx: &mut Ctx<'_>, l: LoopId, only: &str) {
    let Some(step) = cx.bufs.step(l) else {
        return;
    };
    let cur = cx.buffer(step.current);
    let next = cx.buffer(step.next);
    cx.writes.insert(step.next);
    cx.w.line(format!("if ({only}) {{ {next}[0] = {cur}[0] + 1i; }}"));
}

/// The kernel's text (declarations, entry point, body) and what the limit
/// checks need, from its finished context.
fn assemble(mut cx: Ctx<'_>, kernel: Kernel, name: &str, size_span: Span) -> KernelText {
    let k = cx.kernel;
    let mut text = format!("// kernel {k}: {name}\n");
    text += &declarations(&cx, &kernel.bindings);
    let sub = match cx.subgroups {
        true => {
            ", @builtin(subgroup_invocation_id) sgl: u32, @builtin(subgroup_id) sgid: u32, @builtin(num_subgroups) nsg: u32, @builtin(subgroup_size) sgs: u32"
        }
        false => "",
    };
    text += &format!(
        "\n@compute @workgroup_size({})\nfn {}(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>{sub}) {{\n",
        kernel.workgroup_size[0], kernel.entry_point
    );
    let shared = std::mem::take(&mut cx.shared);
    let private = std::mem::take(&mut cx.private);
    let spills = std::mem::take(&mut cx.spills);
    let loop_iterations = cx.w.iterations();
    let unrolled_statements = cx.w.unrolled();
    let peak_private = cx.peak_private;
    let used = cx.used.iter().copied().collect();
    let vectorized = !cx.vec4.is_empty() || !cx.octo.is_empty();
    let (lines, movable) = cx.w.finish();
    // An infinity or NaN is spelled with the kernel's run-time zero
    // (`lit::f32_lit`): declared first where any line spells one.
    if lines.iter().any(|l| l.contains(lit::RUNTIME_ZERO)) {
        text += &format!("    {}\n", lit::runtime_zero_decl());
    }
    for line in lines {
        text += &line;
        text.push('\n');
    }
    text += "}\n";
    KernelText {
        text,
        kernel,
        shared,
        size_span,
        loop_iterations,
        private,
        peak_private,
        unrolled_statements,
        spills,
        movable,
        used,
        vectorized,
        kir: None,
        not_lowered: None,
    }
}

/// `reduce@subgroup` on a device without subgroup operations is E0317.
fn check_subgroups(root: &Expr, target: &Target) -> Result<(), Diagnostic> {
    match subgroup_node(root) {
        Some(at) if !target.subgroups() => Err(Diagnostic::error(
            "E0317",
            "`reduce@subgroup` needs subgroup operations, which this device does not have",
        )
        .with_primary(at, "this reduction uses subgroup operations")
        .with_note("write `reduce@group` (a workgroup tree in shared memory) instead")),
        _ => Ok(()),
    }
}

/// Every buffer the kernel used, bound in buffer order: the output, its
/// spill buffers and the slots it advances read-write, the rest read-only;
/// a slot as the buffer its loop's steps bind in turn.
fn bindings(cx: &Ctx<'_>, out: BufferId) -> Vec<Binding> {
    cx.used
        .iter()
        .enumerate()
        .map(|(i, &id)| {
            let step = cx.bufs.slot(id);
            let written = id == out || cx.writes.contains(&id);
            let spill = id.0 >= cx.first_spill && step.is_none();
            Binding {
                group: 0,
                binding: i as u32,
                buffer: step.map_or(id, |s| s.a),
                access: match written || spill {
                    true => Access::ReadWrite,
                    false => Access::Read,
                },
                step,
            }
        })
        .collect()
}

/// The kernel's storage buffer and workgroup array declarations.
fn declarations(cx: &Ctx<'_>, bindings: &[Binding]) -> String {
    let mut text = String::new();
    // Bound in the order of the ids used (a slot by its own name).
    for (b, &id) in bindings.iter().zip(&cx.used) {
        let plan = cx.plan(id);
        let access = match b.access {
            Access::ReadWrite => "read_write",
            Access::Read => "read",
        };
        let elem = match (cx.vec4.contains(&id), cx.octo.contains(&id)) {
            (true, _) => format!("vec4<{}>", lit::ty(plan.elem)),
            (false, true) => "vec4<u64>".to_string(),
            (false, false) => lit::ty(plan.elem).to_string(),
        };
        text += &format!(
            "@group({}) @binding({}) var<storage, {access}> {}: array<{elem}>;\n",
            b.group,
            b.binding,
            buffer_var(cx.kernel, &plan.name),
        );
    }
    for s in &cx.shared {
        text += &format!(
            "var<workgroup> {}: array<{}, {}>;\n",
            s.name,
            lit::ty(s.elem),
            s.len
        );
    }
    for (name, init) in &cx.literals {
        let ty = &init[..init.find('(').unwrap_or(init.len())];
        text += &format!("var<private> {name}: {ty} = {init};\n");
    }
    text
}

/// The span of the first `reduce@subgroup` in `e`, if any.
fn subgroup_node(e: &Expr) -> Option<Span> {
    e.find(|x| {
        matches!(
            x.kind,
            ExprKind::Reduce {
                level: Some(Level::Subgroup),
                ..
            }
        )
    })
    .map(|x| x.span)
}

/// Binds `g` (the clamped linear workgroup id) and `in_grid` when padded.
fn grid_id(cx: &mut Ctx<'_>, groups: u64, [x, y, _]: [u32; 3], padded: bool) -> Ix {
    let lin = match (x as u64) < groups {
        false => "wid.x".to_string(),
        true => format!("wid.x + wid.y * {x}u + wid.z * {}u", x as u64 * y as u64),
    };
    if padded {
        cx.w.line(format!("let glin: u32 = {lin};"));
        cx.w.line(format!("let in_grid: bool = glin < {groups}u;"));
        cx.w.line(format!("let g: i32 = i32(min(glin, {}u));", groups - 1));
    } else {
        cx.w.line(format!("let g: i32 = i32({lin});"));
    }
    Ix::Name("g".into())
}
