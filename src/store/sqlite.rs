//! The local store: one SQLite file, WAL mode, a busy timeout so concurrent runs wait
//! for each other instead of failing, foreign keys on, one transaction per write.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use rusqlite::{Connection, ErrorCode, OpenFlags, TransactionBehavior, params};

use super::filter::{self, Param};
use super::migrate::{self, APPLICATION_ID};
use super::rows::{self, RESULT_COLUMNS, RUN_COLUMNS};
use super::{CheckReport, RunFilter, RunRef, RunResults, Store, StoreError};
use crate::model::{Measurement, Run, RunStatus};

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
        identify(&conn, path)?;
        let err = |e| sql_error(path, e);
        conn.query_row("PRAGMA journal_mode = WAL", [], |_| Ok(()))
            .map_err(err)?;
        conn.pragma_update(None, "foreign_keys", true)
            .map_err(err)?;
        // take the write lock up front, waiting for it, in every transaction
        conn.set_transaction_behavior(TransactionBehavior::Immediate);
        migrate::to_latest(&mut conn).map_err(|e| migration_error(path, e))?;
        Ok(SqliteStore {
            conn,
            path: path.to_path_buf(),
        })
    }

    /// Opens (which migrates) and reports the schema version before and after.
    pub fn migrate_only(path: &Path) -> Result<(usize, usize), StoreError> {
        let before = if path.exists() {
            let conn = connect(path)?;
            identify(&conn, path)?
        } else {
            0
        };
        let store = Self::open(path)?;
        let after = migrate::user_version(&store.conn).map_err(|e| store.err(e))?;
        Ok((before, after))
    }

    fn err(&self, e: rusqlite::Error) -> StoreError {
        sql_error(&self.path, e)
    }

    fn labels_and_tags(&self, run: &mut Run) -> rusqlite::Result<()> {
        let id = run.id.unwrap_or_default();
        let mut labels = self
            .conn
            .prepare_cached("SELECT label FROM run_labels WHERE run_id = ? ORDER BY position")?;
        run.labels = labels
            .query_map([id], |r| r.get(0))?
            .collect::<Result<_, _>>()?;
        let mut tags = self
            .conn
            .prepare_cached("SELECT key, value FROM run_tags WHERE run_id = ?")?;
        run.tags = tags
            .query_map([id], |r| Ok((r.get(0)?, r.get(1)?)))?
            .collect::<Result<_, _>>()?;
        Ok(())
    }

    fn results(&self, id: i64) -> rusqlite::Result<RunResults> {
        let mut stmt = self.conn.prepare_cached(&format!(
            "SELECT {RESULT_COLUMNS} FROM results WHERE run_id = ?"
        ))?;
        let flagged: Vec<(bool, Measurement)> = stmt
            .query_map([id], rows::measurement_from_row)?
            .map(|r| r.map(|(_, warmup, m)| (warmup, m)))
            .collect::<Result<_, _>>()?;
        Ok(RunResults::from_flagged(flagged))
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

/// Refuses, before anything is written, a file that is not an iozone database or was
/// written by a newer iozone. Returns the schema version found (0 for a new file).
fn identify(conn: &Connection, path: &Path) -> Result<usize, StoreError> {
    // one statement, so one snapshot: another process may be creating the schema now
    let (app_id, version, tables): (i64, i64, i64) = conn
        .query_row(
            "SELECT (SELECT application_id FROM pragma_application_id()), \
                    (SELECT user_version FROM pragma_user_version()), \
                    (SELECT count(*) FROM sqlite_master)",
            [],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
        )
        .map_err(|e| sql_error(path, e))?;
    let version = version.max(0) as usize;
    let fresh = app_id == 0 && version == 0 && tables == 0;
    if app_id != APPLICATION_ID && !fresh {
        return Err(StoreError::NotIozone(path.to_path_buf()));
    }
    if version > migrate::latest() {
        return Err(StoreError::TooNew {
            path: path.to_path_buf(),
            found: version,
            known: migrate::latest(),
        });
    }
    Ok(version)
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

fn migration_error(path: &Path, e: rusqlite_migration::Error) -> StoreError {
    match e {
        rusqlite_migration::Error::RusqliteError { err, .. } => sql_error(path, err),
        other => StoreError::Corrupt {
            path: path.to_path_buf(),
            reason: format!("cannot bring the schema up to date: {other}"),
        },
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
        let id = rows::insert_run(&tx, run, RunStatus::Running).map_err(err)?;
        tx.commit().map_err(err)?;
        Ok(id)
    }

    fn finish_run(&mut self, id: i64, run: &Run) -> Result<(), StoreError> {
        let path = self.path.clone();
        let err = |e| sql_error(&path, e);
        let tx = self.conn.transaction().map_err(err)?;
        rows::insert_results(&tx, id, run).map_err(err)?;
        tx.execute(
            "UPDATE runs SET status = ?, finished_at = ?, repeat = ?, state_at_end = ? \
             WHERE id = ?",
            params![
                rows::name(&run.status),
                run.finished_at.as_ref().map(rows::timestamp),
                run.params.repeat,
                run.state_at_end.as_ref().map(rows::json),
                id
            ],
        )
        .map_err(err)?;
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
        let (sql, values) = list_query(filter);
        let mut stmt = self.conn.prepare(&sql).map_err(|e| self.err(e))?;
        let mut runs: Vec<Run> = stmt
            .query_map(
                rusqlite::params_from_iter(values.iter()),
                rows::run_from_row,
            )
            .and_then(|rows| rows.collect())
            .map_err(|e| self.err(e))?;
        for run in &mut runs {
            self.labels_and_tags(run).map_err(|e| self.err(e))?;
        }
        Ok(runs)
    }

    fn load_run(&self, id: i64) -> Result<Option<Run>, StoreError> {
        let sql = format!("SELECT {RUN_COLUMNS} FROM runs WHERE id = ?");
        let run = match self.conn.query_row(&sql, [id], rows::run_from_row) {
            Ok(run) => run,
            Err(rusqlite::Error::QueryReturnedNoRows) => return Ok(None),
            Err(e) => return Err(self.err(e)),
        };
        let mut run = run;
        self.labels_and_tags(&mut run).map_err(|e| self.err(e))?;
        self.results(id).map_err(|e| self.err(e))?.fill(&mut run);
        Ok(Some(run))
    }

    fn results_of(&self, ids: &[i64]) -> Result<HashMap<i64, RunResults>, StoreError> {
        ids.iter()
            .map(|&id| Ok((id, self.results(id).map_err(|e| self.err(e))?)))
            .collect()
    }

    fn resolve(&self, reference: &RunRef) -> Result<i64, StoreError> {
        let found: Vec<i64> = match reference {
            RunRef::Id(id) => self.ids("SELECT id FROM runs WHERE id = ?", &[id])?,
            RunRef::Latest(n) => self.ids(
                "SELECT id FROM runs ORDER BY started_at DESC, id DESC LIMIT 1 OFFSET ?",
                &[n],
            )?,
            RunRef::UuidPrefix(prefix) => {
                let pattern = format!("{}%", prefix.replace('-', ""));
                self.ids(
                    "SELECT id FROM runs WHERE replace(uuid, '-', '') LIKE ? LIMIT 2",
                    &[&pattern],
                )?
            }
        };
        match found.as_slice() {
            [id] => Ok(*id),
            [] => Err(StoreError::NoSuchRun(reference.to_string())),
            _ => Err(StoreError::Ambiguous(reference.to_string())),
        }
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
            schema_version: migrate::user_version(&self.conn).map_err(err)?,
            latest_schema: migrate::latest(),
            runs: count("SELECT count(*) FROM runs")?,
            results: count("SELECT count(*) FROM results")?,
            unfinished_runs: count("SELECT count(*) FROM runs WHERE status = 'running'")?,
            problems,
        })
    }
}

