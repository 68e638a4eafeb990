//! Chart axes: a guarded domain in the axis' own units (linear, log2 of byte sizes,
//! seconds of UTC time) and readable ticks for it.

use chrono::{DateTime, TimeZone, Utc};

use crate::units::ByteSize;

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
    pub(super) fn map(&self, v: f64, from: f64, to: f64) -> f64 {
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
