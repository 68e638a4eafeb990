//! The store's tests, each written once and run against every backend: a SQLite file,
//! and a fresh PostgreSQL database per test on the server `IOZONE_TEST_PG` names
//! (`eval "$(scripts/pg-test-server.sh)"` starts one). What only one backend can meet
//! (a file that is not SQLite; a server that refuses a password) is tested on its own.
//!
//! Without `IOZONE_TEST_PG` the PostgreSQL tests fail, saying how to start the server,
//! unless `IOZONE_SKIP_PG_TESTS=1` says to skip them knowingly: a fleet store that was
//! never tested must not look tested.
//!
//! By topic: [`runs`] (what goes in comes back), [`finding`] (filters, references and
//! selectors find runs again), [`writers`] (many runs and writers at once),
//! [`selectors`] (ids and ranges any of, conditions all of), [`walks`] (every run in
//! one pass, as the listing and the reads by id give it), [`batches`] (a stream of
//! runs stored in one transaction), [`imports`] (files at the edges of what a run may
//! hold), [`summaries`] (per-run summaries), [`schema`] (new, old, newer and foreign
//! databases), [`migrations`] (released steps unchanged, both stores' steps paired),
//! [`server`] (the PostgreSQL test server and a database per test) and [`connection`]
//! (a server's credentials, reachability and URLs).

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Instant;

use chrono::{DateTime, Duration, TimeZone, Utc};
use rusqlite::Connection;

use super::*;
use crate::model::*;
use crate::units::ByteSize;

