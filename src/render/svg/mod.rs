//! Inline SVG charts for the HTML report: axes with readable ticks (linear, log2 of
//! byte sizes, UTC time), a line chart with min–max bars and step markers, and a
//! diverging bar chart of changes. Pure: values in, SVG text out.
//!
//! Every coordinate goes through [`px`], and every domain through a guard that widens
//! an empty or degenerate range, so one point, all-equal values or zeros never make a
//! division by zero, and no `NaN` ever reaches the document.
//!
//! A file per piece: `axis.rs` (domains and ticks), `line_chart.rs`, `bar_chart.rs`;
//! here the escaping, the colours and what both charts share.

mod axis;
mod bar_chart;
mod line_chart;

pub use axis::{Axis, seconds};
pub use bar_chart::{Bar, BarChart};
pub use line_chart::{Level, Line, LineChart, Marker, Point, Spread};

/// Escapes text for HTML and SVG content and for attribute values in double or single
/// quotes; a control character, which a page would drop or XML refuse, is shown as a
/// terminal shows it (`\e`, see [`super::printable`]).
pub fn escape(text: &str) -> String {
    let text = super::printable::text(text);
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// A coordinate as SVG text; a non-finite value (which the guards should make
/// impossible) becomes 0 rather than the `NaN` that would break the drawing.
fn px(v: f64) -> String {
    let v = if v.is_finite() { v } else { 0.0 };
    format!("{v:.1}")
}

/// Run colours: distinguishable on white and in print; lines beyond them get dashes.
const PALETTE: [&str; 10] = [
    "#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
    "#bcbd22", "#17becf",
];
const DASHES: [&str; 3] = ["", "6 3", "2 3"];

/// The two sides of a comparison each get a family of their own, dark to light, so
/// which side a line belongs to is seen before which run it is.
const BLUES: [&str; 4] = ["#08306b", "#2171b5", "#4292c6", "#6baed6"];
const ORANGES: [&str; 4] = ["#7f2704", "#d94801", "#f16913", "#fd8d3c"];

/// How a line is drawn: colour, dash pattern, and the class naming what it stands for
/// (`run`, `baseline`, `candidate`), which the legend and the tests read too.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Stroke {
    pub color: &'static str,
    pub dash: &'static str,
    pub class: &'static str,
}

/// The stroke of the `i`-th run's line when every run is its own colour.
pub fn style(i: usize) -> Stroke {
    Stroke {
        color: PALETTE[i % PALETTE.len()],
        dash: DASHES[(i / PALETTE.len()) % DASHES.len()],
        class: "run",
    }
}

/// Which side of a comparison a line belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Side {
    Baseline,
    Candidate,
}

impl Side {
    pub fn name(self) -> &'static str {
        match self {
            Side::Baseline => "baseline",
            Side::Candidate => "candidate",
        }
    }
}

/// The stroke of a line of `side`: shade `shade` of the side's family (darkest
/// first), dash pattern `dash` (e.g. one per file size).
pub fn side_style(side: Side, shade: usize, dash: usize) -> Stroke {
    let family = match side {
        Side::Baseline => &BLUES,
        Side::Candidate => &ORANGES,
    };
    Stroke {
        color: family[shade % family.len()],
        dash: DASHES[dash % DASHES.len()],
        class: side.name(),
    }
}

/// How many shades a side's family has: more runs than this are drawn as the side's
/// median with its range.
pub const SHADES: usize = BLUES.len();

/// The plot area inside the frame: room on the left for y labels, below for x labels.
#[derive(Clone, Copy)]
struct Plot {
    left: f64,
    right: f64,
    top: f64,
    bottom: f64,
}

fn open_svg(width: f64, height: f64, title: &str) -> String {
    // no xmlns: inline SVG in HTML does not need it, and the report holds no URL at all
    format!(
        r#"<svg viewBox="0 0 {w} {h}" width="{w}" height="{h}" role="img" aria-label="{t}"><title>{t}</title>"#,
        w = px(width),
        h = px(height),
        t = escape(title)
    )
}

#[cfg(test)]
mod tests {
    use chrono::{TimeZone, Utc};

    use super::bar_chart::{BAR_CAP, trim_number};
    use super::*;
    use crate::units::ByteSize;

    fn labels(axis: &Axis) -> Vec<&str> {
        axis.ticks.iter().map(|t| t.label.as_str()).collect()
    }

