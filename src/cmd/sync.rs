//! `iozone sync --to URL | --from URL`: runs move between two databases by UUID, in
//! batches of one transaction each, so a second sync moves nothing and an interrupted
//! one resumes where it stopped. The source is read a page at a time: memory holds a
//! page and a batch, not the database.

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
    // oldest first, so the target numbers them in the order they ran; read a page at a
    // time, each batch's results only when it is sent
    let mut filter = super::run_filter(&args.filter, None);
    filter.oldest_first = true;
    let mut moved = 0;
    let mut present = 0;
    let mut running = 0;
    let mut batch: Vec<Run> = Vec::new();
    let batch_size = args.batch as usize;
    let mut send = |batch: Vec<Run>| -> anyhow::Result<()> {
        let uuids: Vec<uuid::Uuid> = batch.iter().map(|r| r.uuid).collect();
        let known = target.known_uuids(&uuids)?;
        let missing: Vec<Run> = batch
            .into_iter()
            .filter(|r| !known.contains(&r.uuid))
            .collect();
        present += known.len();
        if !missing.is_empty() {
            let missing = store::with_results(&*source, missing, store::Detail::Full)?;
            moved += target.save_runs(&missing)?;
        }
        Ok(())
    };
    store::for_each_page(&*source, &filter, |runs| {
        for run in runs {
            // a run still marked running is in progress (or was killed): it has no
            // figures yet
            if run.status == RunStatus::Running {
                running += 1;
                continue;
            }
            batch.push(run);
            if batch.len() == batch_size {
                send(std::mem::take(&mut batch))?;
            }
        }
        Ok::<_, anyhow::Error>(())
    })?;
    if !batch.is_empty() {
        send(batch)?;
    }
    let mut message = format!(
        "{moved} run{} {} {} ({present} already there)",
        if moved == 1 { "" } else { "s" },
        if sending { "to" } else { "from" },
        remote_location.display()
    );
    if running > 0 {
        message.push_str(&format!(
            "; {running} still running or unfinished, not sent"
        ));
    }
    shell.status("Synced", message);
    Ok(())
}
