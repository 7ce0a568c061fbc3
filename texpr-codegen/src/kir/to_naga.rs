//! A kernel as a `naga::Module`, built directly (no WGSL parsed): what the
//! compiler validates, and what naga's back ends translate to SPIR-V, MSL,
//! HLSL and GLSL.
//!
//! Each statement of the kernel becomes naga's: a `Let` its expressions
//! (emitted where it stands, named), a variable a local variable stored at
//! its declaration, a loop naga's `Loop` whose body starts by breaking out
//! once the index reaches its end and whose `continuing` block steps it, a
//! barrier a workgroup `ControlBarrier`, a subgroup operation its statement.
//! Constants, builtins' components and globals are expressions available
//! everywhere.

use super::*;
use naga::{
    AddressSpace, ArraySize, BinaryOperator, Binding, BuiltIn, Expression, Function,
    FunctionArgument, GlobalVariable, Handle, LocalVariable, MathFunction, ResourceBinding,
    ShaderStage, Span, Statement, StorageAccess, Type, TypeInner, UnaryOperator,
};
use rustc_hash::FxHashMap as HashMap;

/// Builds `k` as a module of one entry point.
pub fn module(k: &Kernel) -> naga::Module {
    let mut m = naga::Module::default();
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
        values: vec![None; k.values.len()],
        emit_from: None,
        k,
    };
    b.globals(&mut m);
    b.arguments(&mut m);
    for (i, var) in k.vars.iter().enumerate() {
        let ty = match var.len {
            Some(n) => b.array(&mut m, var.ty, Some(n)),
            None => b.ty(&mut m, var.ty),
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
    let mut body = naga::Block::new();
    b.builtins(&mut m, &mut body);
    b.block(&mut m, &k.body, &mut body);
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
    m
}

struct Build<'k> {
    k: &'k Kernel,
    types: HashMap<(Ty, Option<Option<u32>>), Handle<Type>>,
    globals: Vec<Handle<GlobalVariable>>,
    shared: Vec<Handle<GlobalVariable>>,
    privates: Vec<Handle<GlobalVariable>>,
    f: Function,
    vars: Vec<Handle<LocalVariable>>,
    /// Each value's expression, once built (in scope where it is used).
    values: Vec<Option<Handle<Expression>>>,
    /// Where the expressions not yet emitted start.
    emit_from: Option<usize>,
}

