//! The report's history section: per series, each run's median through time, with
//! the steps found marked and the levels before and after them drawn; the series too
//! short to chart, with no step, in one table; and a word on the series left out.

use chrono::{DateTime, Utc};

use super::{SeriesHistory, empty, printable, table_cells, utc};
use crate::render::cells::{self, Scale, change};
use crate::render::svg::{
    self, Axis, Level, Line, LineChart, Marker, Point, Spread, escape, seconds,
};
use crate::trend::{SeriesKey, Step};
use crate::units::{RateUnit, count};

/// Series of this many runs or fewer, with no step found, share one table rather than
/// a chart each: three points say little a row of figures does not.
pub const TABLED_MAX_RUNS: usize = 3;

/// Charts a report draws at most: the longest series (of equal length, in key order).
pub const MAX_CHARTS: usize = 24;

/// Rows of the short series' table at most (in key order).
pub const MAX_TABLED: usize = 100;

/// Whether the history section tables a series of `runs` runs rather than charting it.
pub fn history_tabled(runs: usize, stepped: bool) -> bool {
    runs <= TABLED_MAX_RUNS && !stepped
}

pub(super) fn history_section(
    series: &[SeriesHistory],
    left_out: &[SeriesKey],
    unit: RateUnit,
) -> String {
    let ops = match series.iter().any(|s| s.key.row.test.is_metadata()) {
        true => " (the metadata tests' in ops/s)",
        false => "",
    };
    let mut out = format!(
        "<section id=\"history\">\n<h2>History</h2>\n<p class=\"note\">Each point is one run's median \
         in {}{ops}, in time order (UTC); dashed lines mark the runs where the level stepped, dotted \
         lines the levels before and after.</p>\n",
        unit.label()
    );
    if series.is_empty() && left_out.is_empty() {
        out.push_str(&empty("No history to show: no series was given."));
        return out + "</section>\n";
    }
    let (tabled, charted): (Vec<&SeriesHistory>, Vec<&SeriesHistory>) = series
        .iter()
        .partition(|s| history_tabled(s.points.len(), !s.steps.is_empty()));
    if !left_out.is_empty() {
        out.push_str(&left_out_note(left_out));
    }
    for s in charted {
        out.push_str(&history_figure(s, unit));
    }
    if !tabled.is_empty() {
        out.push_str(&short_series_table(&tabled, unit));
    }
    out + "</section>\n"
}

/// Series the report has no room for, said at the top of the section with how to
/// see them: how many, and on which hosts.
fn left_out_note(left_out: &[SeriesKey]) -> String {
    let mut hosts: std::collections::BTreeMap<String, usize> = Default::default();
    for key in left_out {
        let host = key
            .hostname
            .as_deref()
            .map_or("?".into(), |h| printable::cell(h).into_owned());
        *hosts.entry(host).or_default() += 1;
    }
    let mut by_count: Vec<(String, usize)> = hosts.into_iter().collect();
    by_count.sort_by_key(|(_, n)| std::cmp::Reverse(*n));
    let shown: Vec<String> = (by_count.iter().take(5))
        .map(|(host, n)| format!("{host} {n}"))
        .collect();
    let more = match by_count.len() > 5 {
        true => format!(", {}", count(by_count.len() - 5, "other host")),
        false => String::new(),
    };
    let text = format!(
        "{} more series not shown (by host: {}{more}): a report charts {MAX_CHARTS} series at \
         most, the longest, and tables {MAX_TABLED} short ones; narrow it with --host, --fs, \
         --label, --test or --record to see the others.",
        left_out.len(),
        shown.join(", "),
    );
    format!("<p class=\"note left-out\">{}</p>\n", escape(&text))
}

/// One table for the series of [`TABLED_MAX_RUNS`] runs or fewer with no step: a row
/// each, its runs' medians oldest first.
fn short_series_table(series: &[&SeriesHistory], unit: RateUnit) -> String {
    let mut out = format!(
        "<figure class=\"short-series\">\n<h3>{} series of {} runs or fewer, with no step</h3>\n\
         <div class=\"wide\"><table>\n<thead><tr>",
        series.len(),
        TABLED_MAX_RUNS
    );
    let header = cells::header_scale(series.iter().map(|s| s.key.row.rate_kind()), unit);
    let medians = format!("Medians, {}, oldest first", header.label());
    let headers = [
        ("Host", false),
        ("Filesystem", false),
        ("Test", false),
        ("File", true),
        ("Record", true),
        ("Mode", false),
        ("Runs", false),
        (medians.as_str(), true),
        ("Last run", false),
    ];
    out.push_str(&table_cells(&headers, "th"));
    out.push_str("</tr></thead>\n<tbody>\n");
    for s in series {
        let key = &s.key;
        let text = |v: &Option<String>| v.clone().unwrap_or_else(|| "?".into());
        let runs: Vec<String> = (s.points.iter())
            .map(|p| p.1.map_or("-".into(), |id| id.to_string()))
            .collect();
        let medians: Vec<String> = (s.points.iter())
            .map(|p| cells::rate_under(header, &key.row, p.2))
            .collect();
        let last = s.points.last().map_or("-".into(), |p| utc(&p.0));
        let cells = [
            text(&key.hostname),
            format!("{} on {}", text(&key.fs_type), text(&key.mount_point)),
            key.row.test.name().to_string(),
            cells::row_file(&key.row),
            cells::row_record(&key.row),
            series_mode(key),
            runs.join(", "),
            medians.join(" · "),
            last,
        ];
        let row: Vec<(&str, bool)> = (cells.iter().zip(headers))
            .map(|(cell, (_, num))| (cell.as_str(), num))
            .collect();
        out.push_str(&format!("<tr>{}</tr>\n", table_cells(&row, "td")));
    }
    out + "</tbody>\n</table></div>\n</figure>\n"
}

