//! The text of a fact in a cell, written once for every renderer: the terminal
//! table, Markdown and the HTML report show the same change, interval, p-value and
//! run mode for the same row (a test holds them together). CSV and JSON keep raw
//! numbers instead, but share the words: a run's status and its tags.

use std::collections::BTreeMap;

use crate::model::{MetadataTree, Params, RateKind, RowKey, RunStatus};
use crate::units::{ByteSize, RateUnit, count};

/// How a row's rates are shown: bytes in the unit of `--units` (resolved against the
/// figures shown with it), or operations per second, which `--units` never scales.
/// Every renderer takes it from the row ([`Scale::of`]), never from the test.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scale {
    Bytes(RateUnit),
    Ops,
}

impl Scale {
    /// The scale of `key`'s rates where byte rates are shown in `unit`.
    pub fn of(key: &RowKey, unit: RateUnit) -> Scale {
        Scale::for_kind(key.rate_kind(), unit)
    }

    pub fn for_kind(kind: RateKind, unit: RateUnit) -> Scale {
        match kind {
            RateKind::Bytes => Scale::Bytes(unit),
            RateKind::Ops => Scale::Ops,
        }
    }

    /// `MiB/s`, `ops/s`.
    pub fn label(self) -> &'static str {
        match self {
            Scale::Bytes(unit) => unit.label(),
            Scale::Ops => "ops/s",
        }
    }

    /// A rate in this scale, without its label: operations whole, or to a tenth below
    /// a hundred (a phase of four directories makes a few a second).
    pub fn format(self, rate: f64) -> String {
        match self {
            Scale::Bytes(unit) => unit.format(rate),
            Scale::Ops if rate.abs() < 100.0 => format!("{rate:.1}"),
            Scale::Ops => format!("{rate:.0}"),
        }
    }

    /// What one of the scale is, in the figures' own units (a chart's divisor).
    pub fn per(self) -> f64 {
        match self {
            Scale::Bytes(unit) => unit.bytes_per_sec(),
            Scale::Ops => 1.0,
        }
    }
}

/// A metadata tree as a row shows it: `4 × 10000 files` with `, 4 KiB each` when its
/// files hold bytes.
pub fn tree(files: u64, dirs: u64, file_bytes: u64) -> String {
    let each = match file_bytes {
        0 => String::new(),
        n => format!(", {} each", ByteSize(n)),
    };
    format!("{dirs} × {}{each}", count(files as usize, "file"))
}

/// A row's file as tables show it: its size, or a metadata test's tree.
pub fn row_file(key: &RowKey) -> String {
    match key.test.is_metadata() {
        true => tree(key.files, key.dirs, key.file_bytes),
        false => key.file_size.to_string(),
    }
}

/// A row's record as tables show it; `-` for a metadata test, which has none.
pub fn row_record(key: &RowKey) -> String {
    match key.test.is_metadata() {
        true => "-".into(),
        false => key.record_size.to_string(),
    }
}

/// The scale a column of rates of `keys` is headed with: ops/s when every row counts
/// operations, else `unit` resolved against the rows' figures that count bytes.
pub fn column_scale<'a>(
    rows: impl IntoIterator<Item = (&'a RowKey, f64)>,
    unit: RateUnit,
) -> Scale {
    let mut bytes = Vec::new();
    let mut kinds = Vec::new();
    for (key, figure) in rows {
        kinds.push(key.rate_kind());
        if key.rate_kind() == RateKind::Bytes {
            bytes.push(figure);
        }
    }
    header_scale(kinds, unit.resolve(bytes))
}

/// The scale a column of rates of rows of `kinds` is headed with, bytes in `unit` as
/// given: ops/s when every row counts operations.
pub fn header_scale(kinds: impl IntoIterator<Item = RateKind>, unit: RateUnit) -> Scale {
    let mut kinds = kinds.into_iter().peekable();
    let any = kinds.peek().is_some();
    match any && kinds.all(|k| k == RateKind::Ops) {
        true => Scale::Ops,
        false => Scale::Bytes(unit),
    }
}

/// `key`'s rate under a column headed in `header`: in the row's own scale, which it
/// names when it is not the header's (an operations row among byte rows).
pub fn rate_under(header: Scale, key: &RowKey, rate: f64) -> String {
    let unit = match header {
        Scale::Bytes(unit) => unit,
        Scale::Ops => RateUnit::MiB,
    };
    let own = Scale::of(key, unit);
    match own == header {
        true => scaled(own, rate),
        false => format!("{} {}", scaled(own, rate), own.label()),
    }
}

/// The metadata tree of a run's parameters, with how it was worked (`shared`,
/// `random order`, `flush warm`): what `show` and `history` say of it.
pub fn run_tree(t: &MetadataTree) -> String {
    let mut text = tree(t.files, t.dirs, t.file_bytes);
    for (set, word) in [
        (t.shared_dir, "shared directories"),
        (t.random_order, "random order"),
        (t.warm, "flush warm (no root)"),
    ] {
        if set {
            text.push_str(&format!(", {word}"));
        }
    }
    text
}

/// A relative change in percent: `+12.3%`, `-4.0%`; never `-0.0%`; `-` for no figure.
pub fn change(pct: f64) -> String {
    if !pct.is_finite() {
        return "-".into();
    }
    format!("{}%", signed(pct))
}

/// An interval of a change, in percent: `[-12.3, +4.0]`; `-` when there is none.
pub fn interval(low: Option<f64>, high: Option<f64>) -> String {
    match (low, high) {
        (Some(lo), Some(hi)) if lo.is_finite() && hi.is_finite() => {
            format!("[{}, {}]", signed(lo), signed(hi))
        }
        _ => "-".into(),
    }
}

