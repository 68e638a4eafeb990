//! The local store: one SQLite file, WAL mode, a busy timeout so concurrent runs wait
//! for each other instead of failing, foreign keys on, one transaction per write.

mod bind;
mod key_order;
mod schema;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use rusqlite::{Connection, ErrorCode, OpenFlags, TransactionBehavior};

use self::bind::{decode, values};
use self::schema::{Schema, identify, user_version};
use super::columns::{self, RESULT_COLUMNS, RUN_COLUMNS, ResultRow};
use super::migrate;
use super::statements;
use super::{CheckReport, RunFilter, RunRef, RunResults, Store, StoreError};
use crate::model::{Run, RunStatus};

/// How long a writer waits for another process's transaction before giving up.
const BUSY_TIMEOUT: Duration = Duration::from_secs(60);

pub struct SqliteStore {
    conn: Connection,
    path: PathBuf,
}

impl SqliteStore {
    pub fn open(path: &Path) -> Result<Self, StoreError> {
        // The first processes to open a new database race to set WAL and create the
        // schema; some steps report "locked" at once instead of waiting (switching the
        // journal mode, a read upgraded to a write). Those are retried, briefly.
        let mut attempt = 0;
        loop {
            match Self::open_once(path) {
                Err(StoreError::Sql { source, .. }) if is_busy(&source) && attempt < 100 => {
                    attempt += 1;
                    std::thread::sleep(Duration::from_millis(20 + 10 * attempt));
                }
                other => return other,
            }
        }
    }

    fn open_once(path: &Path) -> Result<Self, StoreError> {
        let mut conn = connect(path)?;
        identify(&conn, path, migrate::SQLITE.len())?;
        let err = |e| sql_error(path, e);
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
        Ok(SqliteStore {
            conn,
            path: path.to_path_buf(),
        })
    }

    /// Opens (which migrates) and reports the schema version before and after.
    pub fn migrate_only(path: &Path) -> Result<(usize, usize), StoreError> {
        let before = if path.exists() {
            let conn = connect(path)?;
            identify(&conn, path, migrate::SQLITE.len())?
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

    fn results(&self, ids: &[i64]) -> rusqlite::Result<HashMap<i64, RunResults>> {
        let mut stmt = self
            .conn
            .prepare_cached(&statements::select_results("", "run_id = ?"))?;
        let mut rows = Vec::new();
        for &id in ids {
            for row in stmt.query_map([id], |r| decode(r, RESULT_COLUMNS, ResultRow::blank()))? {
                rows.push(row?);
            }
        }
        Ok(statements::group_results(ids, rows))
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
    conn.busy_timeout(BUSY_TIMEOUT)
        .map_err(|e| sql_error(path, e))?;
    Ok(conn)
}

fn is_busy(e: &rusqlite::Error) -> bool {
    matches!(
        e.sqlite_error_code(),
        Some(ErrorCode::DatabaseBusy | ErrorCode::DatabaseLocked)
    )
}

fn short_reason(e: &rusqlite::Error) -> String {
    match e {
        rusqlite::Error::SqliteFailure(_, Some(msg)) => msg.clone(),
        other => other.to_string(),
    }
}

fn sql_error(path: &Path, e: rusqlite::Error) -> StoreError {
    let path = path.to_path_buf();
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
        let path = self.path.clone();
        let err = |e| sql_error(&path, e);
        let tx = self.conn.transaction().map_err(err)?;
        let id = save_in(&tx, run).map_err(err)?;
        tx.commit().map_err(err)?;
        Ok(id)
    }

    fn save_runs(&mut self, runs: &[Run]) -> Result<usize, StoreError> {
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
        let mut results = self.results(&[id]).map_err(|e| self.err(e))?;
        results.remove(&id).unwrap_or_default().fill(&mut run);
        Ok(Some(run))
    }

    fn results_of(&self, ids: &[i64]) -> Result<HashMap<i64, RunResults>, StoreError> {
        self.results(ids).map_err(|e| self.err(e))
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
        let err = |e| self.err(e);
        let strings = |sql: &str| -> Result<Vec<String>, StoreError> {
            let mut stmt = self.conn.prepare(sql).map_err(err)?;
            let rows = stmt
                .query_map([], |r| r.get::<_, rusqlite::types::Value>(0))
                .and_then(|rows| rows.collect::<Result<Vec<_>, _>>())
                .map_err(err)?;
            Ok(rows.into_iter().map(|v| format!("{v:?}")).collect())
        };
        let count = |sql: &str| -> Result<u64, StoreError> {
            self.conn
                .query_row(sql, [], |r| r.get::<_, i64>(0))
                .map(|n| n as u64)
                .map_err(err)
        };
        let mut problems: Vec<String> = strings("PRAGMA integrity_check")?
            .into_iter()
            .filter(|s| s != "Text(\"ok\")")
            .collect();
        problems.extend(
            strings("PRAGMA foreign_key_check")?
                .into_iter()
                .map(|t| format!("foreign key violation in {t}")),
        );
        Ok(CheckReport {
            path: self.location(),
            schema_version: user_version(&self.conn).map_err(err)?,
            latest_schema: migrate::SQLITE.len(),
            runs: count("SELECT count(*) FROM runs")?,
            results: count("SELECT count(*) FROM results")?,
            unfinished_runs: count("SELECT count(*) FROM runs WHERE status = 'running'")?,
            problems,
        })
    }
}

/// Inserts a whole run unless its UUID is already recorded.
fn save_in(conn: &Connection, run: &Run) -> rusqlite::Result<Option<i64>> {
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

/// Inserts the run row with its labels and tags; returns the new id.
fn insert_run(conn: &Connection, run: &Run) -> rusqlite::Result<i64> {
    let names: Vec<&str> = columns::inserted(RUN_COLUMNS).map(|c| c.name).collect();
    let placeholders = vec!["?"; names.len()].join(", ");
    let sql = format!(
        "INSERT INTO runs ({}) VALUES ({placeholders})",
        names.join(", ")
    );
    conn.prepare_cached(&sql)?
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

/// Rows one INSERT statement writes: fewer statements to step through for a run of
/// millions of figures, and well under SQLite's limit of 32,766 bound values.
const ROWS_PER_INSERT: usize = 256;

/// Inserts a run's measured results and its warm-up rounds' (flagged).
fn insert_results(conn: &Connection, id: i64, run: &Run) -> rusqlite::Result<()> {
    let names: Vec<&str> = columns::inserted(RESULT_COLUMNS).map(|c| c.name).collect();
    let row_placeholders = format!("({})", vec!["?"; names.len()].join(", "));
    // Rows inserted in the table's key order append to its B-tree (see `key_order`).
    let groups = key_order::in_key_order(run);
    for chunk in groups.iter().flat_map(|g| g.chunks(ROWS_PER_INSERT)) {
        let sql = format!(
            "INSERT INTO results ({}) VALUES {}",
            names.join(", "),
            vec![row_placeholders.as_str(); chunk.len()].join(", ")
        );
        let values = chunk.iter().flat_map(|&(warmup, m)| {
            let row = ResultRow {
                run_id: id,
                warmup,
                measurement: m.clone(),
            };
            columns::encode(RESULT_COLUMNS, &row)
        });
        conn.prepare_cached(&sql)?
            .execute(rusqlite::params_from_iter(values))?;
    }
    Ok(())
}
