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
//! index deleted) is opened, and SQLite rebuilds the index from it. An import that has
//! the database to itself writes in a rollback journal, each page once (`journal.rs`).

mod bind;
mod busy;
mod check;
mod copied;
mod files;
mod journal;
mod key_order;
mod schema;
mod shared;
mod staged;
mod walk;
mod write;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use rusqlite::{Connection, ErrorCode, OpenFlags, TransactionBehavior};

use self::bind::{decode, values};
use self::busy::wait_for_lock;
pub use self::busy::{lock_waits, set_busy_timeout};
use self::schema::{Schema, identify, marked_damaged, user_version};
pub use self::staged::StageError;
use self::write::{derive_summaries, insert_results, insert_run, save_in};
use super::columns::{self, RUN_COLUMNS, ResultRow, SUMMARY_COLUMNS, SummaryRow};
use super::migrate;
use super::statements;
use super::walk::{Each, Walk};
use super::{
    Batch, CheckReport, Detail, Repaired, RunFilter, RunRef, RunResults, Store, StoreError,
};
use crate::model::{RowSummary, Run, RunStatus};

/// The page size of a database this program creates.
const PAGE_SIZE: u32 = 16 << 10;

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
        // Fixed when the file is created (its first write, just below): a database
        // that exists keeps its own. Pages of 16 KiB rather than 4 take a large import
        // in about a sixth less time (fewer pages to split and to log).
        conn.pragma_update(None, "page_size", PAGE_SIZE)
            .map_err(err)?;
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
        if files::journal(path) {
            Self::put_back_journal(path)?;
        }
        let store = Self::read_only(path, files::read_as_is(path))?;
        if user_version(&store.conn).map_err(|e| store.err(e))? < migrate::SQLITE.len() {
            drop(store);
            return Self::open(path);
        }
        Ok(store)
    }

    /// Puts back what a bulk write a killed process left in the `-journal` beside the
    /// database had changed (`journal.rs`): a read-only connection cannot, and would
    /// fail on its first read.
    fn put_back_journal(path: &Path) -> Result<(), StoreError> {
        if let Some(reason) = files::unwritable(path) {
            return Err(StoreError::Open {
                path: path.to_path_buf(),
                reason: format!(
                    "a killed import left its -journal beside it, whose pages only a \
                     user who can write the database can put back ({reason})"
                ),
            });
        }
        journal::put_back(&connect(path)?).map_err(|e| sql_error(path, e))
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
        // the same wait as a writer's, so IOZONE_BUSY_TIMEOUT holds for readers too
        conn.busy_handler(Some(wait_for_lock))
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
        let sql = statements::select_results("", "run_id = ?", detail.columns());
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
        let read = self.reading()?;
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

impl SqliteStore {
    /// [`Store::save_batches`] from its first batch `batch` on, in one transaction.
    fn save_batches_in_transaction(
        &mut self,
        mut batch: Batch,
        next: &mut dyn FnMut() -> Batch,
    ) -> Result<Option<usize>, StoreError> {
        let path = self.path.clone();
        let err = |e| sql_error(&path, e);
        // dropped without its commit (abandoned, or a write failed), it rolls back
        let tx = self.conn.transaction().map_err(err)?;
        let mut added = 0;
        let mut open = write::Open::beside(&self.path);
        loop {
            match batch {
                Batch::Runs(runs) => {
                    super::check_storable(&runs)?;
                    for run in &runs {
                        added += save_in(&tx, run).map_err(err)?.is_some() as usize;
                    }
                }
                Batch::Part(part) => {
                    added += write::save_part(&tx, &mut open, part).map_err(|e| match e {
                        write::PartError::Sql(e) => err(e),
                        write::PartError::Staged(e) => StoreError::Staging(e),
                    })?
                }
                Batch::End => break,
                Batch::Abandon => return Ok(None),
            }
            batch = next();
        }
        tx.commit().map_err(err)?;
        Ok(Some(added))
    }

    /// A read transaction for several statements, unless one is open: a statement run
    /// on its own takes and drops the database's read lock (fcntl, the WAL index) each
    /// time, a fifth of the time of reading a page of 500 runs. Deferred, so a
    /// read-only file is fine. Committed by the caller; dropped, it ends as well.
    fn reading(&self) -> rusqlite::Result<Option<rusqlite::Transaction<'_>>> {
        Ok(match self.conn.is_autocommit() {
            true => Some(rusqlite::Transaction::new_unchecked(
                &self.conn,
                TransactionBehavior::Deferred,
            )?),
            false => None,
        })
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
        let batch = match next() {
            Batch::End => return Ok(Some(0)),
            Batch::Abandon => return Ok(None),
            batch => batch,
        };
        // Off for the import's transaction: each key it would check is an id this
        // transaction just gave a run, and with them on every statement of several
        // results copies the pages it changes aside (`write::insert_results_head`). The
        // import deletes what a deleted run's rows cascade to itself (`write.rs`).
        self.conn
            .pragma_update(None, "foreign_keys", false)
            .map_err(err)?;
        let journal = journal::Rollback::enter(&self.conn).map_err(err)?;
        let saved = self.save_batches_in_transaction(batch, next);
        journal.leave(&self.conn);
        self.conn
            .pragma_update(None, "foreign_keys", true)
            .map_err(err)?;
        saved
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

    fn walk(&self, filter: &RunFilter, walk: Walk, each: &mut Each) -> Result<(), StoreError> {
        self.walk_runs(filter, walk, each).map_err(|e| self.err(e))
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