/// Instantiates each test body once per backend: `on_sqlite::NAME` and
/// `on_postgres::NAME`, one body, two tests, each failing on its own.
macro_rules! on_every_backend {
    ($($(#[$attr:meta])* $test:ident),* $(,)?) => {
        mod on_sqlite {
            $(
                $(#[$attr])*
                #[test]
                fn $test() {
                    super::$test(&super::Backend::sqlite());
                }
            )*
        }
        mod on_postgres {
            $(
                $(#[$attr])*
                #[test]
                fn $test() {
                    if let Some(backend) = super::Backend::postgres() {
                        super::$test(&backend);
                    }
                }
            )*
        }
    };
}

/// A fresh database for a PostgreSQL-only test, or return when skipped knowingly.
macro_rules! pg_database {
    () => {
        match PgDatabase::create() {
            Some(db) => db,
            None => return,
        }
    };
}

mod batches;
mod connection;
mod finding;
mod imports;
mod migrations;
mod runs;
mod schema;
mod selectors;
mod server;
pub(crate) mod summaries;
mod walks;
mod writers;

use server::{PgDatabase, test_server};

/// A complete run on `hostname`, begun `minutes` after 2026-11-01 12:00 UTC: two tests,
/// three repetitions and a warm-up round, with its environment, source and process.
pub(crate) fn sample_run(hostname: &str, minutes: i64) -> Run {
    let started_at =
        Utc.with_ymd_and_hms(2026, 11, 1, 12, 0, 0).unwrap() + Duration::minutes(minutes);
    let results = sample_results();
    Run {
        id: None,
        uuid: uuid::Uuid::new_v4(),
        started_at,
        finished_at: Some(started_at + Duration::seconds(5)),
        status: RunStatus::Complete,
        labels: vec!["DR9".into(), "nightly".into()],
        tags: BTreeMap::from([("os".to_string(), "dr9".to_string())]),
        note: Some("after upgrade".into()),
        tool_version: "0.1.0".into(),
        params: Params {
            engines: vec![EngineKind::Pread],
            caches: vec![CacheMode::Direct],
            iodepth: 32,
            threads: 2,
            file_sizes: vec![ByteSize(1 << 20)],
            record_sizes: vec![ByteSize(4096)],
            tests: vec![TestKind::Write, TestKind::Read],
            repeat: 3,
            warmup: 1,
            order: RoundOrder::Interleaved,
            repeat_auto: Some(AutoRepeat {
                precision_pct: 2.5,
                max_time_s: 90.0,
            }),
            seed: Some((1 << 53) - 1),
            auto: false,
            verify: true,
            read_pct: Some(70),
            stride_records: Some(17),
            latency: true,
            dir: Some("/mnt/test".into()),
            metadata: Some(MetadataTree {
                files: 7,
                dirs: 3,
                file_bytes: 4096,
                shared_dir: true,
                random_order: false,
                warm: true,
            }),
            ..Params::default()
        },
        host: Host {
            hostname: Some(hostname.into()),
            kernel: Some("6.12.0".into()),
            cpus: Some(8),
            memory_bytes: Some(16 << 30),
            dirty_ratio: Some(20),
            ..Host::default()
        },
        filesystem: Filesystem {
            mount_point: Some("/mnt".into()),
            fs_type: Some("ext4".into()),
            rotational: Some(false),
            total_bytes: Some(1 << 40),
            ..Filesystem::default()
        },
        source: Some(sample_source(started_at)),
        state_at_start: Some(MachineState {
            load_1m: Some(0.52),
            dirty_bytes: Some(12 << 20),
            writeback_bytes: Some(0),
            io_pressure_pct: Some(1.25),
            ..MachineState::default()
        }),
        state_at_end: Some(MachineState {
            load_1m: Some(1.5),
            ..MachineState::default()
        }),
        process: Some(RunProcess {
            pid: 4242,
            start_ticks: 987_654,
        }),
        warmup: warm_up_round(&results),
        results,
        cluster: None,
    }
}

/// The sample's measured results, in the order they are measured: repetition by
/// repetition, each writing and reading 1 MiB in 4 KiB records.
fn sample_results() -> Vec<Measurement> {
    (1..=3u32)
        .flat_map(|repetition| {
            [TestKind::Write, TestKind::Read].map(move |test| Measurement {
                test,
                file_size: ByteSize(1 << 20),
                record_size: ByteSize(4096),
                repetition,
                bytes: 1 << 20,
                elapsed_ns: 1_000_000 + repetition as u64,
                throughput: 1e9 / (1.0 + repetition as f64),
                latency_ns: (test == TestKind::Write).then_some(Box::new(Latency {
                    p50: 100,
                    p99: 200,
                    p999: 300,
                    max: 400,
                    samples: 64,
                })),
                engine: EngineKind::Pread,
                cache: CacheMode::Direct,
                ops: None,
            })
        })
        .collect()
}

/// Where the sample says it came from: a fio report, imported an hour after it began.
fn sample_source(started_at: DateTime<Utc>) -> Source {
    Source {
        tool: "fio".into(),
        version: Some("fio-3.33".into()),
        command: Some("fio --name=seqwrite --rw=write".into()),
        file: Some("bench.json".into()),
        imported_at: started_at + Duration::hours(1),
        time_known: true,
    }
}

/// A warm-up round of `results`: it shares repetition 1 with the first measured round,
/// at half the throughput.
fn warm_up_round(results: &[Measurement]) -> Vec<Measurement> {
    results
        .iter()
        .filter(|m| m.repetition == 1)
        .map(|m| Measurement {
            throughput: m.throughput / 2.0,
            ..m.clone()
        })
        .collect()
}

/// Makes `run` one of two engines: every measurement (warm-up too) again through
/// `engine` at `factor` times the throughput, and the run's lists saying so.
pub(crate) fn also_through(run: &mut Run, engine: EngineKind, factor: f64) {
    run.params.engines = vec![run.params.engine(), engine];
    run.params.caches = vec![run.params.cache()];
    for list in [&mut run.results, &mut run.warmup] {
        let copies: Vec<Measurement> = list
            .iter()
            .map(|m| Measurement {
                engine,
                throughput: m.throughput * factor,
                ..m.clone()
            })
            .collect();
        list.extend(copies);
        list.sort_by_key(Measurement::list_order);
    }
}

/// A run with every throughput test at two repetitions: 20 results, as the throughput
/// target has.
fn run_with_20_results(i: usize) -> Run {
    let mut run = sample_run(&format!("host{}", i % 20), i as i64);
    run.warmup.clear();
    run.labels = vec!["bulk".into(), format!("batch{}", i % 100)];
    run.results = (1..=2u32)
        .flat_map(|repetition| {
            let throughput_tests = TestKind::ALL.into_iter().filter(|t| !t.is_metadata());
            throughput_tests.map(move |test| Measurement {
                test,
                file_size: ByteSize(1 << 20),
                record_size: ByteSize(4096),
                repetition,
                bytes: 1 << 20,
                elapsed_ns: 1_000_000 + i as u64,
                throughput: 1e9 / (1.0 + i as f64),
                latency_ns: None,
                engine: EngineKind::Posix,
                cache: CacheMode::Flush,
                ops: None,
            })
        })
        .collect();
    run
}

/// A store under test, and how to open it (again) and look at it from outside.
enum Backend {
    Sqlite {
        _dir: tempfile::TempDir,
        path: PathBuf,
    },
    Postgres(PgDatabase),
}

impl Backend {
    fn sqlite() -> Backend {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("history.db");
        Backend::Sqlite { _dir: dir, path }
    }

    /// A fresh database, or `None` when the PostgreSQL tests are skipped knowingly.
    fn postgres() -> Option<Backend> {
        PgDatabase::create().map(Backend::Postgres)
    }

    fn try_open(&self) -> Result<Box<dyn Store>, StoreError> {
        Ok(match self {
            Backend::Sqlite { path, .. } => Box::new(SqliteStore::open(path)?),
            Backend::Postgres(db) => Box::new(PgStore::open(&db.url)?),
        })
    }

    fn open(&self) -> Box<dyn Store> {
        self.try_open().unwrap()
    }

    fn migrate(&self) -> Result<(usize, usize), StoreError> {
        match self {
            Backend::Sqlite { path, .. } => SqliteStore::migrate_only(path),
            Backend::Postgres(db) => PgStore::migrate_only(&db.url),
        }
    }

    /// The schema version this iozone writes to this backend.
    fn latest(&self) -> usize {
        match self {
            Backend::Sqlite { .. } => latest_schema(),
            Backend::Postgres(_) => PgStore::latest_schema(),
        }
    }

    /// The schema version of the step that made summaries (SQLite's 0009, PostgreSQL's
    /// 0007).
    fn summaries_step(&self) -> usize {
        let steps = match self {
            Backend::Sqlite { .. } => super::migrate::SQLITE,
            Backend::Postgres(_) => super::migrate::POSTGRES,
        };
        1 + steps
            .iter()
            .position(|sql| {
                sql.contains("CREATE TABLE run_summaries")
                    || sql.contains("CREATE TABLE iozone.run_summaries")
            })
            .expect("a step makes the summaries")
    }

    /// Records `version` as the schema version, as a newer iozone would.
    fn set_version(&self, version: usize) {
        match self {
            Backend::Sqlite { path, .. } => Connection::open(path)
                .unwrap()
                .pragma_update(None, "user_version", version as i64)
                .unwrap(),
            Backend::Postgres(db) => {
                db.client()
                    .execute(
                        "INSERT INTO iozone.schema_version (version) VALUES ($1)",
                        &[&(version as i32)],
                    )
                    .unwrap();
            }
        }
    }

    /// The tables' prefix in SQL.
    fn schema(&self) -> &'static str {
        match self {
            Backend::Sqlite { .. } => "",
            Backend::Postgres(_) => "iozone.",
        }
    }

    /// Runs SQL on the database from outside the store (foreign keys on, as the store
    /// has them).
    fn execute(&self, sql: &str) {
        match self {
            Backend::Sqlite { path, .. } => {
                let conn = Connection::open(path).unwrap();
                conn.pragma_update(None, "foreign_keys", true).unwrap();
                conn.execute_batch(sql).unwrap();
            }
            Backend::Postgres(db) => db.client().batch_execute(sql).unwrap(),
        }
    }

    /// How many runs have summaries.
    fn summary_runs(&self) -> usize {
        let sql = format!(
            "SELECT count(DISTINCT run_id) FROM {}run_summaries",
            self.schema()
        );
        let count: i64 = match self {
            Backend::Sqlite { path, .. } => Connection::open(path)
                .unwrap()
                .query_row(&sql, [], |r| r.get(0))
                .unwrap(),
            Backend::Postgres(db) => db.client().query_one(&sql, &[]).unwrap().get(0),
        };
        count as usize
    }

    /// How many runs another connection sees: what is committed.
    fn committed_runs(&self) -> usize {
        let sql = format!("SELECT count(*) FROM {}runs", self.schema());
        let count: i64 = match self {
            Backend::Sqlite { path, .. } => Connection::open(path)
                .unwrap()
                .query_row(&sql, [], |r| r.get(0))
                .unwrap(),
            Backend::Postgres(db) => db.client().query_one(&sql, &[]).unwrap().get(0),
        };
        count as usize
    }

    /// Records `version` as the schema's, as if the later steps had not been applied.
    fn set_version_back(&self, version: usize) {
        match self {
            Backend::Sqlite { .. } => self.set_version(version),
            Backend::Postgres(_) => self.execute(&format!(
                "DELETE FROM iozone.schema_version WHERE version > {version}"
            )),
        }
    }

    /// Everything a refusal must leave as it was.
    fn snapshot(&self) -> Vec<u8> {
        match self {
            Backend::Sqlite { path, .. } => std::fs::read(path).unwrap(),
            Backend::Postgres(db) => db.snapshot().into_bytes(),
        }
    }

    /// How finely the backend keeps instants: PostgreSQL's timestamptz has microseconds.
    fn resolution_ns(&self) -> i64 {
        match self {
            Backend::Sqlite { .. } => 1,
            Backend::Postgres(_) => 1_000,
        }
    }
}

/// Asserts the error is one line that says `wanted` and shows no `password`.
fn assert_clear(error: &StoreError, wanted: &str, password: &str) {
    let text = error.to_string();
    eprintln!("{text}");
    assert!(!text.contains('\n'), "more than one line: {text}");
    assert!(!text.contains(password), "the password shows: {text}");
    assert!(text.contains(wanted), "'{wanted}' missing from: {text}");
}
