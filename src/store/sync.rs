//! Runs moved from one database to another by UUID, in batches of one transaction
//! each, so a second move finds nothing to do and an interrupted one resumes where it
//! stopped. The source is read a page at a time on a thread of its own, a batch ahead
//! of the target's writes: memory holds a page and two batches, not the database.

use super::{Detail, RunFilter, Store, StoreError, for_each_page, with_results};
use crate::model::{Run, RunStatus};

/// What a move did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Moved {
    /// Runs written to the target.
    pub moved: usize,
    /// Runs the target had already.
    pub present: usize,
    /// Runs still running (or never ended) in the source, left where they are.
    pub running: usize,
}

/// Moves the runs `filter` selects from `source` to `target` (in `filter`'s order),
/// `batch_size` runs a transaction, those `target` already has left out: asked through
/// `target_reader`, a second connection to the target, so that the reading never
/// waits for a write.
pub fn move_runs(
    source: Box<dyn Store>,
    target_reader: Box<dyn Store>,
    target: &mut dyn Store,
    filter: &RunFilter,
    batch_size: usize,
) -> Result<Moved, StoreError> {
    let mut moved = 0;
    let (written, read) = std::thread::scope(|scope| {
        // one batch in flight: memory holds the batch written and the one read next
        let (batches, received) = std::sync::mpsc::sync_channel::<Vec<Run>>(1);
        let reader = scope.spawn(move || {
            read_missing(&*source, &*target_reader, filter, batch_size, |batch| {
                // a closed channel: the writer stopped, and tells why
                batches.send(batch).map_err(|_| Stopped::Target)
            })
        });
        // consumes the receiver, so that a failed write stops the reader too
        let write = || -> Result<(), StoreError> {
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
    let (present, running) = read.map_err(|stopped| match stopped {
        Stopped::Source(e) => e,
        Stopped::Target => unreachable!("the target stops on an error, returned above"),
    })?;
    Ok(Moved {
        moved,
        present,
        running,
    })
}

/// Why the reading stopped early.
enum Stopped {
    Source(StoreError),
    Target,
}

impl From<StoreError> for Stopped {
    fn from(e: StoreError) -> Stopped {
        Stopped::Source(e)
    }
}

/// Reads the runs `filter` selects from `source` a page at a time and hands `send` each
/// batch of those `target` does not have, with their results; stops at `send`'s error.
/// Returns how many were already there and how many were still running.
fn read_missing(
    source: &dyn Store,
    target: &dyn Store,
    filter: &RunFilter,
    batch_size: usize,
    mut send: impl FnMut(Vec<Run>) -> Result<(), Stopped>,
) -> Result<(usize, usize), Stopped> {
    let mut present = 0;
    let mut running = 0;
    let mut batch: Vec<Run> = Vec::new();
    let mut missing = |batch: Vec<Run>| -> Result<(), Stopped> {
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
        send(with_results(source, missing, Detail::Full)?)
    };
    for_each_page(source, filter, |runs| {
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
        Ok::<_, Stopped>(())
    })?;
    if !batch.is_empty() {
        missing(batch)?;
    }
    Ok((present, running))
}
