//! The store: the only place that writes SQL. Runs go in raw (every repetition's
//! figures) and come back as model values. Beside the results, the database keeps a
//! summary per run and row key (median, spread, count), derived from them in the same
//! transaction, for the commands that walk many runs; anything else is derived by the
//! caller.
//!
//! [`Store`] is the interface every backend implements; [`SqliteStore`] is the local
//! one, a single file with nothing to start, and [`PgStore`] a fleet's server.
//!
//! What both backends share is written once: the columns of a run and of a result
//! (`columns.rs`, over the values of `value.rs`), the statements and what their rows
//! mean (`statements.rs`: labels and tags, results by run, a reference's run), the
//! migration runner (`migrate.rs`) and the filters (`filter.rs`). Each backend only
//! binds values to its driver (`sqlite/bind.rs`, `postgres/bind.rs`) and keeps what is
//! its own: connections, errors, locks and batch writes.

mod columns;
mod filter;
mod location;
mod migrate;
mod postgres;
mod sqlite;
mod statements;
mod sync;
mod value;
mod walk;

use std::collections::HashMap;
use std::path::PathBuf;

pub use columns::Detail;
pub use location::{Location, NotALocation, mask_url};
pub use postgres::PgStore;
pub use sqlite::{SqliteStore, StageError, lock_waits, set_busy_timeout};
pub use sync::{Moved, move_runs};
pub use walk::{
    PAGE, Pager, Pending, Rest, SERIES_COLUMNS, Walk, Walked, for_each_page, walk, walk_pages,
    walk_pending,
};

use crate::model::{Measurement, RowSummary, Run, RunStatus};
use crate::selector::{IdRange, RunFilter, RunRef, Selector};
use columns::ResultRow;

/// Why the store could not do what was asked. Messages name the database and the way
/// out, except a way out through a flag: the command line adds that (`cmd::error_message`).
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("cannot open the database {path}: {reason}")]
    Open { path: PathBuf, reason: String },
    #[error("the database {0} does not exist; `iozone run` or `iozone import` create it")]
    Missing(PathBuf),
    #[error("{path} is {what}, not a database file")]
    NotAFile { path: PathBuf, what: &'static str },
    #[error("cannot write to the database: {reason}")]
    NotWritable { path: PathBuf, reason: String },
    #[error(
        "{}-wal may not belong to the database {} ({reason}), so nothing was read or changed: \
         if the database was restored from a backup, move the stale -wal file away; if the \
         WAL is its own, `sqlite3 {} 'PRAGMA wal_checkpoint'` applies it",
        path.display(), path.display(), path.display()
    )]
    ForeignWal { path: PathBuf, reason: String },
    #[error(transparent)]
    Location(#[from] NotALocation),
    #[error("database server {location}: {reason}")]
    Server { location: String, reason: String },
    #[error("{0} is not an iozone database")]
    NotIozone(PathBuf),
    #[error(
        "{path} was written by a newer iozone (schema {found}, this iozone knows up to {known}); upgrade iozone to use it"
    )]
    TooNew {
        path: PathBuf,
        found: usize,
        known: usize,
    },
    #[error("the database {path} is damaged: {reason}")]
    Corrupt { path: PathBuf, reason: String },
    #[error(
        "the database {} cannot be read: {reason}; `iozone db check` names the runs that \
         hold such a value, and `iozone db check --repair` removes them",
        path.display()
    )]
    Unreadable { path: PathBuf, reason: String },
    #[error(
        "the database {} was found damaged by `iozone db check`, so nothing is written to it: \
         `iozone db check --repair` repairs what it can and says what it cannot",
        path.display()
    )]
    MarkedDamaged { path: PathBuf },
    /// An import's figures could not be set aside until their run closed.
    #[error(transparent)]
    Staging(#[from] StageError),
    #[error("run {uuid} cannot be stored: {problem}")]
    Unstorable {
        uuid: uuid::Uuid,
        problem: crate::model::Unstorable,
    },
    #[error("no recorded run matches '{0}'; `iozone history` lists them")]
    NoSuchRun(String),
    #[error(
        "no recorded run matches '{selector}', read as {reading}: a selector's conditions \
         narrow the runs it names (ids, ranges, latest) rather than add to them; \
         `iozone history` lists the runs with their labels"
    )]
    NoneMeet { selector: String, reading: String },
    #[error(
        "'{selector}' selects runs that are not complete: {}; `iozone history --status complete` lists the complete ones",
        incomplete_list(.runs)
    )]
    NotComplete {
        selector: String,
        /// The incomplete runs it selected: id and status.
        runs: Vec<(i64, RunStatus)>,
    },
    #[error("'{0}' matches more than one run; give more of the UUID")]
    Ambiguous(String),
    #[error("database error on {path}: {source}")]
    Sql {
        path: PathBuf,
        source: rusqlite::Error,
    },
}