impl SqliteStore {
    fn ids(&self, sql: &str, values: &[&dyn rusqlite::ToSql]) -> Result<Vec<i64>, StoreError> {
        let mut stmt = self.conn.prepare_cached(sql).map_err(|e| self.err(e))?;
        stmt.query_map(values, |r| r.get(0))
            .and_then(|rows| rows.collect())
            .map_err(|e| self.err(e))
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
    let id = rows::insert_run(conn, run, run.status)?;
    rows::insert_results(conn, id, run)?;
    Ok(Some(id))
}

/// The `history` query, with SQLite's `?` placeholders and instants as text.
fn list_query(filter: &RunFilter) -> (String, Vec<rusqlite::types::Value>) {
    use rusqlite::types::Value;
    let mut sql = format!("SELECT {RUN_COLUMNS} FROM runs r WHERE 1 = 1");
    let mut values = Vec::new();
    for (clause, params) in filter::conditions(filter, "") {
        sql.push_str(" AND ");
        sql.push_str(&clause);
        values.extend(params.into_iter().map(|p| match p {
            Param::Text(t) => Value::Text(t),
            Param::Int(i) => Value::Integer(i),
            Param::Time(t) => Value::Text(rows::timestamp(&t)),
        }));
    }
    sql.push_str(&filter::order_and_limit(filter));
    (sql, values)
}