/// A p-value and, when the correction changed it, the adjusted one in parentheses:
/// `0.012 (0.034)`; `<0.001` below what three decimals show; `-` for none.
pub fn p_values(p: Option<f64>, adjusted: Option<f64>) -> String {
    match (p, adjusted) {
        (Some(p), Some(q)) if p_text(p) != p_text(q) => format!("{} ({})", p_text(p), p_text(q)),
        (Some(p), _) => p_text(p),
        _ => "-".into(),
    }
}

fn p_text(p: f64) -> String {
    match p {
        p if !p.is_finite() => "-".into(),
        p if p < 0.001 => "<0.001".into(),
        p => format!("{p:.3}"),
    }
}

/// A throughput in `unit`; `-` for a figure that is not a number (a degenerate
/// side), which would otherwise print as `NaN`.
pub fn rate(unit: RateUnit, bytes_per_sec: f64) -> String {
    scaled(Scale::Bytes(unit), bytes_per_sec)
}

/// A rate in `scale`; `-` for a figure that is not a number.
pub fn scaled(scale: Scale, rate: f64) -> String {
    match rate.is_finite() {
        true => scale.format(rate),
        false => "-".into(),
    }
}

/// How a run reads and writes: `flush/posix`, with ` qd32` for a queue depth other
/// than 1 and ` ×4` for more than one thread (`direct/uring qd32 ×4`); `*` stands for
/// a parameter a comparison dropped from its match. Depth 1 and one thread, what
/// every run had before either could change, add nothing.
pub fn mode(
    cache: Option<&str>,
    engine: Option<&str>,
    iodepth: Option<u32>,
    threads: Option<u32>,
) -> String {
    let iodepth = depth(iodepth);
    let threads = match threads {
        Some(1) => String::new(),
        Some(n) => format!(" ×{n}"),
        None => " ×*".into(),
    };
    format!(
        "{}/{}{iodepth}{threads}",
        cache.unwrap_or("*"),
        engine.unwrap_or("*")
    )
}

/// The queue depth part of a mode: ` qd32`, nothing for depth 1, ` qd*` when dropped.
pub fn depth(iodepth: Option<u32>) -> String {
    match iodepth {
        Some(1) => String::new(),
        Some(n) => format!(" qd{n}"),
        None => " qd*".into(),
    }
}

/// The mode of a run's own parameters, where nothing is dropped; ` warm` after it when
/// its metadata tests' flush phases could not drop the caches.
pub fn run_mode(p: &Params) -> String {
    let mode = mode(
        Some(&p.cache_names()),
        Some(&p.engine_names()),
        Some(p.iodepth),
        Some(p.threads),
    );
    let flushed = p.caches.contains(&crate::model::CacheMode::Flush);
    match flushed && p.metadata.is_some_and(|t| t.warm) {
        true => format!("{mode} warm"),
        false => mode,
    }
}

/// A run's status as docs/formats.md's JSON output spells it: `complete`, `aborted`, ….
pub fn status(status: RunStatus) -> String {
    status.to_string()
}

/// A figure in CSV: every digit, the shortest text that reads back as the same number
/// (as JSON writes it), so every CSV has one precision rule: none.
pub fn raw(v: f64) -> String {
    v.to_string()
}

/// A figure that may be missing: empty in CSV, as JSON's null.
pub fn raw_or_empty(v: Option<f64>) -> String {
    v.map_or(String::new(), raw)
}

/// Tags as `key=value`, joined by `separator` (`, ` to read, `;` in CSV).
pub fn tags(tags: &BTreeMap<String, String>, separator: &str) -> String {
    tags.iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect::<Vec<_>>()
        .join(separator)
}

/// One decimal with its sign, `+0.0` for anything that rounds to zero.
fn signed(v: f64) -> String {
    let text = format!("{v:+.1}");
    match text.as_str() {
        "-0.0" => "+0.0".into(),
        _ => text,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn changes_intervals_and_p_values() {
        assert_eq!(change(-18.24), "-18.2%");
        assert_eq!(change(3.0), "+3.0%");
        assert_eq!(change(-0.01), "+0.0%");
        assert_eq!(change(f64::NAN), "-");
        assert_eq!(interval(Some(-12.34), Some(4.0)), "[-12.3, +4.0]");
        assert_eq!(interval(Some(f64::NAN), Some(1.0)), "-");
        assert_eq!(interval(None, None), "-");
        assert_eq!(p_values(Some(0.0123), Some(0.0345)), "0.012 (0.035)");
        assert_eq!(p_values(Some(0.5), Some(0.5)), "0.500");
        assert_eq!(p_values(Some(1e-5), Some(2e-5)), "<0.001");
        assert_eq!(p_values(Some(f64::NAN), None), "-");
        assert_eq!(p_values(None, None), "-");
    }

    #[test]
    fn modes_statuses_and_tags() {
        assert_eq!(
            mode(Some("flush"), Some("posix"), Some(1), Some(1)),
            "flush/posix"
        );
        assert_eq!(mode(Some("direct"), None, Some(1), Some(4)), "direct/* ×4");
        assert_eq!(mode(None, Some("mmap"), Some(1), None), "*/mmap ×*");
        assert_eq!(
            mode(Some("direct"), Some("pread"), Some(32), Some(4)),
            "direct/pread qd32 ×4"
        );
        assert_eq!(
            mode(Some("flush"), Some("pread"), None, Some(1)),
            "flush/pread qd*"
        );
        assert_eq!(status(RunStatus::Aborted), "aborted");
        let pairs = BTreeMap::from([("b".to_string(), "2".to_string()), ("a".into(), "1".into())]);
        assert_eq!(tags(&pairs, ";"), "a=1;b=2");
        assert_eq!(tags(&BTreeMap::new(), ", "), "");
    }
}
