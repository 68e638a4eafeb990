//! `iozone history`: filters → store query → listing.

use super::Context;
use crate::cli::{HistoryArgs, ListFormat};
use crate::render;

pub fn exec(args: HistoryArgs, context: &Context) -> anyhow::Result<()> {
    let shell = &context.shell;
    let store = context.read_store()?;
    let limit = (!args.all).then_some(args.limit);
    // one more than shown: the footer says "more" only when there are more
    let filter = super::run_filter(&args.filter, limit.map(|l| l + 1));
    let mut runs = store.list_runs(&filter)?;
    super::killed::show_as_aborted(&mut runs);
    if filter.status == Some(crate::model::RunStatus::Running) {
        runs.retain(|r| r.status == crate::model::RunStatus::Running);
    }
    let more = limit.is_some_and(|l| runs.len() > l);
    runs.truncate(limit.unwrap_or(runs.len()));
    let ids: Vec<i64> = runs.iter().filter_map(|r| r.id).collect();
    // headline figures: measured rounds only, never warm-up
    let results: std::collections::HashMap<_, _> = store
        .results_of(&ids)?
        .into_iter()
        .map(|(id, r)| (id, r.results))
        .collect();
    let text = match args.format {
        ListFormat::Json => render::history_json(&runs, &results),
        ListFormat::Csv => render::history_csv(&runs, &results).to_csv(),
        ListFormat::Markdown => render::history_listing(&runs, &results, args.units)
            .0
            .to_markdown(),
        ListFormat::Table => {
            if runs.is_empty() {
                shell.status(
                    "History",
                    format!("no runs recorded in {} match", store.location()),
                );
                return Ok(());
            }
            render::history_listing(&runs, &results, args.units)
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