impl StoreError {
    /// Whether the same write may succeed later: the server went away or restarted, or
    /// the SQLite file was locked, full or failed an I/O. Damage, a foreign or newer
    /// database, and a run that is not there are for good.
    pub fn is_transient(&self) -> bool {
        match self {
            StoreError::Server { .. } | StoreError::Open { .. } => true,
            StoreError::Sql { source, .. } => matches!(
                source.sqlite_error_code(),
                Some(
                    rusqlite::ErrorCode::DatabaseBusy
                        | rusqlite::ErrorCode::DatabaseLocked
                        | rusqlite::ErrorCode::DiskFull
                        | rusqlite::ErrorCode::SystemIoFailure
                )
            ),
            _ => false,
        }
    }

    /// Whether another process held the database's lock past the busy timeout: every
    /// further write would wait as long again.
    pub fn is_locked(&self) -> bool {
        match self {
            StoreError::Sql { source, .. } => sqlite::is_busy(source),
            _ => false,
        }
    }
}

/// Refuses, before anything is written, whole runs that a store could not keep as they
/// are or that a command could not read back (`Run::check_storable`): what `import`
/// checked already, and what `sync` brings from another store, checked by every store
/// for itself. A run measured here (`begin_run`, `finish_run`) is the store's own
/// making and is not held up by it.
fn check_storable(runs: &[Run]) -> Result<(), StoreError> {
    for run in runs {
        run.check_storable()
            .map_err(|problem| StoreError::Unstorable {
                uuid: run.uuid,
                problem,
            })?;
    }
    Ok(())
}

/// `12 (aborted), 13 (failed)`: which runs, and how each ended.
fn incomplete_list(runs: &[(i64, RunStatus)]) -> String {
    let runs: Vec<String> = runs.iter().map(|(id, s)| format!("{id} ({s})")).collect();
    runs.join(", ")
}

/// What `db check` found.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct CheckReport {
    pub path: String,
    pub schema_version: usize,
    pub latest_schema: usize,
    pub runs: u64,
    pub results: u64,
    /// Runs still marked `running`: in progress now, or killed before they could finish.
    pub unfinished_runs: u64,
    /// What SQLite's integrity and foreign-key checks reported (on PostgreSQL, indexes
    /// left invalid); empty when all is well.
    pub problems: Vec<String>,
    /// Runs a command cannot read back (a value written by an older iozone that this
    /// one cannot read): every command that reads one fails.
    pub unreadable: Vec<BadRun>,
    /// Runs that read back but hold what no store may keep (`Run::check_storable`),
    /// recorded before runs were checked: `sync` and `import` refuse them.
    pub unstorable: Vec<BadRun>,
}

impl CheckReport {
    /// Whether the database is damaged: what `db check` exits 2 for, and what writers
    /// refuse once it is marked (`record_damage`).
    pub fn damaged(&self) -> bool {
        !self.problems.is_empty() || !self.unreadable.is_empty()
    }
}

/// A run `db check` found that cannot be read back or kept as it is.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct BadRun {
    pub id: i64,
    /// The UUID as stored, which may be what cannot be read.
    pub uuid: String,
    /// The field or column, and what is wrong with its value.
    pub problem: String,
}

/// One thing `db check --repair` did: "Removed" and what.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Repaired {
    pub verb: &'static str,
    pub what: String,
}

impl std::fmt::Display for BadRun {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "run {} ({}): {}", self.id, self.uuid, self.problem)
    }
}

/// What every store can do. Methods take and return model values, never SQL.
pub trait Store: Send {
    /// Where the data lives, for messages (never with credentials).
    fn location(&self) -> String;

    /// How many of this machine's cores the store's server keeps busy while a walk
    /// reads it: none for a file read in this process or a server elsewhere. A listing
    /// prints on a core of its own only when one is left.
    fn cores_serving(&self) -> usize {
        0
    }

