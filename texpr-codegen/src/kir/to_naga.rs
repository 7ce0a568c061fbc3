//! A kernel as a `naga::Module`, built directly (no WGSL parsed): what the
//! compiler validates, and what naga's back ends translate to SPIR-V, MSL,
//! HLSL and GLSL.
//!
//! Each statement of the kernel becomes naga's: a `Let` its expressions
//! (emitted where it stands, named), a variable a local variable stored at
//! its declaration, a loop naga's `Loop` whose body starts by breaking out
//! once the index reaches its end and whose `continuing` block steps it, a
//! barrier a workgroup (or storage) `ControlBarrier`, a subgroup operation
//! its statement.
//! Constants, builtins' components and globals are expressions available
//! everywhere.

mod body;
mod coop;

use super::*;
use body::literal;
use naga::{
    AddressSpace, ArraySize, BinaryOperator, Binding, BuiltIn, Expression, Function,
    FunctionArgument, GlobalVariable, Handle, LocalVariable, MathFunction, ResourceBinding,
    ShaderStage, Span, Statement, StorageAccess, Type, TypeInner, UnaryOperator,
};
use rustc_hash::FxHashMap as HashMap;

/// Builds `k` as a module of one entry point.
pub fn module(k: &Kernel) -> naga::Module {
    let mut m = naga::Module::default();
    add(&mut m, k);
    m
}

/// Adds `k` to `m`: its globals, types and entry point. Kernels added to
/// one module must name their globals and entry points apart, as the
/// kernels of one emitted module do (each name carries its kernel's number).
pub fn add(m: &mut naga::Module, k: &Kernel) {
    let mut b = Build {
        types: HashMap::default(),
        globals: Vec::new(),
        shared: Vec::new(),
        privates: Vec::new(),
        f: Function {
            name: Some(k.name.clone()),
            ..Default::default()
        },
        vars: Vec::new(),
        coops: Vec::new(),
        values: vec![None; k.values.len()],
        emit_from: None,
        k,
    };
    b.globals(m);
    b.arguments(m);
    for (i, var) in k.vars.iter().enumerate() {
        let ty = match var.len {
            Some(n) => b.array(m, var.ty, Some(n)),
            None => b.ty(m, var.ty),
        };
        let h = b.f.local_variables.append(
            LocalVariable {
                name: Some(var.name.clone()),
                ty,
                init: None,
            },
            Span::UNDEFINED,
        );
        debug_assert_eq!(h.index(), i);
        b.vars.push(h);
    }
    b.coop_vars(m);
    let mut body = naga::Block::new();
    b.builtins(m, &mut body);
    b.block(m, &k.body, &mut body);
    b.f.body = body;
    m.entry_points.push(naga::EntryPoint {
        name: k.name.clone(),
        stage: ShaderStage::Compute,
        early_depth_test: None,
        workgroup_size: [k.workgroup_size, 1, 1],
        workgroup_size_overrides: None,
        function: b.f,
        mesh_info: None,
        task_payload: None,
        incoming_ray_payload: None,
    });
}

struct Build<'k> {
    k: &'k Kernel,
    types: HashMap<(Ty, Option<Option<u32>>), Handle<Type>>,
    globals: Vec<Handle<GlobalVariable>>,
    shared: Vec<Handle<GlobalVariable>>,
    privates: Vec<Handle<GlobalVariable>>,
    f: Function,
    vars: Vec<Handle<LocalVariable>>,
    /// Each cooperative matrix's local variable.
    coops: Vec<Handle<LocalVariable>>,
    /// Each value's expression, once built (in scope where it is used).
    values: Vec<Option<Handle<Expression>>>,
    /// Where the expressions not yet emitted start.
    emit_from: Option<usize>,
}

fn scalar(s: Scalar) -> naga::Scalar {
    match s {
        Scalar::F32 => naga::Scalar::F32,
        Scalar::F16 => naga::Scalar::F16,
        Scalar::I32 => naga::Scalar::I32,
        Scalar::U32 => naga::Scalar::U32,
        Scalar::Bool => naga::Scalar::BOOL,
        Scalar::U64 => naga::Scalar::U64,
    }
}

