//! `iozone show RUN`: one run in full.

use super::Context;
use crate::cli::{ListFormat, ShowArgs};
use crate::render::{self, TextStyle};
use crate::store::StoreError;

pub fn exec(args: ShowArgs, context: &Context) -> anyhow::Result<()> {
    let shell = &context.shell;
    let store = context.read_store()?;
    let id = store.resolve(&args.run)?;
    let mut run = store
        .load_run(id)?
        .ok_or_else(|| StoreError::NoSuchRun(args.run.to_string()))?;
    // a run whose process is gone is shown as `history` lists it, not as `running`
    crate::killed::show_as_ended(std::slice::from_mut(&mut run));
    let text = match args.format {
        ListFormat::Json => render::json(&run),
        ListFormat::Csv => crate::export::results_csv(&run),
        ListFormat::Markdown => render::show_text(&run, args.units, TextStyle::Markdown),
        ListFormat::Table => render::show_text(&run, args.units, shell.table_style()),
    };
    super::print_stdout(&text)?;
    Ok(())
}
