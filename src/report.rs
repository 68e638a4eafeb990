//! What `iozone report` draws, gathered from a store: the runs whose throughput is
//! charted, and the history of their series with the steps `trend` finds, cut to what
//! the page has room for. The comparison is [`crate::compare::read`]'s; the drawing is
//! [`crate::render::report_html`]'s.

use std::collections::{BTreeMap, BTreeSet, HashSet};

use crate::model::{self, Run};
use crate::render::{self, SeriesHistory};
use crate::selector::RunFilter;
use crate::store::{self, Store, StoreError};
use crate::trend::{self, SeriesKey, SeriesPoints, TrendReport};

/// The series of the history: the steps found, the series shown (charts and the short
/// series' table) with their points, and the series left out for want of room.
pub struct History {
    pub steps: TrendReport,
    pub shown: Vec<(SeriesKey, SeriesPoints)>,
    pub left_out: Vec<SeriesKey>,
}

impl History {
    /// The history of the runs `filter` selects: a window of them, or with `every`
    /// each of them, host by host (as `trend --all`).
    pub fn read(store: &dyn Store, filter: &RunFilter, every: bool) -> Result<History, StoreError> {
        match every {
            true => every_series(store, filter),
            false => window(store, filter),
        }
    }
}

/// The series shown, each with the steps found in it, as the renderer takes them.
pub fn with_steps(
    shown: Vec<(SeriesKey, SeriesPoints)>,
    steps: &TrendReport,
) -> Vec<SeriesHistory<'_>> {
    shown
        .into_iter()
        .map(|(key, points)| {
            let steps = steps.steps.iter().filter(|s| s.series == key).collect();
            SeriesHistory { key, points, steps }
        })
        .collect()
}

/// The runs whose throughput is charted: the selected ones (a run on both sides
/// once), else the newest `filter` selects, with their results.
pub fn charted_runs(
    store: &dyn Store,
    filter: &RunFilter,
    sides: Option<(&[Run], Option<&[Run]>)>,
) -> Result<Vec<Run>, StoreError> {
    let mut runs: Vec<Run> = match sides {
        None => {
            let runs = store.list_runs(filter)?;
            store::with_results(store, runs, store::Detail::Full)?
        }
        Some((b, c)) => c.unwrap_or_default().iter().chain(b).cloned().collect(),
    };
    let mut seen = HashSet::new();
    runs.retain(|r| seen.insert(r.uuid));
    Ok(runs)
}

/// The steps of the series of the runs `filter` selects (a window of them), and the
/// series shown.
fn window(store: &dyn Store, filter: &RunFilter) -> Result<History, StoreError> {
    let history: Vec<_> = trend::read::series(store, filter, |_| true)?
        .into_points()
        .collect();
    let steps = steps(history.iter().map(|(key, points)| (key, points)));
    let (shown, left_out) = shown(history, Vec::len, &steps);
    Ok(History {
        steps,
        shown,
        left_out,
    })
}

/// [`window`] for every run, in the memory of the largest host's series (as `trend
/// --all`): the steps and the series' lengths host by host, then the points of the
/// series shown, from their hosts' runs alone.
fn every_series(store: &dyn Store, filter: &RunFilter) -> Result<History, StoreError> {
    let mut parts = Vec::new();
    let mut lengths = Vec::new();
    trend::read::each_host(store, filter, |host, series| {
        let points: Vec<_> = series.into_points().collect();
        lengths.extend(
            points
                .iter()
                .map(|(key, points)| (key.clone(), points.len())),
        );
        parts.push((
            host,
            steps(points.iter().map(|(key, points)| (key, points))),
        ));
    })?;
    // the hosts came in the walk's order: in key order, as one series would have them
    parts.sort_by(|(a, _), (b, _)| a.cmp(b));
    lengths.sort_by(|(a, _), (b, _)| a.cmp(b));
    let steps = TrendReport::merged(parts.into_iter().map(|(_, part)| part));
    let (shown, left_out) = shown(lengths, |&n| n, &steps);
    let shown: Vec<SeriesKey> = shown.into_iter().map(|(key, _)| key).collect();
    let hosts: BTreeSet<Option<String>> = shown.iter().map(|k| k.hostname.clone()).collect();
    let mut points = BTreeMap::new();
    for host in hosts {
        let series = trend::read::series_of_host(store, filter, host)?;
        points.extend(series.into_points().filter(|(key, _)| shown.contains(key)));
    }
    let shown = shown
        .into_iter()
        .map(|key| {
            let of_key = points.remove(&key).expect("a series shown was walked");
            (key, of_key)
        })
        .collect();
    Ok(History {
        steps,
        shown,
        left_out,
    })
}

/// The steps `trend` finds with its defaults.
fn steps<'a>(series: impl Iterator<Item = (&'a SeriesKey, &'a SeriesPoints)>) -> TrendReport {
    trend::find_steps(
        series,
        model::DEFAULT_MIN_STEP_PCT / 100.0,
        model::DEFAULT_MIN_RUNS as usize,
    )
}

/// Of `series` (in key order), those the report shows and those it leaves out: the
/// longest [`render::MAX_CHARTS`] of those it charts, longest first (of equal length,
/// in key order), then the first [`render::MAX_TABLED`] of the short ones it tables.
fn shown<T>(
    series: Vec<(SeriesKey, T)>,
    len: impl Fn(&T) -> usize,
    report: &TrendReport,
) -> (Vec<(SeriesKey, T)>, Vec<SeriesKey>) {
    let stepped: BTreeSet<&SeriesKey> = report.steps.iter().map(|s| &s.series).collect();
    let (mut tabled, mut charted): (Vec<_>, Vec<_>) = (series.into_iter())
        .filter(|(_, s)| len(s) >= 1)
        .partition(|(key, s)| render::history_tabled(len(s), stepped.contains(key)));
    charted.sort_by_key(|(_, s)| std::cmp::Reverse(len(s)));
    let left_out: Vec<SeriesKey> = (charted.drain(render::MAX_CHARTS.min(charted.len())..))
        .chain(tabled.drain(render::MAX_TABLED.min(tabled.len())..))
        .map(|(key, _)| key)
        .collect();
    charted.extend(tabled);
    (charted, left_out)
}
