//! Inline SVG charts for the HTML report: axes with readable ticks (linear, log2 of
//! byte sizes, UTC time), a line chart with min–max bars and step markers, and a
//! diverging bar chart of changes. Pure: values in, SVG text out.
//!
//! Every coordinate goes through [`px`], and every domain through a guard that widens
//! an empty or degenerate range, so one point, all-equal values or zeros never make a
//! division by zero, and no `NaN` ever reaches the document.

use std::fmt::Write;

use chrono::{DateTime, TimeZone, Utc};

use crate::units::ByteSize;

/// Escapes text for HTML and SVG content and for attribute values in double or single quotes.
pub fn escape(text: &str) -> String {
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

/// The colour and dash pattern of the `i`-th line.
pub fn style(i: usize) -> (&'static str, &'static str) {
    (
        PALETTE[i % PALETTE.len()],
        DASHES[(i / PALETTE.len()) % DASHES.len()],
    )
}

/// One labelled tick, at a position in the axis' own units.
#[derive(Clone, Debug, PartialEq)]
pub struct Tick {
    pub at: f64,
    pub label: String,
}

/// An axis: a domain in its own units (log2 bytes, seconds, MiB/s, ...) and its ticks.
#[derive(Clone, Debug)]
pub struct Axis {
    pub lo: f64,
    pub hi: f64,
    pub ticks: Vec<Tick>,
    pub label: String,
}

/// A non-empty, finite domain around `lo..=hi`: equal ends are widened by `pad`
/// (or by 1 around zero), non-finite ones replaced by 0..1.
fn guard(lo: f64, hi: f64, pad: f64) -> (f64, f64) {
    if !(lo.is_finite() && hi.is_finite()) {
        return (0.0, 1.0);
    }
    let (lo, hi) = (lo.min(hi), lo.max(hi));
    if hi - lo > f64::EPSILON * hi.abs().max(1.0) {
        return (lo, hi);
    }
    let pad = if pad > 0.0 { pad } else { 1.0 };
    match lo {
        0.0 => (0.0, pad),
        _ => (lo - pad, hi + pad),
    }
}

/// A 1, 2, 2.5 or 5 times a power of ten near `span / target`.
fn nice_step(span: f64, target: usize) -> f64 {
    let raw = span / target.max(1) as f64;
    let magnitude = 10f64.powf(raw.log10().floor());
    let norm = raw / magnitude;
    let nice = match norm {
        n if n <= 1.0 => 1.0,
        n if n <= 2.0 => 2.0,
        n if n <= 2.5 => 2.5,
        n if n <= 5.0 => 5.0,
        _ => 10.0,
    };
    nice * magnitude
}

/// How many decimals a tick step needs so that its multiples print exactly.
fn decimals(step: f64) -> usize {
    (0..6)
        .find(|&d| {
            let scaled = step * 10f64.powi(d as i32);
            (scaled - scaled.round()).abs() < 1e-6 * scaled.abs().max(1.0)
        })
        .unwrap_or(6)
}

impl Axis {
    /// A linear axis over `lo..=hi` extended to whole steps, with about `target` ticks.
    pub fn linear(lo: f64, hi: f64, target: usize, label: &str) -> Axis {
        let (lo, hi) = guard(lo, hi, lo.abs() * 0.1);
        let step = nice_step(hi - lo, target);
        let (first, last) = ((lo / step).floor(), (hi / step).ceil());
        let places = decimals(step);
        // bounded: the step makes about `target` ticks, the cap guards rounding oddities
        let ticks = (0..=((last - first) as i64).min(50))
            .map(|k| {
                let at = (first + k as f64) * step;
                let at = if at.abs() < step * 1e-9 { 0.0 } else { at };
                Tick {
                    at,
                    label: format!("{at:.places$}"),
                }
            })
            .collect();
        Axis {
            lo: first * step,
            hi: last * step,
            ticks,
            label: label.to_string(),
        }
    }

    /// Byte sizes on a log2 scale (the axis' units are log2 bytes), ticked at powers
    /// of two labelled `512 B`, `4 KiB`, `64 KiB`, thinned to at most 8 ticks.
    pub fn log2_bytes(sizes: &[ByteSize], label: &str) -> Axis {
        let logs: Vec<f64> = sizes
            .iter()
            .map(|s| (s.bytes().max(1) as f64).log2())
            .collect();
        let lo = logs.iter().copied().fold(f64::INFINITY, f64::min);
        let hi = logs.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        // one record size: a doubling either side keeps it in the middle
        let (lo, hi) = guard(lo.floor(), hi.ceil(), 1.0);
        let (lo, hi) = (lo.clamp(0.0, 63.0) as u32, hi.clamp(0.0, 63.0) as u32);
        let every = (hi - lo).div_ceil(8).max(1);
        let ticks = (lo..=hi)
            .filter(|p| (p - lo) % every == 0)
            .map(|p| Tick {
                at: p as f64,
                label: ByteSize(1u64 << p).to_string(),
            })
            .collect();
        // a quarter of a doubling beyond the ends keeps the end points off the frame
        Axis {
            lo: lo as f64 - 0.25,
            hi: hi.max(lo + 1) as f64 + 0.25,
            ticks,
            label: label.to_string(),
        }
    }

    /// UTC instants (the axis' units are [`seconds`] since the epoch), ticked at a
    /// round interval from seconds to years, with at most about 6 ticks.
    pub fn time(times: &[DateTime<Utc>], label: &str) -> Axis {
        let secs: Vec<f64> = times.iter().map(seconds).collect();
        let lo = secs.iter().copied().fold(f64::INFINITY, f64::min);
        let hi = secs.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        // one run: an hour either side
        let (lo, hi) = guard(lo, hi, 3600.0);
        let (lo, hi) = pad_span(lo, hi, 0.04);
        let interval = time_interval(hi - lo);
        let format = time_format(hi - lo, interval);
        let first = (lo / interval).ceil() as i64;
        let last = (hi / interval).floor() as i64;
        let ticks = (first..=last.min(first + 50))
            .filter_map(|k| {
                let at = k as f64 * interval;
                let t = Utc.timestamp_opt(at as i64, 0).single()?;
                Some(Tick {
                    at,
                    label: t.format(format).to_string(),
                })
            })
            .collect();
        Axis {
            lo,
            hi,
            ticks,
            label: label.to_string(),
        }
    }

    /// Maps a value in the axis' units to a pixel between `from` and `to`.
    fn map(&self, v: f64, from: f64, to: f64) -> f64 {
        let span = self.hi - self.lo;
        if !(span > 0.0 && v.is_finite()) {
            return (from + to) / 2.0;
        }
        from + (v - self.lo) / span * (to - from)
    }
}

/// An instant in the units of a time axis: seconds with milliseconds, since runs
/// started by a script are often less than a second apart.
pub fn seconds(t: &DateTime<Utc>) -> f64 {
    t.timestamp_millis() as f64 / 1000.0
}

/// Widens a range by `fraction` of its span on both ends, so end points are not on the frame.
fn pad_span(lo: f64, hi: f64, fraction: f64) -> (f64, f64) {
    let pad = (hi - lo) * fraction;
    (lo - pad, hi + pad)
}

/// The first round interval (seconds) that gives at most 6 ticks over `span`.
fn time_interval(span: f64) -> f64 {
    const MINUTE: f64 = 60.0;
    const HOUR: f64 = 3600.0;
    const DAY: f64 = 86400.0;
    let candidates = [
        1.0,
        5.0,
        15.0,
        30.0,
        MINUTE,
        5.0 * MINUTE,
        15.0 * MINUTE,
        30.0 * MINUTE,
        HOUR,
        3.0 * HOUR,
        6.0 * HOUR,
        12.0 * HOUR,
        DAY,
        2.0 * DAY,
        7.0 * DAY,
        14.0 * DAY,
        30.0 * DAY,
        91.0 * DAY,
        182.0 * DAY,
        365.0 * DAY,
    ];
    candidates
        .into_iter()
        .find(|i| span / i <= 6.0)
        .unwrap_or_else(|| (span / 6.0 / (365.0 * DAY)).ceil() * 365.0 * DAY)
}

/// Seconds when ticks are seconds apart, the hour within a day, the date beyond.
fn time_format(span: f64, interval: f64) -> &'static str {
    match interval {
        i if i < 60.0 => "%H:%M:%S",
        i if i < 86400.0 && span < 86400.0 => "%H:%M",
        i if i < 86400.0 => "%m-%d %H:%M",
        _ => "%Y-%m-%d",
    }
}

