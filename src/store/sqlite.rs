//! The local store: one SQLite file, WAL mode, a busy timeout so concurrent runs wait
//! for each other instead of failing, foreign keys on, one transaction per write.
//! Values are bound here as SQLite keeps them: instants as fixed-width RFC 3339 UTC
//! text with nanoseconds (so text order is time order), UUIDs as text, booleans 0/1.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use chrono::{DateTime, SecondsFormat, Utc};
use rusqlite::types::{ToSqlOutput, Type, ValueRef};
use rusqlite::{Connection, ErrorCode, OpenFlags, Row, TransactionBehavior};

use super::columns::{self, Column, Kind, RESULT_COLUMNS, RUN_COLUMNS, ResultRow, Value};
use super::filter::{self, Param};
use super::migrate;
use super::statements::{self, Statement};
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

/// Refuses, before anything is written, a file that is not an iozone database or was
/// written by a newer iozone. Returns the schema version found (0 for a new file).
fn identify(conn: &Connection, path: &Path, known: usize) -> Result<usize, StoreError> {
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
    if version > known {
        return Err(StoreError::TooNew {
            path: path.to_path_buf(),
            found: version,
            known,
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

/// `PRAGMA application_id` of an iozone database ('IOZN'), set by the first migration.
const APPLICATION_ID: i64 = 0x494F_5A4E;

/// The schema version recorded in the file.
fn user_version(conn: &Connection) -> rusqlite::Result<usize> {
    conn.query_row("PRAGMA user_version", [], |r| r.get::<_, i64>(0))
        .map(|v| v.max(0) as usize)
}

/// A file's schema, for [`migrate::to_latest`]: its migration lock is SQLite's write
/// lock, which the connection's transactions take at once (`IMMEDIATE`), waiting for
/// another process's.
struct Schema<'c> {
    conn: &'c mut Connection,
    path: &'c Path,
}

struct SchemaStep<'a> {
    tx: rusqlite::Transaction<'a>,
    path: &'a Path,
}

impl migrate::Migrate for Schema<'_> {
    type Error = StoreError;
    type Step<'a>
        = SchemaStep<'a>
    where
        Self: 'a;

    fn begin(&mut self) -> Result<SchemaStep<'_>, StoreError> {
        let tx = self
            .conn
            .transaction()
            .map_err(|e| sql_error(self.path, e))?;
        Ok(SchemaStep {
            tx,
            path: self.path,
        })
    }
}

