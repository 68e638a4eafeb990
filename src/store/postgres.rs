//! The fleet store: one PostgreSQL database that many hosts record into, with the same
//! logical schema and the same semantics as [`super::SqliteStore`].
//!
//! The tables live in a schema of their own, `iozone`, so a database shared with other
//! applications never sees a clash; migrations are numbered SQL files in
//! `migrations/postgres/`, applied under an advisory lock and recorded in
//! `iozone.schema_version`. Writes are one transaction per call, and batches go as
//! arrays (`INSERT ... SELECT FROM unnest($1, $2, ...)`): a round trip per table and
//! batch, never one per row, so an import of thousands of runs takes seconds over a
//! network. Messages never carry the password: the location is the URL masked.

use std::cell::RefCell;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::time::Duration;

use postgres::error::SqlState;
use postgres::types::{FromSql, ToSql};
use postgres::{Client, Config, GenericClient, Row, Transaction};
use postgres_native_tls::MakeTlsConnector;
use serde::de::DeserializeOwned;
use uuid::Uuid;

use super::filter::{self, Param};
use super::rows::{self, RESULT_COLUMNS, RUN_COLUMNS};
use super::{CheckReport, RunFilter, RunRef, RunResults, Store, StoreError};
use crate::model::{
    AutoRepeat, Filesystem, Host, Latency, MachineState, Measurement, Params, Run, RunStatus,
    Source,
};
use crate::units::ByteSize;

/// The schema's history, in order. Append only: a released migration is never edited.
pub(super) const MIGRATIONS: &[&str] = &[
    include_str!("../../migrations/postgres/0001_init.sql"),
    include_str!("../../migrations/postgres/0002_rounds_and_machine_state.sql"),
];

/// How long to wait for an unreachable server when the URL does not say
/// (`connect_timeout=`): a benchmark should fail in bounded time, not hang.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

/// How long data sent may stay unacknowledged before the connection counts as dead,
/// unless the URL says (`tcp_user_timeout=`): a server that vanishes while a run is
/// being recorded then fails the write instead of hanging it until TCP gives up (which
/// takes about 15 minutes). Queries that merely take long are not affected.
const TCP_USER_TIMEOUT: Duration = Duration::from_secs(60);

/// How long a connection may idle before TCP keepalives probe it, unless the URL says
/// (`keepalives_idle=`): a long benchmark keeps its connection idle between
/// `begin_run` and `finish_run`, and firewalls and NAT drop idle connections silently
/// long before the driver's default of two hours.
const KEEPALIVES_IDLE: Duration = Duration::from_secs(60);
const DRIVER_KEEPALIVES_IDLE: Duration = Duration::from_secs(2 * 60 * 60);

/// The key of the advisory lock that serializes migrations ("IOZNMIGR"): concurrent
/// first opens of a new database wait for each other instead of racing.
const MIGRATION_LOCK: i64 = 0x494F_5A4E_4D49_4752;

/// Runs per batch statement: bounds the size of one message (a chunk's results are
/// about a megabyte) while keeping the round trips per run negligible.
const CHUNK: usize = 500;

pub struct PgStore {
    // The trait reads through `&self`; the client needs `&mut` for every query.
    client: RefCell<Client>,
    /// The URL with its password masked, for every message.
    location: String,
    /// The password, only to scrub it from messages should a server ever echo it.
    secret: Option<String>,
    /// The schema version this store writes (the migrations it was opened with).
    known: usize,
}

impl PgStore {
    /// The schema version this iozone writes to PostgreSQL.
    pub fn latest_schema() -> usize {
        MIGRATIONS.len()
    }

    /// Connects (TLS when the server offers it, as `sslmode=prefer` says; the URL may
    /// say `disable` or `require`) and brings the schema up to date.
    pub fn open(url: &str) -> Result<PgStore, StoreError> {
        Self::open_with(url, MIGRATIONS)
    }

    /// Opens (which migrates) and reports the schema version before and after.
    pub fn migrate_only(url: &str) -> Result<(usize, usize), StoreError> {
        let store = Self::connect(url)?;
        let before = store.version(MIGRATIONS.len())?;
        store.migrate(MIGRATIONS)?;
        let after = store.version(MIGRATIONS.len())?;
        Ok((before, after))
    }

    fn open_with(url: &str, steps: &[&str]) -> Result<PgStore, StoreError> {
        let mut store = Self::connect(url)?;
        store.migrate(steps)?;
        store.known = steps.len();
        Ok(store)
    }

    fn connect(url: &str) -> Result<PgStore, StoreError> {
        let location = super::mask_url(url);
        let open = |reason: String| StoreError::Server {
            location: location.clone(),
            reason,
        };
        let mut config: Config = url.parse().map_err(|e: postgres::Error| {
            open(format!(
                "not a valid PostgreSQL URL ({}); expected postgres://USER:PASSWORD@HOST[:PORT]/DATABASE[?sslmode=require]",
                one_line(&e)
            ))
        })?;
        // libpq's way to keep the password off the command line, where `ps` shows it
        if config.get_password().is_none()
            && let Ok(password) = std::env::var("PGPASSWORD")
        {
            config.password(password);
        }
        if config.get_connect_timeout().is_none() {
            config.connect_timeout(CONNECT_TIMEOUT);
        }
        if config.get_tcp_user_timeout().is_none() {
            config.tcp_user_timeout(TCP_USER_TIMEOUT);
        }
        if config.get_application_name().is_none() {
            // so an administrator sees who is connected (pg_stat_activity)
            config.application_name("iozone");
        }
        if config.get_keepalives_idle() == DRIVER_KEEPALIVES_IDLE {
            config.keepalives_idle(KEEPALIVES_IDLE);
        }
        let secret = config
            .get_password()
            .map(|p| String::from_utf8_lossy(p).into_owned());
        let client = dial(config).map_err(|reason| open(scrub(reason, secret.as_deref())))?;
        Ok(PgStore {
            client: RefCell::new(client),
            location,
            secret,
            known: MIGRATIONS.len(),
        })
    }

    /// The schema version recorded, refusing a database that is not ours or is newer
    /// than `known`. Nothing is written.
    fn version(&self, known: usize) -> Result<usize, StoreError> {
        identify(&mut *self.client.borrow_mut(), known).map_err(|f| self.error(f))
    }

