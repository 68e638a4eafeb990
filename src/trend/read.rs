//! The series of recorded runs, read from a store in one walk: what is kept is a point
//! per run and row, never a run or a repetition, and of a run only what a series is
//! made of (`store::SERIES_COLUMNS`) is read.

use super::{Series, TrendReport};
use crate::model::Run;
use crate::selector::RunFilter;
use crate::store::{self, Store, StoreError, Walk, Walked};

/// The steps of every series of the runs `filter` selects (without a limit), one
/// host's series at a time: a series never spans two hosts, so memory holds the points
/// of the largest host's history, not of the database (20,000,000 points, 546 MiB, for
/// 1,000,000 runs). The hosts' reports are merged in the order of series keys (a key
/// begins with its host), so the report is the one a single series would give.
pub fn host_by_host(
    store: &dyn Store,
    filter: &RunFilter,
    steps: impl Fn(Series) -> TrendReport,
) -> Result<TrendReport, StoreError> {
    let mut parts = Vec::new();
    each_host(store, filter, |host, series| {
        parts.push((host, steps(series)))
    })?;
    parts.sort_by(|(a, _), (b, _)| a.cmp(b));
    Ok(TrendReport::merged(parts.into_iter().map(|(_, part)| part)))
}

/// The series of each host of the runs `filter` selects (without a limit), handed to
/// `each` with the host once its runs are read: one walk that reads the runs host by
/// host, in no order of hosts, so memory holds one host's series.
pub fn each_host(
    store: &dyn Store,
    filter: &RunFilter,
    mut each: impl FnMut(Option<String>, Series),
) -> Result<(), StoreError> {
    let mut current: Option<(Option<String>, Series)> = None;
    let walk = Walk::Series { by_host: true };
    store::walk(store, filter, walk, |Walked { run, summaries, .. }| {
        match &mut current {
            Some((host, series)) if *host == run.host.hostname => series.add_run(&run, &summaries),
            _ => {
                if let Some((host, series)) = current.take() {
                    each(host, series);
                }
                let mut series = Series::default();
                series.add_run(&run, &summaries);
                current = Some((run.host.hostname, series));
            }
        }
        Ok::<_, StoreError>(())
    })?;
    if let Some((host, series)) = current {
        each(host, series);
    }
    Ok(())
}

/// The series of the runs of `host` that `filter` selects.
pub fn series_of_host(
    store: &dyn Store,
    filter: &RunFilter,
    host: Option<String>,
) -> Result<Series, StoreError> {
    // runs without a host are picked out of the whole walk
    let of_host = RunFilter {
        host: host.clone().or(filter.host.clone()),
        ..filter.clone()
    };
    series(store, &of_host, |run| run.host.hostname == host)
}

/// The series of the runs `filter` selects (those `keep` keeps), from their summaries,
/// in one walk: what is kept is a point per run and row, never a run or a repetition.
pub fn series(
    store: &dyn Store,
    filter: &RunFilter,
    keep: impl Fn(&Run) -> bool,
) -> Result<Series, StoreError> {
    let mut series = Series::default();
    let walk = Walk::Series { by_host: false };
    store::walk(store, filter, walk, |Walked { run, summaries, .. }| {
        if keep(&run) {
            series.add_run(&run, &summaries);
        }
        Ok::<_, StoreError>(())
    })?;
    Ok(series)
}
