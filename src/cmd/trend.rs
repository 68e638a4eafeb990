//! `iozone trend [filters]`: recorded runs' summaries → series → steps → report.

use super::Context;
use crate::cli::{ListFormat, TrendArgs};
use crate::model::RunStatus;
use crate::render::{self, TextStyle};
use crate::selector::RunFilter;
use crate::store::{self, Store, StoreError};
use crate::trend;

pub fn exec(args: TrendArgs, context: &Context) -> anyhow::Result<()> {
    let shell = &context.shell;
    let store = context.read_store()?;
    let mut filter = super::run_filter(&args.filter, (!args.all).then_some(args.limit));
    filter.status.get_or_insert(RunStatus::Complete);
    let series = series(&*store, &filter)?;
    let report = trend::find_steps(
        series.into_points(),
        args.min_step / 100.0,
        args.min_runs as usize,
    );
    let text = match args.format {
        ListFormat::Json => render::json(&report),
        ListFormat::Csv => render::trend_csv(&report),
        ListFormat::Markdown => render::trend_text(&report, args.units, TextStyle::Markdown),
        ListFormat::Table => render::trend_text(&report, args.units, shell.table_style()),
    };
    super::print_stdout(&text)?;
    Ok(())
}

/// The series of the runs `filter` selects, from their summaries, read a page of runs
/// at a time: what is kept is a point per run and row, never a run or a repetition.
pub(super) fn series(store: &dyn Store, filter: &RunFilter) -> Result<trend::Series, StoreError> {
    let mut series = trend::Series::default();
    store::for_each_page(store, filter, |runs| {
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