    /// Records a run as `running` (its labels, tags, parameters and environment), before
    /// any measurement, and returns its id.
    fn begin_run(&mut self, run: &Run) -> Result<i64, StoreError>;

    /// Ends a run begun with [`Store::begin_run`]: its status, end time and end state,
    /// and its results and warm-up measurements, all in one transaction. A run that is
    /// no longer `running` (it ended meanwhile) keeps the ending it has.
    fn finish_run(&mut self, id: i64, run: &Run) -> Result<(), StoreError>;

    /// Records a whole run at once, as import and benchmarks do. Returns its id; a run
    /// whose UUID is already there is not added again (`Ok(None)`).
    fn save_run(&mut self, run: &Run) -> Result<Option<i64>, StoreError>;

    /// Records many whole runs in one transaction (an import, a benchmark's database);
    /// runs already there by UUID are skipped. Returns how many were added.
    fn save_runs(&mut self, runs: &[Run]) -> Result<usize, StoreError>;

    /// Records the whole runs `next` yields, a batch at a time, and the runs it passes
    /// in parts ([`crate::model::RunPart`]: each inserted as it opens, its figures as
    /// they come, its record set when it closes, and removed whole if its UUID is there
    /// by then), all in one transaction:
    /// committed when it yields [`Batch::End`], rolled back when it yields
    /// [`Batch::Abandon`] (its source failed half-way) or a write fails, so a file of
    /// any size is stored whole or not at all while memory holds a batch. Runs already
    /// there by UUID (or earlier in the stream) are skipped. Returns how many were
    /// added, `None` when abandoned. The transaction begins with the first batch, so
    /// the wait for a slow source's first runs holds no lock.
    fn save_batches(
        &mut self,
        next: &mut dyn FnMut() -> Batch,
    ) -> Result<Option<usize>, StoreError>;

    /// Which of these UUIDs are recorded already (for `sync`, before moving results).
    fn known_uuids(
        &self,
        uuids: &[uuid::Uuid],
    ) -> Result<std::collections::HashSet<uuid::Uuid>, StoreError>;

    /// Runs matching `filter`, newest first, without their results.
    fn list_runs(&self, filter: &RunFilter) -> Result<Vec<Run>, StoreError>;

    /// One run with all its results.
    fn load_run(&self, id: i64) -> Result<Option<Run>, StoreError>;

    /// The results (and warm-up measurements) of several runs, by run id, in `detail`.
    fn results_of(
        &self,
        ids: &[i64],
        detail: Detail,
    ) -> Result<HashMap<i64, RunResults>, StoreError>;

    /// Every run `filter` selects (up to its limit), in its order (or host by host, as
    /// `walk` says), each handed to `each` with what `walk` reads beside it as soon as
    /// it is read, in one pass over the database, until `each` says to stop
    /// ([`walk()`] is the way to call it).
    fn walk(&self, filter: &RunFilter, walk: Walk, each: &mut walk::Each)
    -> Result<(), StoreError>;

    /// The summaries of several runs' results (one per row key), by run id: every id
    /// asked for has an entry.
    fn summaries_of(&self, ids: &[i64]) -> Result<HashMap<i64, Vec<RowSummary>>, StoreError>;

    /// The id a reference (`42`, `latest`, `latest~2`, a UUID prefix) points to.
    fn resolve(&self, reference: &RunRef) -> Result<i64, StoreError>;

    /// Integrity, schema version and counts, and the runs that cannot be read back or
    /// kept as they are.
    fn check(&self) -> Result<CheckReport, StoreError>;

    /// Repairs what `check` reported that can be repaired: indexes rebuilt, rows of a
    /// run that is gone removed, and the runs it found unreadable or unstorable
    /// removed with everything of theirs. Returns what was done.
    fn repair(&mut self, report: &CheckReport) -> Result<Vec<Repaired>, StoreError>;
}

/// What the source of [`Store::save_batches`] yields next.
#[derive(Debug)]
pub enum Batch {
    /// Runs to record with the others.
    Runs(Vec<Run>),
    /// A part of a run too large to hold whole, recorded with the others.
    Part(crate::model::RunPart),
    /// No more runs: the batches so far are committed.
    End,
    /// The source failed: nothing of it is kept.
    Abandon,
}

/// A run's measurements: the measured rounds, and the warm-up rounds kept beside them.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RunResults {
    pub results: Vec<Measurement>,
    pub warmup: Vec<Measurement>,
}