/// One point of a line: its position in axis units, an optional min–max bar, and
/// the hover text.
#[derive(Clone, Debug)]
pub struct Point {
    pub x: f64,
    pub y: f64,
    pub range: Option<(f64, f64)>,
    pub tip: String,
}

#[derive(Clone, Debug)]
pub struct Line {
    pub index: usize,
    pub points: Vec<Point>,
}

/// A vertical dashed line at `x` with a label at the top, e.g. a trend step.
#[derive(Clone, Debug)]
pub struct Marker {
    pub x: f64,
    pub label: String,
    pub color: &'static str,
}

/// A horizontal segment at level `y` from `x0` to `x1`, e.g. a series' level between steps.
#[derive(Clone, Debug)]
pub struct Level {
    pub x0: f64,
    pub x1: f64,
    pub y: f64,
}

/// A line chart: lines drawn in `style(index)`, markers and levels on top.
#[derive(Clone, Debug)]
pub struct LineChart {
    pub width: f64,
    pub height: f64,
    pub title: String,
    pub x: Axis,
    pub y: Axis,
    pub lines: Vec<Line>,
    pub markers: Vec<Marker>,
    pub levels: Vec<Level>,
}

/// The plot area inside the frame: room on the left for y labels, below for x labels.
#[derive(Clone, Copy)]
struct Plot {
    left: f64,
    right: f64,
    top: f64,
    bottom: f64,
}