fn scalar(s: Scalar) -> naga::Scalar {
    match s {
        Scalar::F32 => naga::Scalar::F32,
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

    /// Value `v`'s expression, emitted into `block`.
    fn define(&mut self, m: &mut naga::Module, v: V, block: &mut naga::Block) {
        let value = &self.k.values[v.0 as usize];
        let ty = value.ty;
        if let Op::Subgroup(op, args) = &value.op {
            let rty = self.ty(m, ty);
            let result = self.pre(Expression::SubgroupOperationResult { ty: rty }, block);
            let argument = self.get(args[0]);
            let stmt = match op {
                SgOp::Broadcast => Statement::SubgroupGather {
                    mode: naga::GatherMode::Broadcast(self.get(args[1])),
                    argument,
                    result,
                },
                op => Statement::SubgroupCollectiveOperation {
                    op: match op {
                        SgOp::Add => naga::SubgroupOperation::Add,
                        SgOp::Mul => naga::SubgroupOperation::Mul,
                        SgOp::Max => naga::SubgroupOperation::Max,
                        _ => naga::SubgroupOperation::Min,
                    },
                    collective_op: naga::CollectiveOperation::Reduce,
                    argument,
                    result,
                },
            };
            block.push(stmt, Span::UNDEFINED);
            self.values[v.0 as usize] = Some(result);
            return;
        }
        self.start_emit();
        let h = match value.op.clone() {
            Op::Const(_) | Op::Builtin(_) => unreachable!("free values are made at the top"),
            Op::LoopIndex => unreachable!("a loop defines its index"),
            Op::Subgroup(..) => unreachable!("handled above"),
            Op::Unary(op, a) => {
                let op = match op {
                    UnOp::Neg => UnaryOperator::Negate,
                    UnOp::Not => UnaryOperator::LogicalNot,
                };
                let expr = self.get(a);
                self.expr(Expression::Unary { op, expr })
            }
            Op::Binary(op, a, b) => {
                let op = binary(op);
                let (left, right) = (self.get(a), self.get(b));
                self.expr(Expression::Binary { op, left, right })
            }
            Op::Call(Fun::Select, args) => {
                let (reject, accept, condition) =
                    (self.get(args[0]), self.get(args[1]), self.get(args[2]));
                self.expr(Expression::Select {
                    condition,
                    accept,
                    reject,
                })
            }
            Op::Call(Fun::All, args) => {
                let argument = self.get(args[0]);
                self.expr(Expression::Relational {
                    fun: naga::RelationalFunction::All,
                    argument,
                })
            }
            Op::Call(f, args) => {
                let a: Vec<Handle<Expression>> = args.iter().map(|x| self.get(*x)).collect();
                self.expr(Expression::Math {
                    fun: math(f),
                    arg: a[0],
                    arg1: a.get(1).copied(),
                    arg2: a.get(2).copied(),
                    arg3: None,
                })
            }
            Op::Convert(a) => {
                let expr = self.get(a);
                let s = scalar(ty.scalar);
                self.expr(Expression::As {
                    expr,
                    kind: s.kind,
                    convert: Some(s.width),
                })
            }
            Op::Bitcast(a) => {
                let expr = self.get(a);
                self.expr(Expression::As {
                    expr,
                    kind: scalar(ty.scalar).kind,
                    convert: None,
                })
            }
            Op::Load(mem, index) => {
                let pointer = self.element(mem, index, block);
                self.expr(Expression::Load { pointer })
            }
            Op::ReadVar(x) => {
                let pointer = self.pre(Expression::LocalVariable(self.vars[x.0 as usize]), block);
                self.expr(Expression::Load { pointer })
            }
            Op::Component(a, i) => {
                let (base, index) = (self.get(a), self.get(i));
                self.expr(Expression::Access { base, index })
            }
            Op::Extract(a, c) => {
                let base = self.get(a);
                self.expr(Expression::AccessIndex {
                    base,
                    index: c as u32,
                })
            }
            Op::Construct(parts) if parts.len() == 1 && ty.width > 1 => {
                let value = self.get(parts[0]);
                self.expr(Expression::Splat {
                    size: size(ty.width),
                    value,
                })
            }
            Op::Construct(parts) => {
                let components = parts.iter().map(|x| self.get(*x)).collect();
                let ty = self.ty(m, ty);
                self.expr(Expression::Compose { ty, components })
            }
        };
        self.finish_emit(block);
        self.f.named_expressions.insert(h, value.name.clone());
        self.values[v.0 as usize] = Some(h);
    }

    fn store_to(&mut self, pointer: Handle<Expression>, v: V, block: &mut naga::Block) {
        let value = self.get(v);
        block.push(Statement::Store { pointer, value }, Span::UNDEFINED);
    }

    fn block(&mut self, m: &mut naga::Module, b: &Block, out: &mut naga::Block) {
        for s in &b.stmts {
            match s {
                Stmt::Let(v) => self.define(m, *v, out),
                Stmt::Var(x, init) => {
                    let var = self.vars[x.0 as usize];
                    match init {
                        Init::None => {}
                        Init::Value(v) => {
                            let p = self.pre(Expression::LocalVariable(var), out);
                            self.store_to(p, *v, out);
                        }
                        Init::Elements(vs) => {
                            let kvar = self.k.var(*x);
                            let ty = self.array(m, kvar.ty, kvar.len);
                            let components = vs.iter().map(|v| self.get(*v)).collect();
                            self.start_emit();
                            let value = self.expr(Expression::Compose { ty, components });
                            self.finish_emit(out);
                            let pointer = self.pre(Expression::LocalVariable(var), out);
                            out.push(Statement::Store { pointer, value }, Span::UNDEFINED);
                        }
                    }
                }
                Stmt::Assign(x, index, v) => {
                    let var = self.vars[x.0 as usize];
                    let pointer = match index {
                        None => self.pre(Expression::LocalVariable(var), out),
                        Some(i) => {
                            self.start_emit();
                            let p = self.element(Mem::Var(*x), *i, out);
                            self.finish_emit(out);
                            p
                        }
                    };
                    self.store_to(pointer, *v, out);
                }
                Stmt::Store(mem, i, v) => {
                    self.start_emit();
                    let pointer = self.element(*mem, *i, out);
                    self.finish_emit(out);
                    self.store_to(pointer, *v, out);
                }
                Stmt::Barrier => out.push(
                    Statement::ControlBarrier(naga::Barrier::WORK_GROUP),
                    Span::UNDEFINED,
                ),
                Stmt::If(c) => {
                    let condition = self.get(c.cond);
                    let mut accept = naga::Block::new();
                    self.block(m, &c.then, &mut accept);
                    let mut reject = naga::Block::new();
                    if let Some(e) = &c.els {
                        self.block(m, e, &mut reject);
                    }
                    out.push(
                        Statement::If {
                            condition,
                            accept,
                            reject,
                        },
                        Span::UNDEFINED,
                    );
                }
                Stmt::Loop(l) => self.for_loop(m, l, out),
            }
        }
    }

    /// `for (var i = start; i < end; i = i + k)` (or `i > end; i = i / 2`)
    /// as naga's loop: the index a local variable.
    fn for_loop(&mut self, m: &mut naga::Module, l: &Loop, out: &mut naga::Block) {
        let i32t = self.ty(m, Ty::I32);
        let index = self.f.local_variables.append(
            LocalVariable {
                name: Some(self.k.value(l.index).name.clone()),
                ty: i32t,
                init: None,
            },
            Span::UNDEFINED,
        );
        let ptr = self.pre(Expression::LocalVariable(index), out);
        self.store_to(ptr, l.start, out);
        let mut body = naga::Block::new();
        self.start_emit();
        let i = self.expr(Expression::Load { pointer: ptr });
        let end = self.get(l.end);
        let op = match l.step {
            LoopStep::Up(_) => BinaryOperator::Less,
            LoopStep::Halve => BinaryOperator::Greater,
        };
        let cond = self.expr(Expression::Binary {
            op,
            left: i,
            right: end,
        });
        self.finish_emit(&mut body);
        let mut brk = naga::Block::new();
        brk.push(Statement::Break, Span::UNDEFINED);
        body.push(
            Statement::If {
                condition: cond,
                accept: naga::Block::new(),
                reject: brk,
            },
            Span::UNDEFINED,
        );
        self.values[l.index.0 as usize] = Some(i);
        self.f
            .named_expressions
            .insert(i, self.k.value(l.index).name.clone());
        self.block(m, &l.body, &mut body);
        let mut continuing = naga::Block::new();
        let (op, by) = match l.step {
            LoopStep::Up(k) => (BinaryOperator::Add, naga::Literal::I32(k)),
            LoopStep::Halve => (BinaryOperator::Divide, naga::Literal::I32(2)),
        };
        let by = self.pre(Expression::Literal(by), &mut continuing);
        self.start_emit();
        let now = self.expr(Expression::Load { pointer: ptr });
        let next = self.expr(Expression::Binary {
            op,
            left: now,
            right: by,
        });
        self.finish_emit(&mut continuing);
        continuing.push(
            Statement::Store {
                pointer: ptr,
                value: next,
            },
            Span::UNDEFINED,
        );
        out.push(
            Statement::Loop {
                body,
                continuing,
                break_if: None,
            },
            Span::UNDEFINED,
        );
    }
}

fn literal(l: Lit) -> naga::Literal {
    match l {
        Lit::F32(x) => naga::Literal::F32(x),
        Lit::I32(x) => naga::Literal::I32(x),
        Lit::U32(x) => naga::Literal::U32(x),
        Lit::Bool(x) => naga::Literal::Bool(x),
    }
}

fn binary(op: BinOp) -> BinaryOperator {
    match op {
        BinOp::Add => BinaryOperator::Add,
        BinOp::Sub => BinaryOperator::Subtract,
        BinOp::Mul => BinaryOperator::Multiply,
        BinOp::Div => BinaryOperator::Divide,
        BinOp::Rem => BinaryOperator::Modulo,
        BinOp::Lt => BinaryOperator::Less,
        BinOp::Le => BinaryOperator::LessEqual,
        BinOp::Gt => BinaryOperator::Greater,
        BinOp::Ge => BinaryOperator::GreaterEqual,
        BinOp::Eq => BinaryOperator::Equal,
        BinOp::Ne => BinaryOperator::NotEqual,
        BinOp::And | BinOp::BitAnd => BinaryOperator::And,
        BinOp::Or | BinOp::BitOr => BinaryOperator::InclusiveOr,
        BinOp::Shl => BinaryOperator::ShiftLeft,
        BinOp::Shr => BinaryOperator::ShiftRight,
    }
}

fn math(f: Fun) -> MathFunction {
    match f {
        Fun::Exp => MathFunction::Exp,
        Fun::Log => MathFunction::Log,
        Fun::Sqrt => MathFunction::Sqrt,
        Fun::InverseSqrt => MathFunction::InverseSqrt,
        Fun::Tanh => MathFunction::Tanh,
        Fun::Sin => MathFunction::Sin,
        Fun::Cos => MathFunction::Cos,
        Fun::Abs => MathFunction::Abs,
        Fun::Max => MathFunction::Max,
        Fun::Min => MathFunction::Min,
        Fun::Pow => MathFunction::Pow,
        Fun::Fma => MathFunction::Fma,
        Fun::Clamp => MathFunction::Clamp,
        Fun::Select | Fun::All => unreachable!("not a math function"),
    }
}
