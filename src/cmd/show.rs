//! `iozone show RUN`: one run in full.

use super::Context;
use crate::cli::{ListFormat, ShowArgs};
use crate::render::{self, TextStyle};
use crate::store::StoreError;

pub fn exec(args: ShowArgs, context: &Context) -> anyhow::Result<()> {
    let shell = &context.shell;
    let store = context.read_store()?;
    let id = store.resolve(&args.run)?;
    let run = store
        .load_run(id)?
        .ok_or_else(|| StoreError::NoSuchRun(args.run.to_string()))?;
    let text = match args.format {
        ListFormat::Json => render::json(&run),
        ListFormat::Csv => crate::export::results_csv(&run),
        ListFormat::Markdown => render::show_text(&run, args.units, TextStyle::Markdown),
        ListFormat::Table => render::show_text(&run, args.units, shell.table_style()),
    };
    super::print_stdout(&text)?;
    Ok(())
}