impl RunResults {
    /// A row read, among the warm-up rounds or the measured ones as it says.
    fn add(&mut self, row: ResultRow) {
        match row.warmup {
            true => self.warmup.push(row.measurement),
            false => self.results.push(row.measurement),
        }
    }

    /// Each list in the listing order.
    fn sort(&mut self) {
        self.results.sort_by_key(Measurement::list_order);
        self.warmup.sort_by_key(Measurement::list_order);
    }

    /// Puts them into `run`, in place of what it held.
    pub fn fill(self, run: &mut Run) {
        run.results = self.results;
        run.warmup = self.warmup;
    }
}

/// The selector as the store reads it: each bare word a label when a run carries it,
/// else a UUID prefix (among its references); an error when it is neither.
pub fn read_selector(store: &dyn Store, selector: &Selector) -> Result<Selector, StoreError> {
    let mut read = Selector {
        bare: Vec::new(),
        ..selector.clone()
    };
    for word in &selector.bare {
        let as_label = RunFilter {
            labels: vec![word.clone()],
            limit: Some(1),
            ..RunFilter::default()
        };
        if !store.list_runs(&as_label)?.is_empty() {
            read.filter.labels.push(word.clone());
        } else {
            match word.parse::<RunRef>() {
                Ok(r @ RunRef::UuidPrefix(_)) => read.refs.push(r),
                _ => return Err(StoreError::NoSuchRun(selector.text.clone())),
            }
        }
    }
    Ok(read)
}

/// The complete runs a selector picks, without their results, newest first: the runs
/// its ids, ranges and references name (any of them; every run when it names none)
/// that meet all its conditions. A run that is not complete is an error when the
/// selector names it (`10`, `latest`) or when nothing else matched, so that the user
/// learns which runs those were rather than that nothing matched; a range's or a
/// filter's other matches leave it out.
fn select_records(store: &dyn Store, selector: &Selector) -> Result<Vec<Run>, StoreError> {
    let read = read_selector(store, selector)?;
    let named: Vec<i64> = read
        .refs
        .iter()
        .map(|r| store.resolve(r))
        .collect::<Result<_, _>>()?;
    // every status here: those not complete are told apart below
    let mut filter = read.filter.clone();
    filter.ids = (named.iter().map(|&id| IdRange::one(id)))
        .chain(read.ranges.iter().copied())
        .collect();
    let matched = store.list_runs(&filter)?;
    if matched.is_empty() {
        return Err(match read.mixes() {
            true => StoreError::NoneMeet {
                selector: selector.text.clone(),
                reading: read.reading(),
            },
            false => StoreError::NoSuchRun(selector.text.clone()),
        });
    }
    let (runs, incomplete): (Vec<Run>, Vec<Run>) = matched
        .into_iter()
        .partition(|r| r.status == RunStatus::Complete);
    let is_named = incomplete
        .iter()
        .any(|r| r.id.is_some_and(|id| named.contains(&id)));
    if runs.is_empty() || is_named {
        return Err(StoreError::NotComplete {
            selector: selector.text.clone(),
            runs: incomplete
                .iter()
                .map(|r| (r.id.unwrap_or_default(), r.status))
                .collect(),
        });
    }
    Ok(runs)
}

/// The complete runs a selector picks (as [`select_runs`] says), with their results
/// in `detail`, newest first.
pub fn select_runs(
    store: &dyn Store,
    selector: &Selector,
    detail: Detail,
) -> Result<Vec<Run>, StoreError> {
    let mut runs = select_records(store, selector)?;
    // runs named by id were loaded whole
    let bare: Vec<i64> = bare_ids(&runs);
    fill_results(store, &mut runs, &bare, detail)?;
    Ok(runs)
}

/// The complete runs a selector picks (as [`select_runs`] says), with their summaries
/// by run id rather than their results: what a comparison of many runs reads
/// (`compare --by`). A run whose summaries do not each hold its level
/// (`RowSummary::run_level`: no positive figure under a key, or derived before they
/// kept it) is read with its figures instead, and has no entry.
pub fn select_summarized(
    store: &dyn Store,
    selector: &Selector,
) -> Result<(Vec<Run>, Summaries), StoreError> {
    let mut runs = select_records(store, selector)?;
    let bare = bare_ids(&runs);
    let mut summaries = store.summaries_of(&bare)?;
    summaries.retain(|_, rows| rows.iter().all(|r| r.run_level().is_some()));
    let unlevelled: Vec<i64> = (bare.into_iter())
        .filter(|id| !summaries.contains_key(id))
        .collect();
    fill_results(store, &mut runs, &unlevelled, Detail::Figures)?;
    Ok((runs, summaries))
}

