//! The sides of a comparison and the history of their series, read from a store: the
//! one part of `compare` that is not pure, kept apart so that the policy is.

use super::{CompareError, Comparison, Options, RunsRead, compare};
use crate::model::{Run, Summaries, in_part};
use crate::selector::Selector;
use crate::store::{self, Detail, Store, StoreError};

/// The comparison of `cand` against `base`, with the history of their series (the
/// comparison's own error apart from the store's: `report` goes on without it).
pub fn with_history(
    store: &dyn Store,
    base: &[Run],
    cand: &[Run],
    options: &Options,
) -> Result<Result<Comparison, CompareError>, StoreError> {
    let compared = [base, cand].concat();
    let (history, summaries) =
        store::series_history(store, &compared, options.ignore.pools_rows())?;
    let past = RunsRead {
        runs: &history,
        summaries: Some(&summaries),
    };
    Ok(compare(base, cand, past, options))
}

/// A side's runs, with their figures.
pub fn side(store: &dyn Store, selector: &Selector) -> Result<Vec<Run>, StoreError> {
    // a comparison reads figures, never latency, bytes or time
    let mut runs = store::select_runs(store, selector, Detail::Figures)?;
    narrow(&mut runs, &mut Summaries::new(), selector);
    Ok(runs)
}

/// A fleet's side is thousands of runs: each run's level under each row is read from
/// its summaries, not from every repetition, unless a dropped parameter pools several
/// of a run's summaries into one row.
pub fn fleet_side(
    store: &dyn Store,
    selector: &Selector,
    options: &Options,
) -> Result<(Vec<Run>, Summaries), StoreError> {
    let (mut runs, mut summaries) = match options.ignore.pools_rows() {
        true => (
            store::select_runs(store, selector, Detail::Figures)?,
            Summaries::new(),
        ),
        false => store::select_summarized(store, selector)?,
    };
    narrow(&mut runs, &mut summaries, selector);
    Ok((runs, summaries))
}

/// `engine:` and `cache:` pick measurements too, so one side can be one part of a run
/// that measured several: `compare 42,engine:posix 42,engine:pread`.
fn narrow(runs: &mut [Run], summaries: &mut Summaries, selector: &Selector) {
    let part = (selector.filter.engine, selector.filter.cache);
    for run in runs {
        run.narrow_to(part.0, part.1);
    }
    for rows in summaries.values_mut() {
        rows.retain(|s| in_part(part, s.engine, s.cache));
    }
}
