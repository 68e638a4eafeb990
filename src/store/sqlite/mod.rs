//! The local store: one SQLite file, WAL mode, a busy timeout so concurrent runs wait
//! for each other instead of failing, foreign keys on, one transaction per write.
//!
//! Commands that only read open the file read-only: they never create it, never
//! migrate or checkpoint it, and work on a file or a mount they cannot write. Before
//! SQLite opens it at all, a `-wal` file beside it that holds pages must be named by
//! the `-shm` index beside them, or hold no page the database lacks (`files.rs`): a
//! WAL from another database (a backup restored beside a stale one) is refused, since
//! SQLite would read its pages as the database's and the first checkpoint would copy
//! them in; one left by a process killed while closing the database (checkpointed, its
//! index deleted) is opened, and SQLite rebuilds the index from it.

mod bind;
mod check;
mod files;
mod key_order;
mod schema;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::RwLock;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use rusqlite::{Connection, ErrorCode, OpenFlags, TransactionBehavior};

use self::bind::{decode, values};
use self::schema::{Schema, identify, marked_damaged, user_version};
use super::columns::{self, RESULT_COLUMNS, RUN_COLUMNS, ResultRow, SUMMARY_COLUMNS, SummaryRow};
use super::migrate;
use super::statements;
use super::{
    Batch, CheckReport, Detail, Repaired, RunFilter, RunRef, RunResults, Store, StoreError,
};
use crate::model::{Measurement, RowSummary, Run, RunStatus};

/// How long a writer waits for another process's transaction before giving up, unless
/// told otherwise ([`set_busy_timeout`]).
const BUSY_TIMEOUT: Duration = Duration::from_secs(60);

/// How long a writer waits for a lock, in every database this process opens to write:
/// SQLite's busy handler is a plain function (rusqlite takes a `fn`, no closure), so
/// the setting is the process's, as its count of waits is.
static WRITE_BUSY_TIMEOUT: RwLock<Duration> = RwLock::new(BUSY_TIMEOUT);

/// Sets how long a write waits for another process's lock before it fails (the command
/// line's `IOZONE_BUSY_TIMEOUT`), for the databases opened from now on and those open.
pub fn set_busy_timeout(timeout: Duration) {
    *WRITE_BUSY_TIMEOUT
        .write()
        .unwrap_or_else(|e| e.into_inner()) = timeout;
}

/// How often, in this process, SQLite found a database locked by another connection
/// and waited: a command says it is waiting for a lock when this grows, rather than
/// guessing from a slow write.
static LOCK_WAITS: AtomicU64 = AtomicU64::new(0);

/// The number of waits for another connection's lock so far in this process.
pub fn lock_waits() -> u64 {
    LOCK_WAITS.load(Ordering::Relaxed)
}

/// SQLite's busy handler in place of its busy timeout, to count the waits: pauses of
/// 1, 2, 4 … ms up to 100 ms, until the busy timeout is spent.
fn wait_for_lock(attempt: i32) -> bool {
    LOCK_WAITS.fetch_add(1, Ordering::Relaxed);
    let pause = |n: i32| Duration::from_millis(1 << n.clamp(0, 7)).min(Duration::from_millis(100));
    let spent: Duration = (0..attempt).map(pause).sum();
    if spent >= busy_timeout() {
        return false;
    }
    std::thread::sleep(pause(attempt));
    true
}

fn busy_timeout() -> Duration {
    *WRITE_BUSY_TIMEOUT.read().unwrap_or_else(|e| e.into_inner())
}

pub struct SqliteStore {
    conn: Connection,
    path: PathBuf,
}

impl SqliteStore {
    /// Opens the database to write, creating and migrating it as needed; a file
    /// `db check` marked damaged is refused (`check.rs`).
    pub fn open(path: &Path) -> Result<Self, StoreError> {
        Self::open_as(path, false)
    }

    /// Opens the database to repair it: as [`SqliteStore::open`], a file marked
    /// damaged too.
    pub fn open_to_repair(path: &Path) -> Result<Self, StoreError> {
        Self::open_as(path, true)
    }

