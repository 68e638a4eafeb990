//! An import's pages written once. In WAL mode every page a transaction writes goes to
//! the `-wal` file first and into the database at the checkpoint: an import that adds
//! 1.9 GB of pages writes 3.8 GB, and waits for the second copy as its last connection
//! closes (the 300 MB iozone3 file of `scripts/bench-import.sh`: 28.8–29.8 s in WAL
//! mode, 20.1–21.9 s in a rollback journal, alternated on 12-04). In a rollback journal,
//! pages past the database's end when the transaction began (where a new run's results
//! go) need no journal: SQLite writes them once, into the database, and journals only
//! the few pages that were there.
//!
//! Leaving WAL mode needs the database to itself: with another connection open the
//! switch is refused at once and the import writes in WAL mode, as every other write
//! does. Meanwhile the database is the import's: other commands wait for it (the busy
//! timeout), as a writer always waits for another. A process killed during it leaves a
//! hot `-journal`, the pages to put back; the next connection that can write puts them
//! back, a reader's included ([`put_back`]).

use rusqlite::{Connection, ErrorCode};

/// Whether a bulk write switched the database into a rollback journal.
#[must_use = "the database goes back to WAL mode with `leave`"]
pub(super) struct Rollback(bool);

impl Rollback {
    /// Switches the database into a rollback journal, unless another connection has it
    /// open.
    pub(super) fn enter(conn: &Connection) -> rusqlite::Result<Rollback> {
        match journal_mode(conn, "DELETE") {
            Ok(mode) => Ok(Rollback(mode.eq_ignore_ascii_case("delete"))),
            Err(e) if e.sqlite_error_code() == Some(ErrorCode::DatabaseBusy) => Ok(Rollback(false)),
            Err(e) => Err(e),
        }
    }

    /// Back to WAL mode, whatever the write came to. A failure here (a reader that
    /// came meanwhile outlasting the busy timeout) costs nothing the write did: every
    /// write's open sets WAL mode again.
    pub(super) fn leave(self, conn: &Connection) {
        if self.0 {
            let _ = journal_mode(conn, "WAL");
        }
    }
}

fn journal_mode(conn: &Connection, mode: &str) -> rusqlite::Result<String> {
    conn.query_row(&format!("PRAGMA journal_mode = {mode}"), [], |row| {
        row.get(0)
    })
}

/// Puts back the pages a killed bulk write's `-journal` holds, through `conn`, a
/// connection that can write: SQLite does so as it first reads a database beside a hot
/// journal, which a read-only connection cannot (it fails with "attempt to write a
/// readonly database"). While the write is still going (its journal is not hot), this
/// waits for it, as a reader of the journal's database must.
pub(super) fn put_back(conn: &Connection) -> rusqlite::Result<()> {
    conn.query_row("SELECT count(*) FROM sqlite_schema", [], |_| Ok(()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn in_wal(path: &std::path::Path) -> Connection {
        let conn = Connection::open(path).unwrap();
        assert_eq!(journal_mode(&conn, "WAL").unwrap(), "wal");
        conn.execute_batch("CREATE TABLE t (x); INSERT INTO t VALUES (1)")
            .unwrap();
        conn
    }

    /// Alone, a bulk write leaves WAL mode for a rollback journal and goes back.
    #[test]
    fn alone_the_database_goes_into_a_rollback_journal_and_back() {
        let dir = tempfile::tempdir().unwrap();
        let conn = in_wal(&dir.path().join("a.db"));
        let journal = Rollback::enter(&conn).unwrap();
        assert!(journal.0);
        assert_eq!(mode(&conn), "delete");
        journal.leave(&conn);
        assert_eq!(mode(&conn), "wal");
    }

    /// Another connection reading the database keeps it in WAL mode: refused at once,
    /// not waited for.
    #[test]
    fn beside_another_connection_the_database_stays_in_wal_mode() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.db");
        let conn = in_wal(&path);
        let other = Connection::open(&path).unwrap();
        let count: i64 = other
            .query_row("SELECT count(*) FROM t", [], |row| row.get(0))
            .unwrap();
        assert_eq!(count, 1);
        let journal = Rollback::enter(&conn).unwrap();
        assert!(!journal.0);
        assert_eq!(mode(&conn), "wal");
        journal.leave(&conn);
        assert_eq!(mode(&conn), "wal");
    }

    fn mode(conn: &Connection) -> String {
        conn.query_row("PRAGMA journal_mode", [], |row| row.get(0))
            .unwrap()
    }
}
