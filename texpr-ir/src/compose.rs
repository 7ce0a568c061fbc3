//! Composing programs: one program that computes what several compute when
//! each stage's inputs are the program's inputs or earlier stages' outputs
//! (`texpr.jit` in Python traces calls into such a pipeline). An output a
//! later stage reads becomes a `let` of the composed program, so the
//! optimizer fuses across what were separate calls; an output the pipeline
//! returns stays an output.
//!
//! Every stage keeps its own items, loops, states and variables, renumbered;
//! top-level names that would clash get a stage suffix (`y_2`), and a
//! variable named like a top-level item is renamed, so the composed program
//! prints as text that checks back to it (the printer's promise).

use crate::{Expr, ExprKind, Global, Input, Output, Program, Span, State, Term, TermKind, Ty};
use crate::{NameIndex, VarId, VarInfo, VarKind, VecRef};
use std::collections::BTreeSet;

/// Where a stage's input comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Source {
    /// The composed program's input `i`.
    Input(usize),
    /// Output `output` of stage `stage` (an earlier one).
    Output { stage: usize, output: usize },
}

/// One program of a pipeline, its inputs in its own order.
#[derive(Clone, Copy, Debug)]
pub struct Stage<'a> {
    pub program: &'a Program,
    pub inputs: &'a [Source],
}

/// A composed program's output: `name`, the value of a stage's output.
#[derive(Clone, Debug)]
pub struct Result {
    pub name: String,
    pub stage: usize,
    pub output: usize,
}