    fn open_as(path: &Path, repairing: bool) -> Result<Self, StoreError> {
        let exists = files::exists(path)?;
        if let Some(reason) = files::unwritable(path) {
            return Err(StoreError::NotWritable {
                path: path.to_path_buf(),
                reason,
            });
        }
        if exists {
            check_wal(path)?;
        }
        // The first processes to open a new database race to set WAL and create the
        // schema; some steps report "locked" at once instead of waiting (switching the
        // journal mode, a read upgraded to a write). Those are retried, briefly.
        let mut attempt = 0;
        loop {
            match Self::open_once(path, repairing) {
                Err(StoreError::Sql { source, .. }) if is_busy(&source) && attempt < 100 => {
                    attempt += 1;
                    std::thread::sleep(Duration::from_millis(20 + 10 * attempt));
                }
                other => return other,
            }
        }
    }

    fn open_once(path: &Path, repairing: bool) -> Result<Self, StoreError> {
        let mut conn = connect(path)?;
        identify(&conn, path, migrate::SQLITE.len())?;
        let err = |e| sql_error(path, e);
        if !repairing && marked_damaged(&conn).map_err(err)? {
            return Err(StoreError::MarkedDamaged {
                path: path.to_path_buf(),
            });
        }
        conn.query_row("PRAGMA journal_mode = WAL", [], |_| Ok(()))
            .map_err(err)?;
        conn.pragma_update(None, "foreign_keys", true)
            .map_err(err)?;
        // take the write lock up front, waiting for it, in every transaction
        conn.set_transaction_behavior(TransactionBehavior::Immediate);
        migrate::to_latest(
            &mut Schema {
                conn: &mut conn,
                path,
            },
            migrate::SQLITE,
        )?;
        let mut store = SqliteStore {
            conn,
            path: path.to_path_buf(),
        };
        derive_summaries(&mut store).map_err(err)?;
        Ok(store)
    }

    /// Opens an existing database for reading only. A file this process cannot write
    /// (0444, a read-only mount) and without a WAL to apply is read as it is, so
    /// nothing is created beside it; a database of an older schema is migrated first,
    /// as a write.
    pub fn open_to_read(path: &Path) -> Result<Self, StoreError> {
        if !files::exists(path)? {
            return Err(StoreError::Missing(path.to_path_buf()));
        }
        if let Some(reason) = files::unreadable(path) {
            return Err(StoreError::Open {
                path: path.to_path_buf(),
                reason,
            });
        }
        let store = Self::read_only(path, files::read_as_is(path))?;
        if user_version(&store.conn).map_err(|e| store.err(e))? < migrate::SQLITE.len() {
            drop(store);
            return Self::open(path);
        }
        Ok(store)
    }

    /// A read-only connection, on a database whose `-wal` (if it holds pages) was
    /// checked to be its own first. `as_is` reads the file alone (SQLite's
    /// `immutable`): no lock, no `-shm`.
    fn read_only(path: &Path, as_is: bool) -> Result<Self, StoreError> {
        if !as_is {
            check_wal(path)?;
        }
        let query = if as_is {
            "mode=ro&immutable=1"
        } else {
            "mode=ro"
        };
        let flags = OpenFlags::SQLITE_OPEN_READ_ONLY
            | OpenFlags::SQLITE_OPEN_URI
            | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        let conn = Connection::open_with_flags(files::uri(path, query), flags).map_err(|e| {
            StoreError::Open {
                path: path.to_path_buf(),
                reason: short_reason(&e),
            }
        })?;
        conn.busy_timeout(BUSY_TIMEOUT)
            .map_err(|e| sql_error(path, e))?;
        identify(&conn, path, migrate::SQLITE.len())?;
        Ok(SqliteStore {
            conn,
            path: path.to_path_buf(),
        })
    }

    /// Opens (which migrates) and reports the schema version before and after.
    pub fn migrate_only(path: &Path) -> Result<(usize, usize), StoreError> {
        let before = if files::exists(path)? {
            let store = Self::read_only(path, files::read_as_is(path))?;
            user_version(&store.conn).map_err(|e| store.err(e))?
        } else {
            0
        };
        let store = Self::open(path)?;
        let after = user_version(&store.conn).map_err(|e| store.err(e))?;
        Ok((before, after))
    }

    fn err(&self, e: rusqlite::Error) -> StoreError {
        sql_error(&self.path, e)
    }

