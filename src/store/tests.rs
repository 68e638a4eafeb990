//! The store's tests, each written once and run against every backend: a SQLite file,
//! and a fresh PostgreSQL database per test on the server `IOZONE_TEST_PG` names
//! (`eval "$(scripts/pg-test-server.sh)"` starts one). What only one backend can meet
//! (a file that is not SQLite; a server that refuses a password) is tested on its own.
//!
//! Without `IOZONE_TEST_PG` the PostgreSQL tests fail, saying how to start the server,
//! unless `IOZONE_SKIP_PG_TESTS=1` says to skip them knowingly: a fleet store that was
//! never tested must not look tested.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Instant;

use chrono::{Duration, TimeZone, Utc};
use rusqlite::Connection;

use super::*;
use crate::model::*;
use crate::units::ByteSize;

pub(crate) fn sample_run(hostname: &str, minutes: i64) -> Run {
    let started_at =
        Utc.with_ymd_and_hms(2026, 11, 1, 12, 0, 0).unwrap() + Duration::minutes(minutes);
    // in the order they are measured: repetition by repetition
    let results: Vec<Measurement> = (1..=3u32)
        .flat_map(|repetition| {
            [TestKind::Write, TestKind::Read].map(move |test| Measurement {
                test,
                file_size: ByteSize(1 << 20),
                record_size: ByteSize(4096),
                repetition,
                bytes: 1 << 20,
                elapsed_ns: 1_000_000 + repetition as u64,
                throughput: 1e9 / (1.0 + repetition as f64),
                latency_ns: (test == TestKind::Write).then_some(Latency {
                    p50: 100,
                    p99: 200,
                    p999: 300,
                    max: 400,
                    samples: 64,
                }),
            })
        })
        .collect();
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
            engine: EngineKind::Pread,
            cache: CacheMode::Direct,
            threads: 2,
            file_size: ByteSize(1 << 20),
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
            seed: (1 << 53) - 1,
            auto: false,
            verify: true,
            read_pct: 70,
            stride_records: 17,
            latency: true,
            dir: "/mnt/test".into(),
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
        source: Some(Source {
            tool: "fio".into(),
            version: Some("fio-3.33".into()),
            command: Some("fio --name=seqwrite --rw=write".into()),
            file: Some("bench.json".into()),
            imported_at: started_at + Duration::hours(1),
            time_known: true,
        }),
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
        // a warm-up round shares repetition 1 with the first measured round
        warmup: results
            .iter()
            .filter(|m| m.repetition == 1)
            .map(|m| Measurement {
                throughput: m.throughput / 2.0,
                ..m.clone()
            })
            .collect(),
        results,
    }
}

