//! The schema's history: numbered SQL files in `migrations/`, applied in order and
//! recorded in SQLite's `user_version`. Append only: a released migration is never
//! edited.

use rusqlite::Connection;
use rusqlite_migration::{M, Migrations};

/// `PRAGMA application_id` of an iozone database ('IOZN'), set by the first migration.
pub const APPLICATION_ID: i64 = 0x494F_5A4E;

// A slice in its own const: an inline slice of `M` in a `const` fails with E0493.
const STEPS: &[M<'static>] = &[
    M::up(include_str!("../../migrations/0001_init.sql")),
    M::up(include_str!("../../migrations/0002_history_indexes.sql")),
    M::up(include_str!("../../migrations/0003_run_source.sql")),
    M::up(include_str!(
        "../../migrations/0004_rounds_and_machine_state.sql"
    )),
];
const MIGRATIONS: Migrations<'static> = Migrations::from_slice(STEPS);

pub fn latest() -> usize {
    STEPS.len()
}

/// Brings the schema up to date. Two processes opening a new database at once may
/// both try; the loser's transaction fails and rolls back, so a failure after which
/// the schema is current is success.
pub fn to_latest(conn: &mut Connection) -> Result<(), rusqlite_migration::Error> {
    match MIGRATIONS.to_latest(conn) {
        Ok(()) => Ok(()),
        Err(e) => match user_version(conn) {
            Ok(v) if v == latest() => Ok(()),
            _ => Err(e),
        },
    }
}

pub fn user_version(conn: &Connection) -> rusqlite::Result<usize> {
    conn.query_row("PRAGMA user_version", [], |r| r.get::<_, i64>(0))
        .map(|v| v.max(0) as usize)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn migrations_are_valid_and_set_the_application_id() {
        MIGRATIONS.validate().unwrap();
        let mut conn = Connection::open_in_memory().unwrap();
        to_latest(&mut conn).unwrap();
        assert_eq!(user_version(&conn).unwrap(), latest());
        let id: i64 = conn
            .query_row("PRAGMA application_id", [], |r| r.get(0))
            .unwrap();
        assert_eq!(id, APPLICATION_ID);
    }
}
