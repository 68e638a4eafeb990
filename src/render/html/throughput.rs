//! The report's throughput section: per test, each run's median throughput against
//! record size, a line per run and file size (and per engine and cache mode, for a run
//! of several), with a legend naming the runs.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write;

use super::{empty, rate, utc};
use crate::model::{CacheMode, EngineKind, Run, TestKind};
use crate::render::svg::{self, Axis, Line, LineChart, Point, escape};
use crate::stats::Summary;
use crate::units::{ByteSize, RateUnit};

/// What a run's line is drawn for: a file size, through an engine and cache mode.
type LineKey = (ByteSize, EngineKind, CacheMode);

/// One line of a throughput chart: a run at one file size, a summary per record size.
struct RunLine<'a> {
    run: &'a Run,
    file_size: ByteSize,
    /// `flush/posix` for a run of several combinations; `None` for a run of one.
    mode: Option<String>,
    index: usize,
    points: BTreeMap<ByteSize, Summary>,
}

/// A colour per (run, file size) for the whole report, so a run looks the same in every chart.
fn line_indices(runs: &[Run]) -> BTreeMap<(usize, LineKey), usize> {
    let mut indices = BTreeMap::new();
    for (i, run) in runs.iter().enumerate() {
        let keys: BTreeSet<LineKey> = run
            .results
            .iter()
            .map(|m| (m.file_size, m.engine, m.cache))
            .collect();
        for key in keys {
            let next = indices.len();
            indices.insert((i, key), next);
        }
    }
    indices
}

fn run_lines<'a>(
    runs: &'a [Run],
    test: TestKind,
    indices: &BTreeMap<(usize, LineKey), usize>,
) -> Vec<RunLine<'a>> {
    let mut lines = Vec::new();
    for (i, run) in runs.iter().enumerate() {
        let mut figures: BTreeMap<(LineKey, ByteSize), Vec<f64>> = BTreeMap::new();
        for m in run.results.iter().filter(|m| m.test == test) {
            figures
                .entry(((m.file_size, m.engine, m.cache), m.record_size))
                .or_default()
                .push(m.throughput);
        }
        let mut by_line: BTreeMap<LineKey, BTreeMap<ByteSize, Summary>> = BTreeMap::new();
        for ((key, record), values) in figures {
            if let Some(s) = Summary::of(&values) {
                by_line.entry(key).or_default().insert(record, s);
            }
        }
        for (key @ (file_size, engine, cache), points) in by_line {
            lines.push(RunLine {
                run,
                file_size,
                mode: run
                    .params
                    .combined()
                    .then(|| format!("{}/{}", cache.name(), engine.name())),
                index: indices.get(&(i, key)).copied().unwrap_or(0),
                points,
            });
        }
    }
    lines
}

pub(super) fn throughput_section(runs: &[Run], unit: RateUnit) -> String {
    let mut out = format!(
        "<section id=\"throughput\">\n<h2>Throughput against record size</h2>\n\
         <p class=\"note\">Each point is the median of a run's repetitions, in {}; \
         the thin bar spans the slowest to the fastest repetition. Record sizes on a log scale.</p>\n",
        unit.label()
    );
    let tests: BTreeSet<TestKind> = runs
        .iter()
        .flat_map(|r| r.results.iter().map(|m| m.test))
        .collect();
    if tests.is_empty() {
        out.push_str(&empty(
            "No measurements in the selected runs: no chart to draw.",
        ));
        return out + "</section>\n";
    }
    let indices = line_indices(runs);
    for test in tests {
        out.push_str(&throughput_figure(
            test,
            &run_lines(runs, test, &indices),
            unit,
        ));
    }
    out + "</section>\n"
}

fn throughput_figure(test: TestKind, lines: &[RunLine], unit: RateUnit) -> String {
    let records: Vec<ByteSize> = lines
        .iter()
        .flat_map(|l| l.points.keys().copied())
        .collect();
    let top = lines
        .iter()
        .flat_map(|l| l.points.values().map(|s| s.max / unit.bytes_per_sec()))
        .fold(0.0, f64::max);
    let several_files = lines
        .iter()
        .map(|l| l.file_size)
        .collect::<BTreeSet<_>>()
        .len()
        > 1;
    let chart = LineChart {
        width: 720.0,
        height: 360.0,
        title: format!("{test}: throughput against record size"),
        x: Axis::log2_bytes(&records, "record size"),
        y: Axis::linear(0.0, top, 6, unit.label()),
        lines: lines.iter().map(|l| chart_line(test, l, unit)).collect(),
        markers: Vec::new(),
        levels: Vec::new(),
    };
    let legend: Vec<(usize, String)> = lines
        .iter()
        .map(|l| {
            let mut name = run_name(l.run);
            if several_files {
                name = format!("{name} · {} file", l.file_size);
            }
            if let Some(mode) = &l.mode {
                name = format!("{name} · {mode}");
            }
            (l.index, name)
        })
        .collect();
    format!(
        "<figure class=\"chart throughput\">\n<h3>{}</h3>\n{}\n{}</figure>\n",
        escape(test.name()),
        chart.to_svg(),
        legend_html(&legend)
    )
}

fn chart_line(test: TestKind, line: &RunLine, unit: RateUnit) -> Line {
    let name = match &line.mode {
        Some(mode) => format!("{} · {mode}", run_name(line.run)),
        None => run_name(line.run),
    };
    let points = line
        .points
        .iter()
        .map(|(record, s)| Point {
            x: (record.bytes().max(1) as f64).log2(),
            y: s.median / unit.bytes_per_sec(),
            range: Some((s.min / unit.bytes_per_sec(), s.max / unit.bytes_per_sec())),
            tip: format!(
                "{name}: {test}, {} file, {record} records: median {} {} (min {}, max {}, n = {})",
                line.file_size,
                rate(unit, s.median),
                unit.label(),
                rate(unit, s.min),
                rate(unit, s.max),
                s.n
            ),
        })
        .collect();
    Line {
        index: line.index,
        points,
    }
}

fn legend_html(entries: &[(usize, String)]) -> String {
    let mut out = String::from("<ul class=\"legend\">");
    for (index, name) in entries {
        let (color, dash) = svg::style(*index);
        let _ = write!(
            out,
            "<li><svg width=\"28\" height=\"10\" aria-hidden=\"true\"><line x1=\"0\" y1=\"5\" x2=\"28\" y2=\"5\" \
             stroke=\"{color}\" stroke-width=\"3\" stroke-dasharray=\"{dash}\"/></svg>{}</li>",
            escape(name)
        );
    }
    out + "</ul>\n"
}

/// A run as the legend names it: id, labels, host and date.
pub(super) fn run_name(run: &Run) -> String {
    let mut parts = vec![
        run.id
            .map_or("unrecorded run".into(), |id| format!("#{id}")),
    ];
    if !run.labels.is_empty() {
        parts.push(run.labels.join(", "));
    }
    parts.push(
        run.host
            .hostname
            .clone()
            .unwrap_or_else(|| "unknown host".into()),
    );
    parts.push(utc(&run.started_at));
    parts.join(" · ")
}
