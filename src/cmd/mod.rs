//! One file per subcommand: each turns its arguments into model values, calls the
//! library, and hands the result to a renderer.

mod compare;
mod completions;
mod context;
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

pub use compare::RegressionsFound;
pub use context::Context;
pub use run::Interrupted;

use crate::cli::{Command, FilterArgs, StatusArg};
use crate::model::RunStatus;
use crate::selector::RunFilter;

/// Runs one command; the error, if any, is for main to print and turn into a status.
pub fn dispatch(command: Command, context: &Context) -> anyhow::Result<()> {
    match command {
        Command::Run(args) => run::exec(args, context),
        Command::History(args) => history::exec(args, context),
        Command::Show(args) => show::exec(args, context),
        Command::Info(args) => info::exec(args),
        Command::Compare(args) => compare::exec(args, context),
        Command::Trend(args) => trend::exec(args, context),
        Command::Db(args) => db::exec(args, context),
        Command::Export(args) => export::exec(args, context),
        Command::Import(args) => import::exec(args, context),
        Command::Report(args) => report::exec(args, context),
        Command::Sync(args) => sync::exec(args, context),
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
