//! `iozone db path|check|migrate`: the database itself.

use super::Context;
use crate::cli::{DbAction, DbArgs};
use crate::killed::{self, Ended};
use crate::shell::Shell;
use crate::store::{self, CheckReport};

/// `db check` found damage; main prints it and exits 2.
#[derive(Debug, thiserror::Error)]
#[error("the database {path} is damaged: {}; {way_out}", problems.join("; "))]
pub struct Damaged {
    path: String,
    problems: Vec<String>,
    way_out: String,
}

/// What to do about damage `db check --repair` repairs.
const REPAIR: &str = "`iozone db check --repair` repairs it";

/// What to do about damage it could not.
const BEYOND_REPAIR: &str = "`iozone db check --repair` could not repair it: restore it from \
                             a backup (SQLite's `.recover` may save what is still readable)";

/// What a database marked damaged means for the commands that write.
const KEPT_OUT: &str = "until then `run`, `import`, `sync` and `db migrate` refuse to write to it";

pub fn exec(args: DbArgs, context: &Context) -> anyhow::Result<()> {
    let shell = &context.shell;
    match args.action {
        DbAction::Path => {
            let (location, _) = context.location()?;
            super::print_stdout(&format!("{}\n", location.display()))?;
        }
        DbAction::Check { repair } => check(context, repair)?,
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

/// `db check [--repair]`: the report on stdout, what is wrong on stderr, exit 2 when
/// the database is damaged; with `--repair`, what it repaired first.
fn check(context: &Context, repair: bool) -> anyhow::Result<()> {
    let shell = &context.shell;
    // only a repair writes (and a change of the mark of damage, below): a check
    // reads, as every read command does
    let mut store = match repair {
        true => context.repair_store()?,
        false => context.read_store()?,
    };
    let mut dead = killed::dead_runs(store.as_ref())?;
    if repair && !dead.is_empty() {
        let marked = killed::mark_ended(store.as_mut(), dead)?;
        for line in killed::said(&marked) {
            shell.status("Marked", line);
        }
        dead = Vec::new();
    }
    let mut report = store.check()?;
    let repaired = repair && (report.damaged() || !report.unstorable.is_empty());
    if repaired {
        for done in store.repair(&report)? {
            shell.status(done.verb, done.what);
        }
        report = store.check()?;
    }
    drop(store);
    let (location, _) = context.location()?;
    let marked = store::record_damage(&location, report.damaged()).unwrap_or_else(|e| {
        shell.warn(format!(
            "the result of this check could not be recorded in the database: {e}"
        ));
        false
    });
    super::print_stdout(&text(&report, &dead))?;
    warn(shell, &report, &dead);
    if report.damaged() {
        let mut problems = report.problems;
        problems.extend(
            report
                .unreadable
                .iter()
                .map(|run| format!("{run}: every command that reads it fails")),
        );
        let mut way_out = (if repaired { BEYOND_REPAIR } else { REPAIR }).to_string();
        if marked {
            way_out = format!("{way_out}; {KEPT_OUT}");
        }
        return Err(Damaged {
            path: report.path,
            problems,
            way_out,
        }
        .into());
    }
    Ok(())
}

/// The report as `db check` prints it.
fn text(report: &CheckReport, dead: &[Ended]) -> String {
    format!(
        "database       {}\nschema         {} (this iozone: {})\nruns           {}\nresults        {}\nunfinished     {}\nintegrity      {}\n",
        report.path,
        report.schema_version,
        report.latest_schema,
        report.runs,
        report.results,
        unfinished(report.unfinished_runs, dead),
        if report.damaged() { "DAMAGED" } else { "ok" },
    )
}

/// The runs still marked running, and of them how many are in progress and how many
/// ended without saying so (as the warnings name them): "2 (1 in progress, 1 killed)".
fn unfinished(marked: u64, dead: &[Ended]) -> String {
    let spooled = dead.iter().filter(|d| d.spooled.is_some()).count();
    let killed = dead.len() - spooled;
    if dead.is_empty() {
        return marked.to_string();
    }
    let in_progress = (marked as usize).saturating_sub(dead.len());
    let parts: Vec<String> = [
        (in_progress, "in progress"),
        (killed, "killed"),
        (spooled, "not recorded, spooled"),
    ]
    .into_iter()
    .filter(|&(n, _)| n > 0)
    .map(|(n, what)| format!("{n} {what}"))
    .collect();
    format!("{marked} ({})", parts.join(", "))
}

/// What is wrong but does not make the database damaged, and each damaged run, on
/// stderr.
fn warn(shell: &Shell, report: &CheckReport, dead: &[Ended]) {
    for line in killed::said(dead) {
        shell.warn(format!(
            "{line} (it is still marked running; `iozone db check --repair` marks it so)"
        ));
    }
    let in_progress = (report.unfinished_runs as usize).saturating_sub(dead.len());
    if in_progress > 0 {
        let runs = match in_progress {
            1 => "1 run is".to_string(),
            n => format!("{n} runs are"),
        };
        shell.warn(format!(
            "{runs} still marked running: in progress, or killed before it could finish on \
             another machine"
        ));
    }
    for run in &report.unstorable {
        shell.warn(format!(
            "{run}: `sync` and `import` refuse it; `iozone db check --repair` removes it"
        ));
    }
}
