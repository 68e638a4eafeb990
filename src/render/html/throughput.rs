//! The report's throughput section: per test, each run's median throughput against
//! record size, a line per run and file size (and per engine and cache mode, for a run
//! of several), with a legend naming the runs. In a two-group report the lines are
//! drawn by side instead (see `groups.rs`).

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write;

use super::groups::{Groups, group_lines};
use super::{empty, printable, rate, utc};
use crate::model::{KeyParts, RowKey, Run, TestKind, by_row, throughputs};
use crate::render::svg::{self, Axis, Line, LineChart, Point, Spread, Stroke, escape};
use crate::stats::Summary;
use crate::units::{ByteSize, RateUnit};

/// What a line pools its rows across: the record sizes it runs along, the tests (a
/// run's line has one colour in every test's chart), and the depth and workers (the
/// whole run's; a side of a comparison pools its runs' lines whatever theirs).
pub(super) const ALONG_A_LINE: KeyParts = KeyParts {
    test: true,
    record_size: true,
    iodepth: true,
    threads: true,
    file_size: false,
    cache: false,
    engine: false,
    tree: true,
};

/// The lines of `keys` (row keys pooled [`ALONG_A_LINE`]) once each, in the order a run
/// lists its rows: by file size, engine, then cache mode.
pub(super) fn in_list_order(keys: impl IntoIterator<Item = RowKey>) -> Vec<RowKey> {
    let mut keys: Vec<RowKey> = keys.into_iter().collect();
    keys.sort_by_key(RowKey::list_order);
    keys.dedup();
    keys
}

/// One line of a throughput chart: a run at one file size, through one engine and cache
/// mode, a summary per record size.
pub(super) struct RunLine<'a> {
    pub run: &'a Run,
    /// The line's rows' key, pooled [`ALONG_A_LINE`]: its file size, engine and cache
    /// mode.
    pub key: RowKey,
    pub file_size: ByteSize,
    /// `flush/posix` for a run of several combinations; `None` for a run of one.
    pub mode: Option<String>,
    index: usize,
    pub points: BTreeMap<ByteSize, Summary>,
}

/// A colour per line of each run for the whole report, so a run looks the same in every
/// chart.
fn line_indices(runs: &[Run]) -> BTreeMap<(usize, RowKey), usize> {
    let mut indices = BTreeMap::new();
    for (i, run) in runs.iter().enumerate() {
        let rows = by_row(&run.params, &run.results);
        for key in in_list_order(rows.into_keys().map(|k| k.pooled(ALONG_A_LINE))) {
            let next = indices.len();
            indices.insert((i, key), next);
        }
    }
    indices
}

fn run_lines<'a>(
    runs: &'a [Run],
    test: TestKind,
    indices: &BTreeMap<(usize, RowKey), usize>,
) -> Vec<RunLine<'a>> {
    let mut lines = Vec::new();
    for (i, run) in runs.iter().enumerate() {
        let mut by_line: BTreeMap<RowKey, BTreeMap<ByteSize, Summary>> = BTreeMap::new();
        for (row, figures) in by_row(&run.params, &run.results) {
            if row.test != test {
                continue;
            }
            if let Some(s) = Summary::of(&throughputs(&figures)) {
                let line = by_line.entry(row.pooled(ALONG_A_LINE)).or_default();
                line.insert(row.record_size, s);
            }
        }
        for key in in_list_order(by_line.keys().copied()) {
            lines.push(RunLine {
                run,
                key,
                file_size: key.file_size,
                mode: (run.params.combined())
                    .then(|| format!("{}/{}", key.cache.name(), key.engine.name())),
                index: indices.get(&(i, key)).copied().unwrap_or(0),
                points: by_line.remove(&key).unwrap_or_default(),
            });
        }
    }
    lines
}

