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
        DbAction::Check => {
            let store = context.read_store()?;
            let report = store.check()?;
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
            if report.unfinished_runs > 0 {
                shell.warn(format!(
                    "{} run(s) are still marked running: in progress, or killed before they could finish",
                    report.unfinished_runs
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
