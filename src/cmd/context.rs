//! What every command gets from `main` besides its own arguments: the shell it talks
//! through (verbosity and colour already decided), the database it works on, and the
//! environment's settings. Built once from the global flags, so no command sees clap's
//! `GlobalArgs`; the one place the environment is read (`tests/layering.rs` holds the
//! library to it): the library is handed what it says.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::Context as _;

use crate::shell::Shell;
use crate::store::{self, Location, Store};

pub struct Context {
    /// Status, warnings and errors on stderr; whether stdout is coloured.
    pub shell: Shell,
    /// `--db`, else `IOZONE_DB` (clap reads both into one flag), parsed when a command
    /// needs the database. `None` means the default file, looked up only then: `info`
    /// and `completions` work without a home directory.
    db: Option<String>,
    /// `--db-file`: a SQLite file by that name, not parsed, before `IOZONE_DB`.
    db_file: Option<PathBuf>,
    /// `IOZONE_RECORD_RETRY`: how long `run` tries its final write again, when set.
    pub record_retry: Option<Duration>,
    /// The ranks an MPI launcher started (`OMPI_COMM_WORLD_SIZE`, `PMI_SIZE`,
    /// `SLURM_STEP_NUM_TASKS`), when one did: `run` then measures as one client of many.
    pub launched_ranks: Option<u32>,
}

impl Context {
    pub fn new(shell: Shell, db: Option<&str>, db_file: Option<&Path>) -> Context {
        if let Some(timeout) = seconds("IOZONE_BUSY_TIMEOUT") {
            store::set_busy_timeout(timeout);
        }
        Context {
            shell,
            // `IOZONE_DB=` (set but empty, as an unset shell variable expands) means the
            // default, as if unset: an empty path would be SQLite's throwaway database
            db: db
                .filter(|text| !text.trim().is_empty())
                .map(str::to_string),
            db_file: db_file.map(Path::to_path_buf),
            record_retry: seconds("IOZONE_RECORD_RETRY"),
            launched_ranks: crate::cluster::launched_ranks(
                crate::cluster::LAUNCHER_VARIABLES
                    .map(|name| std::env::var(name).ok())
                    .iter()
                    .map(Option::as_deref),
            ),
        }
    }

    /// Where the database is. The flag says whether it is the default, whose directory
    /// may need creating.
    pub fn location(&self) -> anyhow::Result<(Location, bool)> {
        if let Some(path) = &self.db_file {
            return Ok((Location::Sqlite(path.clone()), false));
        }
        match &self.db {
            Some(text) => Ok((Location::parse(text)?, false)),
            None => store::default_path()
                .map(|p| (Location::Sqlite(p), true))
                .context("no home directory to keep the database in; choose one with --db"),
        }
    }

    /// The database for a command that only reads: opened read-only, never created.
    pub fn read_store(&self) -> anyhow::Result<Box<dyn Store>> {
        let (location, _) = self.location()?;
        Ok(waiting(&self.shell, || store::open_to_read(&location))?)
    }

    /// The database for `db check --repair`: opened to write, even when `db check`
    /// marked it damaged.
    pub fn repair_store(&self) -> anyhow::Result<Box<dyn Store>> {
        let (location, _) = self.location()?;
        Ok(waiting(&self.shell, || store::open_to_repair(&location))?)
    }

    /// The database, opened (and created, with its directory, when it is the default).
    pub fn open_store(&self) -> anyhow::Result<Box<dyn Store>> {
        let (location, is_default) = self.location()?;
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
        Ok(waiting(&self.shell, || store::open(&location))?)
    }
}

/// After how long a wait for the database is said on stderr.
const QUIET_WAIT: Duration = Duration::from_secs(1);

/// `work` (a call into the store), with a line on stderr once it has waited about a
/// second for another process's lock on the database (SQLite counts its waits; a
/// call that is merely slow says nothing). Opening waits too: a reader while an import
/// writes in a rollback journal, a writer while another holds the write lock.
pub(crate) fn waiting<T>(shell: &Shell, work: impl FnOnce() -> T) -> T {
    use std::sync::mpsc::RecvTimeoutError;
    let before = store::lock_waits();
    let started = Instant::now();
    let (done, wait) = std::sync::mpsc::channel::<()>();
    std::thread::scope(|scope| {
        scope.spawn(move || {
            while wait.recv_timeout(Duration::from_millis(100)) == Err(RecvTimeoutError::Timeout) {
                if started.elapsed() >= QUIET_WAIT && store::lock_waits() > before {
                    shell.status("Waiting", "for the database, locked by another process");
                    return;
                }
            }
        });
        let value = work();
        drop(done);
        value
    })
}

/// A variable that tunes a wait, in seconds ("60", "0.5"); unset or not a number of
/// seconds, the default stands.
fn seconds(variable: &str) -> Option<Duration> {
    crate::units::parse_seconds(&std::env::var(variable).ok()?)
}
