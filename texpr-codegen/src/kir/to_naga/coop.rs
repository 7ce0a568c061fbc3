//! Cooperative matrices in naga's IR: each [`Coop`] a local variable of
//! type `CooperativeMatrix`; a load the `CooperativeLoad` expression stored
//! into it, a multiply-add `CooperativeMultiplyAdd` of the three loaded and
//! stored back, a store the `CooperativeStore` statement. Offsets point
//! into memory as any element access does; strides are `u32` literals.

use super::*;

fn role(r: Role) -> naga::CooperativeRole {
    match r {
        Role::A => naga::CooperativeRole::A,
        Role::B => naga::CooperativeRole::B,
        Role::C => naga::CooperativeRole::C,
    }
}

fn coop_size(n: u8) -> naga::CooperativeSize {
    match n {
        8 => naga::CooperativeSize::Eight,
        _ => naga::CooperativeSize::Sixteen,
    }
}

impl Build<'_> {
    /// The local variable of every cooperative matrix of the kernel, in order.
    pub(super) fn coop_vars(&mut self, m: &mut naga::Module) {
        for c in &self.k.coops {
            let size = coop_size(c.size);
            let inner = TypeInner::CooperativeMatrix {
                columns: size,
                rows: size,
                scalar: scalar(c.scalar),
                role: role(c.role),
            };
            let ty = m.types.insert(Type { name: None, inner }, Span::UNDEFINED);
            let h = self.f.local_variables.append(
                LocalVariable {
                    name: Some(c.name.clone()),
                    ty,
                    init: None,
                },
                Span::UNDEFINED,
            );
            self.coops.push(h);
        }
    }

    /// Loads cooperative matrix `id` (emitted).
    fn coop_value(&mut self, id: CoopId, out: &mut naga::Block) -> Handle<Expression> {
        let pointer = self.pre(Expression::LocalVariable(self.coops[id.0 as usize]), out);
        self.expr(Expression::Load { pointer })
    }

    pub(super) fn coop_stmt(&mut self, c: &CoopStmt, out: &mut naga::Block) {
        let stride = |b: &mut Self, s: u32, out: &mut naga::Block| {
            b.pre(Expression::Literal(naga::Literal::U32(s)), out)
        };
        match c {
            CoopStmt::Load {
                coop,
                mem,
                offset,
                stride: s,
            } => {
                let stride = stride(self, *s, out);
                let mat = &self.k.coops[coop.0 as usize];
                let (size, r) = (coop_size(mat.size), role(mat.role));
                self.start_emit();
                let pointer = self.element(*mem, *offset, out);
                let value = self.expr(Expression::CooperativeLoad {
                    columns: size,
                    rows: size,
                    role: r,
                    data: naga::CooperativeData {
                        pointer,
                        stride,
                        row_major: true,
                    },
                });
                self.finish_emit(out);
                let pointer = self.pre(Expression::LocalVariable(self.coops[coop.0 as usize]), out);
                out.push(Statement::Store { pointer, value }, Span::UNDEFINED);
            }
            CoopStmt::MulAdd { acc, a, b } => {
                self.start_emit();
                let (x, y, z) = (
                    self.coop_value(*a, out),
                    self.coop_value(*b, out),
                    self.coop_value(*acc, out),
                );
                let value = self.expr(Expression::CooperativeMultiplyAdd { a: x, b: y, c: z });
                self.finish_emit(out);
                let pointer = self.pre(Expression::LocalVariable(self.coops[acc.0 as usize]), out);
                out.push(Statement::Store { pointer, value }, Span::UNDEFINED);
            }
            CoopStmt::Store {
                coop,
                mem,
                offset,
                stride: s,
            } => {
                let stride = stride(self, *s, out);
                self.start_emit();
                let target = self.coop_value(*coop, out);
                let pointer = self.element(*mem, *offset, out);
                self.finish_emit(out);
                out.push(
                    Statement::CooperativeStore {
                        target,
                        data: naga::CooperativeData {
                            pointer,
                            stride,
                            row_major: true,
                        },
                    },
                    Span::UNDEFINED,
                );
            }
        }
    }
}
