//! One file per subcommand: each takes its arguments and the [`Context`] main built
//! (the shell, the database), turns the arguments into model values, calls the
//! library, and hands the result to a renderer.

mod compare;
mod completions;
mod context;
mod db;
mod export;
mod history;
mod import;
mod info;
mod man;
mod report;
mod run;
mod show;
mod sync;
mod trend;

use std::io::Write;

pub use compare::RegressionsFound;
pub use context::Context;
pub use run::{Interrupted, NotRecorded};

use crate::bench::{BenchError, PlanError};
use crate::cli::{Command, FilterArgs, IgnoreParam, StatusArg};
use crate::compare::{CompareError, Ignored, RunsRead};
use crate::model::{Run, RunStatus};
use crate::output::{self, Output, OutputError};
use crate::render;
use crate::selector::{RunFilter, Selector};
use crate::shell::Shell;
use crate::store::{NotALocation, Store, StoreError};

/// Runs one command; the error, if any, is for main to print and turn into a status.
pub fn dispatch(command: Command, context: &Context) -> anyhow::Result<()> {
    if let Some(filter) = command.filter() {
        check_time_range(filter)?;
    }
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
        Command::Man(args) => man::exec(args, context),
    }
}

/// The signal that stopped the command, if one did: a run, or an output file written
/// aside (whose exit status is then 128 + the signal, as a shell's would be).
pub fn interrupted_by(error: &anyhow::Error) -> Option<i32> {
    if let Some(Interrupted(signal)) = error.downcast_ref::<Interrupted>() {
        return Some(*signal);
    }
    match error.downcast_ref::<OutputError>() {
        Some(OutputError::Interrupted { signal, .. }) => Some(*signal),
        _ => None,
    }
}

/// The exit statuses main returns, named once: main decides them, the manual lists them.
pub mod exit_status {
    /// `compare --fail-on-regression` found a regression (the report said which).
    pub const REGRESSION: u8 = 1;
    /// Bad input or an error: one line on stderr (a usage error: clap's message).
    pub const ERROR: u8 = 2;
    /// A run measured and printed but not recorded: it waits in the spool.
    pub const NOT_RECORDED: u8 = 3;
    /// Ended by a signal: this plus its number (130 for Ctrl-C, 143 for SIGTERM).
    pub const SIGNAL_BASE: u8 = 128;
}

/// An error as printed: its chain on one line, each cause once (an error that shows
/// its source in its own message is followed by that source in the chain), with what a
/// lower layer could not say in the command line's words: the flag behind a
/// parameter, the flag that is the way out.
pub fn error_message(error: &anyhow::Error) -> String {
    let root = error.root_cause();
    let mut parts: Vec<String> = error.chain().map(ToString::to_string).collect();
    if let (Some(last), Some(worded)) = (parts.last_mut(), in_flags(root)) {
        *last = worded;
    }
    let mut text = String::new();
    for part in parts {
        // a cause is said when its last words are ("Error code 13: database or disk is
        // full" after a message that ends in "database or disk is full")
        let cause = part.rsplit(": ").next().unwrap_or_default();
        if cause.is_empty() || text.contains(cause) {
            continue;
        }
        if !text.is_empty() {
            text.push_str(": ");
        }
        text.push_str(&part);
    }
    format!("{text}{}", way_out(root))
}

