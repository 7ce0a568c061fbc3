//! The arguments of `texprc bench`.

use crate::common::Defines;
use std::path::PathBuf;
use texpr_tune::bench::{CPU, Scale};

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Programs to measure (.te files)
    #[arg(required_unless_present = "suite")]
    pub files: Vec<PathBuf>,
    /// Measure every example in examples/ at a realistic size, the loop examples unrolled into chains of lets, and the hand-written baselines
    #[arg(long, conflicts_with = "files")]
    pub suite: bool,
    /// With --suite: only these programs (comma-separated names, e.g. `matmul,sum`)
    #[arg(
        long,
        requires = "suite",
        value_delimiter = ',',
        value_name = "NAMES",
        value_parser = clap::builder::PossibleValuesParser::new(CPU.iter().map(|(n, _)| *n))
    )]
    pub only: Vec<String>,
    /// Sizes of the suite and of the roofline probes: for lavapipe (`cpu`) or a data-centre GPU
    #[arg(long, value_enum, default_value_t = ScaleArg::Cpu)]
    pub scale: ScaleArg,
    /// Timed runs per program (the median is reported)
    #[arg(long, default_value_t = 5)]
    pub runs: usize,
    /// Untimed runs before timing
    #[arg(long, default_value_t = 2)]
    pub warmups: usize,
    /// Adapter: an index or part of its name (default: $TEXPR_ADAPTER, else wgpu's choice)
    #[arg(long, value_name = "ADAPTER")]
    pub adapter: Option<String>,
    /// Also write the rates as an SVG bar chart to FILE
    #[arg(long, value_name = "FILE")]
    pub svg: Option<PathBuf>,
    /// Also measure the schedule in FILE (a `pinned` row; repeatable)
    #[arg(long, value_name = "FILE")]
    pub schedule: Vec<PathBuf>,
    #[command(flatten)]
    pub defines: Defines,
}

/// `--scale`: [`Scale`] as a flag's value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum ScaleArg {
    /// Sizes that lavapipe (a CPU) runs in seconds
    Cpu,
    /// Sizes that fill a data-centre GPU (an H100): 2^28-element streams, matmul 4096^3
    Gpu,
}

impl From<ScaleArg> for Scale {
    fn from(s: ScaleArg) -> Scale {
        match s {
            ScaleArg::Cpu => Scale::Cpu,
            ScaleArg::Gpu => Scale::Gpu,
        }
    }
}
