//! `iozone report [BASELINE [CANDIDATE]] [filters] -o report.html`: runs, their
//! comparison and their history, drawn into one self-contained HTML file.

use std::collections::{BTreeMap, BTreeSet};

use chrono::Utc;

use super::Context;
use crate::cli::ReportArgs;
use crate::compare::Options;
use crate::model::{self, Run, RunStatus};
use crate::render::{self, ReportInput, SeriesHistory, SideInfo};
use crate::selector::{RunFilter, Selector};
use crate::store::{self, Detail, Store};
use crate::trend::{self, SeriesKey, SeriesPoints, TrendReport};

pub fn exec(args: ReportArgs, context: &Context) -> anyhow::Result<()> {
    let shell = &context.shell;
    let store = context.read_store()?;
    let base = args
        .baseline
        .as_ref()
        .map(|s| store::select_runs(&*store, s, Detail::Full))
        .transpose()?;
    let cand = args
        .candidate
        .as_ref()
        .map(|s| store::select_runs(&*store, s, Detail::Full))
        .transpose()?;
    let sides_read = [(&args.baseline, &base), (&args.candidate, &cand)];
    for (name, (selector, runs)) in ["baseline", "candidate"].iter().zip(sides_read) {
        if let (Some(selector), Some(runs)) = (selector, runs) {
            // one selector is the report's runs, not a side of a comparison
            let name = if cand.is_some() { name } else { &"runs" };
            super::compare::say_selection(shell, &*store, name, selector, runs, shell.verbose())?;
        }
    }
    if let (Some(b), Some(c)) = (&base, &cand) {
        super::compare::warn_overlap(
            shell,
            &crate::compare::RunsRead::with_results(b),
            &crate::compare::RunsRead::with_results(c),
        );
    }
    let runs = charted_runs(&*store, &args, base.as_deref(), cand.as_deref())?;
    let options = options(&args);
    let comparison = match (&base, &cand) {
        (Some(b), Some(c)) => match super::compare::with_history(&*store, b, c, &options)? {
            Ok(comparison) => Some(comparison),
            Err(e) => {
                context.shell.warn(format!(
                    "no comparison in the report: {}",
                    super::error_message(&e.into())
                ));
                None
            }
        },
        _ => None,
    };
    let sides = match (&args.baseline, &args.candidate, &base, &cand) {
        (Some(bs), Some(cs), Some(b), Some(c)) => Some((side(bs, b), side(cs, c))),
        _ => None,
    };
    // trend's window and defaults: the report has no flags for them but --all
    let mut filter = super::run_filter(
        &args.filter,
        (!args.all).then_some(model::DEFAULT_TREND_LIMIT),
    );
    filter.status.get_or_insert(RunStatus::Complete);
    let (report, shown, series_left_out) = match args.all {
        true => every_series(&*store, &filter)?,
        false => window(&*store, &filter)?,
    };
    let series: Vec<SeriesHistory> = shown
        .into_iter()
        .map(|(key, points)| {
            let steps = report.steps.iter().filter(|s| s.series == key).collect();
            SeriesHistory { key, points, steps }
        })
        .collect();

    let input = ReportInput {
        title: args.title.clone().unwrap_or_else(|| title(&args)),
        generated_at: Utc::now(),
        runs: &runs,
        comparison: match (&sides, &comparison) {
            (Some((b, c)), Some(cmp)) => Some((b, c, cmp)),
            _ => None,
        },
        sides: sides.as_ref().map(|(b, c)| (b, c)),
        series,
        series_left_out,
        unit: args.units,
    };
    let html = render::report_html(&input);
    let to_file = super::write_output(&args.output, args.force, context, &html)?;
    shell.status(
        "Wrote",
        format!(
            "{} ({}{}, {} series{})",
            match to_file {
                true => args.output.display().to_string(),
                false => "the report to stdout".into(),
            },
            crate::units::count(runs.len(), "run"),
            if input.comparison.is_some() {
                ", a comparison"
            } else {
                ""
            },
            input.series.len() + input.series_left_out.len(),
            match input.series_left_out.len() {
                0 => String::new(),
                n => format!(", {n} not shown for want of room"),
            }
        ),
    );
    Ok(())
}