/// The ids of the runs read without their results.
fn bare_ids(runs: &[Run]) -> Vec<i64> {
    runs.iter()
        .filter(|r| r.results.is_empty())
        .filter_map(|r| r.id)
        .collect()
}

/// Reads the results of the runs `ids` (of `runs`) into them, in `detail`.
fn fill_results(
    store: &dyn Store,
    runs: &mut [Run],
    ids: &[i64],
    detail: Detail,
) -> Result<(), StoreError> {
    let mut results = store.results_of(ids, detail)?;
    for run in runs {
        if let Some(found) = run.id.and_then(|id| results.remove(&id)) {
            found.fill(run);
        }
    }
    Ok(())
}

pub use crate::model::Summaries;

/// How many runs of each series' history, on each side of the newest run compared,
/// measure run-to-run noise for `compare`.
pub const HISTORY_RUNS: usize = 20;

/// Other complete runs of the series `runs` belong to (host, filesystem type, engine,
/// cache), with their summaries by run id, and with their results too when
/// `with_results` (a comparison that pools a run's rows needs them): for each series
/// the [`HISTORY_RUNS`] most recent that started before the newest of `runs`, and the
/// [`HISTORY_RUNS`] first that started with it or after (`compare` cuts a series into
/// segments of one level, and runs recorded since measure the noise as well as
/// earlier ones). `runs` themselves are left out, and each run is listed once. Runs
/// without a hostname have no series to look up.
pub fn series_history(
    store: &dyn Store,
    runs: &[Run],
    with_results: bool,
) -> Result<(Vec<Run>, Summaries), StoreError> {
    use std::collections::{BTreeSet, HashSet};
    let compared: HashSet<uuid::Uuid> = runs.iter().map(|r| r.uuid).collect();
    let mut listed = HashSet::new();
    let newest = runs.iter().map(|r| r.started_at).max();
    // a run of several engines or cache modes belongs to the series of each
    let mut series = BTreeSet::new();
    for run in runs {
        let Some(host) = &run.host.hostname else {
            continue;
        };
        for &engine in &run.params.engines {
            for &cache in &run.params.caches {
                let fs = run.filesystem.fs_type.clone();
                series.insert((host.clone(), fs, engine, cache));
            }
        }
    }
    let mut history = Vec::new();
    for (host, fs, engine, cache) in series {
        let of_series = RunFilter {
            host: Some(host.clone()),
            fs: fs.clone(),
            engine: Some(engine),
            cache: Some(cache),
            status: Some(RunStatus::Complete),
            limit: Some(HISTORY_RUNS + compared.len()),
            ..RunFilter::default()
        };
        let before = RunFilter {
            until: newest,
            ..of_series.clone()
        };
        let after = RunFilter {
            since: newest,
            oldest_first: true,
            ..of_series
        };
        for filter in [before, after] {
            let found = store.list_runs(&filter)?;
            let others = found.into_iter().filter(|r| !compared.contains(&r.uuid));
            for run in others.take(HISTORY_RUNS) {
                if listed.insert(run.uuid) {
                    history.push(run);
                }
            }
        }
    }
    // a comparison that reads the history's results never looks at its summaries
    if with_results {
        let history = self::with_results(store, history, Detail::Figures)?;
        return Ok((history, Summaries::new()));
    }
    let ids: Vec<i64> = history.iter().filter_map(|r| r.id).collect();
    let summaries = store.summaries_of(&ids)?;
    Ok((history, summaries))
}

/// `runs` (as listed, without results) with their results filled in, in `detail`.
pub fn with_results(
    store: &dyn Store,
    mut runs: Vec<Run>,
    detail: Detail,
) -> Result<Vec<Run>, StoreError> {
    let ids: Vec<i64> = runs.iter().filter_map(|r| r.id).collect();
    fill_results(store, &mut runs, &ids, detail)?;
    Ok(runs)
}