    fn labels_and_tags(&self, runs: &mut [Run]) -> rusqlite::Result<()> {
        let mut labels = self
            .conn
            .prepare_cached(&statements::select_labels("", "run_id = ?"))?;
        let mut tags = self
            .conn
            .prepare_cached(&statements::select_tags("", "run_id = ?"))?;
        let (mut found_labels, mut found_tags) = (Vec::new(), Vec::new());
        for id in runs.iter().filter_map(|r| r.id) {
            for label in labels.query_map([id], |r| Ok((r.get(0)?, r.get(1)?)))? {
                found_labels.push(label?);
            }
            for tag in tags.query_map([id], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))? {
                found_tags.push(tag?);
            }
        }
        statements::attach_labels_and_tags(runs, found_labels, found_tags);
        Ok(())
    }

    fn results(&self, ids: &[i64], detail: Detail) -> rusqlite::Result<HashMap<i64, RunResults>> {
        let sql = statements::select_results("", "run_id = ?", detail);
        statements::group_results(ids, |add| {
            self.each_row(ids, &sql, detail.columns(), ResultRow::blank(), add)
        })
    }

    fn summaries(&self, ids: &[i64]) -> rusqlite::Result<HashMap<i64, Vec<RowSummary>>> {
        let sql = statements::select_summaries("", "run_id = ?");
        let rows = self.rows_of(ids, &sql, SUMMARY_COLUMNS, SummaryRow::blank())?;
        let mut summaries = statements::group_summaries(ids, rows);
        statements::summarize_unkept(&mut summaries, |unkept, detail| {
            self.results(unkept, detail)
        })?;
        Ok(summaries)
    }

    /// The rows `sql` (a SELECT of `columns` for one `run_id = ?`) finds for each of `ids`.
    fn rows_of<T: Clone>(
        &self,
        ids: &[i64],
        sql: &str,
        columns: &[columns::Column<T>],
        blank: T,
    ) -> rusqlite::Result<Vec<T>> {
        let mut rows = Vec::new();
        self.each_row(ids, sql, columns, blank, &mut |row| rows.push(row))?;
        Ok(rows)
    }

    /// [`SqliteStore::rows_of`], each row handed to `each` as it is read.
    fn each_row<T: Clone>(
        &self,
        ids: &[i64],
        sql: &str,
        columns: &[columns::Column<T>],
        blank: T,
        each: &mut dyn FnMut(T),
    ) -> rusqlite::Result<()> {
        // One read transaction for all: a statement run on its own takes and drops
        // the database's read lock (fcntl, the WAL index) each time, a fifth of the
        // time of reading a page of 500 runs. Deferred, so a read-only file is fine.
        let read = match self.conn.is_autocommit() {
            true => Some(rusqlite::Transaction::new_unchecked(
                &self.conn,
                TransactionBehavior::Deferred,
            )?),
            false => None,
        };
        let mut stmt = self.conn.prepare_cached(sql)?;
        for &id in ids {
            for row in stmt.query_map([id], |r| decode(r, columns, blank.clone()))? {
                each(row?);
            }
        }
        drop(stmt);
        if let Some(read) = read {
            read.commit()?;
        }
        Ok(())
    }
}

/// Refuses a `-wal` holding pages that cannot be told to be this database's, before
/// anything opens it: SQLite would lay those pages over the database, and the first
/// checkpoint would write them into it.
fn check_wal(path: &Path) -> Result<(), StoreError> {
    match files::wal(path).map(|wal| files::wal_belongs(path, wal)) {
        Some(Err(reason)) => Err(StoreError::ForeignWal {
            path: path.to_path_buf(),
            reason,
        }),
        _ => Ok(()),
    }
}

fn connect(path: &Path) -> Result<Connection, StoreError> {
    let flags = OpenFlags::SQLITE_OPEN_READ_WRITE
        | OpenFlags::SQLITE_OPEN_CREATE
        | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let conn = Connection::open_with_flags(path, flags).map_err(|e| StoreError::Open {
        path: path.to_path_buf(),
        reason: short_reason(&e),
    })?;
    conn.busy_handler(Some(wait_for_lock))
        .map_err(|e| sql_error(path, e))?;
    Ok(conn)
}

pub(super) fn is_busy(e: &rusqlite::Error) -> bool {
    matches!(
        e.sqlite_error_code(),
        Some(ErrorCode::DatabaseBusy | ErrorCode::DatabaseLocked)
    )
}