impl LineChart {
    fn plot(&self) -> Plot {
        Plot {
            left: 64.0,
            right: self.width - 16.0,
            top: 14.0,
            bottom: self.height - 44.0,
        }
    }

    fn xy(&self, plot: Plot, x: f64, y: f64) -> (f64, f64) {
        (
            self.x.map(x, plot.left, plot.right),
            self.y.map(y, plot.bottom, plot.top),
        )
    }

    pub fn to_svg(&self) -> String {
        let plot = self.plot();
        let mut out = open_svg(self.width, self.height, &self.title);
        self.grid(plot, &mut out);
        for level in &self.levels {
            let (x0, y) = self.xy(plot, level.x0, level.y);
            let (x1, _) = self.xy(plot, level.x1, level.y);
            let _ = write!(
                out,
                r##"<line class="level" x1="{}" y1="{}" x2="{}" y2="{}" stroke="#555" stroke-width="1" stroke-dasharray="1 3"/>"##,
                px(x0),
                px(y),
                px(x1),
                px(y)
            );
        }
        for line in &self.lines {
            self.line(plot, line, &mut out);
        }
        for (i, marker) in self.markers.iter().enumerate() {
            self.marker(plot, i, marker, &mut out);
        }
        out.push_str("</svg>");
        out
    }

    fn grid(&self, plot: Plot, out: &mut String) {
        for tick in &self.y.ticks {
            let (_, y) = self.xy(plot, self.x.lo, tick.at);
            let _ = write!(
                out,
                r##"<line x1="{l}" y1="{y}" x2="{r}" y2="{y}" stroke="#e3e3e3"/><text x="{tx}" y="{ty}" text-anchor="end" class="tick">{label}</text>"##,
                l = px(plot.left),
                r = px(plot.right),
                y = px(y),
                tx = px(plot.left - 6.0),
                ty = px(y + 4.0),
                label = escape(&tick.label)
            );
        }
        for tick in &self.x.ticks {
            let (x, _) = self.xy(plot, tick.at, self.y.lo);
            let _ = write!(
                out,
                r##"<line x1="{x}" y1="{t}" x2="{x}" y2="{b}" stroke="#f0f0f0"/><text x="{x}" y="{ty}" text-anchor="middle" class="tick">{label}</text>"##,
                x = px(x),
                t = px(plot.top),
                b = px(plot.bottom),
                ty = px(plot.bottom + 16.0),
                label = escape(&tick.label)
            );
        }
        let _ = write!(
            out,
            r##"<rect x="{l}" y="{t}" width="{w}" height="{h}" fill="none" stroke="#999"/><text x="{cx}" y="{xy}" text-anchor="middle" class="axis">{xl}</text><text transform="translate(14 {cy}) rotate(-90)" text-anchor="middle" class="axis">{yl}</text>"##,
            l = px(plot.left),
            t = px(plot.top),
            w = px(plot.right - plot.left),
            h = px(plot.bottom - plot.top),
            cx = px((plot.left + plot.right) / 2.0),
            xy = px(self.height - 8.0),
            cy = px((plot.top + plot.bottom) / 2.0),
            xl = escape(&self.x.label),
            yl = escape(&self.y.label)
        );
    }

