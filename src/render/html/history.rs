//! The report's history section: per series, each run's median through time, with
//! the steps found marked and the levels before and after them drawn.

use chrono::{DateTime, Utc};

use super::{SeriesHistory, empty, printable, rate, utc};
use crate::render::cells::{self, change};
use crate::render::svg::{
    self, Axis, Level, Line, LineChart, Marker, Point, Spread, escape, seconds,
};
use crate::trend::{SeriesKey, Step};
use crate::units::{RateUnit, count};

pub(super) fn history_section(series: &[SeriesHistory], unit: RateUnit) -> String {
    let mut out = format!(
        "<section id=\"history\">\n<h2>History</h2>\n<p class=\"note\">Each point is one run's median \
         in {}, in time order (UTC); dashed lines mark the runs where the level stepped, dotted \
         lines the levels before and after.</p>\n",
        unit.label()
    );
    if series.is_empty() {
        out.push_str(&empty("No history to show: no series was given."));
        return out + "</section>\n";
    }
    for s in series {
        out.push_str(&history_figure(s, unit));
    }
    out + "</section>\n"
}

fn series_title(key: &SeriesKey) -> String {
    let text = |v: &Option<String>| {
        v.as_deref()
            .map_or("?".into(), |v| printable::cell(v).into_owned())
    };
    format!(
        "{} · {} on {} · {} · {} file · {} records · {}",
        text(&key.hostname),
        text(&key.fs_type),
        text(&key.mount_point),
        key.test.name(),
        key.file_size,
        key.record_size,
        cells::mode(
            Some(key.cache.name()),
            Some(key.engine.name()),
            Some(key.iodepth),
            Some(key.threads)
        )
    )
}

pub(super) fn history_figure(s: &SeriesHistory, unit: RateUnit) -> String {
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
        / unit.bytes_per_sec();
    let chart = LineChart {
        width: 720.0,
        height: 240.0,
        title: format!("History of {title}"),
        x: Axis::time(&times, "run start, UTC"),
        y: Axis::linear(0.0, top, 4, unit.label()),
        lines: vec![history_line(s, unit)],
        markers: s.steps.iter().map(|st| step_marker(st)).collect(),
        levels: s
            .steps
            .iter()
            .flat_map(|st| step_levels(s, st, unit))
            .collect(),
    };
    out.push_str(&chart.to_svg());
    out.push('\n');
    out.push_str(&steps_caption(s, unit));
    out + "</figure>\n"
}

fn history_line(s: &SeriesHistory, unit: RateUnit) -> Line {
    let points = s
        .points
        .iter()
        .map(|(t, id, median)| Point {
            x: seconds(t),
            y: median / unit.bytes_per_sec(),
            range: None,
            tip: format!(
                "{} at {}: median {} {}",
                id.map_or("unrecorded run".into(), |id| format!("run {id}")),
                utc(t),
                rate(unit, *median),
                unit.label()
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
fn step_levels(s: &SeriesHistory, step: &Step, unit: RateUnit) -> Vec<Level> {
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
            y: step.before / unit.bytes_per_sec(),
        },
        Level {
            x0: x,
            x1: seconds(&last.0),
            y: step.after / unit.bytes_per_sec(),
        },
    ]
}

fn steps_caption(s: &SeriesHistory, unit: RateUnit) -> String {
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
                rate(unit, st.before),
                rate(unit, st.after),
                unit.label(),
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