/// What a value read that a model value cannot be made of holds, when that is why `e`
/// failed: a row an older iozone wrote (`db check` finds them).
fn unreadable(e: &rusqlite::Error) -> Option<String> {
    use rusqlite::Error::*;
    match e {
        FromSqlConversionFailure(_, _, cause) => Some(cause.to_string()),
        InvalidColumnType(_, name, kind) => Some(format!("column {name} holds a {kind} value")),
        Utf8Error(idx, _) => Some(format!("column {idx} holds text that is not UTF-8")),
        IntegralValueOutOfRange(idx, value) => {
            Some(format!("column {idx} holds {value}, out of range"))
        }
        _ => None,
    }
}

fn short_reason(e: &rusqlite::Error) -> String {
    match e {
        rusqlite::Error::SqliteFailure(_, Some(msg)) => msg.clone(),
        other => other.to_string(),
    }
}

fn sql_error(path: &Path, e: rusqlite::Error) -> StoreError {
    let path = path.to_path_buf();
    if let Some(reason) = unreadable(&e) {
        return StoreError::Unreadable { path, reason };
    }
    match e.sqlite_error_code() {
        Some(ErrorCode::NotADatabase) => StoreError::NotIozone(path),
        Some(ErrorCode::DatabaseCorrupt) => StoreError::Corrupt {
            path,
            reason: short_reason(&e),
        },
        Some(ErrorCode::CannotOpen | ErrorCode::ReadOnly | ErrorCode::PermissionDenied) => {
            StoreError::Open {
                path,
                reason: short_reason(&e),
            }
        }
        _ => StoreError::Sql { path, source: e },
    }
}

impl Store for SqliteStore {
    fn location(&self) -> String {
        self.path.display().to_string()
    }

    fn begin_run(&mut self, run: &Run) -> Result<i64, StoreError> {
        let path = self.path.clone();
        let err = |e| sql_error(&path, e);
        let tx = self.conn.transaction().map_err(err)?;
        let running = Run {
            status: RunStatus::Running,
            ..run.clone()
        };
        let id = insert_run(&tx, &running).map_err(err)?;
        tx.commit().map_err(err)?;
        Ok(id)
    }

    fn finish_run(&mut self, id: i64, run: &Run) -> Result<(), StoreError> {
        let path = self.path.clone();
        let err = |e| sql_error(&path, e);
        let tx = self.conn.transaction().map_err(err)?;
        insert_results(&tx, id, run).map_err(err)?;
        let finish = statements::finish_run("", id, run);
        tx.execute(&finish.sql, values(&finish)).map_err(err)?;
        tx.commit().map_err(err)
    }

    fn save_run(&mut self, run: &Run) -> Result<Option<i64>, StoreError> {
        super::check_storable(std::slice::from_ref(run))?;
        let path = self.path.clone();
        let err = |e| sql_error(&path, e);
        let tx = self.conn.transaction().map_err(err)?;
        let id = save_in(&tx, run).map_err(err)?;
        tx.commit().map_err(err)?;
        Ok(id)
    }

    fn save_runs(&mut self, runs: &[Run]) -> Result<usize, StoreError> {
        super::check_storable(runs)?;
        let path = self.path.clone();
        let err = |e| sql_error(&path, e);
        let tx = self.conn.transaction().map_err(err)?;
        let mut added = 0;
        for run in runs {
            added += save_in(&tx, run).map_err(err)?.is_some() as usize;
        }
        tx.commit().map_err(err)?;
        Ok(added)
    }

    fn save_batches(
        &mut self,
        next: &mut dyn FnMut() -> Batch,
    ) -> Result<Option<usize>, StoreError> {
        let path = self.path.clone();
        let err = |e| sql_error(&path, e);
        let mut runs = match next() {
            Batch::Runs(runs) => runs,
            Batch::End => return Ok(Some(0)),
            Batch::Abandon => return Ok(None),
        };
        // dropped without its commit (abandoned, or a write failed), it rolls back
        let tx = self.conn.transaction().map_err(err)?;
        let mut added = 0;
        loop {
            super::check_storable(&runs)?;
            for run in &runs {
                added += save_in(&tx, run).map_err(err)?.is_some() as usize;
            }
            runs = match next() {
                Batch::Runs(runs) => runs,
                Batch::End => break,
                Batch::Abandon => return Ok(None),
            };
        }
        tx.commit().map_err(err)?;
        Ok(Some(added))
    }

