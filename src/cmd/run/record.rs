//! The end of `iozone run`: the measured run goes into the store, and is never lost to
//! a database fault. A write that fails for a passing reason (the server restarted, the
//! file was full) is tried again on a new connection, for a bounded time said on
//! stderr; a run that still cannot be recorded is written to the local spool as an
//! export document that `iozone import` brings in whole, and its empty record, where
//! the store still answers, is marked `failed`. Waits for a lock are said, not silent.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use chrono::Utc;

use crate::cmd::Context;
use crate::cmd::context::waiting;
use crate::model::{Run, RunStatus};
use crate::store::{self, Store, StoreError};

/// How long the final write is tried again, unless `IOZONE_RECORD_RETRY` (seconds,
/// read into the [`Context`]) says otherwise: long enough for a server to restart, short enough to wait for.
const RETRY_FOR: Duration = Duration::from_secs(60);

/// The longest pause between two tries.
const MAX_PAUSE: Duration = Duration::from_secs(10);

/// A run measured (and printed) but not recorded; main turns it into exit status 3.
#[derive(Debug, thiserror::Error)]
pub enum NotRecorded {
    #[error(
        "run measured but not recorded ({reason}); it is saved in {file}: \
         `iozone import {file}`{same_db} records it",
        file = file.display()
    )]
    Spooled {
        reason: String,
        file: PathBuf,
        /// " with the same --db" when the database was not the default one.
        same_db: &'static str,
    },
    #[error(
        "run measured but not recorded ({reason}), and it could not be saved in {}: \
         {error}; the results printed are all that is left of it",
        dir.display()
    )]
    Lost {
        reason: String,
        dir: PathBuf,
        error: std::io::Error,
    },
}

/// Ends the run `run.id` in the store, trying again and then spooling as the module
/// says. `store` is replaced by a new connection when one is made.
pub(super) fn finish(
    context: &Context,
    store: &mut Box<dyn Store>,
    run: &Run,
) -> Result<(), NotRecorded> {
    let shell = &context.shell;
    let id = run.id.expect("a run to finish was begun");
    let retry_for = context.record_retry.unwrap_or(RETRY_FOR);
    let deadline = Instant::now() + retry_for;
    let mut pause = Duration::from_millis(500);
    let mut said = false;
    let mut error = match waiting(shell, || store.finish_run(id, run)) {
        Ok(()) => return Ok(()),
        Err(e) => e,
    };
    // a lock held past the busy timeout would hold every try as long again
    while error.is_transient() && !error.is_locked() && Instant::now() + pause <= deadline {
        if !std::mem::replace(&mut said, true) {
            shell.warn(format!(
                "run {id} could not be recorded ({error}); trying again for up to {} s",
                retry_for.as_secs()
            ));
        }
        std::thread::sleep(pause);
        pause = (pause * 2).min(MAX_PAUSE);
        match try_again(context, store, id, run) {
            Ok(()) => {
                shell.status("Reconnected", format!("to {}", store.location()));
                return Ok(());
            }
            Err(e) => error = e,
        }
    }
    if !error.is_locked() {
        // the store may still answer though it cannot take the results: an empty
        // `failed` record, which the spooled run replaces when imported
        let failed = Run {
            status: RunStatus::Failed,
            results: Vec::new(),
            warmup: Vec::new(),
            ..run.clone()
        };
        let _ = store.finish_run(id, &failed);
    }
    Err(spool(context, run, error.to_string()))
}

/// One more try on a new connection; a commit whose answer was lost may have taken
/// effect, which the run's status then says.
fn try_again(
    context: &Context,
    store: &mut Box<dyn Store>,
    id: i64,
    run: &Run,
) -> Result<(), StoreError> {
    let location = context
        .location()
        .map_err(|e| StoreError::Server {
            location: "the database".into(),
            reason: e.to_string(),
        })?
        .0;
    *store = store::open(&location)?;
    match store.load_run(id)? {
        Some(recorded) if recorded.status != RunStatus::Running => Ok(()),
        _ => waiting(&context.shell, || store.finish_run(id, run)),
    }
}

/// Writes the run to the spool as an export document of its own.
fn spool(context: &Context, run: &Run, reason: String) -> NotRecorded {
    let file = store::spool_file(run.uuid);
    let dir = file.parent().map(Path::to_path_buf).unwrap_or_default();
    let mut run = run.clone();
    // the id was the store's, and the record it named is not this run
    run.id = None;
    match write_new(&dir, &file, &crate::export::to_json(vec![run], Utc::now())) {
        Ok(()) => NotRecorded::Spooled {
            reason,
            file,
            same_db: match context.location() {
                Ok((_, true)) => "",
                _ => " with the same --db",
            },
        },
        Err(error) => NotRecorded::Lost { reason, dir, error },
    }
}

/// Creates `file` in `dir` (made as needed), never over an existing file, and syncs it:
/// the spool is the only copy.
fn write_new(dir: &Path, file: &Path, text: &str) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    let mut out = std::fs::File::options()
        .write(true)
        .create_new(true)
        .open(file)?;
    out.write_all(text.as_bytes())?;
    out.sync_all()
}