/// The section; with `groups`, each chart tells the baseline's runs from the candidate's.
pub(super) fn throughput_section(runs: &[Run], groups: Option<&Groups>, unit: RateUnit) -> String {
    let note = match groups {
        Some(g) => g.note(),
        None => "the thin bar spans the slowest to the fastest repetition".into(),
    };
    let mut out = format!(
        "<section id=\"throughput\">\n<h2>Throughput against record size</h2>\n\
         <p class=\"note\">Each point is the median of a run's repetitions, in {}; {}. \
         Record sizes on a log scale.</p>\n",
        unit.label(),
        escape(&note)
    );
    let measured: BTreeSet<TestKind> = runs
        .iter()
        .flat_map(|r| r.results.iter().map(|m| m.test))
        .collect();
    if measured.is_empty() {
        out.push_str(&empty(
            "No measurements in the selected runs: no chart to draw.",
        ));
        return out + "</section>\n";
    }
    // the metadata tests have no record size to run along: their section follows
    let tests: BTreeSet<TestKind> = measured
        .iter()
        .copied()
        .filter(|t| !t.is_metadata())
        .collect();
    if tests.is_empty() {
        out.push_str(&empty(
            "Only metadata tests in the selected runs: their operations are below.",
        ));
    }
    let indices = line_indices(runs);
    for test in tests {
        let lines = run_lines(runs, test, &indices);
        out.push_str(&match groups {
            Some(groups) => {
                let (chart_lines, legend) = group_lines(groups, test, &lines, unit);
                throughput_figure(test, &lines, chart_lines, &legend, unit)
            }
            None => {
                let chart_lines = lines.iter().map(|l| chart_line(test, l, unit)).collect();
                throughput_figure(test, &lines, chart_lines, &run_legend(&lines), unit)
            }
        });
    }
    out.push_str("</section>\n");
    if measured.iter().any(|t| t.is_metadata()) {
        out.push_str(&super::metadata::metadata_section(runs));
    }
    out
}

fn throughput_figure(
    test: TestKind,
    runs: &[RunLine],
    lines: Vec<Line>,
    legend: &str,
    unit: RateUnit,
) -> String {
    let records: Vec<ByteSize> = runs.iter().flat_map(|l| l.points.keys().copied()).collect();
    let top = lines
        .iter()
        .flat_map(|l| {
            l.points
                .iter()
                .map(|p| p.range.map_or(p.y, |r| r.1.max(p.y)))
        })
        .fold(0.0, f64::max);
    let chart = LineChart {
        width: 720.0,
        height: 360.0,
        title: format!("{test}: throughput against record size"),
        x: Axis::log2_bytes(&records, "record size"),
        y: Axis::linear(0.0, top, 6, unit.label()),
        lines,
        markers: Vec::new(),
        levels: Vec::new(),
    };
    format!(
        "<figure class=\"chart throughput\">\n<h3>{}</h3>\n{}\n{legend}</figure>\n",
        escape(test.name()),
        chart.to_svg(),
    )
}

/// A legend entry per run line, in the run's own colour.
fn run_legend(lines: &[RunLine]) -> String {
    let several_files = several_file_sizes(lines);
    let entries: Vec<(Stroke, String)> = lines
        .iter()
        .map(|l| (svg::style(l.index), line_name(l, several_files)))
        .collect();
    legend_html("legend", None, &entries)
}

/// Whether the lines are of more than one file size, which their names then say.
pub(super) fn several_file_sizes(lines: &[RunLine]) -> bool {
    lines
        .iter()
        .map(|l| l.file_size)
        .collect::<BTreeSet<_>>()
        .len()
        > 1
}

/// A line as its legend entry names it: the run, then its file size when the chart has
/// several, then its mode when the run measured several.
pub(super) fn line_name(line: &RunLine, several_files: bool) -> String {
    let mut name = run_name(line.run);
    if several_files {
        name = format!("{name} · {} file", line.file_size);
    }
    if let Some(mode) = &line.mode {
        name = format!("{name} · {mode}");
    }
    name
}

pub(super) fn chart_line(test: TestKind, line: &RunLine, unit: RateUnit) -> Line {
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
        stroke: svg::style(line.index),
        spread: Spread::Bars,
        points,
    }
}

/// A legend list of class `class`, headed by `heading` when given: a short line in
/// each entry's stroke, then its name.
pub(super) fn legend_html(
    class: &str,
    heading: Option<&str>,
    entries: &[(Stroke, String)],
) -> String {
    let mut out = format!("<ul class=\"{class}\">");
    if let Some(heading) = heading {
        let _ = write!(out, "<li class=\"side\">{}</li>", escape(heading));
    }
    for (stroke, name) in entries {
        let _ = write!(
            out,
            "<li><svg width=\"28\" height=\"10\" aria-hidden=\"true\"><line x1=\"0\" y1=\"5\" x2=\"28\" y2=\"5\" \
             stroke=\"{}\" stroke-width=\"3\" stroke-dasharray=\"{}\"/></svg>{}</li>",
            stroke.color,
            stroke.dash,
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
        parts.push(printable::cell(&run.labels.join(", ")).into_owned());
    }
    parts.push(
        run.host
            .hostname
            .as_deref()
            .map_or("unknown host".into(), |host| {
                printable::cell(host).into_owned()
            }),
    );
    parts.push(utc(&run.started_at));
    parts.join(" · ")
}