    fn known_uuids(
        &self,
        uuids: &[uuid::Uuid],
    ) -> Result<std::collections::HashSet<uuid::Uuid>, StoreError> {
        let mut stmt = self
            .conn
            .prepare_cached("SELECT EXISTS (SELECT 1 FROM runs WHERE uuid = ?)")
            .map_err(|e| self.err(e))?;
        let mut known = std::collections::HashSet::new();
        for uuid in uuids {
            let exists: bool = stmt
                .query_row([uuid.to_string()], |r| r.get(0))
                .map_err(|e| self.err(e))?;
            if exists {
                known.insert(*uuid);
            }
        }
        Ok(known)
    }

    fn list_runs(&self, filter: &RunFilter) -> Result<Vec<Run>, StoreError> {
        let statement = statements::list_runs("", filter);
        let mut stmt = self.conn.prepare(&statement.sql).map_err(|e| self.err(e))?;
        let mut runs: Vec<Run> = stmt
            .query_map(values(&statement), |row| {
                decode(row, RUN_COLUMNS, Run::default())
            })
            .and_then(|rows| rows.collect())
            .map_err(|e| self.err(e))?;
        self.labels_and_tags(&mut runs).map_err(|e| self.err(e))?;
        Ok(runs)
    }

    fn load_run(&self, id: i64) -> Result<Option<Run>, StoreError> {
        let sql = format!("{} WHERE id = ?", statements::select_runs(""));
        let decoded = self
            .conn
            .query_row(&sql, [id], |row| decode(row, RUN_COLUMNS, Run::default()));
        let mut runs = match decoded {
            Ok(run) => vec![run],
            Err(rusqlite::Error::QueryReturnedNoRows) => return Ok(None),
            Err(e) => return Err(self.err(e)),
        };
        self.labels_and_tags(&mut runs).map_err(|e| self.err(e))?;
        let mut run = runs.pop().expect("one run");
        let mut results = self.results(&[id], Detail::Full).map_err(|e| self.err(e))?;
        results.remove(&id).unwrap_or_default().fill(&mut run);
        Ok(Some(run))
    }

    fn results_of(
        &self,
        ids: &[i64],
        detail: Detail,
    ) -> Result<HashMap<i64, RunResults>, StoreError> {
        self.results(ids, detail).map_err(|e| self.err(e))
    }

    fn summaries_of(&self, ids: &[i64]) -> Result<HashMap<i64, Vec<RowSummary>>, StoreError> {
        self.summaries(ids).map_err(|e| self.err(e))
    }

    fn resolve(&self, reference: &RunRef) -> Result<i64, StoreError> {
        let found: Vec<i64> = match statements::resolve("", reference) {
            Some(statement) => {
                let mut stmt = self
                    .conn
                    .prepare_cached(&statement.sql)
                    .map_err(|e| self.err(e))?;
                stmt.query_map(values(&statement), |r| r.get(0))
                    .and_then(|rows| rows.collect())
                    .map_err(|e| self.err(e))?
            }
            None => Vec::new(),
        };
        statements::one_run(reference, &found)
    }

    fn check(&self) -> Result<CheckReport, StoreError> {
        self.report()
    }

    fn repair(&mut self, report: &CheckReport) -> Result<Vec<Repaired>, StoreError> {
        self.repair_found(report)
    }
}

/// Inserts a whole run unless its UUID is already recorded (a complete run replaces
/// the empty record a failed final write left under its UUID).
fn save_in(conn: &Connection, run: &Run) -> rusqlite::Result<Option<i64>> {
    if let Some(placeholder) = statements::drop_placeholder("", run) {
        conn.execute(&placeholder.sql, values(&placeholder))?;
    }
    let known: bool = conn.query_row(
        "SELECT EXISTS (SELECT 1 FROM runs WHERE uuid = ?)",
        [run.uuid.to_string()],
        |r| r.get(0),
    )?;
    if known {
        return Ok(None);
    }
    let id = insert_run(conn, run)?;
    insert_results(conn, id, run)?;
    Ok(Some(id))
}

/// `INSERT INTO table` of `rows` rows of the columns written (`columns::inserted`), a
/// `?` per value.
fn insert_sql<T>(table: &str, columns: &'static [columns::Column<T>], rows: usize) -> String {
    let names: Vec<&str> = columns::inserted(columns).map(|c| c.name).collect();
    let row = format!("({})", vec!["?"; names.len()].join(", "));
    format!(
        "INSERT INTO {table} ({}) VALUES {}",
        names.join(", "),
        vec![row.as_str(); rows].join(", ")
    )
}

