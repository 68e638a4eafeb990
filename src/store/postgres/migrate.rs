//! The PostgreSQL schema under [`migrate::to_latest`](crate::store::migrate): the
//! migration lock is an advisory lock, and the versions applied are rows of
//! `iozone.schema_version`.

use postgres::error::SqlState;
use postgres::{Client, GenericClient, Transaction};

use super::PgStore;
use super::errors::{Fail, flatten, scrub};
use crate::store::StoreError;
use crate::store::migrate;

/// The key of the advisory lock that serializes migrations ("IOZNMIGR"): concurrent
/// first opens of a new database wait for each other instead of racing.
const MIGRATION_LOCK: i64 = 0x494F_5A4E_4D49_4752;

impl PgStore {
    /// The schema version recorded, refusing a database that is not ours or is newer
    /// than `known`. Nothing is written.
    pub(super) fn version(&self, known: usize) -> Result<usize, StoreError> {
        identify(&mut *self.client.borrow_mut(), known).map_err(|f| self.error(f))
    }

    /// Applies the steps not yet applied, each in a transaction of its own under the
    /// migration lock, re-reading the version once the lock is held: another process
    /// may have applied them meanwhile.
    pub(super) fn migrate(&self, steps: &[&str]) -> Result<(), StoreError> {
        let known = steps.len();
        // refuse a foreign or newer database before taking any lock
        if self.version(known)? == known {
            return Ok(());
        }
        let mut client = self.client.borrow_mut();
        // the summaries as this iozone writes them, in the schema it writes (tests open
        // older ones)
        let latest = steps.len() == migrate::POSTGRES.len();
        let migrated = migrate::to_latest(&mut *client, steps).and_then(|()| match latest {
            true => super::write::derive_summaries(&mut client),
            false => Ok(()),
        });
        match migrated {
            Ok(()) => Ok(()),
            Err(Fail::Pg(e)) if e.as_db_error().is_some() => {
                let db = e.as_db_error().expect("checked");
                let mut reason = format!(
                    "cannot create or update the iozone schema: {}",
                    flatten(db.message())
                );
                if db.code() == &SqlState::INSUFFICIENT_PRIVILEGE {
                    reason.push_str(
                        " (the role needs the CREATE privilege on the database, or an \
                         `iozone` schema made for it by an administrator)",
                    );
                }
                Err(StoreError::Server {
                    location: self.location.clone(),
                    reason: scrub(reason, self.secret.as_deref()),
                })
            }
            Err(other) => Err(self.error(other)),
        }
    }
}

impl migrate::Migrate for Client {
    type Error = Fail;
    type Step<'a> = Transaction<'a>;

    fn begin(&mut self) -> Result<Transaction<'_>, Fail> {
        let mut tx = self.transaction()?;
        tx.execute("SELECT pg_advisory_xact_lock($1)", &[&MIGRATION_LOCK])?;
        Ok(tx)
    }
}

impl migrate::Step for Transaction<'_> {
    type Error = Fail;

    fn version(&mut self, known: usize) -> Result<usize, Fail> {
        identify(self, known)
    }

    fn apply(&mut self, sql: &str, version: usize) -> Result<(), Fail> {
        self.batch_execute(sql)?;
        self.execute(
            "INSERT INTO iozone.schema_version (version) VALUES ($1)",
            &[&(version as i32)],
        )?;
        Ok(())
    }

    fn commit(self) -> Result<(), Fail> {
        Ok(Transaction::commit(self)?)
    }
}

/// The schema version recorded (0 for a database without the `iozone` schema or with
/// an empty one). A schema `iozone` holding tables but no `schema_version` is someone
/// else's; a version above `known` was written by a newer iozone.
fn identify(client: &mut impl GenericClient, known: usize) -> Result<usize, Fail> {
    // one statement, so one snapshot: another process may be creating the schema now
    let row = client.query_one(
        "SELECT to_regclass('iozone.schema_version') IS NOT NULL, \
                EXISTS (SELECT 1 FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace \
                        WHERE n.nspname = 'iozone' AND c.relkind IN ('r', 'p', 'v', 'm', 'f'))",
        &[],
    )?;
    let (has_version, has_tables): (bool, bool) = (row.get(0), row.get(1));
    if !has_version {
        return if has_tables {
            Err(Fail::NotIozone)
        } else {
            Ok(0)
        };
    }
    let version: i32 = match client.query_one(
        "SELECT coalesce(max(version), 0) FROM iozone.schema_version",
        &[],
    ) {
        Ok(row) => row.get(0),
        // a `schema_version` that is not ours (no `version`, or not a number)
        Err(e)
            if matches!(
                e.code(),
                Some(&SqlState::UNDEFINED_COLUMN) | Some(&SqlState::UNDEFINED_FUNCTION)
            ) =>
        {
            return Err(Fail::NotIozone);
        }
        Err(e) => return Err(e.into()),
    };
    let version = version.max(0) as usize;
    if version > known {
        return Err(Fail::TooNew {
            found: version,
            known,
        });
    }
    Ok(version)
}
