//! The diverging bar chart of changes: drops to the left, gains to the right, the
//! ±threshold band shaded, and changes and intervals beyond a cap cut at the edge with
//! a mark saying so (their true values are in the tooltip).

use std::fmt::Write;

use super::{Axis, Plot, escape, open_svg, px};

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
pub(super) const BAR_CAP: f64 = 100.0;

impl BarChart {
    /// A symmetric axis wide enough for every bar, interval and the threshold band,
    /// up to [`BAR_CAP`].
    pub(super) fn axis(&self) -> Axis {
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
                r#"<path class="clip" d="M{} {}L{} {}L{} {}Z" fill="{}"/>"#,
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
                r##"<path d="M{l} {m}H{h}M{l} {a}V{b}M{h} {a}V{b}" stroke="#222" stroke-width="1" fill="none"><title>{tip}</title></path>"##,
                l = px(x(lo)),
                h = px(x(hi)),
                m = px(mid),
                a = px(mid - 3.0),
                b = px(mid + 3.0),
                tip = escape(&bar.tip)
            );
            // an end cut at the edge gets an open arrowhead pointing on past it
            for (end, dir) in [(lo, -1.0), (hi, 1.0)] {
                if end * dir > axis.hi {
                    let e = x(end);
                    let _ = write!(
                        out,
                        r##"<path class="clip interval" d="M{} {}L{} {}L{} {}" stroke="#222" stroke-width="1.5" fill="none"><title>{}</title></path>"##,
                        px(e - dir * 6.0),
                        px(mid - 5.0),
                        px(e),
                        px(mid),
                        px(e - dir * 6.0),
                        px(mid + 5.0),
                        escape(&bar.tip)
                    );
                }
            }
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
pub(super) fn trim_number(v: f64) -> String {
    let text = format!("{v:.2}");
    text.trim_end_matches('0').trim_end_matches('.').to_string()
}
