//! `iozone sync --to URL | --from URL`: runs move between two databases by UUID, in
//! batches of one transaction each, so a second sync moves nothing and an interrupted
//! one resumes where it stopped. The source is read a page at a time: memory holds a
//! page and a batch, not the database.

use super::Context;
use crate::cli::SyncArgs;
use crate::model::{Run, RunStatus};
use crate::selector::RunFilter;
use crate::store::{self, Detail, Location, Store};

pub fn exec(args: SyncArgs, context: &Context) -> anyhow::Result<()> {
    let shell = &context.shell;
    let (remote_text, sending) = match (&args.to, &args.from) {
        (Some(to), _) => (to, true),
        (None, Some(from)) => (from, false),
        (None, None) => unreachable!("clap requires --to or --from"),
    };
    let flag = if sending { "--to" } else { "--from" };
    let remote_location = Location::parse(remote_text).map_err(|refused| super::OtherDatabase {
        flag,
        error: refused.into(),
    })?;
    // the side sent from is only read
    let (local, remote) = match sending {
        true => (context.read_store()?, store::open(&remote_location)),
        false => (context.open_store()?, store::open_to_read(&remote_location)),
    };
    let remote = remote.map_err(|error| super::OtherDatabase { flag, error })?;
    // a second connection to the target, which only asks what it already has: the
    // source is read a batch ahead on a thread of its own while the target writes
    let target_reader = match sending {
        true => store::open_to_read(&remote_location)
            .map_err(|error| super::OtherDatabase { flag, error })?,
        false => context.read_store()?,
    };
    let (source, mut target) = match sending {
        true => (local, remote),
        false => (remote, local),
    };
    // oldest first, so the target numbers them in the order they ran
    let mut filter = super::run_filter(&args.filter, None);
    filter.oldest_first = true;
    let batch_size = args.batch as usize;
    let mut moved = 0;
    let (written, read) = std::thread::scope(|scope| {
        // one batch in flight: memory holds the batch written and the one read next
        let (batches, received) = std::sync::mpsc::sync_channel::<Vec<Run>>(1);
        let reader = scope.spawn(move || {
            read_missing(&*source, &*target_reader, &filter, batch_size, |batch| {
                // the writer stopped, and tells why
                batches
                    .send(batch)
                    .map_err(|_| anyhow::anyhow!("the target stopped"))
            })
        });
        // consumes the receiver, so that a failed write stops the reader too
        let write = || -> anyhow::Result<()> {
            for batch in received {
                moved += target.save_runs(&batch)?;
            }
            Ok(())
        };
        let written = write();
        (
            written,
            reader.join().expect("reading the source does not panic"),
        )
    });
    written?;
    let (present, running) = read?;
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

/// Reads the runs `filter` selects from `source` a page at a time and hands `send` each
/// batch of those `target` does not have, with their results; stops at `send`'s error.
/// Returns how many were already there and how many were still running.
fn read_missing(
    source: &dyn Store,
    target: &dyn Store,
    filter: &RunFilter,
    batch_size: usize,
    mut send: impl FnMut(Vec<Run>) -> anyhow::Result<()>,
) -> anyhow::Result<(usize, usize)> {
    let mut present = 0;
    let mut running = 0;
    let mut batch: Vec<Run> = Vec::new();
    let mut missing = |batch: Vec<Run>| -> anyhow::Result<()> {
        let uuids: Vec<uuid::Uuid> = batch.iter().map(|r| r.uuid).collect();
        let known = target.known_uuids(&uuids)?;
        present += known.len();
        let missing: Vec<Run> = batch
            .into_iter()
            .filter(|r| !known.contains(&r.uuid))
            .collect();
        if missing.is_empty() {
            return Ok(());
        }
        send(store::with_results(source, missing, Detail::Full)?)
    };
    store::for_each_page(source, filter, |runs| {
        for run in runs {
            // a run still marked running is in progress (or was killed): it has no
            // figures yet
            if run.status == RunStatus::Running {
                running += 1;
                continue;
            }
            batch.push(run);
            if batch.len() == batch_size {
                missing(std::mem::take(&mut batch))?;
            }
        }
        Ok::<_, anyhow::Error>(())
    })?;
    if !batch.is_empty() {
        missing(batch)?;
    }
    Ok((present, running))
}
