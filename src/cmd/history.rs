//! `iozone history`: filters → store query → listing. With `--all`, every format is
//! written a page of runs at a time, so memory holds a page, not the database.

use super::Context;
use super::spool::Spool;
use crate::cli::{FilterArgs, HistoryArgs, ListFormat};
use crate::model::{Run, RunStatus};
use crate::render::{self, HistoryLine, JsonArray, Places, TextStyle};
use crate::selector::RunFilter;
use crate::store::{self, Store};
use crate::units::RateUnit;

pub fn exec(args: HistoryArgs, context: &Context) -> anyhow::Result<()> {
    let shell = &context.shell;
    let store = context.read_store()?;
    if args.all {
        let filter = super::run_filter(&args.filter, None);
        return match args.format {
            ListFormat::Json | ListFormat::Csv => stream(&*store, &filter, args.format),
            text => {
                if !every_run_as_text(&*store, &filter, text, args.units, context)? {
                    shell.status("History", nothing_listed(&args.filter, &store.location()));
                }
                Ok(())
            }
        };
    }
    let limit = (!args.all).then_some(args.limit);
    // one more than shown: the footer says "more" only when there are more
    let filter = super::run_filter(&args.filter, limit.map(|l| l + 1));
    let mut runs = store.list_runs(&filter)?;
    as_listed(&filter, &mut runs);
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

/// Runs as `history` shows them: a run whose process was killed is aborted (failed,
/// when it waits in the spool), and so no longer among those `--status running` asks
/// for.
fn as_listed(filter: &RunFilter, runs: &mut Vec<Run>) {
    crate::killed::show_as_ended(runs);
    if filter.status == Some(RunStatus::Running) {
        runs.retain(|r| r.status == RunStatus::Running);
    }
}

/// Every run `filter` selects as a table or Markdown, in the memory of a page of runs:
/// the columns are as wide as their widest cell and the rates' unit suits their least
/// figure, so the runs' lines are set aside in a temporary file, measured, then written.
/// False when there was no run to make a table of.
fn every_run_as_text(
    store: &dyn Store,
    filter: &RunFilter,
    format: ListFormat,
    units: RateUnit,
    context: &Context,
) -> anyhow::Result<bool> {
    let (mut lines, least, places) = spool_lines(store, filter)?;
    if lines.is_empty() && format == ListFormat::Table {
        return Ok(false);
    }
    let style = match format {
        ListFormat::Markdown => TextStyle::Markdown,
        _ => context.shell.table_style(),
    };
    write_spooled(&mut lines, units.resolve([least]), places.differ(), style)?;
    Ok(true)
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

/// The spooled lines as one table in `style`, rates in `unit`, with where each run
/// measured when `places`: measured in a first reading, written a page at a time in a
/// second.
fn write_spooled(
    lines: &mut Spool<HistoryLine>,
    unit: RateUnit,
    places: bool,
    style: TextStyle,
) -> anyhow::Result<()> {
    let frame = render::history_frame(unit, places);
    let mut layout = frame.layout(style);
    for line in lines.replay()? {
        layout.add(&line?.into_row(unit, places));
    }
    let mut table = layout.writer();
    super::stream_stdout(|out| {
        let mut chunk = frame.clone();
        for line in lines.replay()? {
            chunk.push(line?.into_row(unit, places));
            if chunk.rows.len() == store::PAGE {
                out.write(&table.chunk(&chunk))?;
                chunk = frame.clone();
            }
        }
        out.write(&table.chunk(&chunk))?;
        Ok(out.write(&table.end())?)
    })?;
    Ok(())
}

/// The lines of every run `filter` selects, read a page at a time, the least of their
/// figures (all the rate unit depends on), and where their hosts measured.
fn spool_lines(
    store: &dyn Store,
    filter: &RunFilter,
) -> anyhow::Result<(Spool<HistoryLine>, f64, Places)> {
    let mut lines = Spool::new()?;
    let mut least = f64::INFINITY;
    let mut places = Places::default();
    store::for_each_page(store, filter, |mut runs| {
        as_listed(filter, &mut runs);
        runs.iter().for_each(|run| places.add(run));
        let ids: Vec<i64> = runs.iter().filter_map(|r| r.id).collect();
        for line in HistoryLine::of_runs(&runs, &store.summaries_of(&ids)?) {
            least = least.min(RateUnit::least_shown(line.figures()));
            lines.push(&line)?;
        }
        Ok::<_, anyhow::Error>(())
    })?;
    Ok((lines, least, places))
}

/// Every run `filter` selects, as JSON or CSV, written a page at a time.
fn stream(store: &dyn Store, filter: &RunFilter, format: ListFormat) -> anyhow::Result<()> {
    super::stream_stdout(|out| {
        let mut array = JsonArray::new(0);
        let mut pages = 0;
        store::for_each_page(store, filter, |mut runs| {
            as_listed(filter, &mut runs);
            let ids: Vec<i64> = runs.iter().filter_map(|r| r.id).collect();
            let summaries = store.summaries_of(&ids)?;
            match format {
                ListFormat::Csv => {
                    let listing = render::history_csv(&runs, &summaries);
                    out.write(&match pages {
                        0 => listing.to_csv(),
                        _ => listing.to_csv_rows(),
                    })?;
                }
                _ => {
                    for run in &runs {
                        let of_run = summaries.get(&run.id.unwrap_or_default());
                        let element =
                            render::history_json_element(run, of_run.map_or(&[], Vec::as_slice));
                        out.write(&array.element(&element))?;
                    }
                }
            }
            pages += 1;
            Ok::<_, anyhow::Error>(())
        })?;
        match format {
            // the header alone, when no run matched
            ListFormat::Csv if pages == 0 => {
                out.write(&render::history_csv(&[], &Default::default()).to_csv())?
            }
            ListFormat::Csv => {}
            _ => out.write(&(array.end() + "\n"))?,
        }
        Ok(())
    })?;
    Ok(())
}