/// A run with every test at two repetitions: 20 results, as the throughput target has.
fn run_with_20_results(i: usize) -> Run {
    let mut run = sample_run(&format!("host{}", i % 20), i as i64);
    run.warmup.clear();
    run.labels = vec!["bulk".into(), format!("batch{}", i % 100)];
    run.results = (1..=2u32)
        .flat_map(|repetition| {
            TestKind::ALL.map(|test| Measurement {
                test,
                file_size: ByteSize(1 << 20),
                record_size: ByteSize(4096),
                repetition,
                bytes: 1 << 20,
                elapsed_ns: 1_000_000 + i as u64,
                throughput: 1e9 / (1.0 + i as f64),
                latency_ns: None,
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

/// The server the PostgreSQL tests use, or `None` when they are skipped knowingly.
fn test_server() -> Option<String> {
    if let Ok(url) = std::env::var("IOZONE_TEST_PG")
        && !url.is_empty()
    {
        return Some(url);
    }
    if std::env::var("IOZONE_SKIP_PG_TESTS").as_deref() != Ok("1")
        && let Some(url) = started_server()
    {
        return Some(url);
    }
    if std::env::var("IOZONE_SKIP_PG_TESTS").as_deref() == Ok("1") {
        // straight to stderr, past the test harness's capture, once per test binary
        static WARNED: std::sync::Once = std::sync::Once::new();
        WARNED.call_once(|| {
            use std::io::Write;
            let _ = writeln!(
                std::io::stderr(),
                "\n!!! IOZONE_SKIP_PG_TESTS=1: SKIPPING the PostgreSQL store tests; the fleet store is NOT tested !!!\n"
            );
        });
        return None;
    }
    panic!(
        "IOZONE_TEST_PG is not set and scripts/pg-test-server.sh could not start a server \
         (it needs root to install and start PostgreSQL), so the PostgreSQL store cannot be \
         tested: run `eval \"$(scripts/pg-test-server.sh)\"` first, or set \
         IOZONE_SKIP_PG_TESTS=1 to skip these tests knowingly"
    );
}

/// Starts (or finds running) the project's throwaway server, once per test binary, so
/// a plain `cargo test` as root needs nothing else; the script prints the URL.
fn started_server() -> Option<String> {
    static URL: std::sync::OnceLock<Option<String>> = std::sync::OnceLock::new();
    URL.get_or_init(|| {
        let script = concat!(env!("CARGO_MANIFEST_DIR"), "/scripts/pg-test-server.sh");
        let out = std::process::Command::new("bash")
            .arg(script)
            .output()
            .ok()?;
        if !out.status.success() {
            return None;
        }
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .find_map(|l| l.strip_prefix("export IOZONE_TEST_PG="))
            .map(str::to_string)
    })
    .clone()
}

/// `url` with its database replaced by `name`.
fn with_database(url: &str, name: &str) -> String {
    let (base, query) = match url.split_once('?') {
        Some((base, query)) => (base, format!("?{query}")),
        None => (url, String::new()),
    };
    let scheme_end = base.find("://").map_or(0, |i| i + 3);
    let server = match base[scheme_end..].find('/') {
        Some(slash) => &base[..scheme_end + slash],
        None => base,
    };
    format!("{server}/{name}{query}")
}

/// A database of its own for one test, dropped (with whoever is still connected) when
/// the test ends, however it ends.
struct PgDatabase {
    server: String,
    name: String,
    url: String,
}

impl PgDatabase {
    fn create() -> Option<PgDatabase> {
        let server = test_server()?;
        let name = format!(
            "iozone_t_{}",
            &uuid::Uuid::new_v4().simple().to_string()[..16]
        );
        ::postgres::Client::connect(&server, ::postgres::NoTls)
            .unwrap_or_else(|e| panic!("cannot reach the test server IOZONE_TEST_PG: {e}"))
            .batch_execute(&format!("CREATE DATABASE {name}"))
            .unwrap();
        let url = with_database(&server, &name);
        Some(PgDatabase { server, name, url })
    }

    /// A plain connection to the test's database, to set things up behind the store.
    fn client(&self) -> ::postgres::Client {
        ::postgres::Client::connect(&self.url, ::postgres::NoTls).unwrap()
    }

    /// The schema's tables, its versions and its row counts, as text.
    fn snapshot(&self) -> String {
        let mut client = self.client();
        let mut text = String::new();
        for row in client
            .query(
                "SELECT c.relname::text, c.relkind::text, c.reltuples::float8 FROM pg_class c \
                 JOIN pg_namespace n ON n.oid = c.relnamespace \
                 WHERE n.nspname NOT IN ('pg_catalog', 'information_schema', 'pg_toast') \
                 ORDER BY 1",
                &[],
            )
            .unwrap()
        {
            let (name, kind): (String, String) = (row.get(0), row.get(1));
            text.push_str(&format!("{name} {kind}\n"));
        }
        let has_versions: bool = client
            .query_one(
                "SELECT to_regclass('iozone.schema_version') IS NOT NULL",
                &[],
            )
            .unwrap()
            .get(0);
        if has_versions {
            for row in client
                .query(
                    "SELECT version, applied_at::text FROM iozone.schema_version ORDER BY 1",
                    &[],
                )
                .unwrap()
            {
                let (v, at): (i32, String) = (row.get(0), row.get(1));
                text.push_str(&format!("version {v} {at}\n"));
            }
        }
        let has_runs: bool = client
            .query_one("SELECT to_regclass('iozone.runs') IS NOT NULL", &[])
            .unwrap()
            .get(0);
        if has_runs {
            let counts = client
                .query_one(
                    "SELECT (SELECT count(*) FROM iozone.runs), \
                            (SELECT count(*) FROM iozone.results), \
                            (SELECT count(*) FROM iozone.run_labels), \
                            (SELECT max(finished_at)::text FROM iozone.runs)",
                    &[],
                )
                .unwrap();
            let (runs, results, labels, last): (i64, i64, i64, Option<String>) =
                (counts.get(0), counts.get(1), counts.get(2), counts.get(3));
            text.push_str(&format!(
                "{runs} runs {results} results {labels} labels {last:?}\n"
            ));
        }
        text
    }
}

impl Drop for PgDatabase {
    fn drop(&mut self) {
        let dropped =
            ::postgres::Client::connect(&self.server, ::postgres::NoTls).and_then(|mut c| {
                c.batch_execute(&format!(
                    "DROP DATABASE IF EXISTS {} WITH (FORCE)",
                    self.name
                ))
            });
        if let Err(e) = dropped {
            eprintln!("could not drop the test database {}: {e}", self.name);
        }
    }
}

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

on_every_backend!(
    a_saved_run_comes_back_unchanged,
    a_live_run_is_running_until_finished,
    filters_narrow_and_order_newest_first,
    references_resolve_to_one_run,
    many_runs_save_at_once_without_duplicates,
    instants_keep_the_backends_precision,
    a_new_database_gets_the_latest_schema_once,
    a_database_from_a_newer_iozone_is_refused_untouched,
    sixteen_writers_lose_nothing,
    #[ignore = "a measurement: cargo test store:: -- --ignored --nocapture"]
    save_runs_throughput,
);

fn a_saved_run_comes_back_unchanged(backend: &Backend) {
    let mut store = backend.open();
    let run = sample_run("bebox", 0);
    let id = store.save_run(&run).unwrap().unwrap();
    let back = store.load_run(id).unwrap().unwrap();
    assert_eq!(
        back,
        Run {
            id: Some(id),
            ..run.clone()
        }
    );
    // the same UUID again adds nothing
    assert_eq!(store.save_run(&run).unwrap(), None);
    let other = uuid::Uuid::new_v4();
    assert_eq!(
        store.known_uuids(&[run.uuid, other]).unwrap(),
        [run.uuid].into_iter().collect()
    );
    assert_eq!(store.check().unwrap().runs, 1);
    // a run with nothing optional known comes back as it went
    let mut bare = sample_run("bebox", 1);
    bare.labels.clear();
    bare.tags.clear();
    bare.note = None;
    bare.finished_at = None;
    bare.host = Host::default();
    bare.filesystem = Filesystem::default();
    bare.source = None;
    bare.state_at_start = None;
    bare.state_at_end = None;
    bare.params.repeat_auto = None;
    bare.results.clear();
    bare.warmup.clear();
    let id = store.save_run(&bare).unwrap().unwrap();
    assert_eq!(
        store.load_run(id).unwrap().unwrap(),
        Run {
            id: Some(id),
            ..bare
        }
    );
    assert_eq!(store.load_run(id + 1000).unwrap(), None);
}

fn a_live_run_is_running_until_finished(backend: &Backend) {
    let mut store = backend.open();
    let mut run = sample_run("bebox", 0);
    let finished = run.clone();
    run.results.clear();
    run.warmup.clear();
    run.finished_at = None;
    run.state_at_end = None;
    run.status = RunStatus::Running;
    let id = store.begin_run(&run).unwrap();
    let during = store.load_run(id).unwrap().unwrap();
    assert_eq!(during.status, RunStatus::Running);
    assert!(during.results.is_empty());
    assert_eq!(store.check().unwrap().unfinished_runs, 1);
    let end = run.started_at + Duration::seconds(9);
    let finished = Run {
        finished_at: Some(end),
        params: Params {
            repeat: 7,
            ..finished.params
        },
        ..finished
    };
    store.finish_run(id, &finished).unwrap();
    let after = store.load_run(id).unwrap().unwrap();
    assert_eq!(
        after,
        Run {
            id: Some(id),
            ..finished.clone()
        }
    );
    assert_eq!(store.check().unwrap().unfinished_runs, 0);
    // a live run's UUID is taken: beginning it again is an error, not a second run
    assert!(store.begin_run(&run).is_err());
    assert_eq!(store.check().unwrap().runs, 1);
}

fn filters_narrow_and_order_newest_first(backend: &Backend) {
    let mut store = backend.open();
    let mut ids = Vec::new();
    for (i, host) in ["a", "b", "a", "c"].iter().enumerate() {
        let mut run = sample_run(host, i as i64 * 60);
        if i == 3 {
            run.labels = vec!["DR8".into()];
            run.tags.clear();
            run.filesystem.fs_type = Some("xfs".into());
            run.status = RunStatus::Aborted;
            run.results.retain(|m| m.test == TestKind::Read);
        }
        ids.push(store.save_run(&run).unwrap().unwrap());
    }
    let list = |f: RunFilter| -> Vec<i64> {
        store
            .list_runs(&f)
            .unwrap()
            .iter()
            .map(|r| r.id.unwrap())
            .collect()
    };
    assert_eq!(list(RunFilter::default()), [ids[3], ids[2], ids[1], ids[0]]);
    assert_eq!(
        list(RunFilter {
            host: Some("a".into()),
            ..Default::default()
        }),
        [ids[2], ids[0]]
    );
    assert_eq!(
        list(RunFilter {
            fs: Some("xfs".into()),
            ..Default::default()
        }),
        [ids[3]]
    );
    assert_eq!(
        list(RunFilter {
            labels: vec!["DR8".into()],
            ..Default::default()
        }),
        [ids[3]]
    );
    assert_eq!(
        list(RunFilter {
            labels: vec!["DR9".into(), "nightly".into()],
            ..Default::default()
        }),
        [ids[2], ids[1], ids[0]]
    );
    assert_eq!(
        list(RunFilter {
            tags: vec![("os".into(), "dr9".into())],
            limit: Some(2),
            ..Default::default()
        }),
        [ids[2], ids[1]]
    );
    assert_eq!(
        list(RunFilter {
            test: Some(TestKind::Write),
            ..Default::default()
        })
        .len(),
        3
    );
    assert_eq!(
        list(RunFilter {
            record: Some(4096),
            ..Default::default()
        })
        .len(),
        4
    );
    assert!(
        list(RunFilter {
            record: Some(512),
            ..Default::default()
        })
        .is_empty()
    );
    let t0 = Utc.with_ymd_and_hms(2026, 11, 1, 12, 0, 0).unwrap();
    assert_eq!(
        list(RunFilter {
            since: Some(t0 + Duration::minutes(60)),
            until: Some(t0 + Duration::minutes(180)),
            ..Default::default()
        }),
        [ids[2], ids[1]]
    );
    assert_eq!(
        list(RunFilter {
            status: Some(RunStatus::Aborted),
            ..Default::default()
        }),
        [ids[3]]
    );
    assert_eq!(
        list(RunFilter {
            engine: Some(EngineKind::Pread),
            cache: Some(CacheMode::Direct),
            host: Some("b".into()),
            ..Default::default()
        }),
        [ids[1]]
    );
    assert!(
        list(RunFilter {
            engine: Some(EngineKind::Mmap),
            ..Default::default()
        })
        .is_empty()
    );
    // listing leaves results out; labels and tags are there
    let first = &store.list_runs(&RunFilter::default()).unwrap()[3];
    assert!(first.results.is_empty());
    assert_eq!(first.labels, ["DR9", "nightly"]);
    assert_eq!(first.tags["os"], "dr9");
}

fn references_resolve_to_one_run(backend: &Backend) {
    let mut store = backend.open();
    let runs: Vec<Run> = (0..3).map(|i| sample_run("h", i)).collect();
    let ids: Vec<i64> = runs
        .iter()
        .map(|r| store.save_run(r).unwrap().unwrap())
        .collect();
    assert_eq!(store.resolve(&RunRef::Id(ids[1])).unwrap(), ids[1]);
    assert_eq!(store.resolve(&RunRef::Latest(0)).unwrap(), ids[2]);
    assert_eq!(store.resolve(&RunRef::Latest(2)).unwrap(), ids[0]);
    assert!(matches!(
        store.resolve(&RunRef::Latest(3)),
        Err(StoreError::NoSuchRun(_))
    ));
    assert!(matches!(
        store.resolve(&RunRef::Id(999)),
        Err(StoreError::NoSuchRun(_))
    ));
    let uuid = runs[1].uuid.to_string();
    assert_eq!(
        store
            .resolve(&RunRef::UuidPrefix(uuid[..8].into()))
            .unwrap(),
        ids[1]
    );
    let no_hyphens: String = uuid.replace('-', "")[..12].to_string();
    assert_eq!(
        store.resolve(&RunRef::UuidPrefix(no_hyphens)).unwrap(),
        ids[1]
    );
    assert_eq!(
        store.resolve(&RunRef::UuidPrefix(uuid.clone())).unwrap(),
        ids[1]
    );
    // two runs whose UUIDs share a prefix: that prefix is ambiguous, a longer one is not
    let mut twins = [sample_run("h", 10), sample_run("h", 11)];
    twins[0].uuid = "abcd0000-0000-4000-8000-000000000001".parse().unwrap();
    twins[1].uuid = "abcd0000-0000-4000-8000-000000000002".parse().unwrap();
    store.save_runs(&twins).unwrap();
    assert!(matches!(
        store.resolve(&RunRef::UuidPrefix("abcd".into())),
        Err(StoreError::Ambiguous(_))
    ));
    assert!(matches!(
        store.resolve(&RunRef::UuidPrefix(
            "abcd-0000-0000-4000-8000-00000000000".into()
        )),
        Err(StoreError::Ambiguous(_))
    ));
    let second = store
        .resolve(&RunRef::UuidPrefix(
            "abcd00000000400080000000000000002".into(),
        ))
        .ok();
    assert_eq!(second, None, "33 hex digits match no UUID");
    let second = store
        .resolve(&RunRef::UuidPrefix(
            "abcd0000000040008000000000000002".into(),
        ))
        .unwrap();
    assert_eq!(store.load_run(second).unwrap().unwrap().uuid, twins[1].uuid);
    assert!(matches!(
        store.resolve(&RunRef::UuidPrefix("ffff".into())),
        Err(StoreError::NoSuchRun(_))
    ));
}

fn many_runs_save_at_once_without_duplicates(backend: &Backend) {
    let mut store = backend.open();
    let runs: Vec<Run> = (0..1200).map(run_with_20_results).collect();
    // one already there, and one given twice: each is added once
    assert!(store.save_run(&runs[7]).unwrap().is_some());
    let mut batch = runs.clone();
    batch.push(runs[3].clone());
    assert_eq!(store.save_runs(&batch).unwrap(), runs.len() - 1);
    assert_eq!(store.save_runs(&batch).unwrap(), 0);
    let report = store.check().unwrap();
    assert_eq!(report.runs, runs.len() as u64);
    assert_eq!(report.results, 20 * runs.len() as u64);
    assert!(report.problems.is_empty(), "{:?}", report.problems);

    let listed = store.list_runs(&RunFilter::default()).unwrap();
    assert_eq!(listed.len(), runs.len());
    assert_eq!(listed[0].uuid, runs[runs.len() - 1].uuid);
    let by_uuid: HashMap<uuid::Uuid, &Run> = runs.iter().map(|r| (r.uuid, r)).collect();
    for run in &listed {
        let original = by_uuid[&run.uuid];
        assert_eq!(run.labels, original.labels);
        assert_eq!(run.tags, original.tags);
    }
    // the results of many runs at once, each in measured order; an unknown id has none
    let ids: Vec<i64> = listed.iter().map(|r| r.id.unwrap()).chain([-1]).collect();
    let results = store.results_of(&ids).unwrap();
    assert_eq!(results.len(), ids.len());
    assert_eq!(results[&-1], RunResults::default());
    for run in &listed {
        let mut want = by_uuid[&run.uuid].results.clone();
        want.sort_by_key(|m| (m.file_size, m.record_size, m.repetition, m.test));
        assert_eq!(results[&run.id.unwrap()].results, want);
        assert_eq!(
            results[&run.id.unwrap()].warmup.len(),
            by_uuid[&run.uuid].warmup.len()
        );
    }
    assert!(store.results_of(&[]).unwrap().is_empty());
    let labelled = store
        .list_runs(&RunFilter {
            labels: vec!["batch7".into()],
            limit: Some(5),
            ..Default::default()
        })
        .unwrap();
    assert_eq!(labelled.len(), 5);
    assert!(
        labelled
            .windows(2)
            .all(|w| w[0].started_at > w[1].started_at)
    );
    assert!(store.known_uuids(&[]).unwrap().is_empty());
    let uuids: Vec<uuid::Uuid> = runs.iter().map(|r| r.uuid).collect();
    assert_eq!(store.known_uuids(&uuids).unwrap().len(), runs.len());
}

fn instants_keep_the_backends_precision(backend: &Backend) {
    let mut store = backend.open();
    let mut run = sample_run("h", 0);
    run.started_at += Duration::nanoseconds(123_456_789);
    let id = store.save_run(&run).unwrap().unwrap();
    let back = store.load_run(id).unwrap().unwrap();
    let lost = (run.started_at - back.started_at)
        .num_nanoseconds()
        .unwrap();
    assert!(
        (0..backend.resolution_ns()).contains(&lost),
        "{} came back as {}",
        run.started_at,
        back.started_at
    );
}

fn a_new_database_gets_the_latest_schema_once(backend: &Backend) {
    let latest = backend.latest();
    assert_eq!(backend.migrate().unwrap(), (0, latest));
    let mut store = backend.open();
    store.save_run(&sample_run("h", 0)).unwrap();
    drop(store);
    let before = backend.snapshot();
    // opening and migrating again change nothing
    assert_eq!(backend.migrate().unwrap(), (latest, latest));
    let store = backend.open();
    let report = store.check().unwrap();
    assert_eq!(
        (report.schema_version, report.latest_schema),
        (latest, latest)
    );
    assert!(report.problems.is_empty(), "{:?}", report.problems);
    drop(store);
    if let Backend::Postgres(_) = backend {
        // (a SQLite file's bytes change with a checkpoint; its test is the one above)
        assert_eq!(backend.snapshot(), before);
    }
}

fn a_database_from_a_newer_iozone_is_refused_untouched(backend: &Backend) {
    let mut store = backend.open();
    store.save_run(&sample_run("h", 0)).unwrap();
    drop(store);
    backend.set_version(99);
    let before = backend.snapshot();
    for attempt in [
        backend.try_open().map(|_| ()),
        backend.migrate().map(|_| ()),
    ] {
        match attempt {
            Err(StoreError::TooNew {
                found: 99, known, ..
            }) => assert_eq!(known, backend.latest()),
            Err(other) => panic!("expected TooNew, got {other}"),
            Ok(_) => panic!("expected TooNew, got a store"),
        }
    }
    assert_eq!(backend.snapshot(), before);
}

fn sixteen_writers_lose_nothing(backend: &Backend) {
    const RUNS: usize = 4;
    backend.open();
    std::thread::scope(|scope| {
        for writer in 0..16 {
            scope.spawn(move || {
                let mut store = backend.open();
                for i in 0..RUNS {
                    let run = sample_run(&format!("w{writer}"), i as i64);
                    let id = store.begin_run(&run).unwrap();
                    store.finish_run(id, &run).unwrap();
                }
            });
        }
    });
    let store = backend.open();
    let report = store.check().unwrap();
    assert_eq!(report.runs, 16 * RUNS as u64);
    // 6 measured and 2 warm-up results a run
    assert_eq!(report.results, 16 * RUNS as u64 * 8);
    assert_eq!(report.unfinished_runs, 0);
    let all = store.list_runs(&RunFilter::default()).unwrap();
    let results = store
        .results_of(&all.iter().map(|r| r.id.unwrap()).collect::<Vec<_>>())
        .unwrap();
    assert!(
        results
            .values()
            .all(|r| r.results.len() == 6 && r.warmup.len() == 2)
    );
}

/// `save_runs` of 10,000 runs × 20 results, then `list_runs` with limit 50: the
/// figures go to stderr (run with `--ignored --nocapture`).
fn save_runs_throughput(backend: &Backend) {
    const RUNS: usize = 10_000;
    let mut store = backend.open();
    let runs: Vec<Run> = (0..RUNS).map(run_with_20_results).collect();
    let start = Instant::now();
    assert_eq!(store.save_runs(&runs).unwrap(), RUNS);
    let saved = start.elapsed();
    let rate = RUNS as f64 / saved.as_secs_f64();
    eprintln!(
        "{}: save_runs of {RUNS} runs x 20 results: {:.2} s, {rate:.0} runs/s",
        store.location(),
        saved.as_secs_f64()
    );
    let filters = [
        ("newest 50", RunFilter::default()),
        (
            "host 50",
            RunFilter {
                host: Some("host3".into()),
                ..Default::default()
            },
        ),
        (
            "label 50",
            RunFilter {
                labels: vec!["batch42".into()],
                ..Default::default()
            },
        ),
    ];
    for (what, filter) in filters {
        let filter = RunFilter {
            limit: Some(50),
            ..filter
        };
        let start = Instant::now();
        let listed = store.list_runs(&filter).unwrap();
        let took = start.elapsed();
        assert_eq!(listed.len(), 50);
        eprintln!(
            "{}: list_runs {what}: {:.1} ms",
            store.location(),
            took.as_secs_f64() * 1e3
        );
    }
    let ids: Vec<i64> = store
        .list_runs(&RunFilter {
            limit: Some(1000),
            ..Default::default()
        })
        .unwrap()
        .iter()
        .map(|r| r.id.unwrap())
        .collect();
    let start = Instant::now();
    let results = store.results_of(&ids).unwrap();
    eprintln!(
        "{}: results_of 1000 runs: {:.1} ms",
        store.location(),
        start.elapsed().as_secs_f64() * 1e3
    );
    assert_eq!(
        results.values().map(|r| r.results.len()).sum::<usize>(),
        20_000
    );
    assert!(
        rate >= 2_000.0,
        "{rate:.0} runs/s is below the 2,000 runs/s target"
    );
}

// ---- SQLite only: what a file can be that a server's database cannot ----

fn temp_db() -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("history.db");
    (dir, path)
}

#[test]
fn a_file_that_is_not_an_iozone_database_is_refused_untouched() {
    let (dir, _) = temp_db();
    let text = dir.path().join("notes.txt");
    std::fs::write(
        &text,
        "hello, this is not SQLite at all, not even close.\n".repeat(100),
    )
    .unwrap();
    let before = std::fs::read(&text).unwrap();
    assert!(matches!(
        SqliteStore::open(&text),
        Err(StoreError::NotIozone(_))
    ));
    assert_eq!(std::fs::read(&text).unwrap(), before);

    let other = dir.path().join("other.db");
    Connection::open(&other)
        .unwrap()
        .execute_batch("CREATE TABLE t (x)")
        .unwrap();
    let before = std::fs::read(&other).unwrap();
    assert!(matches!(
        SqliteStore::open(&other),
        Err(StoreError::NotIozone(_))
    ));
    assert_eq!(std::fs::read(&other).unwrap(), before);
}

#[test]
fn the_first_schema_migrates_with_its_runs() {
    let (_dir, path) = temp_db();
    {
        let conn = Connection::open(&path).unwrap();
        conn.execute_batch(include_str!("../../migrations/0001_init.sql"))
            .unwrap();
        conn.pragma_update(None, "user_version", 1).unwrap();
        // a run as the first schema stored it
        conn.execute_batch(
            "INSERT INTO runs (uuid, started_at, status, tool_version, engine, cache, threads, \
             file_size, file_sizes, record_sizes, tests, repeat, seed, auto, verify, read_pct, \
             stride_records, latency, dir, hostname) VALUES ('0b8e8f8e-6a0e-4a4c-9b1e-6c3c1c1c1c1c', \
             '2026-01-01T00:00:00.000000000Z', 'complete', '0.1.0', 'posix', 'flush', 1, 1048576, \
             '[1048576]', '[4096]', '[\"write\"]', 1, 7, 0, 0, 50, 17, 1, '/srv', 'old'); \
             INSERT INTO results VALUES (1, 'write', 1048576, 4096, 1, 1048576, 1000000, 1.048576e9, \
             NULL, NULL, NULL, NULL, NULL);",
        )
        .unwrap();
    }
    let (before, after) = SqliteStore::migrate_only(&path).unwrap();
    assert_eq!((before, after), (1, latest_schema()));
    let store = SqliteStore::open(&path).unwrap();
    let runs = store.list_runs(&RunFilter::default()).unwrap();
    assert_eq!(runs.len(), 1);
    assert_eq!(runs[0].host.hostname.as_deref(), Some("old"));
    assert_eq!(runs[0].source, None);
    let full = store.load_run(runs[0].id.unwrap()).unwrap().unwrap();
    assert_eq!(full.results.len(), 1);
    assert_eq!(full.results[0].throughput, 1.048576e9);
    let report = store.check().unwrap();
    assert!(report.problems.is_empty(), "{:?}", report.problems);
    assert_eq!(report.schema_version, latest_schema());
}

#[test]
fn an_empty_file_becomes_a_database() {
    let (_dir, path) = temp_db();
    std::fs::write(&path, b"").unwrap();
    let store = SqliteStore::open(&path).unwrap();
    assert_eq!(store.check().unwrap().schema_version, latest_schema());
}

// ---- PostgreSQL only: a server, its credentials, its schemas, its connections ----

/// A fresh database for a PostgreSQL-only test, or return when skipped knowingly.
macro_rules! pg_database {
    () => {
        match PgDatabase::create() {
            Some(db) => db,
            None => return,
        }
    };
}

/// Asserts the error is one line that says `wanted` and shows no `password`.
fn assert_clear(error: &StoreError, wanted: &str, password: &str) {
    let text = error.to_string();
    eprintln!("{text}");
    assert!(!text.contains('\n'), "more than one line: {text}");
    assert!(!text.contains(password), "the password shows: {text}");
    assert!(text.contains(wanted), "'{wanted}' missing from: {text}");
}

#[test]
fn pg_a_schema_of_another_application_is_refused_untouched() {
    let db = pg_database!();
    db.client()
        .batch_execute(
            "CREATE SCHEMA iozone; CREATE TABLE iozone.things (x int); \
             INSERT INTO iozone.things VALUES (1)",
        )
        .unwrap();
    let before = db.snapshot();
    assert!(matches!(
        PgStore::open(&db.url),
        Err(StoreError::NotIozone(_))
    ));
    assert!(matches!(
        PgStore::migrate_only(&db.url),
        Err(StoreError::NotIozone(_))
    ));
    assert_eq!(db.snapshot(), before);
}

#[test]
fn pg_other_tables_of_a_shared_database_are_left_alone() {
    let db = pg_database!();
    // another application's tables, with names iozone's tables have too
    db.client()
        .batch_execute(
            "CREATE TABLE public.runs (x int); INSERT INTO public.runs VALUES (42); \
             CREATE TABLE public.schema_version (version int)",
        )
        .unwrap();
    let mut store = PgStore::open(&db.url).unwrap();
    store.save_run(&sample_run("h", 0)).unwrap();
    assert_eq!(store.check().unwrap().runs, 1);
    let x: i32 = db
        .client()
        .query_one("SELECT x FROM public.runs", &[])
        .unwrap()
        .get(0);
    assert_eq!(x, 42);
    // an `iozone` schema made empty by an administrator is taken as new
    let db = pg_database!();
    db.client().batch_execute("CREATE SCHEMA iozone").unwrap();
    assert_eq!(
        PgStore::migrate_only(&db.url).unwrap(),
        (0, PgStore::latest_schema())
    );
}

#[test]
fn pg_migrations_apply_in_order_once_and_roll_back_whole() {
    let db = pg_database!();
    // the real migrations, then test steps after them
    let init = super::migrate::POSTGRES;
    let known = init.len();
    let with = |more: &[&'static str]| [init, more].concat();
    let mut store = PgStore::open_with_steps(&db.url, init).unwrap();
    let run = sample_run("h", 0);
    store.save_run(&run).unwrap();
    drop(store);
    // a later migration: applied once, recorded, the runs kept
    let second =
        "ALTER TABLE iozone.runs ADD COLUMN extra text; CREATE TABLE iozone.extra (x int);";
    for _ in 0..2 {
        let store = PgStore::open_with_steps(&db.url, &with(&[second])).unwrap();
        assert_eq!(store.check().unwrap().runs, 1);
    }
    let versions: Vec<i32> = db
        .client()
        .query("SELECT version FROM iozone.schema_version ORDER BY 1", &[])
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect();
    assert_eq!(versions, (1..=known as i32 + 1).collect::<Vec<_>>());
    // this iozone knows one migration fewer: refused
    assert!(matches!(
        PgStore::open_with_steps(&db.url, init),
        Err(StoreError::TooNew { found, known: k, .. }) if found == known + 1 && k == known
    ));
    // a migration that fails leaves nothing of itself behind
    let third = "CREATE TABLE iozone.half (x int); SELECT 1 / 0;";
    let err = PgStore::open_with_steps(&db.url, &with(&[second, third]))
        .err()
        .expect("a failing migration fails the open");
    assert_clear(&err, "division by zero", "iozone-test");
    let half: bool = db
        .client()
        .query_one("SELECT to_regclass('iozone.half') IS NOT NULL", &[])
        .unwrap()
        .get(0);
    assert!(!half);
    let store = PgStore::open_with_steps(&db.url, &with(&[second])).unwrap();
    assert_eq!(store.check().unwrap().schema_version, known + 1);
}

#[test]
fn pg_concurrent_first_opens_create_the_schema_once() {
    let db = pg_database!();
    std::thread::scope(|scope| {
        let opens: Vec<_> = (0..8)
            .map(|_| scope.spawn(|| PgStore::open(&db.url).map(|_| ())))
            .collect();
        for open in opens {
            open.join().unwrap().unwrap();
        }
    });
    let applied: i64 = db
        .client()
        .query_one("SELECT count(*) FROM iozone.schema_version", &[])
        .unwrap()
        .get(0);
    assert_eq!(applied, PgStore::latest_schema() as i64);
}

/// The test server's URL with another password and database.
fn server_with(password: &str, database: &str) -> Option<String> {
    let server = test_server()?;
    let config: ::postgres::Config = server.parse().unwrap();
    let host = match &config.get_hosts()[0] {
        ::postgres::config::Host::Tcp(host) => host.clone(),
        #[allow(unreachable_patterns)]
        other => panic!("IOZONE_TEST_PG must name a TCP host, not {other:?}"),
    };
    let port = config.get_ports().first().copied().unwrap_or(5432);
    let user = config.get_user().unwrap_or("iozone");
    Some(format!(
        "postgres://{user}:{password}@{host}:{port}/{database}"
    ))
}

#[test]
fn pg_a_wrong_password_says_so_in_one_line_without_it() {
    let Some(url) = server_with("Wrong-Secret-42", "iozone_test") else {
        return;
    };
    let err = PgStore::open(&url).err().expect("a wrong password fails");
    assert!(matches!(err, StoreError::Server { .. }), "{err:?}");
    assert_clear(
        &err,
        "password authentication failed for user",
        "Wrong-Secret-42",
    );
    assert_clear(&err, "postgres://iozone:***@", "Wrong-Secret-42");
    // the same in a parameter
    let url = url.replace(":Wrong-Secret-42@", "@") + "?password=Wrong-Secret-42";
    let err = PgStore::open(&url).err().expect("a wrong password fails");
    assert_clear(&err, "password=***", "Wrong-Secret-42");
    // a database that does not exist is named
    let Some(url) = server_with("iozone-test", "no_such_db") else {
        return;
    };
    let err = PgStore::open(&url).err().expect("no such database");
    assert_clear(
        &err,
        "database \"no_such_db\" does not exist",
        "iozone-test",
    );
}

#[test]
fn pg_an_unreachable_server_fails_in_bounded_time() {
    if test_server().is_none() {
        return;
    }
    let start = Instant::now();
    let err = PgStore::open("postgres://iozone:x-secret@127.0.0.1:1/db")
        .err()
        .expect("nothing listens on port 1");
    assert!(start.elapsed() < std::time::Duration::from_secs(12));
    assert_clear(&err, "cannot connect", "x-secret");
    assert_clear(&err, "postgres://iozone:***@127.0.0.1:1/db", "x-secret");

    // a port that accepts and then says nothing: the URL's own timeout holds
    let silent = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = silent.local_addr().unwrap().port();
    let start = Instant::now();
    let err = PgStore::open(&format!(
        "postgres://iozone:x-secret@127.0.0.1:{port}/db?connect_timeout=1"
    ))
    .err()
    .expect("nobody answers");
    let took = start.elapsed();
    assert!(took < std::time::Duration::from_secs(5), "took {took:?}");
    assert_clear(&err, "no answer within 1 s", "x-secret");
}

#[test]
fn pg_a_url_that_does_not_parse_says_what_was_expected() {
    if test_server().is_none() {
        return;
    }
    for url in [
        "postgres://iozone:pw-secret@127.0.0.1:notaport/db",
        "postgres://iozone:pw-secret@127.0.0.1/db?sslmode=sometimes",
        "postgres://iozone:pw-secret@127.0.0.1/db?colour=blue",
    ] {
        let err = PgStore::open(url).err().expect("a bad URL fails");
        assert!(matches!(err, StoreError::Server { .. }), "{err:?}");
        assert_clear(&err, "not a valid PostgreSQL URL", "pw-secret");
        assert_clear(&err, "postgres://USER:PASSWORD@HOST", "pw-secret");
    }
}

#[test]
fn pg_a_connection_cut_mid_run_is_one_clear_line_and_writes_nothing() {
    let db = pg_database!();
    let mut store = PgStore::open(&db.url).unwrap();
    let run = sample_run("h", 0);
    let id = store.begin_run(&run).unwrap();
    // as a restart or a failover would, between begin_run and finish_run
    db.client()
        .execute("SELECT pg_terminate_backend($1)", &[&store.backend_pid()])
        .unwrap();
    let err = store
        .finish_run(id, &run)
        .expect_err("the connection is gone");
    assert!(matches!(err, StoreError::Server { .. }), "{err:?}");
    assert_clear(&err, "the server closed the connection", "iozone-test");
    // and it stays gone, saying so, for reads too
    let err = store
        .list_runs(&RunFilter::default())
        .expect_err("still gone");
    assert_clear(&err, "the server closed the connection", "iozone-test");
    // the run stays as begun: never complete with partial figures
    let again = PgStore::open(&db.url).unwrap();
    let back = again.load_run(id).unwrap().unwrap();
    assert_eq!(back.status, RunStatus::Running);
    assert!(back.results.is_empty());
}

#[test]
fn pg_the_location_never_shows_the_password() {
    let db = pg_database!();
    let store = PgStore::open(&db.url).unwrap();
    assert!(!store.location().contains("iozone-test"));
    assert!(store.location().contains(":***@"));
    assert_eq!(store.check().unwrap().path, store.location());
}

/// `list_runs` with limit 50 over a million runs, through the indexes.
#[test]
#[ignore = "a measurement: builds a million runs (about a minute)"]
fn pg_list_runs_over_a_million_runs() {
    let db = pg_database!();
    let mut store = PgStore::open(&db.url).unwrap();
    let start = Instant::now();
    db.client()
        .batch_execute(
            "INSERT INTO iozone.runs (uuid, started_at, status, tool_version, engine, cache, \
               threads, file_size, file_sizes, record_sizes, tests, repeat, seed, auto, verify, \
               read_pct, stride_records, latency, dir, hostname, fs_type) \
             SELECT gen_random_uuid(), timestamptz '2020-01-01' + g * interval '1 minute', \
               'complete', '0.1.0', 'posix', 'flush', 1, 1048576, '[1048576]', '[4096]', \
               '[\"write\"]', 1, g, false, false, 50, 17, true, '/srv', 'host' || (g % 200), \
               CASE WHEN g % 10 = 0 THEN 'xfs' ELSE 'ext4' END \
             FROM generate_series(1, 1000000) g; \
             INSERT INTO iozone.run_labels SELECT id, 'nightly', 0 FROM iozone.runs; \
             INSERT INTO iozone.run_labels SELECT id, 'rare', 1 FROM iozone.runs WHERE id % 5000 = 0; \
             INSERT INTO iozone.run_tags SELECT id, 'os', 'dr' || (id % 10) FROM iozone.runs; \
             INSERT INTO iozone.results SELECT id, 'write', 1048576, 4096, 1, 1048576, 1000, 1e9, \
               NULL, NULL, NULL, NULL, NULL FROM iozone.runs; \
             ANALYZE iozone.runs; ANALYZE iozone.run_labels; ANALYZE iozone.run_tags; \
             ANALYZE iozone.results;",
        )
        .unwrap();
    eprintln!(
        "built 1,000,000 runs in {:.0} s",
        start.elapsed().as_secs_f64()
    );
    store.save_run(&sample_run("bebox", 0)).unwrap();
    let t0 = Utc.with_ymd_and_hms(2021, 6, 1, 0, 0, 0).unwrap();
    let filters = [
        ("newest", RunFilter::default()),
        (
            "host",
            RunFilter {
                host: Some("host7".into()),
                ..Default::default()
            },
        ),
        (
            "host since 30 days",
            RunFilter {
                host: Some("host7".into()),
                since: Some(t0 - Duration::days(30)),
                until: Some(t0),
                ..Default::default()
            },
        ),
        (
            "fs",
            RunFilter {
                fs: Some("xfs".into()),
                ..Default::default()
            },
        ),
        (
            "common label",
            RunFilter {
                labels: vec!["nightly".into()],
                ..Default::default()
            },
        ),
        (
            "rare label",
            RunFilter {
                labels: vec!["rare".into()],
                ..Default::default()
            },
        ),
        (
            "tag",
            RunFilter {
                tags: vec![("os".into(), "dr3".into())],
                ..Default::default()
            },
        ),
        (
            "test",
            RunFilter {
                test: Some(TestKind::Write),
                ..Default::default()
            },
        ),
    ];
    let mut slow = Vec::new();
    for (what, filter) in filters {
        let filter = RunFilter {
            limit: Some(50),
            ..filter
        };
        store.list_runs(&filter).unwrap(); // warm the cache, as a server's is
        let start = Instant::now();
        let listed = store.list_runs(&filter).unwrap();
        let ms = start.elapsed().as_secs_f64() * 1e3;
        eprintln!(
            "list_runs {what}, limit 50: {} runs in {ms:.1} ms",
            listed.len()
        );
        if ms > 100.0 {
            slow.push(what);
        }
    }
    let start = Instant::now();
    store.resolve(&RunRef::Latest(3)).unwrap();
    let uuid = store
        .list_runs(&RunFilter {
            limit: Some(1),
            ..Default::default()
        })
        .unwrap()[0]
        .uuid;
    store
        .resolve(&RunRef::UuidPrefix(uuid.to_string()[..6].into()))
        .unwrap();
    eprintln!(
        "resolve latest~3 and a UUID prefix: {:.1} ms",
        start.elapsed().as_secs_f64() * 1e3
    );
    assert!(slow.is_empty(), "over 100 ms: {slow:?}");
    drop(store);
}
