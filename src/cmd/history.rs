//! `iozone history`: filters → store query → listing.

use super::Context;
use crate::cli::{HistoryArgs, ListFormat};
use crate::render;

pub fn exec(args: HistoryArgs, context: &Context) -> anyhow::Result<()> {
    let shell = &context.shell;
    let store = context.read_store()?;
    let limit = (!args.all).then_some(args.limit);
    let runs = store.list_runs(&super::run_filter(&args.filter, limit))?;
    let text = match args.format {
        ListFormat::Json => render::history_json(&runs),
        format => {
            let ids: Vec<i64> = runs.iter().filter_map(|r| r.id).collect();
            // headline figures: measured rounds only, never warm-up
            let results: std::collections::HashMap<_, _> = store
                .results_of(&ids)?
                .into_iter()
                .map(|(id, r)| (id, r.results))
                .collect();
            match format {
                ListFormat::Csv => render::history_csv(&runs, &results).to_csv(),
                ListFormat::Markdown => render::history_listing(&runs, &results, args.units)
                    .0
                    .to_markdown(),
                _ => {
                    if runs.is_empty() {
                        shell.status(
                            "History",
                            format!("no runs recorded in {} match", store.location()),
                        );
                        return Ok(());
                    }
                    render::history_listing(&runs, &results, args.units)
                        .0
                        .to_table()
                }
            }
        }
    };
    if limit == Some(runs.len()) {
        shell.status(
            "Showing",
            format!(
                "the newest {} runs; --limit N or --all for more",
                runs.len()
            ),
        );
    }
    super::print_stdout(&text)?;
    Ok(())
}
