//! `texprc bench --svg FILE`: the measured rates as a bar chart, one group of
//! bars per program (default, heuristic and tuned schedules, then any
//! hand-written baselines), GFLOP/s in the upper panel and GB/s in the lower,
//! both on a log scale. Bars with no figure (not tuned, failed, or no work of
//! that kind) are left out; their slot stays so groups line up. The device's
//! measured limits ([`Limits`]) are dashed reference lines: FMA throughput
//! in the GFLOP/s panel, copy bandwidth in the GB/s panel.

use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use std::path::Path;

pub use texpr_tune::bench::Series;

/// A series' colour.
fn color(series: Series) -> RGBColor {
    match series {
        Series::Default => RGBColor(31, 119, 180),
        Series::Heuristic => RGBColor(255, 127, 14),
        Series::Tuned => RGBColor(44, 160, 44),
        Series::Pinned => RGBColor(148, 103, 189),
        Series::Baseline => RGBColor(110, 110, 110),
    }
}

/// One bar: its series, a short note printed on it (a baseline's name), and its rates.
#[derive(Clone, Debug)]
pub struct Bar {
    pub series: Series,
    pub note: Option<String>,
    /// Why the bar has no rates (`not tuned`, `error`), written in its empty slot.
    pub missing: Option<String>,
    pub gflops: Option<f64>,
    pub gbs: Option<f64>,
}

/// The bars of one program.
#[derive(Clone, Debug)]
pub struct Group {
    pub name: String,
    pub bars: Vec<Bar>,
}

/// The device's limits, drawn as reference lines.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Limits {
    /// f32 multiply-add throughput.
    pub gflops: f64,
    /// Copy bandwidth (bytes read plus bytes written).
    pub gbs: f64,
}

/// A reference line: its value and what it is.
type Reference = Option<(f64, &'static str)>;

/// Writes the chart of `groups` to `path` as SVG.
pub fn write_svg(
    path: &Path,
    title: &str,
    groups: &[Group],
    limits: Option<Limits>,
) -> Result<(), String> {
    let width = (150 * groups.len() as u32 + 160).max(900);
    let root = SVGBackend::new(path, (width, 1100)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| e.to_string())?;
    let body = root
        .titled(title, ("sans-serif", 26))
        .map_err(|e| e.to_string())?;
    let panels = body.split_evenly((2, 1));
    let fma = limits.map(|l| (l.gflops, "FMA peak"));
    let copy = limits.map(|l| (l.gbs, "copy bandwidth"));
    panel(&panels[0], "GFLOP/s", groups, |b| b.gflops, fma)?;
    panel(&panels[1], "GB/s", groups, |b| b.gbs, copy)?;
    root.present()
        .map_err(|e| format!("cannot write {}: {e}", path.display()))
}

/// One panel: every group's bars for the rate `value` picks.
fn panel(
    area: &DrawingArea<SVGBackend<'_>, plotters::coord::Shift>,
    unit: &str,
    groups: &[Group],
    value: fn(&Bar) -> Option<f64>,
    reference: Reference,
) -> Result<(), String> {
    let err = |e: DrawingAreaErrorKind<_>| e.to_string();
    let reference = reference.filter(|(v, _)| v.is_finite() && *v > 0.0);
    let values: Vec<f64> = groups
        .iter()
        .flat_map(|g| g.bars.iter().filter_map(value))
        .chain(reference.map(|(v, _)| v))
        .filter(|v| v.is_finite() && *v > 0.0)
        .collect();
    let (lo, hi) = decades(&values);
    let n = groups.len().max(1);
    // Groups are centred on 0, 1, ...: asked for `n` labels over a range `n`
    // wide, the axis puts them at the integers, which the formatter names.
    let x_range = -0.5..n as f64 - 0.5;
    let mut chart = ChartBuilder::on(area)
        .caption(format!("{unit} (log scale)"), ("sans-serif", 18))
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(70)
        .build_cartesian_2d(x_range, (lo..hi).log_scale())
        .map_err(err)?;
    let names: Vec<String> = groups.iter().map(|g| g.name.clone()).collect();
    chart
        .configure_mesh()
        .disable_x_mesh()
        .x_labels(n)
        .x_label_formatter(&|x| {
            let i = x.round();
            if (x - i).abs() < 1e-6 && i >= 0.0 {
                names.get(i as usize).cloned().unwrap_or_default()
            } else {
                String::new()
            }
        })
        .x_label_style(("sans-serif", 14))
        .y_desc(unit)
        .y_label_formatter(&|v| short(*v))
        .draw()
        .map_err(err)?;

    // Bar rectangles, one series at a time so that the legend has one entry each.
    for series in Series::ALL {
        let color = color(series);
        chart
            .draw_series(bars_of(series, groups, value, lo))
            .map_err(err)?
            .label(series.name())
            .legend(move |(x, y)| Rectangle::new([(x, y - 6), (x + 14, y + 6)], color.filled()));
    }

    if let Some((v, name)) = reference {
        chart
            .draw_series(dashes(n, v))
            .map_err(err)?
            .label(format!("{name} {} {unit}", short(v)))
            .legend(move |(x, y)| PathElement::new([(x, y), (x + 14, y)], REFERENCE));
    }

    chart
        .draw_series(bar_labels(groups, value, lo))
        .map_err(err)?;
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperRight)
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .label_font(("sans-serif", 14))
        .draw()
        .map_err(err)?;
    Ok(())
}

