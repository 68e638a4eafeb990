//! `iozone history`: filters → store query → listing. With `--all`, every format is
//! written a page of runs at a time (`paged`), so memory holds a page, not the
//! database.

use super::Context;
use crate::cli::{FilterArgs, HistoryArgs, ListFormat};
use crate::paged::{self, HistoryTable};
use crate::render::{self, TextStyle};
use crate::selector::RunFilter;
use crate::store::Store;

pub fn exec(args: HistoryArgs, context: &Context) -> anyhow::Result<()> {
    let shell = &context.shell;
    let store = context.read_store()?;
    if args.all {
        let filter = super::run_filter(&args.filter, None);
        let format = match args.format {
            ListFormat::Json => paged::Format::Json,
            ListFormat::Csv => paged::Format::Csv,
            text => return every_run_as_text(&*store, &filter, text, &args, context),
        };
        return super::stream_stdout(|out| paged::history(&*store, &filter, format, out));
    }
    let limit = (!args.all).then_some(args.limit);
    // one more than shown: the footer says "more" only when there are more
    let filter = super::run_filter(&args.filter, limit.map(|l| l + 1));
    let mut runs = store.list_runs(&filter)?;
    paged::as_listed(&filter, &mut runs);
    let more = limit.is_some_and(|l| runs.len() > l);
    runs.truncate(limit.unwrap_or(runs.len()));
    let ids: Vec<i64> = runs.iter().filter_map(|r| r.id).collect();
    // headline figures: from the summaries of the measured rounds
    let summaries = store.summaries_of(&ids)?;
    let text = match args.format {
        ListFormat::Json => render::history_json(&runs, &summaries),
        ListFormat::Csv => render::history_csv(&runs, &summaries).to_csv(),
        ListFormat::Markdown => render::history_listing(&runs, &summaries, args.units)
            .0
            .to_markdown(),
        ListFormat::Table => {
            if runs.is_empty() {
                shell.status("History", nothing_listed(&args.filter, &store.location()));
                return Ok(());
            }
            render::history_listing(&runs, &summaries, args.units)
                .0
                .render(shell.table_style())
        }
    };
    if more {
        let newest = match runs.len() {
            1 => "the newest run".to_string(),
            n => format!("the newest {n} runs"),
        };
        shell.status("Showing", format!("{newest}; --limit N or --all for more"));
    }
    super::print_stdout(&text)?;
    Ok(())
}

/// Every run `filter` selects as a table or Markdown, in the memory of a page of runs
/// ([`HistoryTable`]); a table of no run is said on stderr, not printed.
fn every_run_as_text(
    store: &dyn Store,
    filter: &RunFilter,
    format: ListFormat,
    args: &HistoryArgs,
    context: &Context,
) -> anyhow::Result<()> {
    let table = HistoryTable::read::<anyhow::Error>(store, filter)?;
    if table.is_empty() && format == ListFormat::Table {
        let nothing = nothing_listed(&args.filter, &store.location());
        context.shell.status("History", nothing);
        return Ok(());
    }
    let style = match format {
        ListFormat::Markdown => TextStyle::Markdown,
        _ => context.shell.table_style(),
    };
    super::stream_stdout(|out| table.write(args.units, style, out))
}

/// What `history` says when it lists no run: that none matched, in plain words, or
/// that none was recorded at all.
fn nothing_listed(filter: &FilterArgs, location: &str) -> String {
    let any = filter.host.is_some()
        || filter.fs.is_some()
        || !filter.labels.is_empty()
        || !filter.tags.is_empty()
        || filter.test.is_some()
        || filter.record.is_some()
        || filter.since.is_some()
        || filter.until.is_some()
        || filter.status.is_some();
    match any {
        true => format!("no runs match these filters (in {location})"),
        false => format!("no runs recorded yet (in {location})"),
    }
}
