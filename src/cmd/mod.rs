//! One file per subcommand: each turns its arguments into model values, calls the
//! library, and hands the result to a renderer.

mod compare;
mod completions;
mod db;
mod export;
mod history;
mod import;
mod info;
mod report;
mod run;
mod show;
mod sync;
mod trend;

use std::io::Write;

use anyhow::Context;

pub use compare::RegressionsFound;
pub use run::Interrupted;

use crate::cli::{Command, FilterArgs, GlobalArgs, StatusArg};
use crate::model::RunStatus;
use crate::selector::RunFilter;
use crate::shell::Shell;
use crate::store::{self, Location, Store};

pub fn dispatch(command: Command, global: &GlobalArgs, shell: &Shell) -> anyhow::Result<()> {
    match command {
        Command::Run(args) => run::exec(args, global, shell),
        Command::History(args) => history::exec(args, global, shell),
        Command::Show(args) => show::exec(args, global, shell),
        Command::Info(args) => info::exec(args, shell),
        Command::Compare(args) => compare::exec(args, global, shell),
        Command::Trend(args) => trend::exec(args, global, shell),
        Command::Db(args) => db::exec(args, global, shell),
        Command::Export(args) => export::exec(args, global, shell),
        Command::Import(args) => import::exec(args, global, shell),
        Command::Report(args) => report::exec(args, global, shell),
        Command::Sync(args) => sync::exec(args, global, shell),
        Command::Completions(args) => completions::completions(args),
        Command::Man => completions::man(),
    }
}

/// Data goes to stdout; a closed pipe surfaces as an error for main to treat as success.
pub(crate) fn print_stdout(text: &str) -> std::io::Result<()> {
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())?;
    out.flush()
}

/// `--db`, else `IOZONE_DB` (clap reads both into `global.db`), else the data directory.
/// The flag says whether it is the default, whose directory may need creating.
pub(crate) fn db_location(global: &GlobalArgs) -> anyhow::Result<(Location, bool)> {
    match &global.db {
        Some(text) => Ok((Location::parse(text), false)),
        None => store::default_path()
            .map(|p| (Location::Sqlite(p), true))
            .context("no home directory to keep the database in; choose one with --db"),
    }
}

pub(crate) fn open_store(global: &GlobalArgs) -> anyhow::Result<Box<dyn Store>> {
    let (location, is_default) = db_location(global)?;
    if let (Location::Sqlite(path), true) = (&location, is_default)
        && let Some(parent) = path.parent()
    {
        std::fs::create_dir_all(parent).with_context(|| {
            format!(
                "cannot create {}; choose a file with --db",
                parent.display()
            )
        })?;
    }
    Ok(store::open(&location)?)
}

pub(crate) fn run_filter(args: &FilterArgs, limit: Option<usize>) -> RunFilter {
    RunFilter {
        host: args.host.clone(),
        fs: args.fs.clone(),
        labels: args.labels.clone(),
        tags: args.tags.clone(),
        test: args.test,
        record: args.record.map(|r| r.bytes()),
        since: args.since,
        until: args.until,
        status: args.status.map(|s| match s {
            StatusArg::Running => RunStatus::Running,
            StatusArg::Complete => RunStatus::Complete,
            StatusArg::Aborted => RunStatus::Aborted,
            StatusArg::Failed => RunStatus::Failed,
        }),
        engine: None,
        cache: None,
        limit,
    }
}
