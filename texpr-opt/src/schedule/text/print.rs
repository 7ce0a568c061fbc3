//! A strategy's text form: its keys in [`super::FORMS`] order, optional
//! keys at their default value left out (`combine=serial`, `loads=vec4`).

use super::super::data::{Combine, Loads, Strategy};
use std::fmt;

impl fmt::Display for Strategy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Strategy::Default => write!(f, "default")?,
            Strategy::Coarsen {
                group, per_thread, ..
            } => write!(f, "coarsen group={group} per_thread={per_thread}")?,
            Strategy::Rows { group, .. } => write!(f, "rows group={group}")?,
            Strategy::WideRows { group, combine } => {
                write!(f, "wide_rows group={group}")?;
                if *combine != Combine::Tree {
                    write!(f, " combine={}", combine.name())?;
                }
            }
            Strategy::Flash { group, split } => {
                write!(f, "flash group={group}")?;
                if *split != 1 {
                    write!(f, " split={split}")?;
                }
            }
            Strategy::Tile {
                group,
                reg,
                shared,
                kstep,
                lanes,
                ..
            } => {
                let [a, b] = group;
                let [c, d] = reg;
                write!(f, "tile group={a}x{b} reg={c}x{d}")?;
                if let Some(st) = shared {
                    write!(f, " shared={}", st.kb)?;
                    if st.pad != 0 {
                        write!(f, " pad={}", st.pad)?;
                    }
                    if st.vec4 {
                        write!(f, " vec4=on")?;
                    }
                    if st.prefetch {
                        write!(f, " prefetch=on")?;
                    }
                }
                if let Some(ks) = kstep {
                    write!(f, " kstep={ks}")?;
                }
                if *lanes {
                    write!(f, " lanes=on")?;
                }
            }
            Strategy::MultiPass {
                parts,
                group,
                combine,
                ..
            } => {
                write!(f, "multipass parts={parts} group={group}")?;
                write_combine(f, *combine)?;
            }
            Strategy::GridStride {
                groups,
                group,
                chunk,
                width,
                combine,
                ..
            } => {
                write!(f, "gridstride groups={groups} group={group}")?;
                for (key, v, absent) in [("chunk", chunk, 1), ("width", width, 4)] {
                    if *v != absent {
                        write!(f, " {key}={v}")?;
                    }
                }
                write_combine(f, *combine)?;
            }
            Strategy::Transpose { tile, rows } => write!(f, "transpose tile={tile} rows={rows}")?,
            Strategy::Mma { block, group } => {
                write!(f, "mma block={}x{} group={group}", block[0], block[1])?
            }
            Strategy::Loop { group } => write!(f, "loop group={group}")?,
        }
        match self.loads() {
            Loads::Vec4 => Ok(()),
            l => write!(f, " loads={}", l.name()),
        }
    }
}

/// ` combine=C` unless it is the default (serial).
fn write_combine(f: &mut fmt::Formatter<'_>, combine: Combine) -> fmt::Result {
    match combine {
        Combine::Serial => Ok(()),
        c => write!(f, " combine={}", c.name()),
    }
}
