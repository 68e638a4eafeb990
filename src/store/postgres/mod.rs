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

mod bind;
mod check;
mod errors;
mod migrate;
mod read;
mod tls;
mod walk;
mod write;

use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::net::IpAddr;
use std::time::Duration;

use postgres::config::Host;
use postgres::{Client, Config};
use uuid::Uuid;

use self::errors::{Fail, connect_reason, one_line, scrub, unechoed, use_reason};
use self::tls::LazyTls;
use self::write::CHUNK;
use super::migrate::POSTGRES as MIGRATIONS;
use super::statements;
use super::{
    Batch, CheckReport, Detail, Repaired, RunFilter, RunRef, RunResults, Store, StoreError,
};
use crate::model::{RowSummary, Run, RunStatus};

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
pub struct PgStore {
    // The trait reads through `&self`; the client needs `&mut` for every query.
    client: RefCell<Client>,
    /// The URL with its password masked, for every message.
    location: String,
    /// The password, only to scrub it from messages should a server ever echo it.
    secret: Option<String>,
    /// The schema version this store writes (the migrations it was opened with).
    known: usize,
    /// Whether the server runs on this machine (every host the URL names is).
    here: bool,
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
        // what a migration began and an interruption left (`migrate` derives only after
        // a step, not at every open)
        let derived = write::derive_summaries(&mut store.client.borrow_mut());
        derived.map_err(|f| store.error(f))?;
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
                unechoed(&one_line(&e), &location)
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
        if config.get_options().is_none() {
            // every query reads rows by key; compiling one (the server does above a
            // cost the planner reaches on a large table) costs more than it saves
            config.options("-c jit=off");
        }
        if config.get_keepalives_idle() == DRIVER_KEEPALIVES_IDLE {
            config.keepalives_idle(KEEPALIVES_IDLE);
        }
        let secret = config
            .get_password()
            .map(|p| String::from_utf8_lossy(p).into_owned());
        let here = config.get_hosts().iter().all(on_this_machine);
        let client = dial(config).map_err(|reason| open(scrub(reason, secret.as_deref())))?;
        Ok(PgStore {
            client: RefCell::new(client),
            location,
            secret,
            known: MIGRATIONS.len(),
            here,
        })
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

/// Whether `host` is this machine: a Unix socket, or a loopback name or address.
fn on_this_machine(host: &Host) -> bool {
    match host {
        Host::Unix(_) => true,
        Host::Tcp(name) => {
            let name = name.trim_start_matches('[').trim_end_matches(']');
            name.eq_ignore_ascii_case("localhost")
                || name.parse::<IpAddr>().is_ok_and(|ip| ip.is_loopback())
        }
    }
}

/// Connects, TLS as the URL's `sslmode` says (the server's certificate is verified
/// against the system's roots), or says why not.
fn dial(config: Config) -> Result<Client, String> {
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
    std::thread::spawn(move || {
        // a late connection is dropped (and closed) when nobody waits any more
        let _ = send.send(config.connect(LazyTls));
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

impl Store for PgStore {
    fn location(&self) -> String {
        self.location.clone()
    }

    /// The backend that hands a walk its rows is about as busy as the walk.
    fn cores_serving(&self) -> usize {
        usize::from(self.here)
    }

    fn begin_run(&mut self, run: &Run) -> Result<i64, StoreError> {
        let running = Run {
            status: RunStatus::Running,
            ..run.clone()
        };
        self.write(|tx| {
            let ids = write::insert_runs(tx, &[&running], false)?;
            Ok(ids[0].expect("an insert without ON CONFLICT returns its id"))
        })
    }

    fn finish_run(&mut self, id: i64, run: &Run) -> Result<(), StoreError> {
        self.write(|tx| {
            write::insert_results(tx, &[(id, run)])?;
            read::query(tx, &statements::finish_run("iozone.", id, run))?;
            Ok(())
        })
    }

    fn save_run(&mut self, run: &Run) -> Result<Option<i64>, StoreError> {
        super::check_storable(std::slice::from_ref(run))?;
        self.write(|tx| Ok(write::save_in(tx, &[run])?[0]))
    }

    fn save_runs(&mut self, runs: &[Run]) -> Result<usize, StoreError> {
        super::check_storable(runs)?;
        self.write(|tx| {
            let mut added = 0;
            for chunk in runs.chunks(CHUNK) {
                let chunk: Vec<&Run> = chunk.iter().collect();
                added += write::save_in(tx, &chunk)?.iter().flatten().count();
            }
            Ok(added)
        })
    }

    fn save_batches(
        &mut self,
        next: &mut dyn FnMut() -> Batch,
    ) -> Result<Option<usize>, StoreError> {
        let mut batch = match next() {
            Batch::End => return Ok(Some(0)),
            Batch::Abandon => return Ok(None),
            batch => batch,
        };
        // a run no store may keep abandons the transaction, and is the error
        let mut refused = None;
        let saved = self.write_unless_abandoned(|tx| {
            let mut added = 0;
            let mut open = write::Open::new();
            loop {
                match batch {
                    Batch::Runs(runs) => {
                        if let Err(e) = super::check_storable(&runs) {
                            refused = Some(e);
                            return Ok(None);
                        }
                        for chunk in runs.chunks(CHUNK) {
                            let chunk: Vec<&Run> = chunk.iter().collect();
                            added += write::save_in(tx, &chunk)?.iter().flatten().count();
                        }
                    }
                    Batch::Part(part) => added += write::save_part(tx, &mut open, part)?,
                    Batch::End => return Ok(Some(added)),
                    Batch::Abandon => return Ok(None),
                }
                batch = next();
            }
        })?;
        refused.map_or(Ok(saved), Err)
    }

    fn known_uuids(&self, uuids: &[Uuid]) -> Result<HashSet<Uuid>, StoreError> {
        self.read(|client| read::known(client, uuids))
    }

    fn list_runs(&self, filter: &RunFilter) -> Result<Vec<Run>, StoreError> {
        self.read(|client| read::list_runs(client, filter))
    }

    fn load_run(&self, id: i64) -> Result<Option<Run>, StoreError> {
        self.read(|client| read::load_run(client, id))
    }

    fn results_of(
        &self,
        ids: &[i64],
        detail: Detail,
    ) -> Result<HashMap<i64, RunResults>, StoreError> {
        self.read(|client| read::results(client, ids, detail))
    }

    fn summaries_of(&self, ids: &[i64]) -> Result<HashMap<i64, Vec<RowSummary>>, StoreError> {
        self.read(|client| read::summaries(client, ids))
    }

    fn walk(
        &self,
        filter: &RunFilter,
        read: super::Walk,
        each: &mut super::walk::Each,
    ) -> Result<(), StoreError> {
        self.read(|client| walk::walk(client, filter, read, each))
    }

    fn resolve(&self, reference: &RunRef) -> Result<i64, StoreError> {
        let found = match statements::resolve("iozone.", reference) {
            Some(statement) => self.read(|client| read::ids(client, &statement))?,
            None => Vec::new(),
        };
        statements::one_run(reference, &found)
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
            let problems = check::invalid_indexes(client)?
                .iter()
                .map(|name| format!("index iozone.{name} is invalid; REINDEX INDEX iozone.{name}"))
                .collect();
            let count = |i: usize| counts.get::<_, i64>(i).max(0) as u64;
            let (unreadable, unstorable) = check::bad_runs(client)?;
            Ok(CheckReport {
                path: self.location.clone(),
                schema_version,
                latest_schema: self.known,
                runs: count(0),
                results: count(1),
                unfinished_runs: count(2),
                problems,
                unreadable,
                unstorable,
            })
        })
    }

    fn repair(&mut self, report: &CheckReport) -> Result<Vec<Repaired>, StoreError> {
        self.write(|tx| check::repair(tx, report))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_server_is_on_this_machine_by_socket_or_loopback() {
        let here = |host: &str| {
            let config: Config = format!("postgres://u@{host}/db").parse().unwrap();
            config.get_hosts().iter().all(on_this_machine)
        };
        for host in [
            "localhost",
            "LOCALHOST:5433",
            "127.0.0.1",
            "127.0.0.2",
            "[::1]",
        ] {
            assert!(here(host), "{host}");
        }
        for host in [
            "db.example.org",
            "10.0.0.5",
            "[2001:db8::1]",
            "localhost,db",
        ] {
            assert!(!here(host), "{host}");
        }
        let socket: Config = "host=/run/postgresql dbname=db".parse().unwrap();
        assert!(socket.get_hosts().iter().all(on_this_machine));
    }
}
