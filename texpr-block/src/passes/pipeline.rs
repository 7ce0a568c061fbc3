//! The pass pipeline: the ordered list of passes, the verifier after each, and a dump of each stage.

use super::env::{Env, FUSE, PASSES_RUN};
use super::{annotate, broadcast, cse, dce, fuse_elementwise, fuse_epilogue, stats};
use crate::air::{Program, verify};
use texpr_ir::Diagnostic;

/// A pass: a name and a rewrite that reads and writes the environment.
#[derive(Clone, Copy, Debug)]
pub struct Pass {
    pub name: &'static str,
    pub run: fn(&Program, &mut Env) -> Program,
    /// Whether the pass is a fusion (skipped when `fuse` is false).
    pub fusion: bool,
}

/// The passes, in order.
pub const PASSES: [Pass; 7] = [
    Pass {
        name: "annotate",
        run: annotate::annotate,
        fusion: false,
    },
    Pass {
        name: "expand_stats",
        run: stats::expand_stats,
        fusion: false,
    },
    Pass {
        name: "explicit_broadcast",
        run: broadcast::explicit_broadcast,
        fusion: false,
    },
    Pass {
        name: "cse",
        run: cse::cse,
        fusion: false,
    },
    Pass {
        name: "dce",
        run: dce::dce,
        fusion: false,
    },
    Pass {
        name: "fuse_elementwise",
        run: fuse_elementwise::fuse_elementwise,
        fusion: true,
    },
    Pass {
        name: "fuse_epilogue",
        run: fuse_epilogue::fuse_epilogue,
        fusion: true,
    },
];

/// The program after each pass that ran, by pass name.
#[derive(Clone, Debug)]
pub struct Stages {
    pub after: Vec<(&'static str, Program)>,
}

impl Stages {
    pub fn last(&self) -> Option<&Program> {
        self.after.last().map(|(_, p)| p)
    }
}

/// Runs every pass in order on a verified program, verifying after each.
/// A verifier failure is a bug of the pass named in the diagnostic's note.
pub fn run(p: &Program, env: &mut Env) -> Result<Stages, Diagnostic> {
    verify(p)?;
    let fuse = env.bool_or(FUSE, true);
    let mut cur = p.clone();
    let mut after = Vec::new();
    for pass in PASSES.iter().filter(|pass| fuse || !pass.fusion) {
        cur = (pass.run)(&cur, env);
        env.push_line(PASSES_RUN, pass.name.to_string());
        verify(&cur)
            .map_err(|d| d.with_note(format!("after pass `{}` (a bug of that pass)", pass.name)))?;
        after.push((pass.name, cur.clone()));
    }
    Ok(Stages { after })
}

/// The optimised program (the last stage), or the input when no pass ran.
pub fn optimize(p: &Program, env: &mut Env) -> Result<Program, Diagnostic> {
    Ok(run(p, env)?.last().cloned().unwrap_or_else(|| p.clone()))
}
