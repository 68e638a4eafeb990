//! A SQLite file's schema under [`migrate::to_latest`]: the migration lock is SQLite's
//! write lock, the version `PRAGMA user_version`, and `PRAGMA application_id` tells an
//! iozone database from any other.

use std::path::Path;

use rusqlite::Connection;

use super::sql_error;
use crate::store::StoreError;
use crate::store::migrate;

/// Refuses, before anything is written, a file that is not an iozone database or was
/// written by a newer iozone. Returns the schema version found (0 for a new file).
pub(super) fn identify(conn: &Connection, path: &Path, known: usize) -> Result<usize, StoreError> {
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
    if ![APPLICATION_ID, DAMAGED_ID].contains(&app_id) && !fresh {
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

/// `PRAGMA application_id` of an iozone database ('IOZN'), set by the first migration.
const APPLICATION_ID: i64 = 0x494F_5A4E;

/// `PRAGMA application_id` of an iozone database `db check` found damaged ('IOZD'),
/// which the commands that write refuse (`check.rs`).
const DAMAGED_ID: i64 = 0x494F_5A44;

/// Whether `db check` marked the file damaged.
pub(super) fn marked_damaged(conn: &Connection) -> rusqlite::Result<bool> {
    conn.query_row("PRAGMA application_id", [], |r| r.get::<_, i64>(0))
        .map(|id| id == DAMAGED_ID)
}

/// Marks the file damaged, or clears the mark.
pub(super) fn set_damage_mark(conn: &Connection, damaged: bool) -> rusqlite::Result<()> {
    let id = if damaged { DAMAGED_ID } else { APPLICATION_ID };
    conn.pragma_update(None, "application_id", id)
}

/// The schema version recorded in the file.
pub(super) fn user_version(conn: &Connection) -> rusqlite::Result<usize> {
    conn.query_row("PRAGMA user_version", [], |r| r.get::<_, i64>(0))
        .map(|v| v.max(0) as usize)
}

/// A file's schema, for [`migrate::to_latest`]: its migration lock is SQLite's write
/// lock, which the connection's transactions take at once (`IMMEDIATE`), waiting for
/// another process's.
pub(super) struct Schema<'c> {
    pub(super) conn: &'c mut Connection,
    pub(super) path: &'c Path,
}

pub(super) struct SchemaStep<'a> {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn migrations_are_valid_and_set_the_application_id() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("history.db");
        let store = super::super::SqliteStore::open(&path).unwrap();
        assert_eq!(user_version(&store.conn).unwrap(), migrate::SQLITE.len());
        let id: i64 = store
            .conn
            .query_row("PRAGMA application_id", [], |r| r.get(0))
            .unwrap();
        assert_eq!(id, APPLICATION_ID);
    }
}