    fn line(&self, plot: Plot, line: &Line, out: &mut String) {
        let (color, dash) = style(line.index);
        let path: Vec<String> = line
            .points
            .iter()
            .map(|p| {
                let (x, y) = self.xy(plot, p.x, p.y);
                format!("{},{}", px(x), px(y))
            })
            .collect();
        let _ = write!(
            out,
            r#"<polyline points="{}" fill="none" stroke="{color}" stroke-width="2" stroke-dasharray="{dash}"/>"#,
            path.join(" ")
        );
        for p in &line.points {
            let (x, y) = self.xy(plot, p.x, p.y);
            if let Some((lo, hi)) = p.range {
                let (_, y0) = self.xy(plot, p.x, lo);
                let (_, y1) = self.xy(plot, p.x, hi);
                let _ = write!(
                    out,
                    r#"<path d="M{a} {y0}V{y1}M{l} {y0}H{r}M{l} {y1}H{r}" stroke="{color}" stroke-width="1" fill="none"/>"#,
                    a = px(x),
                    l = px(x - 3.0),
                    r = px(x + 3.0),
                    y0 = px(y0),
                    y1 = px(y1)
                );
            }
            let _ = write!(
                out,
                r#"<circle cx="{}" cy="{}" r="3.5" fill="{color}"><title>{}</title></circle>"#,
                px(x),
                px(y),
                escape(&p.tip)
            );
        }
    }

    fn marker(&self, plot: Plot, i: usize, marker: &Marker, out: &mut String) {
        let (x, _) = self.xy(plot, marker.x, self.y.lo);
        // labels of close steps alternate between two rows so they do not overprint
        let ty = plot.top + 12.0 + (i % 2) as f64 * 13.0;
        let (tx, anchor) = match x > (plot.left + plot.right) / 2.0 {
            true => (x - 4.0, "end"),
            false => (x + 4.0, "start"),
        };
        let _ = write!(
            out,
            r#"<line class="step" x1="{x}" y1="{t}" x2="{x}" y2="{b}" stroke="{c}" stroke-width="1.5" stroke-dasharray="5 4"/><text x="{tx}" y="{ty}" text-anchor="{anchor}" class="step-label" fill="{c}">{label}</text>"#,
            x = px(x),
            t = px(plot.top),
            b = px(plot.bottom),
            c = marker.color,
            tx = px(tx),
            ty = px(ty),
            label = escape(&marker.label)
        );
    }
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

/// One bar of a [`BarChart`]: a change in percent with its interval, coloured by verdict.
#[derive(Clone, Debug)]
pub struct Bar {
    pub label: String,
    pub value: Option<f64>,
    pub interval: Option<(f64, f64)>,
    pub color: &'static str,
    pub tip: String,
}

/// Horizontal bars around zero: drops to the left, gains to the right, with the
/// ±threshold band shaded.
#[derive(Clone, Debug)]
pub struct BarChart {
    pub width: f64,
    pub title: String,
    pub threshold: f64,
    pub bars: Vec<Bar>,
}

const BAR_ROW: f64 = 20.0;
const BAR_LABELS: f64 = 250.0;
/// Room on the right for each bar's value.
const BAR_VALUES: f64 = 70.0;
/// The widest change drawn to scale: beyond it bars are cut at the edge with an
/// arrow, so one +2000% row does not flatten every other bar to nothing.
const BAR_CAP: f64 = 100.0;

impl BarChart {
    /// A symmetric axis wide enough for every bar, interval and the threshold band,
    /// up to [`BAR_CAP`].
    fn axis(&self) -> Axis {
        let extent = self
            .bars
            .iter()
            .flat_map(|b| {
                let (lo, hi) = b.interval.unwrap_or((0.0, 0.0));
                [b.value.unwrap_or(0.0), lo, hi]
            })
            .chain([self.threshold * 1.5, 1.0])
            .filter(|v| v.is_finite())
            .fold(0.0f64, |m, v| m.max(v.abs()))
            .min(BAR_CAP.max(self.threshold * 1.5));
        Axis::linear(-extent, extent, 8, "change, %")
    }

    pub fn height(&self) -> f64 {
        16.0 + self.bars.len().max(1) as f64 * BAR_ROW + 40.0
    }

