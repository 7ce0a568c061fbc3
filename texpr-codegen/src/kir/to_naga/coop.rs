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

    /// Stores `value` into cooperative matrix `id`.
    fn coop_assign(&mut self, id: CoopId, value: Handle<Expression>, out: &mut naga::Block) {
        let pointer = self.pre(Expression::LocalVariable(self.coops[id.0 as usize]), out);
        out.push(Statement::Store { pointer, value }, Span::UNDEFINED);
    }

    /// Row-major rows `stride` elements apart from element `offset` of
    /// `mem` (the pointer emitted: call within an emit range).
    fn coop_data(
        &mut self,
        mem: Mem,
        offset: V,
        stride: u32,
        out: &mut naga::Block,
    ) -> naga::CooperativeData {
        let stride = self.pre(Expression::Literal(naga::Literal::U32(stride)), out);
        naga::CooperativeData {
            pointer: self.element(mem, offset, out),
            stride,
            row_major: true,
        }
    }

    pub(super) fn coop_stmt(&mut self, c: &CoopStmt, out: &mut naga::Block) {
        self.start_emit();
        match c {
            CoopStmt::Load {
                coop,
                mem,
                offset,
                stride,
            } => {
                let mat = &self.k.coops[coop.0 as usize];
                let (size, role) = (coop_size(mat.size), role(mat.role));
                let data = self.coop_data(*mem, *offset, *stride, out);
                let value = self.expr(Expression::CooperativeLoad {
                    columns: size,
                    rows: size,
                    role,
                    data,
                });
                self.finish_emit(out);
                self.coop_assign(*coop, value, out);
            }
            CoopStmt::MulAdd { acc, a, b } => {
                let (a, b, c) = (
                    self.coop_value(*a, out),
                    self.coop_value(*b, out),
                    self.coop_value(*acc, out),
                );
                let value = self.expr(Expression::CooperativeMultiplyAdd { a, b, c });
                self.finish_emit(out);
                self.coop_assign(*acc, value, out);
            }
            CoopStmt::Store {
                coop,
                mem,
                offset,
                stride,
            } => {
                let target = self.coop_value(*coop, out);
                let data = self.coop_data(*mem, *offset, *stride, out);
                self.finish_emit(out);
                out.push(
                    Statement::CooperativeStore { target, data },
                    Span::UNDEFINED,
                );
            }
        }
    }
}
