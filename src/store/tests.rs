//! Store tests against real SQLite files.

use std::collections::BTreeMap;

use chrono::{Duration, TimeZone, Utc};
use rusqlite::Connection;

use super::*;
use crate::model::*;
use crate::units::ByteSize;

pub(crate) fn sample_run(hostname: &str, minutes: i64) -> Run {
    let started_at =
        Utc.with_ymd_and_hms(2026, 11, 1, 12, 0, 0).unwrap() + Duration::minutes(minutes);
    // in the order they are measured: repetition by repetition
    let results = (1..=3u32)
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
        results,
    }
}

fn temp_db() -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("history.db");
    (dir, path)
}

#[test]
fn a_saved_run_comes_back_unchanged() {
    let (_dir, path) = temp_db();
    let mut store = open(&path).unwrap();
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
}

#[test]
fn a_live_run_is_running_until_finished() {
    let (_dir, path) = temp_db();
    let mut store = open(&path).unwrap();
    let mut run = sample_run("bebox", 0);
    let results = std::mem::take(&mut run.results);
    run.finished_at = None;
    let id = store.begin_run(&run).unwrap();
    let during = store.load_run(id).unwrap().unwrap();
    assert_eq!(during.status, RunStatus::Running);
    assert!(during.results.is_empty());
    assert_eq!(store.check().unwrap().unfinished_runs, 1);
    let end = run.started_at + Duration::seconds(9);
    store
        .finish_run(id, RunStatus::Complete, end, &results)
        .unwrap();
    let after = store.load_run(id).unwrap().unwrap();
    assert_eq!(after.status, RunStatus::Complete);
    assert_eq!(after.finished_at, Some(end));
    assert_eq!(after.results, results);
    assert_eq!(store.check().unwrap().unfinished_runs, 0);
}

#[test]
fn filters_narrow_and_order_newest_first() {
    let (_dir, path) = temp_db();
    let mut store = open(&path).unwrap();
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
    // listing leaves results out; labels and tags are there
    let first = &store.list_runs(&RunFilter::default()).unwrap()[3];
    assert!(first.results.is_empty());
    assert_eq!(first.labels, ["DR9", "nightly"]);
    assert_eq!(first.tags["os"], "dr9");
}

#[test]
fn references_resolve_to_one_run() {
    let (_dir, path) = temp_db();
    let mut store = open(&path).unwrap();
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
    assert!(matches!(open(&text), Err(StoreError::NotIozone(_))));
    assert_eq!(std::fs::read(&text).unwrap(), before);

    let other = dir.path().join("other.db");
    Connection::open(&other)
        .unwrap()
        .execute_batch("CREATE TABLE t (x)")
        .unwrap();
    let before = std::fs::read(&other).unwrap();
    assert!(matches!(open(&other), Err(StoreError::NotIozone(_))));
    assert_eq!(std::fs::read(&other).unwrap(), before);
}

#[test]
fn a_database_from_a_newer_iozone_is_refused_untouched() {
    let (_dir, path) = temp_db();
    open(&path).unwrap();
    Connection::open(&path)
        .unwrap()
        .pragma_update(None, "user_version", 99)
        .unwrap();
    let before = std::fs::read(&path).unwrap();
    match open(&path) {
        Err(StoreError::TooNew {
            found: 99, known, ..
        }) => assert_eq!(known, latest_schema()),
        Err(other) => panic!("expected TooNew, got {other}"),
        Ok(_) => panic!("expected TooNew, got a store"),
    }
    assert_eq!(std::fs::read(&path).unwrap(), before);
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
    let (before, after) = migrate(&path).unwrap();
    assert_eq!((before, after), (1, latest_schema()));
    let store = open(&path).unwrap();
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
    let store = open(&path).unwrap();
    assert_eq!(store.check().unwrap().schema_version, latest_schema());
}