/// A lower layer's refusal of a parameter, worded with the flag that set it.
fn in_flags(root: &(dyn std::error::Error + 'static)) -> Option<String> {
    let plan = match root.downcast_ref::<BenchError>() {
        Some(BenchError::InvalidPlan(plan)) => Some(plan),
        _ => root.downcast_ref::<PlanError>(),
    };
    if let Some(plan) = plan {
        return Some(run::plan_message(plan));
    }
    match root.downcast_ref::<CompareError>()? {
        CompareError::Threshold(pct) => Some(format!(
            "--threshold must be between 0 and 100 (percent), not {pct}"
        )),
        CompareError::Alpha(alpha) => Some(format!(
            "--alpha must be between 0 and 1 (exclusive), not {alpha}"
        )),
        CompareError::NothingInCommon => None,
    }
}

/// The end of a message that names the flag to change: the store does not know how it
/// was chosen, the engine and the comparison do not know the flags that set them.
pub(crate) fn way_out(root: &(dyn std::error::Error + 'static)) -> String {
    if root.downcast_ref::<CompareError>() == Some(&CompareError::NothingInCommon) {
        return "; --ignore-param can drop a parameter from the match".into();
    }
    if let Some(e) = root.downcast_ref::<BenchError>() {
        return match e {
            BenchError::ReadOnly(_) | BenchError::NoPermission(_) => {
                "; choose a writable directory with --dir"
            }
            BenchError::NoSpace { .. } => "; use a smaller --size or fewer --threads",
            BenchError::DirectUnsupported(_) => "; use --cache flush instead",
            BenchError::UringUnavailable(_) => "; use --engine pread",
            BenchError::Replaced(_) => "; choose a directory only you can write to with --dir",
            _ => "",
        }
        .into();
    }
    if let Some(OutputError::Exists(_)) = root.downcast_ref::<OutputError>() {
        return "; --force replaces it".into();
    }
    if let Some(other) = root.downcast_ref::<OtherDatabase>() {
        return database_way_out(&other.error, other.flag);
    }
    // a location refused under --db (sync's --to and --from come in `OtherDatabase`)
    if let Some(refused) = root.downcast_ref::<NotALocation>() {
        return match refused.may_be_a_file() {
            true => "; to use a file of that name, give it with --db-file".into(),
            false => String::new(),
        };
    }
    root.downcast_ref::<StoreError>()
        .map(|e| database_way_out(e, "--db"))
        .unwrap_or_default()
}

fn database_way_out(e: &StoreError, flag: &str) -> String {
    match e {
        StoreError::Open { .. } | StoreError::NotWritable { .. } => {
            format!(", or choose another with {flag}")
        }
        StoreError::NotAFile { .. } => format!("; choose a database file with {flag}"),
        StoreError::NotIozone(_) => format!("; choose another file with {flag}"),
        _ => String::new(),
    }
}

/// A store error of a database named by a flag other than `--db` (`sync --to/--from`),
/// so that the way out names that flag.
#[derive(Debug, thiserror::Error)]
#[error("{error}")]
pub(crate) struct OtherDatabase {
    pub flag: &'static str,
    pub error: StoreError,
}

/// Data goes to stdout; a closed pipe surfaces as an error for main to treat as success.
pub(crate) fn print_stdout(text: &str) -> std::io::Result<()> {
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())?;
    out.flush()
}

/// What an output may do to the path the user names: replace a file only with
/// `--force`, and never write over the database's files or a spooled run.
pub(crate) fn output_policy(context: &Context, force: bool) -> output::Policy {
    // a location that cannot be parsed has no file to protect (and a command that
    // opens it fails on it)
    let database = match context.location() {
        Ok((location, _)) => crate::store::database_files(&location),
        Err(_) => Vec::new(),
    };
    let spooled = crate::store::spooled_files().into_iter().map(|path| {
        (
            path,
            "a run waiting in the spool (iozone import records it)".into(),
        )
    });
    output::Policy {
        replace: force,
        protected: (database.into_iter().chain(spooled))
            .map(|(path, what)| output::Protected { path, what })
            .collect(),
    }
}

/// Writes `text` whole to the output `path` names (`-` is stdout); true when a path.
pub(crate) fn write_output(
    path: &std::path::Path,
    force: bool,
    context: &Context,
    text: &str,
) -> anyhow::Result<bool> {
    output::write(path, &output_policy(context, force), text)?;
    Ok(path.as_os_str() != "-")
}

/// Streams into the output `path` names what `write` produces, as it is produced:
/// a file appears whole, or not at all when `write` fails; true when a path.
pub(crate) fn stream_output(
    path: &std::path::Path,
    force: bool,
    context: &Context,
    write: impl FnOnce(&mut Output) -> anyhow::Result<()>,
) -> anyhow::Result<bool> {
    let mut output = Output::open(path, &output_policy(context, force))?;
    let to_path = !output.is_stdout();
    // dropped unfinished on an error: a file's temporary copy goes with it
    write(&mut output)?;
    output.finish()?;
    Ok(to_path)
}

/// Streams to stdout what `write` produces, as it is produced.
pub(crate) fn stream_stdout(
    write: impl FnOnce(&mut Output) -> anyhow::Result<()>,
) -> anyhow::Result<()> {
    let mut output = Output::open("-".as_ref(), &output::Policy::default())?;
    write(&mut output)?;
    Ok(output.finish()?)
}

/// An empty time range is a mistake (the two swapped, most likely), not a question
/// whose answer is "no runs".
fn check_time_range(filter: &FilterArgs) -> anyhow::Result<()> {
    match (filter.since, filter.until) {
        (Some(since), Some(until)) if since >= until => anyhow::bail!(
            "--since is not before --until: no run can be in that range; did you swap them?"
        ),
        _ => Ok(()),
    }
}

/// The filter flags as the store's filter; `limit` keeps the newest that many.
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
        iodepth: None,
        limit,
        ..RunFilter::default()
    }
}