fn series_mode(key: &SeriesKey) -> String {
    cells::mode(
        Some(key.row.cache.name()),
        Some(key.row.engine.name()),
        Some(key.row.iodepth),
        Some(key.row.threads),
    )
}

fn series_title(key: &SeriesKey) -> String {
    let text = |v: &Option<String>| {
        v.as_deref()
            .map_or("?".into(), |v| printable::cell(v).into_owned())
    };
    // a metadata test's tree has no record size
    let sizes = match key.row.test.is_metadata() {
        true => cells::row_file(&key.row),
        false => format!(
            "{} file · {} records",
            key.row.file_size, key.row.record_size
        ),
    };
    format!(
        "{} · {} on {} · {} · {sizes} · {}",
        text(&key.hostname),
        text(&key.fs_type),
        text(&key.mount_point),
        key.row.test.name(),
        series_mode(key)
    )
}

pub(super) fn history_figure(s: &SeriesHistory, unit: RateUnit) -> String {
    let scale = Scale::of(&s.key.row, unit);
    let title = series_title(&s.key);
    let mut out = format!(
        "<figure class=\"chart history\">\n<h3>{}</h3>\n",
        escape(&title)
    );
    if s.points.is_empty() {
        return out + &empty("No runs in this series.") + "</figure>\n";
    }
    let times: Vec<DateTime<Utc>> = s
        .points
        .iter()
        .map(|p| p.0)
        .chain(s.steps.iter().map(|st| st.started_at))
        .collect();
    // the steps' levels are drawn too, so they must fit
    let top = s
        .points
        .iter()
        .map(|p| p.2)
        .chain(s.steps.iter().flat_map(|st| [st.before, st.after]))
        .filter(|v| v.is_finite())
        .fold(0.0, f64::max)
        / scale.per();
    let chart = LineChart {
        width: 720.0,
        height: 240.0,
        title: format!("History of {title}"),
        x: Axis::time(&times, "run start, UTC"),
        y: Axis::linear(0.0, top, 4, scale.label()),
        lines: vec![history_line(s, scale)],
        markers: s.steps.iter().map(|st| step_marker(st)).collect(),
        levels: s
            .steps
            .iter()
            .flat_map(|st| step_levels(s, st, scale))
            .collect(),
    };
    out.push_str(&chart.to_svg());
    out.push('\n');
    out.push_str(&steps_caption(s, scale));
    out + "</figure>\n"
}

fn history_line(s: &SeriesHistory, scale: Scale) -> Line {
    let points = s
        .points
        .iter()
        .map(|(t, id, median)| Point {
            x: seconds(t),
            y: median / scale.per(),
            range: None,
            tip: format!(
                "{} at {}: median {} {}",
                id.map_or("unrecorded run".into(), |id| format!("run {id}")),
                utc(t),
                cells::scaled(scale, *median),
                scale.label()
            ),
        })
        .collect();
    Line {
        stroke: svg::style(0),
        spread: Spread::Bars,
        points,
    }
}

fn step_marker(step: &Step) -> Marker {
    Marker {
        x: seconds(&step.started_at),
        label: change(step.change_pct),
        color: match step.change_pct < 0.0 {
            true => "#c62828",
            false => "#2e7d32",
        },
    }
}

/// The levels before and after a step, over the runs each was computed from.
fn step_levels(s: &SeriesHistory, step: &Step, scale: Scale) -> Vec<Level> {
    let at = s
        .points
        .iter()
        .position(|p| (p.0, p.1) == (step.started_at, step.run_id))
        .or_else(|| s.points.iter().position(|p| p.0 >= step.started_at));
    let Some(at) = at else {
        return Vec::new();
    };
    let x = seconds(&step.started_at);
    let first = &s.points[at.saturating_sub(step.runs_before)];
    let last = &s.points[(at + step.runs_after.max(1) - 1).min(s.points.len() - 1)];
    vec![
        Level {
            x0: seconds(&first.0),
            x1: x,
            y: step.before / scale.per(),
        },
        Level {
            x0: x,
            x1: seconds(&last.0),
            y: step.after / scale.per(),
        },
    ]
}

fn steps_caption(s: &SeriesHistory, scale: Scale) -> String {
    if s.steps.is_empty() {
        return format!(
            "<figcaption>{}; no step found.</figcaption>\n",
            count(s.points.len(), "run")
        );
    }
    let items: String = s
        .steps
        .iter()
        .map(|st| {
            let text = format!(
                "{} at {}: {} → {} {} ({}), {} before, {} after",
                st.run_id
                    .map_or("from an unrecorded run".into(), |id| format!(
                        "from run {id}"
                    )),
                utc(&st.started_at),
                cells::scaled(scale, st.before),
                cells::scaled(scale, st.after),
                scale.label(),
                change(st.change_pct),
                count(st.runs_before, "run"),
                st.runs_after
            );
            format!("<li>{}</li>", escape(&text))
        })
        .collect();
    format!(
        "<figcaption>{}; steps:<ul>{items}</ul></figcaption>\n",
        count(s.points.len(), "run")
    )
}