/// Inserts the run row with its labels and tags; returns the new id.
fn insert_run(conn: &Connection, run: &Run) -> rusqlite::Result<i64> {
    conn.prepare_cached(&insert_sql("runs", RUN_COLUMNS, 1))?
        .execute(rusqlite::params_from_iter(columns::encode(
            RUN_COLUMNS,
            run,
        )))?;
    let id = conn.last_insert_rowid();
    for (table, rows) in statements::labels_and_tags_rows(id, run) {
        let mut insert = conn.prepare_cached(&table.insert(""))?;
        for row in rows {
            insert.execute(rusqlite::params_from_iter(row))?;
        }
    }
    Ok(id)
}

/// Rows one INSERT statement writes. Several: each statement stepped costs far more
/// than a row. Not hundreds: SQLite copies each bound text into an allocation of its
/// own, served from the connection's small lookaside pool only while a statement
/// binds few of them. Instructions callgrind counted for a 2 MB iozone3 import
/// (186,000 figures): 3.25 G at 1 row, 2.37 G at 8, 2.21 G at 32, 2.27 G at 64,
/// 2.34 G at 256.
const ROWS_PER_INSERT: usize = 32;

/// Inserts a run's measured results and its warm-up rounds' (flagged), and derives
/// its summaries from them.
fn insert_results(conn: &Connection, id: i64, run: &Run) -> rusqlite::Result<()> {
    let insert = |rows: usize| insert_sql("results", RESULT_COLUMNS, rows);
    // One statement for every full chunk, kept rather than looked up for each.
    let mut full = conn.prepare_cached(&insert(ROWS_PER_INSERT))?;
    let mut rows = Vec::with_capacity(ROWS_PER_INSERT);
    // Rows inserted in the table's key order append to its B-tree (see `key_order`).
    let groups = key_order::in_key_order(run);
    for chunk in groups.iter().flat_map(|g| g.chunks(ROWS_PER_INSERT)) {
        rows.clear();
        rows.extend(chunk.iter().map(|&(warmup, m)| ResultRow {
            run_id: id,
            warmup,
            measurement: m.clone(),
        }));
        let values = rusqlite::params_from_iter(
            rows.iter()
                .flat_map(|row| columns::encode(RESULT_COLUMNS, row)),
        );
        if chunk.len() == ROWS_PER_INSERT {
            full.execute(values)?;
        } else {
            conn.prepare_cached(&insert(chunk.len()))?.execute(values)?;
        }
    }
    write_summaries(conn, id, &run.results)
}

/// Writes the summaries of run `id`'s measured `results` (`RowSummary::of`), when it
/// keeps any (`RowSummary::kept_for`) and has none.
fn write_summaries(conn: &Connection, id: i64, results: &[Measurement]) -> rusqlite::Result<()> {
    if !RowSummary::kept_for(results) {
        return Ok(());
    }
    let mut insert = conn.prepare_cached(&insert_sql("run_summaries", SUMMARY_COLUMNS, 1))?;
    for summary in RowSummary::of(results) {
        let row = SummaryRow {
            run_id: id,
            summary,
        };
        insert.execute(rusqlite::params_from_iter(columns::encode(
            SUMMARY_COLUMNS,
            &row,
        )))?;
    }
    Ok(())
}

/// Derives again, from their results, the summaries a migration left without a run's
/// whole level (`statements::underived_summaries`), a page of runs per transaction.
fn derive_summaries(store: &mut SqliteStore) -> rusqlite::Result<()> {
    loop {
        let ids: Vec<i64> = store
            .conn
            .prepare(&statements::underived_summaries("", super::PAGE))?
            .query_map([], |row| row.get(0))?
            .collect::<rusqlite::Result<_>>()?;
        if ids.is_empty() {
            return Ok(());
        }
        let results = store.results(&ids, Detail::Figures)?;
        let tx = store.conn.transaction()?;
        for id in ids {
            let measured = results.get(&id).map_or(&[][..], |r| &r.results[..]);
            tx.execute(&statements::delete_summaries("", "run_id = ?"), [id])?;
            write_summaries(&tx, id, measured)?;
        }
        tx.commit()?;
    }
}
