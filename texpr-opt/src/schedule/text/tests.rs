//! The schedule text form: every strategy prints and parses back, and bad text is refused.

use super::*;

#[test]
fn text_round_trips() {
    let text = "c: tile group=8x8 reg=4x4\nd: tile group=16x16 reg=4x4 shared=16\ny: rows group=64\nx: wide_rows group=256\nx2: wide_rows group=64 combine=subgroup\nz: coarsen group=64 per_thread=16\nt: multipass parts=4096 group=64\nu: multipass parts=64 group=64 combine=tree\nv: multipass parts=128 group=32 combine=subgroup\nw: default\n";
    let s: Schedule = text.parse().expect("parses");
    assert_eq!(s.items.len(), 10);
    assert!(s.optimize);
    assert_eq!(
        s.get("v"),
        Strategy::MultiPass {
            parts: 128,
            group: 32,
            combine: Combine::Subgroup,
            loads: Loads::Vec4,
        }
    );
    assert_eq!(s.to_string(), text);
    assert_eq!(s.get("nobody"), Strategy::Default);
    let off: Schedule = "# the baseline\noptimize = off\nw: default\n"
        .parse()
        .unwrap();
    assert!(!off.optimize);
    assert_eq!(off.to_string(), "optimize = off\nw: default\n");
    assert!("optimize = on\n".parse::<Schedule>().unwrap().optimize);
}

#[test]
fn serial_combine_is_the_default_and_prints_as_before() {
    let s: Schedule = "t: multipass parts=64 group=8 combine=serial\n"
        .parse()
        .unwrap();
    assert_eq!(s.to_string(), "t: multipass parts=64 group=8\n");
    let old: Schedule = "t: multipass parts=64 group=8\n".parse().unwrap();
    assert_eq!(old, s);
}

/// Every form's syntax line names its keys, and a strategy of each form
/// prints as a line that parses back to it: the table and the enum agree.
#[test]
fn the_generated_syntax_covers_every_strategy() {
    let samples = [
        Strategy::Default,
        Strategy::Coarsen {
            group: 64,
            per_thread: 4,
            loads: Loads::Wide,
        },
        Strategy::Rows {
            group: 32,
            loads: Loads::Scalar,
        },
        Strategy::WideRows {
            group: 256,
            combine: Combine::Subgroup,
        },
        Strategy::Flash {
            group: 64,
            split: 8,
        },
        Strategy::Tile {
            group: [8, 4],
            reg: [2, 2],
            shared: Some(Staging {
                kb: 8,
                pad: 1,
                vec4: true,
                prefetch: true,
            }),
            // Every optional key (`apply` refuses `kstep` with `shared`).
            kstep: Some(4),
            lanes: false,
            loads: Loads::Wide,
        },
        Strategy::MultiPass {
            parts: 64,
            group: 8,
            combine: Combine::Tree,
            loads: Loads::Scalar,
        },
        Strategy::GridStride {
            groups: 16,
            group: 64,
            chunk: 4096,
            width: 8,
            combine: Combine::Subgroup,
            loads: Loads::Wide,
        },
        Strategy::Transpose { tile: 32, rows: 8 },
        Strategy::Mma {
            block: [64, 128],
            group: 256,
        },
        Strategy::Loop { group: 128 },
    ];
    let lines = syntax();
    assert_eq!(lines.len(), samples.len());
    for (s, line) in samples.iter().zip(&lines) {
        let text = s.to_string();
        assert_eq!(text.parse::<Strategy>().as_ref(), Ok(s));
        let kind = text.split_whitespace().next().unwrap();
        assert!(line.starts_with(kind), "{line} for {text}");
        for word in text.split_whitespace().skip(1) {
            let k = word.split('=').next().unwrap();
            assert!(line.contains(&format!("{k}=")), "{line} lacks {k}");
        }
    }
    assert_eq!(lines[4], "flash group=N [split=N]");
    assert_eq!(
        lines[5],
        "tile group=AxB reg=AxB [shared=N] [pad=N] [vec4=on|off] [prefetch=on|off] [kstep=N] [lanes=on|off] [loads=scalar|vec4|wide]"
    );
    assert_eq!(
        lines[6],
        "multipass parts=N group=N [combine=serial|tree|subgroup] [loads=scalar|vec4|wide]"
    );
    assert_eq!(
        lines[7],
        "gridstride groups=N group=N [chunk=N] [width=N] [combine=serial|tree|subgroup] [loads=scalar|vec4|wide]"
    );
    assert_eq!(lines[8], "transpose tile=N rows=N");
    let plain: Strategy = "gridstride groups=2 group=8".parse().unwrap();
    assert_eq!(plain.to_string(), "gridstride groups=2 group=8");
    let vec4: Strategy = "coarsen group=2 per_thread=8 loads=vec4".parse().unwrap();
    assert_eq!(vec4.to_string(), "coarsen group=2 per_thread=8");
}

#[test]
fn bad_text_says_which_line_and_why() {
    let cases = [
        ("c tile", 1, "expected `item: strategy`"),
        ("# x\nc: tiles group=1x1 reg=1x1", 2, "unknown strategy"),
        ("c: tile group=8 reg=1x1", 1, "expected `AxB`"),
        ("c: rows group=0", 1, "positive integer"),
        ("c: rows", 1, "needs `group=`"),
        (
            "c: gridstride groups=2 group=8 width=6",
            1,
            "`width` is 4 or 8, not 6",
        ),
        ("c: tile group=8x8 reg=1x1 shared=0", 1, "positive integer"),
        ("c: tile group=8x8 reg=1x1 pad=1", 1, "needs `shared=`"),
        (
            "c: tile group=8x8 reg=1x1 shared=4 vec4=yes",
            1,
            "`on` or `off`",
        ),
        ("c: rows group=4 reg=2", 1, "no setting `reg`"),
        (
            "c: rows group=4 loads=8",
            1,
            "`loads` is scalar, vec4 or wide, not `8`",
        ),
        (
            "c: transpose tile=8 rows=2 loads=wide",
            1,
            "no setting `loads`",
        ),
        ("c: rows group=4\nc: default", 2, "scheduled twice"),
        (
            "c: default\nt: multipass parts=8 group=4 combine=warp",
            2,
            "unknown `combine=warp`",
        ),
        (
            "t: multipass parts=8 group=4 combine=",
            1,
            "expected serial, tree or subgroup",
        ),
        (
            "t: multipass parts=8 group=4 combine=tree combine=tree",
            1,
            "given twice",
        ),
        ("t: rows group=4 combine=tree", 1, "no setting `combine`"),
        ("optimize = maybe", 1, "`on` or `off`"),
        ("c: default\nfast = yes", 2, "unknown setting `fast`"),
    ];
    for (text, line, msg) in cases {
        let e = text.parse::<Schedule>().expect_err(text);
        assert_eq!(e.line, line, "{text}");
        assert!(e.message.contains(msg), "{text}: {}", e.message);
    }
}