    #[test]
    fn escaping_covers_markup_and_both_quotes() {
        assert_eq!(
            escape(r#"<b>&"x'"#),
            "&lt;b&gt;&amp;&quot;x&#39;".to_string()
        );
        assert_eq!(escape("\x1b[31m<\x07>"), "\\e[31m&lt;\\x07&gt;");
    }

    #[test]
    fn linear_ticks_are_round_and_cover_the_data() {
        let axis = Axis::linear(0.0, 873.0, 5, "MiB/s");
        assert_eq!(labels(&axis), ["0", "200", "400", "600", "800", "1000"]);
        assert_eq!((axis.lo, axis.hi), (0.0, 1000.0));
        let small = Axis::linear(0.0, 0.37, 5, "");
        assert_eq!(small.ticks[1].label, "0.1");
    }

    #[test]
    fn degenerate_domains_are_widened() {
        for (lo, hi) in [
            (0.0, 0.0),
            (5.0, 5.0),
            (f64::NAN, 1.0),
            (1.0, f64::INFINITY),
        ] {
            let axis = Axis::linear(lo, hi, 5, "");
            assert!(axis.hi > axis.lo, "{lo} {hi}: {axis:?}");
            assert!(axis.ticks.iter().all(|t| t.at.is_finite()));
        }
    }

    #[test]
    fn record_sizes_tick_at_powers_of_two() {
        let axis = Axis::log2_bytes(&[ByteSize(512), ByteSize(65536)], "record");
        assert_eq!(
            labels(&axis),
            [
                "512 B", "1 KiB", "2 KiB", "4 KiB", "8 KiB", "16 KiB", "32 KiB", "64 KiB"
            ]
        );
        let wide = Axis::log2_bytes(&[ByteSize(4096), ByteSize(16 << 20)], "record");
        assert!(wide.ticks.len() <= 9, "{:?}", labels(&wide));
        let one = Axis::log2_bytes(&[ByteSize(4096)], "record");
        assert_eq!(labels(&one), ["2 KiB", "4 KiB", "8 KiB"]);
        assert!(one.lo < 11.0 && one.hi > 13.0, "ends off the frame");
        let none = Axis::log2_bytes(&[], "record");
        assert!(none.hi > none.lo);
    }

    #[test]
    fn time_ticks_fit_the_span() {
        let t0 = Utc.with_ymd_and_hms(2026, 11, 1, 12, 0, 0).unwrap();
        let minutes = Axis::time(&[t0, t0 + chrono::Duration::seconds(40)], "");
        assert!(
            minutes.ticks.iter().all(|t| t.label.len() == 8),
            "{minutes:?}"
        );
        let days = Axis::time(&[t0, t0 + chrono::Duration::days(20)], "");
        assert!(days.ticks.len() <= 7);
        assert!(days.ticks.iter().all(|t| t.label.starts_with("2026-")));
        let one = Axis::time(&[t0], "");
        assert!(one.hi > one.lo && !one.ticks.is_empty());
    }

    #[test]
    fn one_point_lands_mid_frame_without_nan() {
        let chart = LineChart {
            width: 720.0,
            height: 360.0,
            title: "t".into(),
            x: Axis::log2_bytes(&[ByteSize(4096)], "record"),
            y: Axis::linear(0.0, 0.0, 5, "MiB/s"),
            lines: vec![Line {
                stroke: style(0),
                spread: Spread::Bars,
                points: vec![Point {
                    x: 12.0,
                    y: 0.0,
                    range: Some((0.0, 0.0)),
                    tip: "p".into(),
                }],
            }],
            markers: vec![Marker {
                x: f64::NAN,
                label: "m".into(),
                color: "#000",
            }],
            levels: vec![],
        };
        let svg = chart.to_svg();
        assert!(!svg.contains("NaN") && !svg.contains("inf"), "{svg}");
    }

    #[test]
    fn bars_go_left_for_drops_and_the_axis_is_symmetric() {
        let chart = BarChart {
            width: 720.0,
            title: "changes".into(),
            threshold: 5.0,
            bars: vec![Bar {
                label: "write".into(),
                value: Some(-20.0),
                interval: Some((-25.0, -15.0)),
                color: "#c62828",
                tip: "x".into(),
            }],
        };
        let axis = chart.axis();
        assert_eq!(axis.lo, -axis.hi);
        let svg = chart.to_svg();
        assert!(
            svg.contains("\u{2212}20") || svg.contains("\u{2212}25"),
            "{svg}"
        );
        assert!(svg.contains(r#"class="band""#));
        let empty = BarChart {
            bars: vec![],
            ..chart
        };
        assert!(!empty.to_svg().contains("NaN"));
    }

    #[test]
    fn huge_changes_are_cut_at_the_cap_with_their_value_shown() {
        let bar = |v: f64| Bar {
            label: "r".into(),
            value: Some(v),
            interval: None,
            color: "#2e7d32",
            tip: String::new(),
        };
        let chart = BarChart {
            width: 720.0,
            title: "changes".into(),
            threshold: 5.0,
            bars: vec![bar(1956.6), bar(-12.0)],
        };
        assert_eq!(chart.axis().hi, BAR_CAP);
        let svg = chart.to_svg();
        assert!(svg.contains(">+1956.6%</text>") && svg.contains(">\u{2212}12.0%</text>"));
        assert_eq!(svg.matches("Z\" fill").count(), 1, "one arrowhead: {svg}");
    }

    #[test]
    fn intervals_cut_at_the_cap_carry_a_clip_mark_and_their_true_value() {
        let bar = |interval: (f64, f64), tip: &str| Bar {
            label: "r".into(),
            value: Some(-20.0),
            interval: Some(interval),
            color: "#b26a00",
            tip: tip.into(),
        };
        let chart = BarChart {
            width: 720.0,
            title: "changes".into(),
            threshold: 5.0,
            bars: vec![
                bar((-240.0, 130.0), "wide: [-240.0%, +130.0%]"),
                bar((-30.0, -10.0), "narrow"),
            ],
        };
        assert_eq!(chart.axis().hi, BAR_CAP);
        let svg = chart.to_svg();
        let marks: Vec<&str> = svg
            .split(r#"<path class="clip interval""#)
            .skip(1)
            .collect();
        assert_eq!(marks.len(), 2, "both ends of the wide interval: {svg}");
        for mark in marks {
            let mark = &mark[..mark.find("</path>").unwrap()];
            assert!(
                mark.contains("<title>wide: [-240.0%, +130.0%]</title>"),
                "{mark}"
            );
        }
        // the narrow interval is drawn whole: its bar and interval carry its tip, no mark does
        assert_eq!(svg.matches("<title>narrow</title>").count(), 2, "{svg}");
    }

    #[test]
    fn thresholds_print_as_written() {
        assert_eq!(trim_number(5.0), "5");
        assert_eq!(trim_number(2.5), "2.5");
    }
}