    /// Applies the steps not yet applied, each in a transaction of its own under the
    /// migration lock, re-reading the version once the lock is held: another process
    /// may have applied them meanwhile.
    fn migrate(&self, steps: &[&str]) -> Result<(), StoreError> {
        let known = steps.len();
        // refuse a foreign or newer database before taking any lock
        if self.version(known)? == known {
            return Ok(());
        }
        let mut client = self.client.borrow_mut();
        loop {
            match migrate_step(&mut client, steps) {
                Ok(true) => return Ok(()),
                Ok(false) => {}
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
                    return Err(StoreError::Server {
                        location: self.location.clone(),
                        reason: scrub(reason, self.secret.as_deref()),
                    });
                }
                Err(other) => return Err(self.error(other)),
            }
        }
    }

    /// Runs `work` in one transaction, committed when it succeeds. A connection lost
    /// before the commit is an error and nothing was written (the server rolls the
    /// transaction back); one lost during the commit leaves the outcome unknown, and
    /// the message says so.
    fn write<T>(
        &self,
        work: impl FnOnce(&mut Transaction<'_>) -> Result<T, Fail>,
    ) -> Result<T, StoreError> {
        let mut client = self.client.borrow_mut();
        let attempt = (|| {
            let mut tx = client.transaction().map_err(Fail::Pg)?;
            let value = work(&mut tx)?;
            tx.commit().map_err(|e| match is_lost(&e) {
                true => Fail::CommitLost(e),
                false => Fail::Pg(e),
            })?;
            Ok(value)
        })();
        attempt.map_err(|f| self.error(f))
    }

    /// Runs `work` with the client, outside any explicit transaction.
    fn read<T>(&self, work: impl FnOnce(&mut Client) -> Result<T, Fail>) -> Result<T, StoreError> {
        let mut client = self.client.borrow_mut();
        work(&mut client).map_err(|f| self.error(f))
    }

    fn error(&self, fail: Fail) -> StoreError {
        let path = self.location.clone().into();
        match fail {
            Fail::Bad(reason) => StoreError::Corrupt {
                path,
                reason: scrub(reason, self.secret.as_deref()),
            },
            Fail::NotIozone => StoreError::NotIozone(path),
            Fail::CommitLost(e) => StoreError::Server {
                location: self.location.clone(),
                reason: scrub(
                    format!(
                        "the server closed the connection during the commit, so whether this \
                         was recorded is unknown ({}); `iozone history` shows",
                        one_line(&e)
                    ),
                    self.secret.as_deref(),
                ),
            },
            Fail::TooNew { found, known } => StoreError::TooNew { path, found, known },
            Fail::Pg(e) => {
                let (damaged, reason) = use_reason(&e);
                let reason = scrub(reason, self.secret.as_deref());
                if damaged {
                    StoreError::Corrupt { path, reason }
                } else {
                    StoreError::Server {
                        location: self.location.clone(),
                        reason,
                    }
                }
            }
        }
    }

    /// The server process serving this store, for tests that cut the connection.
    #[cfg(test)]
    pub(super) fn backend_pid(&self) -> i32 {
        self.client
            .borrow_mut()
            .query_one("SELECT pg_backend_pid()", &[])
            .unwrap()
            .get(0)
    }

    /// Opens with a history of migrations other than the real one, to test the runner.
    #[cfg(test)]
    pub(super) fn open_with_steps(url: &str, steps: &[&str]) -> Result<PgStore, StoreError> {
        Self::open_with(url, steps)
    }
}

/// Connects, TLS as the URL's `sslmode` says (the server's certificate is verified
/// against the system's roots), or says why not.
fn dial(config: Config) -> Result<Client, String> {
    let tls = native_tls::TlsConnector::new()
        .map_err(|e| format!("cannot set up TLS: {}", flatten(&e.to_string())))?;
    let timeout = config
        .get_connect_timeout()
        .copied()
        .unwrap_or(CONNECT_TIMEOUT);
    // The driver's timeout covers the TCP connect only; a server (or anything else on
    // that port) that accepts and then says nothing would hang the handshake for ever.
    // So the connection is made on a thread and waited for with a deadline: a timeout
    // per host, as the driver tries them in turn.
    let deadline = timeout * config.get_hosts().len().max(1) as u32;
    let (send, receive) = std::sync::mpsc::channel();
    let tls = MakeTlsConnector::new(tls);
    std::thread::spawn(move || {
        // a late connection is dropped (and closed) when nobody waits any more
        let _ = send.send(config.connect(tls));
    });
    match receive.recv_timeout(deadline) {
        Ok(Ok(client)) => Ok(client),
        Ok(Err(e)) => Err(connect_reason(&e, timeout)),
        Err(_) => Err(format!(
            "cannot connect: no answer within {} s",
            deadline.as_secs()
        )),
    }
}

/// Whether the error is the connection's end rather than the command's: the server
/// went away (restarted, failed over, or an administrator ended the session).
fn is_lost(e: &postgres::Error) -> bool {
    e.is_closed()
        || e.to_string()
            .starts_with("error communicating with the server")
        || e.code().is_some_and(|c| {
            c == &SqlState::ADMIN_SHUTDOWN
                || c == &SqlState::CRASH_SHUTDOWN
                || c == &SqlState::CANNOT_CONNECT_NOW
        })
}

/// Applies the next migration under the lock, unless the schema is (now) current:
/// returns whether it was.
fn migrate_step(client: &mut Client, steps: &[&str]) -> Result<bool, Fail> {
    let known = steps.len();
    let mut tx = client.transaction()?;
    tx.execute("SELECT pg_advisory_xact_lock($1)", &[&MIGRATION_LOCK])?;
    let version = identify(&mut tx, known)?;
    if version == known {
        return Ok(true);
    }
    tx.batch_execute(steps[version])?;
    tx.execute(
        "INSERT INTO iozone.schema_version (version) VALUES ($1)",
        &[&(version as i32 + 1)],
    )?;
    tx.commit()?;
    Ok(false)
}