fn size(width: u8) -> naga::VectorSize {
    match width {
        2 => naga::VectorSize::Bi,
        3 => naga::VectorSize::Tri,
        _ => naga::VectorSize::Quad,
    }
}

impl<'k> Build<'k> {
    fn ty(&mut self, m: &mut naga::Module, t: Ty) -> Handle<Type> {
        if let Some(&h) = self.types.get(&(t, None)) {
            return h;
        }
        let inner = match t.width {
            1 => TypeInner::Scalar(scalar(t.scalar)),
            w => TypeInner::Vector {
                size: size(w),
                scalar: scalar(t.scalar),
            },
        };
        let h = m.types.insert(Type { name: None, inner }, Span::UNDEFINED);
        self.types.insert((t, None), h);
        h
    }

    /// An array of `t`, of `len` elements (`None`: runtime-sized).
    fn array(&mut self, m: &mut naga::Module, t: Ty, len: Option<u32>) -> Handle<Type> {
        if let Some(&h) = self.types.get(&(t, Some(len))) {
            return h;
        }
        let base = self.ty(m, t);
        let bytes = if t.scalar == Scalar::U64 { 8 } else { 4 };
        let stride = bytes
            * match t.width {
                3 => 4,
                w => w as u32,
            };
        let size = match len.and_then(std::num::NonZeroU32::new) {
            Some(n) => ArraySize::Constant(n),
            None => ArraySize::Dynamic,
        };
        let h = m.types.insert(
            Type {
                name: None,
                inner: TypeInner::Array { base, size, stride },
            },
            Span::UNDEFINED,
        );
        self.types.insert((t, Some(len)), h);
        h
    }

    fn globals(&mut self, m: &mut naga::Module) {
        for (i, d) in self.k.bindings.iter().enumerate() {
            let ty = self.array(m, d.view.ty, None);
            let access = match d.access {
                Access::Read => StorageAccess::LOAD,
                Access::ReadWrite => StorageAccess::LOAD | StorageAccess::STORE,
            };
            let h = m.global_variables.append(
                GlobalVariable {
                    name: Some(d.name.clone()),
                    space: AddressSpace::Storage { access },
                    binding: Some(ResourceBinding {
                        group: 0,
                        binding: i as u32,
                    }),
                    ty,
                    init: None,
                    memory_decorations: Default::default(),
                },
                Span::UNDEFINED,
            );
            self.globals.push(h);
        }
        for s in &self.k.shared {
            let ty = self.array(m, s.ty, Some(s.len));
            let h = m.global_variables.append(
                GlobalVariable {
                    name: Some(s.name.clone()),
                    space: AddressSpace::WorkGroup,
                    binding: None,
                    ty,
                    init: None,
                    memory_decorations: Default::default(),
                },
                Span::UNDEFINED,
            );
            self.shared.push(h);
        }
        for c in &self.k.privates {
            let ty = self.array(m, c.ty, Some(c.values.len() as u32));
            let components = c
                .values
                .iter()
                .map(|l| {
                    m.global_expressions
                        .append(Expression::Literal(literal(*l)), Span::UNDEFINED)
                })
                .collect();
            let init = m
                .global_expressions
                .append(Expression::Compose { ty, components }, Span::UNDEFINED);
            let h = m.global_variables.append(
                GlobalVariable {
                    name: Some(c.name.clone()),
                    space: AddressSpace::Private,
                    binding: None,
                    ty,
                    init: Some(init),
                    memory_decorations: Default::default(),
                },
                Span::UNDEFINED,
            );
            self.privates.push(h);
        }
    }

