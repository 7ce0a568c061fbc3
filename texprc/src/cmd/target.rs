//! `texprc target [NAME|FILE]`: print a target description (a built-in, a
//! checked target file, or the adapter's own) in the text form `compile
//! --target` reads.

use crate::cmd::run::open_gpu;
use crate::common::{Failure, no_source};
use crate::targets::read_target;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// A built-in target (wgpu-default, webgpu, llvmpipe, nvidia) or a target file;
    /// without it, the adapter's
    #[arg(value_name = "NAME|FILE")]
    pub target: Option<String>,
    /// Adapter: an index or part of its name (default: $TEXPR_ADAPTER, else wgpu's choice)
    #[arg(long, value_name = "ADAPTER", conflicts_with = "target")]
    pub adapter: Option<String>,
}

pub fn run(args: Args) -> Result<(), Failure> {
    let target = match &args.target {
        Some(spec) => read_target(spec)?,
        None => {
            let gpu =
                open_gpu(args.adapter.as_deref()).map_err(|d| Failure::about(&no_source(), d))?;
            gpu.target().clone()
        }
    };
    out!("{target}");
    Ok(())
}