impl migrate::Step for SchemaStep<'_> {
    type Error = StoreError;

    fn version(&mut self, known: usize) -> Result<usize, StoreError> {
        identify(&self.tx, self.path, known)
    }

    fn apply(&mut self, sql: &str, version: usize) -> Result<(), StoreError> {
        self.tx
            .execute_batch(sql)
            .and_then(|()| self.tx.pragma_update(None, "user_version", version as i64))
            .map_err(|e| sql_error(self.path, e))
    }

    fn commit(self) -> Result<(), StoreError> {
        self.tx.commit().map_err(|e| sql_error(self.path, e))
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
        execute(&tx, &statements::finish_run("", id, run)).map_err(err)?;
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
            .query_map(rusqlite::params_from_iter(values.iter()), |row| {
                decode(row, RUN_COLUMNS, columns::blank_run())
            })
            .and_then(|rows| rows.collect())
            .map_err(|e| self.err(e))?;
        self.labels_and_tags(&mut runs).map_err(|e| self.err(e))?;
        Ok(runs)
    }

    fn load_run(&self, id: i64) -> Result<Option<Run>, StoreError> {
        let sql = format!("{} WHERE id = ?", statements::select_runs(""));
        let decoded = self.conn.query_row(&sql, [id], |row| {
            decode(row, RUN_COLUMNS, columns::blank_run())
        });
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
                let values = statement.params.iter().map(|(_, v)| v);
                stmt.query_map(rusqlite::params_from_iter(values), |r| r.get(0))
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

/// The `history` query, with SQLite's `?` placeholders and instants as text.
fn list_query(filter: &RunFilter) -> (String, Vec<rusqlite::types::Value>) {
    use rusqlite::types::Value as Sql;
    let mut sql = format!("{} WHERE 1 = 1", statements::select_runs(""));
    let mut values = Vec::new();
    for (clause, params) in filter::conditions(filter, "") {
        sql.push_str(" AND ");
        sql.push_str(&clause);
        values.extend(params.into_iter().map(|p| match p {
            Param::Text(t) => Sql::Text(t),
            Param::Int(i) => Sql::Integer(i),
            Param::Time(t) => Sql::Text(timestamp(&t)),
        }));
    }
    sql.push_str(&filter::order_and_limit(filter));
    (sql, values)
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

/// Inserts a run's measured results and its warm-up rounds' (flagged).
fn insert_results(conn: &Connection, id: i64, run: &Run) -> rusqlite::Result<()> {
    let names: Vec<&str> = columns::inserted(RESULT_COLUMNS).map(|c| c.name).collect();
    let placeholders = vec!["?"; names.len()].join(", ");
    let mut stmt = conn.prepare_cached(&format!(
        "INSERT INTO results ({}) VALUES ({placeholders})",
        names.join(", ")
    ))?;
    for row in ResultRow::of_run(id, run) {
        stmt.execute(rusqlite::params_from_iter(columns::encode(
            RESULT_COLUMNS,
            &row,
        )))?;
    }
    Ok(())
}

fn execute(conn: &Connection, statement: &Statement) -> rusqlite::Result<usize> {
    let values = statement.params.iter().map(|(_, v)| v);
    conn.execute(&statement.sql, rusqlite::params_from_iter(values))
}

/// An instant as SQLite keeps it.
fn timestamp(t: &DateTime<Utc>) -> String {
    t.to_rfc3339_opts(SecondsFormat::Nanos, true)
}

impl rusqlite::ToSql for Value {
    fn to_sql(&self) -> rusqlite::Result<ToSqlOutput<'_>> {
        use rusqlite::types::Value as Sql;
        Ok(match self {
            Value::Null => ToSqlOutput::Owned(Sql::Null),
            Value::Integer(v) => ToSqlOutput::Owned(Sql::Integer(*v)),
            Value::Real(v) => ToSqlOutput::Owned(Sql::Real(*v)),
            Value::Text(v) => ToSqlOutput::Borrowed(ValueRef::Text(v.as_bytes())),
            Value::Bool(v) => ToSqlOutput::Owned(Sql::Integer(i64::from(*v))),
            Value::Time(v) => ToSqlOutput::Owned(Sql::Text(timestamp(v))),
            Value::Uuid(v) => ToSqlOutput::Owned(Sql::Text(v.to_string())),
        })
    }
}

/// Column `idx` of `row` as a value of `kind`.
fn read(row: &Row, idx: usize, kind: Kind) -> rusqlite::Result<Value> {
    let conversion = |e: Box<dyn std::error::Error + Send + Sync>| {
        rusqlite::Error::FromSqlConversionFailure(idx, Type::Text, e)
    };
    Ok(match kind {
        Kind::Integer => row.get::<_, Option<i64>>(idx)?.into(),
        Kind::Real => row.get::<_, Option<f64>>(idx)?.into(),
        Kind::Text => row.get::<_, Option<String>>(idx)?.into(),
        Kind::Bool => row.get::<_, Option<bool>>(idx)?.into(),
        Kind::Time => match row.get::<_, Option<String>>(idx)? {
            None => Value::Null,
            Some(text) => DateTime::parse_from_rfc3339(&text)
                .map(|t| Value::Time(t.with_timezone(&Utc)))
                .map_err(|e| conversion(Box::new(e)))?,
        },
        Kind::Uuid => match row.get::<_, Option<String>>(idx)? {
            None => Value::Null,
            Some(text) => uuid::Uuid::parse_str(&text)
                .map(Value::Uuid)
                .map_err(|e| conversion(Box::new(e)))?,
        },
    })
}

/// A model value from a row that selected every one of `columns`, in order.
fn decode<T>(row: &Row, columns: &[Column<T>], blank: T) -> rusqlite::Result<T> {
    let values = columns
        .iter()
        .enumerate()
        .map(|(idx, c)| read(row, idx, c.kind))
        .collect::<rusqlite::Result<Vec<_>>>()?;
    columns::decode(columns, blank, values).map_err(|e| {
        let idx = columns.iter().position(|c| c.name == e.column);
        rusqlite::Error::FromSqlConversionFailure(idx.unwrap_or_default(), Type::Text, Box::new(e))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn migrations_are_valid_and_set_the_application_id() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("history.db");
        let store = SqliteStore::open(&path).unwrap();
        assert_eq!(user_version(&store.conn).unwrap(), migrate::SQLITE.len());
        let id: i64 = store
            .conn
            .query_row("PRAGMA application_id", [], |r| r.get(0))
            .unwrap();
        assert_eq!(id, APPLICATION_ID);
    }
}