/// Why an operation failed, before it becomes a [`StoreError`] with the location.
enum Fail {
    Pg(postgres::Error),
    /// The connection ended during the commit: whether it took effect is unknown.
    CommitLost(postgres::Error),
    /// A value the schema allows but this iozone cannot read: the data is damaged.
    Bad(String),
    NotIozone,
    TooNew {
        found: usize,
        known: usize,
    },
}

impl From<postgres::Error> for Fail {
    fn from(e: postgres::Error) -> Self {
        Fail::Pg(e)
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

/// `password=VALUE` (or `password='quoted value'`) in a `key=value` connection string.
pub(super) fn mask_password_words(text: &str) -> String {
    let lower = text.to_ascii_lowercase();
    let Some(start) = lower.find("password") else {
        return text.to_string();
    };
    let after_key = start + "password".len();
    let Some(eq) = text[after_key..].find(|c: char| !c.is_whitespace()) else {
        return text.to_string();
    };
    if !text[after_key + eq..].starts_with('=') {
        return text.to_string();
    }
    let value_start = after_key + eq + 1;
    let trimmed = text[value_start..].trim_start();
    let value_start = text.len() - trimmed.len();
    let value_end = if let Some(quoted) = trimmed.strip_prefix('\'') {
        // to the closing quote (a backslash escapes one), or the end
        let mut end = text.len();
        let mut escaped = false;
        for (i, c) in quoted.char_indices() {
            match c {
                _ if escaped => escaped = false,
                '\\' => escaped = true,
                '\'' => {
                    end = value_start + 1 + i + 1;
                    break;
                }
                _ => {}
            }
        }
        end
    } else {
        trimmed
            .find(char::is_whitespace)
            .map_or(text.len(), |i| value_start + i)
    };
    format!(
        "{}***{}",
        &text[..value_start],
        mask_password_words(&text[value_end..])
    )
}

/// The message with the password, should it appear, replaced (a short password would
/// match ordinary words, and no server message contains it anyway: this is a belt).
fn scrub(message: String, secret: Option<&str>) -> String {
    match secret {
        Some(s) if s.len() >= 4 && message.contains(s) => message.replace(s, "***"),
        _ => message,
    }
}

/// One line: newlines and runs of spaces become single spaces.
fn flatten(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The error and its causes on one line ("error connecting to server: Connection
/// refused (os error 111)"); a server's error is its message alone.
fn one_line(e: &postgres::Error) -> String {
    if let Some(db) = e.as_db_error() {
        return flatten(db.message());
    }
    let mut text = e.to_string();
    let mut source = std::error::Error::source(e);
    while let Some(cause) = source {
        let cause_text = cause.to_string();
        if !text.contains(&cause_text) {
            text.push_str(": ");
            text.push_str(&cause_text);
        }
        source = cause.source();
    }
    flatten(&text)
}

/// The causes alone, without the driver's own prefix.
fn causes(e: &postgres::Error) -> Option<String> {
    let cause = std::error::Error::source(e)?;
    let mut text = cause.to_string();
    let mut source = cause.source();
    while let Some(inner) = source {
        let inner_text = inner.to_string();
        if !text.contains(&inner_text) {
            text.push_str(": ");
            text.push_str(&inner_text);
        }
        source = inner.source();
    }
    Some(flatten(&text))
}

/// Why a connection could not be made, in the words a user acts on.
fn connect_reason(e: &postgres::Error, timeout: Duration) -> String {
    if let Some(db) = e.as_db_error() {
        // "password authentication failed for user "iozone"", "database "x" does not
        // exist", "too many clients already": the server's own words say it best
        return flatten(db.message());
    }
    let text = e.to_string();
    let detail = causes(e).unwrap_or_default();
    if text.starts_with("timeout") {
        format!("cannot connect: no answer within {} s", timeout.as_secs())
    } else if text.starts_with("error performing TLS handshake") {
        format!("cannot connect: the TLS handshake failed: {detail}")
    } else if text.starts_with("invalid configuration") {
        format!("not a valid PostgreSQL URL: {detail}")
    } else if detail.is_empty() {
        format!("cannot connect: {text}")
    } else {
        format!("cannot connect: {detail}")
    }
}

/// Why a command on an open connection failed, and whether it says the data is damaged.
fn use_reason(e: &postgres::Error) -> (bool, String) {
    if let Some(db) = e.as_db_error() {
        let message = flatten(db.message());
        let code = db.code();
        return if code == &SqlState::DATA_CORRUPTED || code == &SqlState::INDEX_CORRUPTED {
            (true, message)
        } else if code == &SqlState::UNDEFINED_TABLE || code == &SqlState::UNDEFINED_COLUMN {
            (
                true,
                format!("the iozone schema lacks what this iozone expects: {message}"),
            )
        } else if code.code().starts_with("57P") || code == &SqlState::ADMIN_SHUTDOWN {
            (false, format!("the server ended the session: {message}"))
        } else {
            (false, message)
        };
    }
    let text = e.to_string();
    if e.is_closed() || text.starts_with("error communicating with the server") {
        let detail = causes(e).map(|d| format!(": {d}")).unwrap_or_default();
        (
            false,
            format!(
                "the server closed the connection{detail} (it restarted, or an administrator \
                 ended the session); try again"
            ),
        )
    } else if text.starts_with("error deserializing") || text.starts_with("invalid column") {
        (true, one_line(e))
    } else {
        (false, one_line(e))
    }
}

impl Store for PgStore {
    fn location(&self) -> String {
        self.location.clone()
    }

    fn begin_run(&mut self, run: &Run) -> Result<i64, StoreError> {
        self.write(|tx| {
            let ids = insert_runs(tx, &[run], Some(RunStatus::Running), false)?;
            Ok(ids[0].expect("an insert without ON CONFLICT returns its id"))
        })
    }

    fn finish_run(&mut self, id: i64, run: &Run) -> Result<(), StoreError> {
        self.write(|tx| {
            insert_results(tx, flagged(id, run))?;
            tx.execute(
                "UPDATE iozone.runs SET status = $1, finished_at = $2, repeat = $3, \
                 state_at_end = $4 WHERE id = $5",
                &[
                    &rows::name(&run.status),
                    &run.finished_at,
                    &i64::from(run.params.repeat),
                    &run.state_at_end.as_ref().map(rows::json),
                    &id,
                ],
            )?;
            Ok(())
        })
    }

    fn save_run(&mut self, run: &Run) -> Result<Option<i64>, StoreError> {
        self.write(|tx| Ok(save_in(tx, &[run])?[0]))
    }

    fn save_runs(&mut self, runs: &[Run]) -> Result<usize, StoreError> {
        self.write(|tx| {
            let mut added = 0;
            for chunk in runs.chunks(CHUNK) {
                let chunk: Vec<&Run> = chunk.iter().collect();
                added += save_in(tx, &chunk)?.iter().flatten().count();
            }
            Ok(added)
        })
    }

    fn known_uuids(&self, uuids: &[Uuid]) -> Result<HashSet<Uuid>, StoreError> {
        self.read(|client| known(client, uuids))
    }

    fn list_runs(&self, filter: &RunFilter) -> Result<Vec<Run>, StoreError> {
        let (sql, values) = list_query(filter);
        self.read(|client| {
            let params: Vec<&(dyn ToSql + Sync)> = values.iter().map(|v| &**v).collect();
            let mut runs = client
                .query(&sql, &params)?
                .iter()
                .map(run_from_row)
                .collect::<Result<Vec<_>, _>>()?;
            labels_and_tags(client, &mut runs)?;
            Ok(runs)
        })
    }

    fn load_run(&self, id: i64) -> Result<Option<Run>, StoreError> {
        self.read(|client| {
            let sql = format!("SELECT {RUN_COLUMNS} FROM iozone.runs WHERE id = $1");
            let Some(row) = client.query_opt(&sql, &[&id])? else {
                return Ok(None);
            };
            let mut runs = vec![run_from_row(&row)?];
            labels_and_tags(client, &mut runs)?;
            let mut run = runs.pop().expect("one run");
            results(client, &[id])?
                .remove(&id)
                .unwrap_or_default()
                .fill(&mut run);
            Ok(Some(run))
        })
    }

    fn results_of(&self, ids: &[i64]) -> Result<HashMap<i64, RunResults>, StoreError> {
        self.read(|client| results(client, ids))
    }

    fn resolve(&self, reference: &RunRef) -> Result<i64, StoreError> {
        let found: Vec<i64> = self.read(|client| {
            let rows = match reference {
                RunRef::Id(id) => {
                    client.query("SELECT id FROM iozone.runs WHERE id = $1", &[id])?
                }
                RunRef::Latest(n) => client.query(
                    "SELECT id FROM iozone.runs ORDER BY started_at DESC, id DESC \
                     LIMIT 1 OFFSET $1",
                    &[&i64::from(*n)],
                )?,
                // a prefix is a range of UUIDs, which the unique index finds at once
                RunRef::UuidPrefix(prefix) => match uuid_range(prefix) {
                    Some((low, high)) => client.query(
                        "SELECT id FROM iozone.runs WHERE uuid BETWEEN $1 AND $2 \
                         ORDER BY uuid LIMIT 2",
                        &[&low, &high],
                    )?,
                    None => Vec::new(),
                },
            };
            Ok(rows.iter().map(|r| r.get(0)).collect())
        })?;
        match found.as_slice() {
            [id] => Ok(*id),
            [] => Err(StoreError::NoSuchRun(reference.to_string())),
            _ => Err(StoreError::Ambiguous(reference.to_string())),
        }
    }

    fn check(&self) -> Result<CheckReport, StoreError> {
        let schema_version = self.version(self.known)?;
        self.read(|client| {
            let counts = client.query_one(
                "SELECT (SELECT count(*) FROM iozone.runs), \
                        (SELECT count(*) FROM iozone.results), \
                        (SELECT count(*) FROM iozone.runs WHERE status = 'running')",
                &[],
            )?;
            // The server keeps the constraints itself; what can go wrong under it is an
            // index left invalid (an interrupted CREATE INDEX CONCURRENTLY, a failed
            // REINDEX), which queries then ignore or which blocks uniqueness.
            let problems = client
                .query(
                    "SELECT c.relname FROM pg_index i \
                     JOIN pg_class c ON c.oid = i.indexrelid \
                     JOIN pg_namespace n ON n.oid = c.relnamespace \
                     WHERE n.nspname = 'iozone' AND NOT (i.indisvalid AND i.indisready) \
                     ORDER BY c.relname",
                    &[],
                )?
                .iter()
                .map(|r| {
                    let name: String = r.get(0);
                    format!("index iozone.{name} is invalid; REINDEX INDEX iozone.{name}")
                })
                .collect();
            let count = |i: usize| counts.get::<_, i64>(i).max(0) as u64;
            Ok(CheckReport {
                path: self.location.clone(),
                schema_version,
                latest_schema: self.known,
                runs: count(0),
                results: count(1),
                unfinished_runs: count(2),
                problems,
            })
        })
    }
}

/// Which of `uuids` are recorded.
fn known(client: &mut impl GenericClient, uuids: &[Uuid]) -> Result<HashSet<Uuid>, Fail> {
    if uuids.is_empty() {
        return Ok(HashSet::new());
    }
    Ok(client
        .query(
            "SELECT uuid FROM iozone.runs WHERE uuid = ANY($1)",
            &[&uuids],
        )?
        .iter()
        .map(|r| r.get(0))
        .collect())
}

/// Saves whole runs, skipping those whose UUID is recorded (or came earlier in the
/// batch). Returns each run's new id, `None` for a skipped one.
fn save_in(tx: &mut Transaction<'_>, runs: &[&Run]) -> Result<Vec<Option<i64>>, Fail> {
    let ids = insert_runs(tx, runs, None, true)?;
    insert_results(
        tx,
        runs.iter()
            .zip(&ids)
            .filter_map(|(run, id)| id.map(|id| (id, *run)))
            .flat_map(|(id, run)| flagged(id, run)),
    )?;
    Ok(ids)
}

/// A run's measurements with its id and their warm-up flag, as `results` rows hold them.
fn flagged(id: i64, run: &Run) -> impl Iterator<Item = (i64, bool, &Measurement)> {
    let measured = run.results.iter().map(move |m| (id, false, m));
    measured.chain(run.warmup.iter().map(move |m| (id, true, m)))
}

/// Columns for a batch insert: each is one array parameter, and the statement is
/// `INSERT ... SELECT * FROM unnest($1::type[], ...)`, one round trip for all rows.
#[derive(Default)]
struct Columns<'a> {
    names: Vec<&'static str>,
    types: Vec<&'static str>,
    values: Vec<Box<dyn ToSql + Sync + 'a>>,
}

impl<'a> Columns<'a> {
    fn add<T: ToSql + Sync + 'a>(
        &mut self,
        name: &'static str,
        ty: &'static str,
        values: impl Iterator<Item = T>,
    ) {
        self.names.push(name);
        self.types.push(ty);
        self.values.push(Box::new(values.collect::<Vec<T>>()));
    }

    fn insert(&self, table: &str, tail: &str) -> String {
        let arrays: Vec<String> = self
            .types
            .iter()
            .enumerate()
            .map(|(i, ty)| format!("${}::{ty}[]", i + 1))
            .collect();
        format!(
            "INSERT INTO iozone.{table} ({}) SELECT * FROM unnest({}) {tail}",
            self.names.join(", "),
            arrays.join(", ")
        )
    }

    fn params(&self) -> Vec<&(dyn ToSql + Sync)> {
        self.values.iter().map(|v| &**v as _).collect()
    }
}

/// Inserts run rows with their labels and tags; `status` overrides the runs' own.
/// With `skip_known`, runs whose UUID is recorded, or repeats one earlier in `runs`,
/// are left out (`None`); without it, a known UUID is an error, as SQLite's is.
fn insert_runs(
    tx: &mut Transaction<'_>,
    runs: &[&Run],
    status: Option<RunStatus>,
    skip_known: bool,
) -> Result<Vec<Option<i64>>, Fail> {
    let mut ids = vec![None; runs.len()];
    let mut todo: Vec<usize> = (0..runs.len()).collect();
    if skip_known {
        // Asked first rather than left to ON CONFLICT alone, which would still draw
        // (and so skip) an id for every known run: ids are what users type.
        let uuids: Vec<Uuid> = runs.iter().map(|r| r.uuid).collect();
        let known = known(tx, &uuids)?;
        let mut seen = HashSet::new();
        todo.retain(|&i| !known.contains(&runs[i].uuid) && seen.insert(runs[i].uuid));
    }
    if todo.is_empty() {
        return Ok(ids);
    }
    let batch: Vec<&Run> = todo.iter().map(|&i| runs[i]).collect();
    let b = || batch.iter().copied();
    let mut c = Columns::default();
    c.add("uuid", "uuid", b().map(|r| r.uuid));
    c.add("started_at", "timestamptz", b().map(|r| r.started_at));
    c.add("finished_at", "timestamptz", b().map(|r| r.finished_at));
    c.add(
        "status",
        "text",
        b().map(|r| rows::name(&status.unwrap_or(r.status))),
    );
    c.add("note", "text", b().map(|r| r.note.as_deref()));
    c.add("tool_version", "text", b().map(|r| r.tool_version.as_str()));
    c.add("engine", "text", b().map(|r| rows::name(&r.params.engine)));
    c.add("cache", "text", b().map(|r| rows::name(&r.params.cache)));
    c.add(
        "threads",
        "bigint",
        b().map(|r| i64::from(r.params.threads)),
    );
    c.add(
        "file_size",
        "bigint",
        b().map(|r| r.params.file_size.bytes() as i64),
    );
    c.add(
        "file_sizes",
        "text",
        b().map(|r| rows::json(&r.params.file_sizes)),
    );
    c.add(
        "record_sizes",
        "text",
        b().map(|r| rows::json(&r.params.record_sizes)),
    );
    c.add("tests", "text", b().map(|r| rows::json(&r.params.tests)));
    c.add("repeat", "bigint", b().map(|r| i64::from(r.params.repeat)));
    c.add("seed", "bigint", b().map(|r| r.params.seed as i64));
    c.add("auto", "boolean", b().map(|r| r.params.auto));
    c.add("verify", "boolean", b().map(|r| r.params.verify));
    c.add(
        "read_pct",
        "bigint",
        b().map(|r| i64::from(r.params.read_pct)),
    );
    c.add(
        "stride_records",
        "bigint",
        b().map(|r| r.params.stride_records as i64),
    );
    c.add("latency", "boolean", b().map(|r| r.params.latency));
    c.add("dir", "text", b().map(|r| r.params.dir.as_str()));
    let host = |f: fn(&Host) -> &Option<String>| b().map(move |r| f(&r.host).as_deref());
    let host_n = |f: fn(&Host) -> Option<u64>| b().map(move |r| f(&r.host).map(|v| v as i64));
    c.add("hostname", "text", host(|h| &h.hostname));
    c.add("os", "text", host(|h| &h.os));
    c.add("os_version", "text", host(|h| &h.os_version));
    c.add("kernel", "text", host(|h| &h.kernel));
    c.add("kernel_cmdline", "text", host(|h| &h.kernel_cmdline));
    c.add("boot_id", "text", host(|h| &h.boot_id));
    c.add("arch", "text", host(|h| &h.arch));
    c.add("cpu_model", "text", host(|h| &h.cpu_model));
    c.add("cpus", "bigint", b().map(|r| r.host.cpus.map(i64::from)));
    c.add("cpu_governor", "text", host(|h| &h.cpu_governor));
    c.add("memory_bytes", "bigint", host_n(|h| h.memory_bytes));
    c.add("page_size", "bigint", host_n(|h| h.page_size));
    c.add("dirty_ratio", "bigint", host_n(|h| h.dirty_ratio));
    c.add(
        "dirty_background_ratio",
        "bigint",
        host_n(|h| h.dirty_background_ratio),
    );
    c.add("dirty_bytes", "bigint", host_n(|h| h.dirty_bytes));
    c.add(
        "dirty_background_bytes",
        "bigint",
        host_n(|h| h.dirty_background_bytes),
    );
    c.add(
        "dirty_expire_centisecs",
        "bigint",
        host_n(|h| h.dirty_expire_centisecs),
    );
    c.add(
        "dirty_writeback_centisecs",
        "bigint",
        host_n(|h| h.dirty_writeback_centisecs),
    );
    c.add("virtualization", "text", host(|h| &h.virtualization));
    c.add("container", "text", host(|h| &h.container));
    let fs = |f: fn(&Filesystem) -> &Option<String>| b().map(move |r| f(&r.filesystem).as_deref());
    let fs_n =
        |f: fn(&Filesystem) -> Option<u64>| b().map(move |r| f(&r.filesystem).map(|v| v as i64));
    c.add("mount_point", "text", fs(|f| &f.mount_point));
    c.add("fs_type", "text", fs(|f| &f.fs_type));
    c.add("fs_device", "text", fs(|f| &f.device));
    c.add("mount_options", "text", fs(|f| &f.mount_options));
    c.add("block_size", "bigint", fs_n(|f| f.block_size));
    c.add("total_bytes", "bigint", fs_n(|f| f.total_bytes));
    c.add("free_bytes", "bigint", fs_n(|f| f.free_bytes));
    c.add("block_device", "text", fs(|f| &f.block_device));
    c.add("device_model", "text", fs(|f| &f.device_model));
    c.add(
        "rotational",
        "boolean",
        b().map(|r| r.filesystem.rotational),
    );
    c.add("scheduler", "text", fs(|f| &f.scheduler));
    c.add("device_size", "bigint", fs_n(|f| f.device_size));
    let src = || b().map(|r| r.source.as_ref());
    c.add(
        "source_tool",
        "text",
        src().map(|s| s.map(|s| s.tool.as_str())),
    );
    c.add(
        "source_version",
        "text",
        src().map(|s| s.and_then(|s| s.version.as_deref())),
    );
    c.add(
        "source_command",
        "text",
        src().map(|s| s.and_then(|s| s.command.as_deref())),
    );
    c.add(
        "source_file",
        "text",
        src().map(|s| s.and_then(|s| s.file.as_deref())),
    );
    c.add(
        "imported_at",
        "timestamptz",
        src().map(|s| s.map(|s| s.imported_at)),
    );
    c.add(
        "source_time_known",
        "boolean",
        src().map(|s| s.map(|s| s.time_known)),
    );
    c.add("warmup", "bigint", b().map(|r| i64::from(r.params.warmup)));
    c.add(
        "round_order",
        "text",
        b().map(|r| rows::name(&r.params.order)),
    );
    let auto = || b().map(|r| r.params.repeat_auto);
    c.add(
        "precision_pct",
        "double precision",
        auto().map(|a| a.map(|a| a.precision_pct)),
    );
    c.add(
        "max_time_s",
        "double precision",
        auto().map(|a| a.map(|a| a.max_time_s)),
    );
    let state =
        |f: fn(&Run) -> &Option<MachineState>| b().map(move |r| f(r).as_ref().map(rows::json));
    c.add("state_at_start", "text", state(|r| &r.state_at_start));
    c.add("state_at_end", "text", state(|r| &r.state_at_end));
    // ON CONFLICT still: another process may record the same UUID meanwhile
    let tail = if skip_known {
        "ON CONFLICT (uuid) DO NOTHING RETURNING id, uuid"
    } else {
        "RETURNING id, uuid"
    };
    let new: HashMap<Uuid, i64> = tx
        .query(&c.insert("runs", tail), &c.params())?
        .iter()
        .map(|r| (r.get(1), r.get(0)))
        .collect();
    for &i in &todo {
        ids[i] = new.get(&runs[i].uuid).copied();
    }

    let added = || {
        runs.iter()
            .zip(&ids)
            .filter_map(|(run, id)| id.map(|id| (id, *run)))
    };
    let labels: Vec<(i64, &str, i64)> = added()
        .flat_map(|(id, run)| {
            run.labels
                .iter()
                .enumerate()
                .map(move |(position, label)| (id, label.as_str(), position as i64))
        })
        .collect();
    if !labels.is_empty() {
        let mut c = Columns::default();
        c.add("run_id", "bigint", labels.iter().map(|l| l.0));
        c.add("label", "text", labels.iter().map(|l| l.1));
        c.add("position", "bigint", labels.iter().map(|l| l.2));
        // a label given twice keeps its first position, as SQLite's INSERT OR IGNORE
        tx.execute(
            &c.insert("run_labels", "ON CONFLICT (run_id, label) DO NOTHING"),
            &c.params(),
        )?;
    }
    let tags: Vec<(i64, &str, &str)> = added()
        .flat_map(|(id, run)| {
            run.tags
                .iter()
                .map(move |(k, v)| (id, k.as_str(), v.as_str()))
        })
        .collect();
    if !tags.is_empty() {
        let mut c = Columns::default();
        c.add("run_id", "bigint", tags.iter().map(|t| t.0));
        c.add("key", "text", tags.iter().map(|t| t.1));
        c.add("value", "text", tags.iter().map(|t| t.2));
        tx.execute(&c.insert("run_tags", ""), &c.params())?;
    }
    Ok(ids)
}

/// Inserts results, each with its run's id, in batches.
fn insert_results<'m>(
    tx: &mut Transaction<'_>,
    results: impl Iterator<Item = (i64, bool, &'m Measurement)>,
) -> Result<(), Fail> {
    let results: Vec<(i64, bool, &Measurement)> = results.collect();
    for batch in results.chunks(CHUNK * 20) {
        let r = || batch.iter().map(|(id, warmup, m)| ((*id, *warmup), *m));
        let lat = |f: fn(&Latency) -> u64| {
            r().map(move |(_, m)| m.latency_ns.as_ref().map(|l| f(l) as i64))
        };
        let mut c = Columns::default();
        c.add("run_id", "bigint", r().map(|((id, _), _)| id));
        c.add("warmup", "boolean", r().map(|((_, warmup), _)| warmup));
        c.add("test", "text", r().map(|(_, m)| m.test.name()));
        c.add(
            "file_size",
            "bigint",
            r().map(|(_, m)| m.file_size.bytes() as i64),
        );
        c.add(
            "record_size",
            "bigint",
            r().map(|(_, m)| m.record_size.bytes() as i64),
        );
        c.add(
            "repetition",
            "bigint",
            r().map(|(_, m)| i64::from(m.repetition)),
        );
        c.add("bytes", "bigint", r().map(|(_, m)| m.bytes as i64));
        c.add(
            "elapsed_ns",
            "bigint",
            r().map(|(_, m)| m.elapsed_ns as i64),
        );
        c.add(
            "throughput",
            "double precision",
            r().map(|(_, m)| m.throughput),
        );
        c.add("lat_p50", "bigint", lat(|l| l.p50));
        c.add("lat_p99", "bigint", lat(|l| l.p99));
        c.add("lat_p999", "bigint", lat(|l| l.p999));
        c.add("lat_max", "bigint", lat(|l| l.max));
        c.add("lat_samples", "bigint", lat(|l| l.samples));
        tx.execute(&c.insert("results", ""), &c.params())?;
    }
    Ok(())
}

/// Fills in the labels and tags of listed runs: two queries for all of them.
fn labels_and_tags(client: &mut Client, runs: &mut [Run]) -> Result<(), Fail> {
    let ids: Vec<i64> = runs.iter().filter_map(|r| r.id).collect();
    if ids.is_empty() {
        return Ok(());
    }
    let index: HashMap<i64, usize> = ids.iter().enumerate().map(|(i, &id)| (id, i)).collect();
    for row in client.query(
        "SELECT run_id, label FROM iozone.run_labels WHERE run_id = ANY($1) \
         ORDER BY run_id, position",
        &[&ids],
    )? {
        runs[index[&get::<i64>(&row, 0)?]]
            .labels
            .push(get(&row, 1)?);
    }
    for row in client.query(
        "SELECT run_id, key, value FROM iozone.run_tags WHERE run_id = ANY($1)",
        &[&ids],
    )? {
        runs[index[&get::<i64>(&row, 0)?]]
            .tags
            .insert(get(&row, 1)?, get(&row, 2)?);
    }
    Ok(())
}

/// The results of the runs `ids`, each in the order it was measured; every id asked for
/// has an entry, as SQLite's `results_of` gives.
fn results(client: &mut Client, ids: &[i64]) -> Result<HashMap<i64, RunResults>, Fail> {
    let mut by_run: HashMap<i64, Vec<(bool, Measurement)>> =
        ids.iter().map(|&id| (id, Vec::new())).collect();
    if !ids.is_empty() {
        let sql = format!("SELECT {RESULT_COLUMNS} FROM iozone.results WHERE run_id = ANY($1)");
        for row in client.query(&sql, &[&ids])? {
            let (id, warmup, m) = measurement_from_row(&row)?;
            by_run.entry(id).or_default().push((warmup, m));
        }
    }
    Ok(by_run
        .into_iter()
        .map(|(id, rows)| (id, RunResults::from_flagged(rows)))
        .collect())
}

/// The UUIDs that start with `prefix` (hyphens ignored) as an inclusive range, or
/// `None` when no UUID can start with it.
fn uuid_range(prefix: &str) -> Option<(Uuid, Uuid)> {
    let hex = prefix.replace('-', "").to_ascii_lowercase();
    if hex.len() > 32 || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    let low = Uuid::parse_str(&format!("{hex:0<32}")).ok()?;
    let high = Uuid::parse_str(&format!("{hex:f<32}")).ok()?;
    Some((low, high))
}

/// The `history` query, with PostgreSQL's `$n` placeholders.
fn list_query(filter: &RunFilter) -> (String, Vec<Box<dyn ToSql + Sync>>) {
    let mut sql = format!("SELECT {RUN_COLUMNS} FROM iozone.runs r WHERE true");
    let mut values: Vec<Box<dyn ToSql + Sync>> = Vec::new();
    for (clause, params) in filter::conditions(filter, "iozone.") {
        sql.push_str(" AND ");
        let mut parts = clause.split('?');
        sql.push_str(parts.next().unwrap_or_default());
        for (part, param) in parts.zip(params) {
            values.push(match param {
                Param::Text(t) => Box::new(t),
                Param::Int(i) => Box::new(i),
                Param::Time(t) => Box::new(t),
            });
            sql.push_str(&format!("${}{part}", values.len()));
        }
    }
    sql.push_str(&filter::order_and_limit(filter));
    (sql, values)
}

/// Column `idx`, or why it cannot be read (the data is not what iozone wrote).
fn get<'a, T: FromSql<'a>>(row: &'a Row, idx: usize) -> Result<T, Fail> {
    row.try_get(idx).map_err(|e| {
        Fail::Bad(format!(
            "column {} cannot be read: {}",
            row.columns()[idx].name(),
            causes(&e).unwrap_or_else(|| one_line(&e))
        ))
    })
}

/// A count or size stored as bigint; SQLite's store reads negatives as 0 too.
fn unsigned(row: &Row, idx: usize) -> Result<Option<u64>, Fail> {
    Ok(get::<Option<i64>>(row, idx)?.map(|v| v.max(0) as u64))
}

/// A bigint that must fit a narrower field.
fn narrow<T: TryFrom<i64>>(row: &Row, idx: usize) -> Result<T, Fail> {
    let v: i64 = get(row, idx)?;
    T::try_from(v).map_err(|_| {
        Fail::Bad(format!(
            "column {} holds {v}, out of range",
            row.columns()[idx].name()
        ))
    })
}

/// An enum (`quoted`: a bare name) or a list stored as JSON text.
fn parsed<T: DeserializeOwned>(row: &Row, idx: usize, quoted: bool) -> Result<T, Fail> {
    let text: String = get(row, idx)?;
    let json = if quoted {
        format!("\"{text}\"")
    } else {
        text.clone()
    };
    serde_json::from_str(&json).map_err(|_| {
        Fail::Bad(format!(
            "column {} holds '{text}', which this iozone cannot read",
            row.columns()[idx].name()
        ))
    })
}

/// A run from a row of [`RUN_COLUMNS`]; labels, tags and results are filled elsewhere.
fn run_from_row(row: &Row) -> Result<Run, Fail> {
    let params = Params {
        engine: parsed(row, 7, true)?,
        cache: parsed(row, 8, true)?,
        threads: narrow(row, 9)?,
        file_size: ByteSize(get::<i64>(row, 10)? as u64),
        file_sizes: parsed(row, 11, false)?,
        record_sizes: parsed(row, 12, false)?,
        tests: parsed(row, 13, false)?,
        repeat: narrow(row, 14)?,
        seed: get::<i64>(row, 15)? as u64,
        auto: get(row, 16)?,
        verify: get(row, 17)?,
        read_pct: narrow(row, 18)?,
        stride_records: get::<i64>(row, 19)? as u64,
        latency: get(row, 20)?,
        dir: get(row, 21)?,
        warmup: narrow(row, 60)?,
        order: parsed(row, 61, true)?,
        repeat_auto: match (get(row, 62)?, get(row, 63)?) {
            (Some(precision_pct), Some(max_time_s)) => Some(AutoRepeat {
                precision_pct,
                max_time_s,
            }),
            _ => None,
        },
    };
    let cpus = match get::<Option<i64>>(row, 30)? {
        Some(_) => Some(narrow(row, 30)?),
        None => None,
    };
    let host = Host {
        hostname: get(row, 22)?,
        os: get(row, 23)?,
        os_version: get(row, 24)?,
        kernel: get(row, 25)?,
        kernel_cmdline: get(row, 26)?,
        boot_id: get(row, 27)?,
        arch: get(row, 28)?,
        cpu_model: get(row, 29)?,
        cpus,
        cpu_governor: get(row, 31)?,
        memory_bytes: unsigned(row, 32)?,
        page_size: unsigned(row, 33)?,
        dirty_ratio: unsigned(row, 34)?,
        dirty_background_ratio: unsigned(row, 35)?,
        dirty_bytes: unsigned(row, 36)?,
        dirty_background_bytes: unsigned(row, 37)?,
        dirty_expire_centisecs: unsigned(row, 38)?,
        dirty_writeback_centisecs: unsigned(row, 39)?,
        virtualization: get(row, 40)?,
        container: get(row, 41)?,
    };
    let filesystem = Filesystem {
        mount_point: get(row, 42)?,
        fs_type: get(row, 43)?,
        device: get(row, 44)?,
        mount_options: get(row, 45)?,
        block_size: unsigned(row, 46)?,
        total_bytes: unsigned(row, 47)?,
        free_bytes: unsigned(row, 48)?,
        block_device: get(row, 49)?,
        device_model: get(row, 50)?,
        rotational: get(row, 51)?,
        scheduler: get(row, 52)?,
        device_size: unsigned(row, 53)?,
    };
    let source = match get::<Option<String>>(row, 54)? {
        None => None,
        Some(tool) => Some(Source {
            tool,
            version: get(row, 55)?,
            command: get(row, 56)?,
            file: get(row, 57)?,
            imported_at: get(row, 58)?,
            time_known: get::<Option<bool>>(row, 59)?.unwrap_or(true),
        }),
    };
    Ok(Run {
        id: Some(get(row, 0)?),
        uuid: get(row, 1)?,
        started_at: get(row, 2)?,
        finished_at: get(row, 3)?,
        status: parsed(row, 4, true)?,
        labels: Vec::new(),
        tags: BTreeMap::new(),
        note: get(row, 5)?,
        tool_version: get(row, 6)?,
        params,
        host,
        filesystem,
        source,
        state_at_start: state(row, 64)?,
        state_at_end: state(row, 65)?,
        results: Vec::new(),
        warmup: Vec::new(),
    })
}

/// A machine state kept as JSON text.
fn state(row: &Row, idx: usize) -> Result<Option<MachineState>, Fail> {
    match get::<Option<String>>(row, idx)? {
        None => Ok(None),
        Some(_) => parsed(row, idx, false).map(Some),
    }
}

/// A result from a row of [`RESULT_COLUMNS`], with its run's id and warm-up flag.
fn measurement_from_row(row: &Row) -> Result<(i64, bool, Measurement), Fail> {
    let latency = match get::<Option<i64>>(row, 8)? {
        Some(p50) => Some(Latency {
            p50: p50 as u64,
            p99: get::<i64>(row, 9)? as u64,
            p999: get::<i64>(row, 10)? as u64,
            max: get::<i64>(row, 11)? as u64,
            samples: get::<i64>(row, 12)? as u64,
        }),
        None => None,
    };
    let m = Measurement {
        test: parsed(row, 1, true)?,
        file_size: ByteSize(get::<i64>(row, 2)? as u64),
        record_size: ByteSize(get::<i64>(row, 3)? as u64),
        repetition: narrow(row, 4)?,
        bytes: get::<i64>(row, 5)? as u64,
        elapsed_ns: get::<i64>(row, 6)? as u64,
        throughput: get(row, 7)?,
        latency_ns: latency,
    };
    Ok((get(row, 0)?, get(row, 13)?, m))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn passwords_are_masked() {
        let cases = [
            (
                "postgres://iozone:s3cret@db.example:5432/fleet",
                "postgres://iozone:***@db.example:5432/fleet",
            ),
            (
                "postgresql://u:p%40ss@h/d?sslmode=require&password=two",
                "postgresql://u:***@h/d?sslmode=require&password=***",
            ),
            ("postgres://u@h/d", "postgres://u@h/d"),
            ("postgres://h/d?password=x", "postgres://h/d?password=***"),
            // unencoded '@', '/' or '?' in the password: nothing of it shows
            ("postgres://a:b@c:d@h/x", "postgres://a:***@h/x"),
            ("postgres://u:pa/ss@h/x", "postgres://u:***@h/x"),
            (
                "postgres://iozone:pa@ss?word@host/db",
                "postgres://iozone:***@host/db",
            ),
            // an '@' in the query may hide the host too: never any of the password
            ("postgres://u:p@ss@h/d?x=a@b", "postgres://u:***@b"),
            (
                "host=h user=u password=s3cret dbname=d",
                "host=h user=u password=*** dbname=d",
            ),
            (
                "host=h password = 'a b\\' c' dbname=d",
                "host=h password = *** dbname=d",
            ),
        ];
        for (url, want) in cases {
            assert_eq!(super::super::mask_url(url), want, "{url}");
        }
    }

    #[test]
    fn uuid_prefixes_are_ranges() {
        let (low, high) = uuid_range("4F0C-1a").unwrap();
        assert_eq!(low.to_string(), "4f0c1a00-0000-0000-0000-000000000000");
        assert_eq!(high.to_string(), "4f0c1aff-ffff-ffff-ffff-ffffffffffff");
        assert!(uuid_range("xyz0").is_none());
        assert!(uuid_range(&"a".repeat(33)).is_none());
    }
}
