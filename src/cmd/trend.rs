//! `iozone trend [filters]`: recorded runs → series → steps → report.

use super::Context;
use crate::cli::{ListFormat, TrendArgs};
use crate::model::RunStatus;
use crate::render::{self, TextStyle};
use crate::store;
use crate::trend;

pub fn exec(args: TrendArgs, context: &Context) -> anyhow::Result<()> {
    let shell = &context.shell;
    let store = context.read_store()?;
    let mut filter = super::run_filter(&args.filter, None);
    filter.status.get_or_insert(RunStatus::Complete);
    let runs = store::with_results(&*store, store.list_runs(&filter)?)?;
    let report = trend::find_steps(&runs, args.min_step / 100.0, args.min_runs as usize);
    let text = match args.format {
        ListFormat::Json => render::json(&report),
        ListFormat::Csv => render::trend_csv(&report),
        ListFormat::Markdown => render::trend_text(&report, args.units, TextStyle::Markdown),
        ListFormat::Table => render::trend_text(&report, args.units, shell.table_style()),
    };
    super::print_stdout(&text)?;
    Ok(())
}
