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
use chrono::{DateTime, Duration, NaiveDate, Utc};

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

/// `--since`: a date means its midnight (UTC), a time itself, an age that long ago.
pub fn parse_since(text: &str) -> Result<DateTime<Utc>, String> {
    parse_when(text, false)
}

/// `--until`: as `--since`, but a date means the end of that day.
pub fn parse_until(text: &str) -> Result<DateTime<Utc>, String> {
    parse_when(text, true)
}

fn parse_when(text: &str, end_of_day: bool) -> Result<DateTime<Utc>, String> {
    let t = text.trim();
    if let Ok(time) = DateTime::parse_from_rfc3339(t) {
        return Ok(time.with_timezone(&Utc));
    }
    if let Ok(date) = NaiveDate::parse_from_str(t, "%Y-%m-%d") {
        let day = if end_of_day {
            date.succ_opt().unwrap_or(date)
        } else {
            date
        };
        return Ok(day.and_hms_opt(0, 0, 0).expect("midnight exists").and_utc());
    }
    age(t)
        .map(|ago| Utc::now() - ago)
        .ok_or_else(|| {
            format!(
                "invalid time '{text}': expected a date (2026-11-01), an RFC 3339 time, or an age (30m, 12h, 7d, 2w)"
            )
        })
}

fn age(text: &str) -> Option<Duration> {
    let split = text.find(|c: char| !c.is_ascii_digit())?;
    let (number, unit) = text.split_at(split);
    let n: i64 = number.parse().ok()?;
    match unit {
        "m" | "min" => Duration::try_minutes(n),
        "h" => Duration::try_hours(n),
        "d" => Duration::try_days(n),
        "w" => Duration::try_weeks(n),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_dates_and_ages() {
        assert_eq!(
            parse_since("2026-11-01").unwrap().to_rfc3339(),
            "2026-11-01T00:00:00+00:00"
        );
        assert_eq!(
            parse_until("2026-11-01").unwrap().to_rfc3339(),
            "2026-11-02T00:00:00+00:00"
        );
        assert_eq!(
            parse_since("2026-11-01T10:00:00+02:00")
                .unwrap()
                .to_rfc3339(),
            "2026-11-01T08:00:00+00:00"
        );
        let week = Utc::now() - parse_since("7d").unwrap();
        assert!((week - Duration::days(7)).num_seconds().abs() < 5);
        assert!(
            parse_since("12h").is_ok() && parse_since("2w").is_ok() && parse_since("30m").is_ok()
        );
        assert!(parse_since("7x").is_err());
        assert!(parse_since("yesterday").is_err());
        assert!(parse_since("").is_err());
        assert!(parse_since("99999999999999999999d").is_err());
    }
}