/// The program computing `results` from `inputs` through `stages`, or why
/// the pipeline is malformed (a source that is not earlier, a type that
/// differs from the input it feeds, a duplicate or missing name).
pub fn compose(
    inputs: &[Input],
    stages: &[Stage<'_>],
    results: &[Result],
) -> std::result::Result<Program, String> {
    let mut c = Composer {
        out: Program {
            params: Vec::new(),
            inputs: inputs.to_vec(),
            globals: Vec::new(),
            outputs: Vec::new(),
            vars: Vec::new(),
            loops: Vec::new(),
            states: Vec::new(),
            names: NameIndex::default(),
        },
        taken: BTreeSet::new(),
        produced: Vec::new(),
    };
    for i in inputs {
        if !c.taken.insert(i.name.clone()) {
            return Err(format!("two inputs are named `{}`", i.name));
        }
    }
    for r in results {
        if !c.taken.insert(r.name.clone()) {
            return Err(format!("`{}` names two things", r.name));
        }
    }
    for (s, stage) in stages.iter().enumerate() {
        c.stage(s, stage, stages, results)?;
    }
    for r in results {
        c.result(r, stages)?;
    }
    c.rename_clashing_vars();
    Ok(c.out)
}

struct Composer {
    out: Program,
    /// Top-level names in use (inputs, items, states).
    taken: BTreeSet<String>,
    /// Where each stage's outputs went: a global, or an output of the
    /// composed program (one result and no later reader).
    produced: Vec<Vec<Option<VecRef>>>,
}

impl Composer {
    /// `name`, or `name_S` with a number from the stage's (`S = s + 1`) up
    /// when it is taken.
    fn unique(&mut self, name: &str, s: usize) -> String {
        let mut n = name.to_string();
        let mut k = s + 1;
        while self.taken.contains(&n) {
            n = format!("{name}_{k}");
            k += 1;
        }
        self.taken.insert(n.clone());
        n
    }

    fn stage(
        &mut self,
        s: usize,
        stage: &Stage<'_>,
        all: &[Stage<'_>],
        results: &[Result],
    ) -> std::result::Result<(), String> {
        let p = stage.program;
        if stage.inputs.len() != p.inputs.len() {
            return Err(format!(
                "stage {s} has {} inputs, given {}",
                p.inputs.len(),
                stage.inputs.len()
            ));
        }
        let mut bound = Vec::new();
        for (input, src) in p.inputs.iter().zip(stage.inputs) {
            let (v, ty) = match *src {
                Source::Input(i) => {
                    let inp = (self.out.inputs.get(i)).ok_or(format!("no input {i}"))?;
                    (VecRef::Input(i as u32), inp.ty)
                }
                Source::Output { stage: t, output } if t < s => {
                    let v = (self.produced[t].get(output).copied().flatten())
                        .ok_or(format!("stage {t} has no output {output}"))?;
                    (v, all[t].program.outputs[output].value.ty)
                }
                Source::Output { stage: t, .. } => {
                    return Err(format!("stage {s} reads stage {t}, which is not before it"));
                }
            };
            if ty != input.ty {
                return Err(format!(
                    "input `{}` of stage {s} is {}[{}], given {}[{}]",
                    input.name,
                    input.ty.elem.name(),
                    input.ty.len,
                    ty.elem.name(),
                    ty.len
                ));
            }
            bound.push(v);
        }
        let var_off = self.out.vars.len() as u32;
        let loop_off = self.out.loops.len() as u32;
        let state_off = self.out.states.len() as u32;
        let glob_off = self.out.globals.len() as u32;
        let n_globals = p.globals.len() as u32;
        // Outputs that a later stage reads, or that two results (or none)
        // name, become globals; the rest are the composed program's outputs.
        let read_later = |o: usize| {
            all[s + 1..].iter().any(|t| {
                t.inputs.contains(&Source::Output {
                    stage: s,
                    output: o,
                })
            })
        };
        let returned = |o: usize| {
            results
                .iter()
                .filter(|r| r.stage == s && r.output == o)
                .count()
        };
        let as_global: Vec<bool> = (0..p.outputs.len())
            .map(|o| read_later(o) || returned(o) != 1)
            .collect();
        let mut out_global = Vec::new();
        let mut next_global = glob_off + n_globals;
        for &g in &as_global {
            out_global.push(g.then_some(next_global));
            next_global += u32::from(g);
        }
        let map = |v: VecRef| match v {
            VecRef::Input(i) => bound[i as usize],
            VecRef::Global(g) => VecRef::Global(glob_off + g),
            VecRef::Local(x) => VecRef::Local(VarId(x.0 + var_off)),
            VecRef::State(st) => VecRef::State(state_off + st),
        };
        let rv = |x: VarId| VarId(x.0 + var_off);
        let expr = |e: &Expr| {
            let mut e = e.rename_vars(rv);
            e.walk_mut(|n| match &mut n.kind {
                ExprKind::Index { vec, .. } | ExprKind::Whole(vec) => *vec = map(*vec),
                _ => {}
            });
            e
        };
        self.out.vars.extend(p.vars.iter().cloned());
        for l in &p.loops {
            let mut l = l.clone();
            l.var = rv(l.var);
            l.within = l.within.map(|w| w + loop_off);
            self.out.loops.push(l);
        }
        for st in &p.states {
            let name = self.unique(&st.name, s);
            self.out.states.push(State {
                name,
                of: st.of + loop_off,
                init: map(st.init),
                next: map(st.next),
                at: st.at.as_ref().map(|t| crate::term::rename(t, &rv)),
                ..st.clone()
            });
        }
        for g in &p.globals {
            let name = self.unique(&g.name, s);
            self.out.globals.push(Global {
                name,
                value: expr(&g.value),
                within: g.within.map(|w| w + loop_off),
                ..g.clone()
            });
        }
        let mut produced = Vec::new();
        for (o, out) in p.outputs.iter().enumerate() {
            match out_global[o] {
                Some(g) => {
                    let name = self.unique(&out.name, s);
                    self.out.globals.push(Global {
                        name,
                        level: None,
                        value: expr(&out.value),
                        span: out.span,
                        within: None,
                        loads: out.loads,
                    });
                    produced.push(Some(VecRef::Global(g)));
                }
                None => {
                    let r = results.iter().find(|r| r.stage == s && r.output == o);
                    let name = r.map_or(out.name.clone(), |r| r.name.clone());
                    produced.push(None);
                    self.out.outputs.push(Output {
                        name,
                        value: expr(&out.value),
                        ..out.clone()
                    });
                }
            }
        }
        self.produced.push(produced);
        Ok(())
    }

    /// A result whose stage output became a global: an output copying it.
    fn result(&mut self, r: &Result, stages: &[Stage<'_>]) -> std::result::Result<(), String> {
        let made = (self.produced.get(r.stage).and_then(|p| p.get(r.output)))
            .ok_or(format!("`{}` names no stage output", r.name))?;
        // An output of its own already.
        let Some(v) = *made else {
            return Ok(());
        };
        let ty: Ty = stages[r.stage].program.outputs[r.output].value.ty;
        let span = Span::default();
        let var = VarId(self.out.vars.len() as u32);
        self.out.vars.push(VarInfo {
            name: "i".into(),
            kind: VarKind::Index { extent: ty.len },
            span,
        });
        let index = Term {
            kind: TermKind::Var(var),
            span,
        };
        let elem = Expr {
            kind: ExprKind::Index {
                vec: v,
                index,
                guard: None,
            },
            ty: Ty::scalar(ty.elem),
            span,
        };
        let value = Expr {
            kind: ExprKind::Compute {
                level: None,
                n: ty.len,
                var,
                map: None,
                body: Box::new(elem),
            },
            ty,
            span,
        };
        self.out.outputs.push(Output {
            name: r.name.clone(),
            value,
            span,
            loads: crate::Loads::default(),
        });
        Ok(())
    }

    /// Variables named like a top-level name get a fresh name (the printed
    /// program would otherwise shadow it, which the checker refuses).
    fn rename_clashing_vars(&mut self) {
        let mut index = NameIndex::default();
        index.update(&self.out);
        for v in 0..self.out.vars.len() {
            if self.taken.contains(&self.out.vars[v].name) {
                let base = self.out.vars[v].name.clone();
                self.out.vars[v].name = index.fresh(&base);
            }
        }
    }
}
