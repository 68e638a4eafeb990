//! The series of recorded runs, read from a store a page of runs at a time: what is
//! kept is a point per run and row, never a run or a repetition.

use std::collections::BTreeSet;

use super::{Series, TrendReport};
use crate::model::Run;
use crate::selector::RunFilter;
use crate::store::{self, Store, StoreError};

/// The steps of every series of the runs `filter` selects, one host's series at a
/// time: a series never spans two hosts, so memory holds the points of the largest
/// host's history, not of the database (20,000,000 points, 546 MiB, for 1,000,000
/// runs). Hosts come in the order one walk would give their series (a series key
/// begins with its host), so the report is the same; the runs are listed once more.
pub fn host_by_host(
    store: &dyn Store,
    filter: &RunFilter,
    steps: impl Fn(Series) -> TrendReport,
) -> Result<TrendReport, StoreError> {
    let hosts = hosts(store, filter)?;
    let parts = (hosts.into_iter()).map(|host| Ok(steps(series_of_host(store, filter, host)?)));
    Ok(TrendReport::merged(
        parts.collect::<Result<Vec<_>, StoreError>>()?,
    ))
}

/// The hosts of the runs `filter` selects, in the order of series keys (no host first).
pub fn hosts(
    store: &dyn Store,
    filter: &RunFilter,
) -> Result<BTreeSet<Option<String>>, StoreError> {
    let mut hosts = BTreeSet::new();
    store::for_each_page(store, filter, |runs| {
        hosts.extend(runs.into_iter().map(|r| r.host.hostname));
        Ok::<_, StoreError>(())
    })?;
    Ok(hosts)
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
/// read a page of runs at a time: what is kept is a point per run and row, never a run
/// or a repetition.
pub fn series(
    store: &dyn Store,
    filter: &RunFilter,
    keep: impl Fn(&Run) -> bool,
) -> Result<Series, StoreError> {
    let mut series = Series::default();
    store::for_each_page(store, filter, |mut runs| {
        runs.retain(&keep);
        let ids: Vec<i64> = runs.iter().filter_map(|r| r.id).collect();
        let summaries = store.summaries_of(&ids)?;
        for run in &runs {
            if let Some(rows) = run.id.and_then(|id| summaries.get(&id)) {
                series.add_run(run, rows);
            }
        }
        Ok::<_, StoreError>(())
    })?;
    Ok(series)
}