/// The series of the history: the steps found, the series shown (charts and the short
/// series' table) with their points, and the series left out for want of room.
type History = (TrendReport, Vec<(SeriesKey, SeriesPoints)>, Vec<SeriesKey>);

/// The steps of the series of the runs `filter` selects (a window of them), and the
/// series shown.
fn window(store: &dyn Store, filter: &RunFilter) -> anyhow::Result<History> {
    let history: Vec<_> = super::trend::series(store, filter, |_| true)?
        .into_points()
        .collect();
    let report = steps(history.iter().map(|(key, points)| (key, points)));
    let (shown, left_out) = shown(history, Vec::len, &report);
    Ok((report, shown, left_out))
}

/// [`window`] for every run, in the memory of the largest host's series (as `trend
/// --all`): the steps and the series' lengths host by host, then the points of the
/// series shown, from their hosts' runs alone.
fn every_series(store: &dyn Store, filter: &RunFilter) -> anyhow::Result<History> {
    let mut parts = Vec::new();
    let mut lengths = Vec::new();
    for host in super::trend::hosts(store, filter)? {
        let series = super::trend::series_of_host(store, filter, host)?;
        let points: Vec<_> = series.into_points().collect();
        lengths.extend(
            points
                .iter()
                .map(|(key, points)| (key.clone(), points.len())),
        );
        parts.push(steps(points.iter().map(|(key, points)| (key, points))));
    }
    let report = TrendReport::merged(parts);
    let (shown, left_out) = shown(lengths, |&n| n, &report);
    let shown: Vec<SeriesKey> = shown.into_iter().map(|(key, _)| key).collect();
    let hosts: BTreeSet<Option<String>> = shown.iter().map(|k| k.hostname.clone()).collect();
    let mut points = BTreeMap::new();
    for host in hosts {
        let series = super::trend::series_of_host(store, filter, host)?;
        points.extend(series.into_points().filter(|(key, _)| shown.contains(key)));
    }
    let shown = shown
        .into_iter()
        .map(|key| {
            let of_key = points.remove(&key).expect("a series shown was walked");
            (key, of_key)
        })
        .collect();
    Ok((report, shown, left_out))
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

/// compare's defaults, with the parameters the user drops from the match.
fn options(args: &ReportArgs) -> Options {
    Options {
        threshold: model::DEFAULT_THRESHOLD_PCT / 100.0,
        alpha: model::DEFAULT_ALPHA,
        ignore: super::compare::ignored(&args.ignore),
    }
}

fn side(selector: &Selector, runs: &[Run]) -> SideInfo {
    SideInfo {
        selector: selector.text.clone(),
        runs: runs.iter().filter_map(|r| r.id).collect(),
    }
}

fn title(args: &ReportArgs) -> String {
    match (&args.baseline, &args.candidate) {
        (Some(b), Some(c)) => format!("iozone: {} against {}", c.text, b.text),
        (Some(b), None) => format!("iozone: {}", b.text),
        _ => "iozone: recent runs".into(),
    }
}

/// The runs whose throughput is charted: the selected ones, else the newest.
fn charted_runs(
    store: &dyn Store,
    args: &ReportArgs,
    base: Option<&[Run]>,
    cand: Option<&[Run]>,
) -> anyhow::Result<Vec<Run>> {
    let mut runs: Vec<Run> = match (base, cand) {
        (None, _) => {
            let mut filter = super::run_filter(&args.filter, Some(args.limit));
            filter.status.get_or_insert(RunStatus::Complete);
            let runs = store.list_runs(&filter)?;
            // as `report NOSUCH` is refused, so are filters that leave nothing to chart
            if runs.is_empty() {
                anyhow::bail!(
                    "no complete run in {} matches the filters; `iozone history` with the same \
                     filters lists what is recorded",
                    store.location()
                );
            }
            store::with_results(store, runs, store::Detail::Full)?
        }
        (Some(b), c) => c.unwrap_or_default().iter().chain(b).cloned().collect(),
    };
    // a run on both sides is charted once
    let mut seen = std::collections::HashSet::new();
    runs.retain(|r| seen.insert(r.uuid));
    Ok(runs)
}