    pub fn to_svg(&self) -> String {
        let axis = self.axis();
        let height = self.height();
        let plot = Plot {
            left: BAR_LABELS + 10.0,
            right: self.width - BAR_VALUES,
            top: 16.0,
            bottom: height - 40.0,
        };
        let x = |v: f64| axis.map(v.clamp(axis.lo, axis.hi), plot.left, plot.right);
        let mut out = open_svg(self.width, height, &self.title);
        let _ = write!(
            out,
            r##"<rect class="band" x="{}" y="{}" width="{}" height="{}" fill="#eeeeee"/>"##,
            px(x(-self.threshold)),
            px(plot.top),
            px(x(self.threshold) - x(-self.threshold)),
            px(plot.bottom - plot.top)
        );
        for tick in &axis.ticks {
            let _ = write!(
                out,
                r##"<line x1="{x}" y1="{t}" x2="{x}" y2="{b}" stroke="#e3e3e3"/><text x="{x}" y="{ty}" text-anchor="middle" class="tick">{label}</text>"##,
                x = px(x(tick.at)),
                t = px(plot.top),
                b = px(plot.bottom),
                ty = px(plot.bottom + 16.0),
                label = escape(&signed(&tick.label, tick.at))
            );
        }
        for (i, bar) in self.bars.iter().enumerate() {
            self.bar(i, bar, plot, &axis, &mut out);
        }
        let _ = write!(
            out,
            r##"<line x1="{z}" y1="{t}" x2="{z}" y2="{b}" stroke="#333"/><text x="{cx}" y="{ly}" text-anchor="middle" class="axis">{label}</text>"##,
            z = px(x(0.0)),
            t = px(plot.top),
            b = px(plot.bottom),
            cx = px((plot.left + plot.right) / 2.0),
            ly = px(height - 8.0),
            label = escape(&format!(
                "{}; shaded: within ±{}%",
                axis.label,
                trim_number(self.threshold)
            ))
        );
        out.push_str("</svg>");
        out
    }

    fn bar(&self, i: usize, bar: &Bar, plot: Plot, axis: &Axis, out: &mut String) {
        let x = |v: f64| axis.map(v.clamp(axis.lo, axis.hi), plot.left, plot.right);
        let y = plot.top + i as f64 * BAR_ROW;
        let mid = y + BAR_ROW / 2.0;
        let _ = write!(
            out,
            r#"<text x="{}" y="{}" text-anchor="end" class="bar-label">{}</text>"#,
            px(BAR_LABELS),
            px(mid + 4.0),
            escape(&bar.label)
        );
        let Some(value) = bar.value.filter(|v| v.is_finite()) else {
            return;
        };
        let (a, b) = (x(0.0), x(value));
        let _ = write!(
            out,
            r#"<rect x="{}" y="{}" width="{}" height="{}" fill="{}"><title>{}</title></rect><text x="{}" y="{}" text-anchor="end" class="bar-value">{}</text>"#,
            px(a.min(b)),
            px(y + 4.0),
            px((b - a).abs().max(1.0)),
            px(BAR_ROW - 8.0),
            bar.color,
            escape(&bar.tip),
            px(self.width - 6.0),
            px(mid + 4.0),
            escape(&signed(&format!("{:.1}%", value.abs()), value))
        );
        if value.abs() > axis.hi {
            // cut at the edge: an arrowhead says the bar goes on
            let dir = value.signum();
            let _ = write!(
                out,
                r#"<path d="M{} {}L{} {}L{} {}Z" fill="{}"/>"#,
                px(b),
                px(y + 2.0),
                px(b + dir * 7.0),
                px(mid),
                px(b),
                px(y + BAR_ROW - 2.0),
                bar.color
            );
        }
        if let Some((lo, hi)) = bar.interval.filter(|(l, h)| l.is_finite() && h.is_finite()) {
            let _ = write!(
                out,
                r##"<path d="M{l} {m}H{h}M{l} {a}V{b}M{h} {a}V{b}" stroke="#222" stroke-width="1" fill="none"/>"##,
                l = px(x(lo)),
                h = px(x(hi)),
                m = px(mid),
                a = px(mid - 3.0),
                b = px(mid + 3.0)
            );
        }
    }
}

/// Tick labels of a change axis carry their sign: `−10`, `0`, `+10`.
fn signed(label: &str, at: f64) -> String {
    match at {
        a if a > 0.0 => format!("+{label}"),
        a if a < 0.0 => format!("\u{2212}{}", label.trim_start_matches('-')),
        _ => label.to_string(),
    }
}

/// `5` for 5.0, `2.5` for 2.5: thresholds as people write them.
fn trim_number(v: f64) -> String {
    let text = format!("{v:.2}");
    text.trim_end_matches('0').trim_end_matches('.').to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn labels(axis: &Axis) -> Vec<&str> {
        axis.ticks.iter().map(|t| t.label.as_str()).collect()
    }

    #[test]
    fn escaping_covers_markup_and_both_quotes() {
        assert_eq!(
            escape(r#"<b>&"x'"#),
            "&lt;b&gt;&amp;&quot;x&#39;".to_string()
        );
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
                index: 0,
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
    fn thresholds_print_as_written() {
        assert_eq!(trim_number(5.0), "5");
        assert_eq!(trim_number(2.5), "2.5");
    }
}