/// The bars of one series, in every group's slot for it.
fn bars_of(
    series: Series,
    groups: &[Group],
    value: fn(&Bar) -> Option<f64>,
    lo: f64,
) -> Vec<Rectangle<(f64, f64)>> {
    let mut rects = Vec::new();
    for (gi, g) in groups.iter().enumerate() {
        let w = 0.8 / g.bars.len().max(1) as f64;
        for (bi, b) in g.bars.iter().enumerate() {
            let Some(v) = value(b).filter(|v| b.series == series && v.is_finite() && *v > 0.0)
            else {
                continue;
            };
            let x0 = gi as f64 - 0.4 + bi as f64 * w;
            let corners = [(x0 + 0.05 * w, lo), (x0 + 0.95 * w, v)];
            rects.push(Rectangle::new(corners, color(series).filled()));
        }
    }
    rects
}

/// The style of the reference lines.
const REFERENCE: ShapeStyle = ShapeStyle {
    color: RGBAColor(214, 39, 40, 1.0),
    filled: false,
    stroke_width: 2,
};

/// A dashed line at `v` across `n` groups: dashes a tenth of a group wide,
/// seven to a group.
fn dashes(n: usize, v: f64) -> Vec<PathElement<(f64, f64)>> {
    (0..n * 7)
        .map(|k| {
            let x = -0.5 + k as f64 / 7.0;
            PathElement::new([(x, v), (x + 0.1, v)], REFERENCE)
        })
        .collect()
}

/// The figure (and a baseline's name) on every bar, written upwards from
/// its top; why a bar is missing, from the bottom (`lo`) of its slot.
fn bar_labels(
    groups: &[Group],
    value: fn(&Bar) -> Option<f64>,
    lo: f64,
) -> Vec<Text<'static, (f64, f64), String>> {
    let mut texts = Vec::new();
    for (gi, g) in groups.iter().enumerate() {
        let slots = g.bars.len().max(1) as f64;
        let w = 0.8 / slots;
        for (bi, b) in g.bars.iter().enumerate() {
            let xc = gi as f64 - 0.4 + (bi as f64 + 0.5) * w;
            let (text, v) = match (value(b).filter(|v| v.is_finite() && *v > 0.0), &b.missing) {
                (Some(v), _) => match &b.note {
                    Some(note) => (format!("{} {note}", short(v)), v),
                    None => (short(v), v),
                },
                (None, Some(why)) => (format!("({why})"), lo),
                (None, None) => continue,
            };
            let style = TextStyle::from(("sans-serif", 12).into_font())
                .transform(FontTransform::Rotate270)
                .pos(Pos::new(HPos::Left, VPos::Center));
            texts.push(Text::new(text, (xc, v), style));
        }
    }
    texts
}

