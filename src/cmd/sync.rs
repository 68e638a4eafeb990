//! `iozone sync --to URL | --from URL`: runs move between two databases by UUID, in
//! batches of one transaction each, so a second sync moves nothing and an interrupted
//! one resumes where it stopped.

use super::Context;
use crate::cli::SyncArgs;
use crate::model::{Run, RunStatus};
use crate::store::{self, Location};

pub fn exec(args: SyncArgs, context: &Context) -> anyhow::Result<()> {
    let shell = &context.shell;
    let (remote_text, sending) = match (&args.to, &args.from) {
        (Some(to), _) => (to, true),
        (None, Some(from)) => (from, false),
        (None, None) => unreachable!("clap requires --to or --from"),
    };
    let remote_location = Location::parse(remote_text)?;
    let flag = if sending { "--to" } else { "--from" };
    // the side sent from is only read
    let (local, remote) = match sending {
        true => (context.read_store()?, store::open(&remote_location)),
        false => (context.open_store()?, store::open_to_read(&remote_location)),
    };
    let remote = remote.map_err(|error| super::OtherDatabase { flag, error })?;
    let (source, mut target) = match sending {
        true => (local, remote),
        false => (remote, local),
    };
    let mut runs = source.list_runs(&super::run_filter(&args.filter, None))?;
    // oldest first, so the target numbers them in the order they ran
    runs.reverse();
    // a run still marked running is in progress (or was killed): it has no figures yet
    let (running, runs): (Vec<Run>, Vec<Run>) = runs
        .into_iter()
        .partition(|r| r.status == RunStatus::Running);
    let mut moved = 0;
    let mut present = 0;
    for batch in runs.chunks(args.batch as usize) {
        let uuids: Vec<uuid::Uuid> = batch.iter().map(|r| r.uuid).collect();
        let known = target.known_uuids(&uuids)?;
        let missing: Vec<Run> = batch
            .iter()
            .filter(|r| !known.contains(&r.uuid))
            .cloned()
            .collect();
        present += known.len();
        if !missing.is_empty() {
            let missing = store::with_results(&*source, missing)?;
            moved += target.save_runs(&missing)?;
        }
    }
    let mut message = format!(
        "{moved} run{} {} {} ({present} already there)",
        if moved == 1 { "" } else { "s" },
        if sending { "to" } else { "from" },
        remote_location.display()
    );
    if !running.is_empty() {
        message.push_str(&format!(
            "; {} still running or unfinished, not sent",
            running.len()
        ));
    }
    shell.status("Synced", message);
    Ok(())
}
