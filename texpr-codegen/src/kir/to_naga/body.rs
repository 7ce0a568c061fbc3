//! The entry point's body in naga's IR: each value's expressions (emitted
//! where its `Let` stands), each statement's, loops as naga's `Loop` with a
//! breaking test and a `continuing` step, and the operators and builtin
//! functions mapped to naga's.

use super::*;

impl<'k> Build<'k> {
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

    pub(super) fn block(&mut self, m: &mut naga::Module, b: &Block, out: &mut naga::Block) {
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
                Stmt::StorageBarrier => out.push(
                    Statement::ControlBarrier(naga::Barrier::STORAGE),
                    Span::UNDEFINED,
                ),
                Stmt::Coop(c) => self.coop_stmt(c, out),
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

pub(super) fn literal(l: Lit) -> naga::Literal {
    match l {
        Lit::F32(x) => naga::Literal::F32(x),
        Lit::F16(x) => naga::Literal::F16(x),
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
