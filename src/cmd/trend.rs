//! `iozone trend [filters]`: recorded runs' summaries → series → steps → report.

use super::Context;
use crate::cli::{ListFormat, TrendArgs};
use crate::model::RunStatus;
use crate::render::{self, TextStyle};
use crate::trend;

pub fn exec(args: TrendArgs, context: &Context) -> anyhow::Result<()> {
    let shell = &context.shell;
    let store = context.read_store()?;
    let mut filter = super::run_filter(&args.filter, (!args.all).then_some(args.limit));
    filter.status.get_or_insert(RunStatus::Complete);
    let steps = |series: trend::Series| {
        trend::find_steps(
            series.into_points(),
            args.min_step / 100.0,
            args.min_runs as usize,
        )
    };
    let report = match args.all {
        true => trend::read::host_by_host(&*store, &filter, steps)?,
        false => steps(trend::read::series(&*store, &filter, |_| true)?),
    };
    let text = match args.format {
        ListFormat::Json => render::json(&report),
        ListFormat::Csv => render::trend_csv(&report),
        ListFormat::Markdown => render::trend_text(&report, args.units, TextStyle::Markdown),
        ListFormat::Table => render::trend_text(&report, args.units, shell.table_style()),
    };
    super::print_stdout(&text)?;
    Ok(())
}
