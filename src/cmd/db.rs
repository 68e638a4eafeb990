//! `iozone db path|check|migrate`: the database itself.

use super::Context;
use crate::cli::{DbAction, DbArgs};
use crate::store;

/// `db check` found damage; main prints it and exits 2.
#[derive(Debug, thiserror::Error)]
#[error("the database {path} has problems: {}", problems.join("; "))]
pub struct Damaged {
    path: String,
    problems: Vec<String>,
}

pub fn exec(args: DbArgs, context: &Context) -> anyhow::Result<()> {
    let shell = &context.shell;
    match args.action {
        DbAction::Path => {
            let (location, _) = context.location()?;
            super::print_stdout(&format!("{}\n", location.display()))?;
        }
        DbAction::Check { repair } => {
            // only a repair writes: a check reads, as every read command does
            let mut store = match repair {
                true => context.open_store()?,
                false => context.read_store()?,
            };
            let mut dead = super::killed::dead_runs(store.as_ref())?;
            if repair && !dead.is_empty() {
                let marked = super::killed::mark_aborted(store.as_mut(), dead)?;
                shell.status(
                    "Marked",
                    format!(
                        "{} aborted: killed before it could finish",
                        super::killed::run_ids(&marked)
                    ),
                );
                dead = Vec::new();
            }
            let mut report = store.check()?;
            report.unfinished_runs = report.unfinished_runs.saturating_sub(dead.len() as u64);
            let text = format!(
                "database       {}\nschema         {} (this iozone: {})\nruns           {}\nresults        {}\nunfinished     {}\nintegrity      {}\n",
                report.path,
                report.schema_version,
                report.latest_schema,
                report.runs,
                report.results,
                report.unfinished_runs,
                if report.problems.is_empty() {
                    "ok"
                } else {
                    "DAMAGED"
                },
            );
            super::print_stdout(&text)?;
            if !dead.is_empty() {
                let ids: Vec<i64> = dead.iter().filter_map(|r| r.id).collect();
                shell.warn(format!(
                    "{} aborted: marked running, but killed before it could finish (the \
                     machine booted since, or its process is gone); `iozone db check \
                     --repair` marks it so",
                    super::killed::run_ids(&ids)
                ));
            }
            if report.unfinished_runs > 0 {
                let (runs, are) = match report.unfinished_runs {
                    1 => ("1 run is".to_string(), ""),
                    n => (format!("{n} runs"), " are"),
                };
                shell.warn(format!(
                    "{runs}{are} still marked running: in progress, or killed before they could finish"
                ));
            }
            if !report.problems.is_empty() {
                return Err(Damaged {
                    path: report.path,
                    problems: report.problems,
                }
                .into());
            }
        }
        DbAction::Migrate => {
            let (location, _) = context.location()?;
            let (before, after) = store::migrate(&location)?;
            let message = match before == after {
                true => format!("{} is at schema {after}, the latest", location.display()),
                false => format!("{} from schema {before} to {after}", location.display()),
            };
            let verb = if before == after {
                "Checked"
            } else {
                "Migrated"
            };
            shell.status(verb, message);
        }
    }
    Ok(())
}
