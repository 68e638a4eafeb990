//! `iozone show RUN`: one run in full.

use crate::cli::{GlobalArgs, ListFormat, ShowArgs};
use crate::render;
use crate::shell::Shell;
use crate::store::StoreError;

pub fn exec(args: ShowArgs, global: &GlobalArgs, shell: &Shell) -> anyhow::Result<()> {
    let store = super::open_store(global)?;
    let id = store.resolve(&args.run)?;
    let run = store
        .load_run(id)?
        .ok_or_else(|| StoreError::NoSuchRun(args.run.to_string()))?;
    let text = match args.format {
        ListFormat::Json => render::json(&run),
        ListFormat::Csv => crate::export::results_csv(&run),
        ListFormat::Markdown => render::show_text(&run, args.units, false, true),
        ListFormat::Table => render::show_text(&run, args.units, shell.stdout_color(), false),
    };
    super::print_stdout(&text)?;
    Ok(())
}