/// Runs `--explain` lists a side's, newest first.
const EXPLAINED_RUNS: usize = 20;

/// How a side's selector was read and what it selected, on stderr: always for a
/// selector that names runs and sets conditions too (its conditions narrow the runs
/// named, which a reader may not expect), for every side when `explain`, then with a
/// line per run.
pub(crate) fn say_selection(
    shell: &Shell,
    store: &dyn Store,
    side: &str,
    selector: &Selector,
    runs: &[Run],
    explain: bool,
) -> anyhow::Result<()> {
    if !(explain || selector.mixes()) {
        return Ok(());
    }
    // a bare word is a label or a UUID prefix, as the store read it
    let read = crate::store::read_selector(store, selector)?;
    if !(explain || read.mixes()) {
        return Ok(());
    }
    shell.status(
        "Selected",
        render::selection_line(side, &selector.text, &read.reading(), runs),
    );
    if explain {
        // a fleet's side may be thousands of runs: the newest are enough to check it by
        for line in render::selected_runs(&runs[..runs.len().min(EXPLAINED_RUNS)]) {
            shell.continued(line);
        }
        if runs.len() > EXPLAINED_RUNS {
            shell.continued(format!(
                "… and {}; `iozone history` lists them",
                crate::units::count(runs.len() - EXPLAINED_RUNS, "older run")
            ));
        }
    }
    Ok(())
}

/// A run on both sides, said once on stderr (nothing in the comparison shows it).
pub(crate) fn warn_overlap(shell: &Shell, base: &RunsRead, cand: &RunsRead) {
    if let Some(overlap) = crate::compare::overlap(base, cand) {
        shell.warn(overlap.to_string());
    }
}

/// The parameters `--ignore-param` drops from the match.
pub(crate) fn ignored(params: &[IgnoreParam]) -> Ignored {
    Ignored {
        engine: params.contains(&IgnoreParam::Engine),
        cache: params.contains(&IgnoreParam::Cache),
        iodepth: params.contains(&IgnoreParam::Iodepth),
        threads: params.contains(&IgnoreParam::Threads),
        file_size: params.contains(&IgnoreParam::FileSize),
        clients: params.contains(&IgnoreParam::Clients),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn exists_text() -> String {
        std::io::Error::from_raw_os_error(17).to_string()
    }

    #[test]
    fn store_errors_end_with_the_flag_that_gets_past_them() {
        let not_ours = anyhow::Error::new(StoreError::NotIozone("x.db".into())).context("saving");
        assert_eq!(
            error_message(&not_ours),
            "saving: x.db is not an iozone database; choose another file with --db"
        );
        let closed = anyhow::Error::new(StoreError::Open {
            path: "/no/x.db".into(),
            reason: "unable to open".into(),
        });
        assert_eq!(
            error_message(&closed),
            "cannot open the database /no/x.db: unable to open, or choose another with --db"
        );
        let other = anyhow::Error::new(StoreError::NoSuchRun("7".into()));
        assert_eq!(error_message(&other), format!("{other:#}"));
        // a cause its error's message shows already is not said twice
        let full = rusqlite::Error::SqliteFailure(
            rusqlite::ffi::Error::new(rusqlite::ffi::SQLITE_FULL),
            Some("database or disk is full".into()),
        );
        let full = anyhow::Error::new(StoreError::Sql {
            path: "/t/x.db".into(),
            source: full,
        })
        .context("recording the run");
        assert_eq!(
            error_message(&full),
            "recording the run: database error on /t/x.db: database or disk is full"
        );
        let exists = std::io::Error::from_raw_os_error(17);
        let exists = anyhow::Error::new(exists).context(format!("creating x: {}", exists_text()));
        assert_eq!(
            error_message(&exists),
            format!("creating x: {}", exists_text())
        );
        // sync's other database is named by --to or --from, not --db
        let remote = anyhow::Error::new(OtherDatabase {
            flag: "--from",
            error: StoreError::NotIozone("x.db".into()),
        });
        assert_eq!(
            error_message(&remote),
            "x.db is not an iozone database; choose another file with --from"
        );
    }
}
