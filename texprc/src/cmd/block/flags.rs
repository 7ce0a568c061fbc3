//! `texprc block`'s flags that name something: the grid, the source rank,
//! what to emit and which scheduler runs. Each refusal is a usage error
//! (`texpr_block::codes::BAD_ARG`, exit status 2).

use texpr_block::codes;
use texpr_block::driver::{Emit, Scheduler};
use texpr_ir::Diagnostic;

fn bad_arg(msg: String) -> Diagnostic {
    Diagnostic::error(codes::BAD_ARG, msg)
}

/// `--emit NAME`.
pub fn emit(s: &str) -> Result<Emit, Diagnostic> {
    Ok(match s {
        "ir" => Emit::Ir,
        "passes" => Emit::Passes,
        "stages" => Emit::Stages,
        "graph" => Emit::Graph,
        "dot" => Emit::Dot,
        "plan" => Emit::Plan,
        "texpr" => Emit::Texpr,
        _ => {
            return Err(bad_arg(format!(
                "unknown --emit `{s}` (ir, passes, stages, graph, dot, plan, texpr)"
            )));
        }
    })
}

/// `--scheduler greedy|critical-path`.
pub fn scheduler(s: &str) -> Result<Scheduler, Diagnostic> {
    match s {
        "greedy" => Ok(Scheduler::Greedy),
        "critical-path" => Ok(Scheduler::CriticalPath),
        _ => Err(bad_arg(format!(
            "--scheduler wants greedy or critical-path, not `{s}`"
        ))),
    }
}

/// `--grid PxQ` (e.g. `2x2`, `1x3`), at most 1024 ranks.
pub fn grid(s: &str) -> Result<(usize, usize), Diagnostic> {
    let bad = || bad_arg(format!("--grid wants PxQ with P, Q >= 1, not `{s}`"));
    let (p, q) = s.split_once('x').ok_or_else(bad)?;
    let (p, q): (usize, usize) = (p.parse().map_err(|_| bad())?, q.parse().map_err(|_| bad())?);
    if p == 0 || q == 0 || p * q > 1024 {
        return Err(bad());
    }
    Ok((p, q))
}

/// `--source-rank R,C` (e.g. `1,0`): a position in the grid.
pub fn source_rank(s: &str) -> Result<(usize, usize), Diagnostic> {
    let bad = || {
        bad_arg(format!(
            "--source-rank wants R,C (a grid row and column), not `{s}`"
        ))
    };
    let (r, c) = s.split_once(',').ok_or_else(bad)?;
    Ok((
        r.trim().parse().map_err(|_| bad())?,
        c.trim().parse().map_err(|_| bad())?,
    ))
}
