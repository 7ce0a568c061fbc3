//! The budgets `texprc eval` holds a program to before it allocates anything:
//! memory (default: half the machine's memory) and element operations
//! (default [`DEFAULT_MAX_OPS`]), checked against [`texpr_interp::footprint`].

use crate::codes;
use texpr_interp::Footprint;
use texpr_ir::Diagnostic;

/// Element operations `eval` runs without being asked to (at the
/// interpreter's pace of roughly 10^8 a second, well under a minute).
pub const DEFAULT_MAX_OPS: u64 = 2_000_000_000;
/// The memory budget where the machine's memory cannot be read.
const FALLBACK_MEMORY: u64 = 4 << 30;

/// `--max-memory` / `--max-ops` as given.
#[derive(Clone, Debug, Default, clap::Args)]
pub struct BudgetArgs {
    /// Refuse programs whose vectors need more memory than SIZE (bytes, or with
    /// a K, M, G or T suffix; default: half of this machine's memory)
    #[arg(long, value_name = "SIZE", value_parser = parse_size)]
    pub max_memory: Option<u64>,
    /// Refuse programs of more than N element operations (default 2e9); a
    /// larger N (e.g. `--max-ops 1e12`) runs a long evaluation anyway
    #[arg(long, value_name = "N", value_parser = parse_count)]
    pub max_ops: Option<u64>,
}

impl BudgetArgs {
    /// E0921 when `f` needs more memory than the budget, E0922 when it
    /// performs more operations.
    pub fn check(&self, f: Footprint) -> Result<(), Diagnostic> {
        let (memory, why) = match self.max_memory {
            Some(m) => (m, "set with `--max-memory`".to_string()),
            None => default_memory(),
        };
        if f.bytes > memory {
            let msg = format!(
                "the evaluation needs up to {} of memory, over its budget of {}",
                bytes(f.bytes),
                bytes(memory)
            );
            return Err(Diagnostic::error(codes::EVAL_MEMORY, msg)
                .with_note(format!("the budget is {why}"))
                .with_note("the inputs, globals, outputs and inner vectors are held in memory at once; `--max-memory SIZE` sets the budget"));
        }
        let max_ops = self.max_ops.unwrap_or(DEFAULT_MAX_OPS);
        if f.ops > max_ops {
            let msg = format!(
                "the evaluation performs about {:.1e} element operations, over its budget of {:.1e}",
                f.ops as f64, max_ops as f64
            );
            return Err(Diagnostic::error(codes::EVAL_OPS, msg).with_note(format!(
                "the interpreter does roughly 10^8 a second; to run it anyway, pass `--max-ops {}`",
                round_up(f.ops)
            )));
        }
        Ok(())
    }
}

/// `n` rounded up to two significant digits, as `3.3e9` (at least `n`).
fn round_up(n: u64) -> String {
    if n < 100 {
        return n.to_string();
    }
    let exp = (n as f64).log10().floor() as i32 - 1;
    let unit = 10f64.powi(exp);
    let mantissa = (n as f64 / unit).ceil() as u64;
    format!("{}.{}e{}", mantissa / 10, mantissa % 10, exp + 1)
}

/// Half the machine's memory, and how the budget was found.
fn default_memory() -> (u64, String) {
    match total_memory() {
        Some(total) => (
            total / 2,
            format!("half of this machine's memory ({})", bytes(total)),
        ),
        None => (
            FALLBACK_MEMORY,
            "4 GiB (this machine's memory is not known)".to_string(),
        ),
    }
}

/// `MemTotal` from `/proc/meminfo` (Linux), in bytes.
fn total_memory() -> Option<u64> {
    let info = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = info.lines().find(|l| l.starts_with("MemTotal:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    kib.checked_mul(1024)
}

/// "1.5 GiB", "512 MiB", "100 B".
fn bytes(n: u64) -> String {
    const UNITS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut x = n as f64;
    let mut unit = 0;
    while x >= 1024.0 && unit + 1 < UNITS.len() {
        x /= 1024.0;
        unit += 1;
    }
    if unit == 0 {
        format!("{n} B")
    } else {
        format!("{x:.1} {}", UNITS[unit])
    }
}

/// `4096`, `512K`, `8G` (powers of 1024), `1.5G`.
pub fn parse_size(s: &str) -> Result<u64, String> {
    let t = s.trim();
    let (num, shift) = match t.char_indices().last() {
        Some((i, c)) if c.is_ascii_alphabetic() => {
            let shift = match c.to_ascii_uppercase() {
                'K' => 10,
                'M' => 20,
                'G' => 30,
                'T' => 40,
                'B' => 0,
                _ => return Err(format!("`{s}`: the suffix must be K, M, G or T")),
            };
            (&t[..i], shift)
        }
        _ => (t, 0),
    };
    let x: f64 = num
        .trim()
        .parse()
        .map_err(|_| format!("`{s}` is not a size (e.g. 4096, 512M, 8G)"))?;
    let v = x * (1u64 << shift) as f64;
    if !(v.is_finite() && v >= 0.0 && v < u64::MAX as f64) {
        return Err(format!("`{s}` is not a size (e.g. 4096, 512M, 8G)"));
    }
    Ok(v as u64)
}

/// `1000000` or `1e6`.
pub fn parse_count(s: &str) -> Result<u64, String> {
    let x: f64 = s
        .trim()
        .parse()
        .map_err(|_| format!("`{s}` is not a count (e.g. 1000000 or 1e12)"))?;
    if !(x.is_finite() && x >= 0.0) {
        return Err(format!("`{s}` is not a count (e.g. 1000000 or 1e12)"));
    }
    Ok(if x >= u64::MAX as f64 {
        u64::MAX
    } else {
        x as u64
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_and_counts_parse() {
        assert_eq!(parse_size("4096"), Ok(4096));
        assert_eq!(parse_size("512K"), Ok(512 << 10));
        assert_eq!(parse_size("8g"), Ok(8 << 30));
        assert_eq!(parse_size("1.5G"), Ok(3 << 29));
        assert!(parse_size("8X").is_err() && parse_size("-1").is_err());
        assert_eq!(parse_count("1e6"), Ok(1_000_000));
        assert_eq!(parse_count("1e30"), Ok(u64::MAX));
        assert!(parse_count("lots").is_err() && parse_count("NaN").is_err());
    }

    #[test]
    fn budgets_refuse_with_codes() {
        let args = BudgetArgs {
            max_memory: Some(1000),
            max_ops: Some(50),
        };
        let ok = Footprint {
            bytes: 1000,
            ops: 50,
        };
        assert!(args.check(ok).is_ok());
        let big = Footprint {
            bytes: 1001,
            ops: 0,
        };
        assert_eq!(args.check(big).unwrap_err().code, codes::EVAL_MEMORY);
        let long = Footprint { bytes: 0, ops: 51 };
        assert_eq!(args.check(long).unwrap_err().code, codes::EVAL_OPS);
        assert_eq!(bytes(3 << 29), "1.5 GiB");
        assert_eq!(round_up(3_210_000_000), "3.3e9");
        assert_eq!(round_up(3_200_000_000), "3.2e9");
        assert_eq!(round_up(42), "42");
        assert!(parse_count(&round_up(u64::MAX / 3)).unwrap() >= u64::MAX / 3);
    }
}