    /// The entry point's builtin arguments (`wid` and `lid` always, the
    /// subgroup ones when used).
    fn arguments(&mut self, m: &mut naga::Module) {
        let v3 = self.ty(m, Ty::vec(Scalar::U32, 3));
        let u = self.ty(m, Ty::U32);
        let mut args = vec![
            ("wid", v3, BuiltIn::WorkGroupId),
            ("lid", v3, BuiltIn::LocalInvocationId),
        ];
        if self.k.builtins().iter().any(|b| b.subgroups()) {
            args.extend([
                ("sgl", u, BuiltIn::SubgroupInvocationId),
                ("sgid", u, BuiltIn::SubgroupId),
                ("nsg", u, BuiltIn::NumSubgroups),
                ("sgs", u, BuiltIn::SubgroupSize),
            ]);
        }
        for (name, ty, b) in args {
            self.f.arguments.push(FunctionArgument {
                name: Some(name.into()),
                ty,
                binding: Some(Binding::BuiltIn(b)),
            });
        }
    }

    /// The builtins' components and the constants, at the top.
    fn builtins(&mut self, m: &mut naga::Module, body: &mut naga::Block) {
        for (i, v) in self.k.values.iter().enumerate() {
            match v.op {
                Op::Const(l) => {
                    let _ = m;
                    let h = self
                        .f
                        .expressions
                        .append(Expression::Literal(literal(l)), Span::UNDEFINED);
                    self.values[i] = Some(h);
                }
                Op::Builtin(b) => {
                    let (arg, index) = match b {
                        Builtin::WorkgroupId(c) => (0, Some(c)),
                        Builtin::LocalId(c) => (1, Some(c)),
                        Builtin::SubgroupInvocationId => (2, None),
                        Builtin::SubgroupId => (3, None),
                        Builtin::NumSubgroups => (4, None),
                        Builtin::SubgroupSize => (5, None),
                    };
                    let a = self
                        .f
                        .expressions
                        .append(Expression::FunctionArgument(arg), Span::UNDEFINED);
                    let h = match index {
                        Some(c) => {
                            self.start_emit();
                            let h = self.f.expressions.append(
                                Expression::AccessIndex {
                                    base: a,
                                    index: c as u32,
                                },
                                Span::UNDEFINED,
                            );
                            self.finish_emit(body);
                            h
                        }
                        None => a,
                    };
                    self.values[i] = Some(h);
                }
                _ => {}
            }
        }
    }

    fn start_emit(&mut self) {
        self.emit_from = Some(self.f.expressions.len());
    }

    fn finish_emit(&mut self, block: &mut naga::Block) {
        if let Some(start) = self.emit_from.take()
            && start < self.f.expressions.len()
        {
            block.push(
                Statement::Emit(self.f.expressions.range_from(start)),
                Span::UNDEFINED,
            );
        }
    }

    /// An expression that needs emitting (appended inside an emit range).
    fn expr(&mut self, e: Expression) -> Handle<Expression> {
        debug_assert!(!e.needs_pre_emit());
        self.f.expressions.append(e, Span::UNDEFINED)
    }

    /// An expression naga treats as pre-emitted (outside any emit range).
    fn pre(&mut self, e: Expression, block: &mut naga::Block) -> Handle<Expression> {
        let running = self.emit_from.is_some();
        if running {
            self.finish_emit(block);
        }
        let h = self.f.expressions.append(e, Span::UNDEFINED);
        if running {
            self.start_emit();
        }
        h
    }

    fn get(&self, v: V) -> Handle<Expression> {
        self.values[v.0 as usize].expect("a value used before its definition")
    }

    /// A pointer to element `index` of `mem` (emitted).
    fn element(&mut self, mem: Mem, index: V, block: &mut naga::Block) -> Handle<Expression> {
        let base = match mem {
            Mem::Buffer(b) => self.pre(Expression::GlobalVariable(self.globals[b as usize]), block),
            Mem::Shared(s) => self.pre(Expression::GlobalVariable(self.shared[s as usize]), block),
            Mem::Private(c) => {
                self.pre(Expression::GlobalVariable(self.privates[c as usize]), block)
            }
            Mem::Var(x) => self.pre(Expression::LocalVariable(self.vars[x.0 as usize]), block),
        };
        let index = self.get(index);
        self.expr(Expression::Access { base, index })
    }
}