/// Opens the store at `location`, creating and migrating it as needed.
pub fn open(location: impl Into<Location>) -> Result<Box<dyn Store>, StoreError> {
    match &location.into() {
        Location::Sqlite(path) => Ok(Box::new(SqliteStore::open(path)?)),
        Location::Postgres(url) => Ok(Box::new(PgStore::open(url)?)),
    }
}

/// Opens an existing store for a command that only reads: a SQLite file read-only
/// (refused when it does not exist), a server as [`open`] does.
pub fn open_to_read(location: impl Into<Location>) -> Result<Box<dyn Store>, StoreError> {
    match &location.into() {
        Location::Sqlite(path) => Ok(Box::new(SqliteStore::open_to_read(path)?)),
        Location::Postgres(url) => Ok(Box::new(PgStore::open(url)?)),
    }
}

/// Opens the store for `db check --repair`: as [`open`], but a SQLite file `db check`
/// marked damaged too.
pub fn open_to_repair(location: impl Into<Location>) -> Result<Box<dyn Store>, StoreError> {
    match &location.into() {
        Location::Sqlite(path) => Ok(Box::new(SqliteStore::open_to_repair(path)?)),
        Location::Postgres(url) => Ok(Box::new(PgStore::open(url)?)),
    }
}

/// Records what `db check` found in a SQLite file, so that the commands that write
/// refuse a damaged one without checking it (a whole check reads every page): marks
/// it when `damaged`, clears the mark otherwise. A file this process cannot write is
/// left as it is (nothing can write to it either), and so is a PostgreSQL database,
/// whose server keeps its data's constraints itself. Returns whether the database is
/// marked damaged now.
pub fn record_damage(location: impl Into<Location>, damaged: bool) -> Result<bool, StoreError> {
    match &location.into() {
        Location::Sqlite(path) => SqliteStore::record_damage(path, damaged),
        Location::Postgres(_) => Ok(false),
    }
}

/// Applies pending migrations explicitly; returns (version before, version after).
pub fn migrate(location: impl Into<Location>) -> Result<(usize, usize), StoreError> {
    match &location.into() {
        Location::Sqlite(path) => SqliteStore::migrate_only(path),
        Location::Postgres(url) => PgStore::migrate_only(url),
    }
}

/// The SQLite schema version this iozone writes.
pub fn latest_schema() -> usize {
    migrate::SQLITE.len()
}

/// The database used when neither `--db` nor `IOZONE_DB` says otherwise:
/// the platform data directory, e.g. `~/.local/share/iozone/history.db`.
pub fn default_path() -> Option<PathBuf> {
    directories::ProjectDirs::from("", "", "iozone").map(|d| d.data_dir().join("history.db"))
}

/// The files a SQLite database is made of, each with what it is, for whatever writes
/// a file the user names and must never write over one of them; none for a server.
pub fn database_files(location: &Location) -> Vec<(PathBuf, String)> {
    let Location::Sqlite(path) = location else {
        return Vec::new();
    };
    let db = path.display();
    let beside = |suffix: &str| {
        let mut name = path.as_os_str().to_owned();
        name.push(suffix);
        PathBuf::from(name)
    };
    vec![
        (path.clone(), format!("the database {db}")),
        (
            beside("-wal"),
            format!("the write-ahead log of the database {db}"),
        ),
        (
            beside("-shm"),
            format!("the shared-memory index of the database {db}"),
        ),
        (
            beside("-journal"),
            format!("the rollback journal of the database {db}"),
        ),
    ]
}

/// Where runs measured but not recorded are kept, beside the default database: the
/// data directory's `spool/`, or the temporary directory when there is no home to keep
/// one in.
pub fn spool_dir() -> PathBuf {
    default_path()
        .and_then(|p| Some(p.parent()?.join("spool")))
        .unwrap_or_else(std::env::temp_dir)
}

/// The file a run that could not be recorded is spooled to: named by its UUID, so that
/// its record, left `running` or `failed` in the store, can be told from a run that was
/// killed.
pub fn spool_file(uuid: uuid::Uuid) -> PathBuf {
    spool_dir().join(format!("run-{uuid}.json"))
}

/// The runs waiting in the spool, each a file of its own.
pub fn spooled_files() -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(spool_dir()) else {
        return Vec::new();
    };
    entries
        .filter_map(|entry| Some(entry.ok()?.path()))
        .filter(|path| {
            path.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("run-") && n.ends_with(".json"))
        })
        .collect()
}

#[cfg(test)]
pub(crate) mod tests;
