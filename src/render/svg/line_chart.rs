//! The line chart: a line per run or series with its min–max range at each point (as
//! bars, or as a shaded band for a group's median), and vertical step markers and
//! horizontal levels drawn on top.

use std::fmt::Write;

use super::{Axis, Plot, Stroke, escape, open_svg, px};

/// One point of a line: its position in axis units, an optional min–max bar, and
/// the hover text.
#[derive(Clone, Debug)]
pub struct Point {
    pub x: f64,
    pub y: f64,
    pub range: Option<(f64, f64)>,
    pub tip: String,
}

/// How a line's point ranges are drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Spread {
    /// A thin bar at each point: one run's slowest to fastest repetition.
    Bars,
    /// A translucent band joining the ranges: a group's spread, which several groups'
    /// bands can overlap without hiding each other.
    Band,
}

#[derive(Clone, Debug)]
pub struct Line {
    pub stroke: Stroke,
    pub spread: Spread,
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

/// A line chart: bands under the lines, markers and levels on top.
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
        for line in self.lines.iter().filter(|l| l.spread == Spread::Band) {
            self.band(plot, line, &mut out);
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

    /// The area between each point's low and high, left to right along the lows and
    /// back along the highs.
    fn band(&self, plot: Plot, line: &Line, out: &mut String) {
        let ranged: Vec<(f64, (f64, f64))> = line
            .points
            .iter()
            .filter_map(|p| Some((p.x, p.range?)))
            .collect();
        let lows = ranged.iter().map(|(x, (lo, _))| self.xy(plot, *x, *lo));
        let highs = ranged
            .iter()
            .rev()
            .map(|(x, (_, hi))| self.xy(plot, *x, *hi));
        let outline: Vec<String> = lows
            .chain(highs)
            .map(|(x, y)| format!("{},{}", px(x), px(y)))
            .collect();
        if outline.is_empty() {
            return;
        }
        let _ = write!(
            out,
            r#"<polygon class="band {class}" points="{}" fill="{color}" fill-opacity="0.18" stroke="{color}" stroke-opacity="0.5" stroke-width="0.8"/>"#,
            outline.join(" "),
            class = line.stroke.class,
            color = line.stroke.color
        );
    }

    fn line(&self, plot: Plot, line: &Line, out: &mut String) {
        let Stroke { color, dash, class } = line.stroke;
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
            r#"<polyline class="series {class}" points="{}" fill="none" stroke="{color}" stroke-width="2" stroke-dasharray="{dash}"/>"#,
            path.join(" ")
        );
        for p in &line.points {
            let (x, y) = self.xy(plot, p.x, p.y);
            if let (Some((lo, hi)), Spread::Bars) = (p.range, line.spread) {
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