/// The whole decades around `values`, with a decade of headroom for the bar labels.
fn decades(values: &[f64]) -> (f64, f64) {
    if values.is_empty() {
        return (0.1, 10.0);
    }
    let min = values.iter().copied().fold(f64::INFINITY, f64::min);
    let max = values.iter().copied().fold(0.0, f64::max);
    let lo = 10f64.powf(min.log10().floor());
    let hi = 10f64.powf(max.log10().floor() + 2.0);
    (lo.max(1e-9), hi)
}

/// Three significant figures, without an exponent for everyday magnitudes.
pub fn short(v: f64) -> String {
    if v == 0.0 || !v.is_finite() {
        return format!("{v}");
    }
    let digits = v.abs().log10().floor() as i32;
    if !(-3..6).contains(&digits) {
        return format!("{v:.2e}");
    }
    let decimals = (2 - digits).max(0) as usize;
    format!("{v:.decimals$}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_keeps_three_figures() {
        assert_eq!(short(1234.6), "1235");
        assert_eq!(short(12.345), "12.3");
        assert_eq!(short(0.012345), "0.0123");
        assert_eq!(short(2.5e-7), "2.50e-7");
    }

    #[test]
    fn decades_bracket_the_values() {
        assert_eq!(decades(&[0.5, 30.0]), (0.1, 1000.0));
        assert_eq!(decades(&[]), (0.1, 10.0));
    }

    #[test]
    fn writes_a_chart_naming_programs_series_and_device() {
        let dir = std::env::temp_dir().join(format!("texprc-plot-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("bench.svg");
        let bar = |series, note: Option<&str>, gflops, gbs| Bar {
            series,
            note: note.map(String::from),
            missing: None,
            gflops,
            gbs,
        };
        let groups = vec![
            Group {
                name: "matmul".into(),
                bars: vec![
                    bar(Series::Default, None, Some(2.0), Some(0.01)),
                    bar(Series::Heuristic, None, Some(9.0), Some(0.05)),
                    Bar {
                        missing: Some("not tuned".into()),
                        ..bar(Series::Tuned, None, None, None)
                    },
                    bar(Series::Baseline, Some("tiled"), Some(20.0), Some(0.1)),
                ],
            },
            Group {
                name: "transpose".into(),
                bars: vec![bar(Series::Default, None, None, Some(3.0))],
            },
        ];
        let limits = Limits {
            gflops: 40.0,
            gbs: 12.5,
        };
        write_svg(&path, "texprc bench on test-device", &groups, Some(limits)).unwrap();
        let svg = std::fs::read_to_string(&path).unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
        for text in [
            "test-device",
            "matmul",
            "transpose",
            "heuristic",
            "hand-written baseline",
            "20.0 tiled",
            "(not tuned)",
            "GFLOP/s",
            "GB/s",
            "FMA peak 40.0 GFLOP/s",
            "copy bandwidth 12.5 GB/s",
        ] {
            assert!(svg.contains(text), "the chart lacks `{text}`");
        }
        // Seven rates were given: seven bars in the series' colours, and the legends.
        let bars = ["#1F77B4", "#FF7F0E", "#2CA02C", "#6E6E6E"]
            .iter()
            .map(|c| {
                svg.matches(&format!("fill=\"{c}\" stroke=\"none\""))
                    .count()
            })
            .sum::<usize>();
        assert_eq!(bars, 7 + 8, "seven bars and four legend swatches a panel");
    }
}
