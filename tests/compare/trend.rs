//! `trend` on planted histories: runs written through the store interface with a level
//! we choose, then the real binary asked where the level stepped.

use std::collections::BTreeMap;

use chrono::{Duration, Utc};
use iozone::model::*;
use iozone::store;
use iozone::units::ByteSize;

use super::iozone_db;

/// A recorded run of one test at `level` bytes/s (± a small deterministic wobble).
fn planted(host: &str, day: i64, level: f64) -> Run {
    let started_at = Utc::now() - Duration::days(100 - day);
    let wobble = [1.0, 0.985, 1.02, 0.99, 1.01, 0.98, 1.015][(day % 7) as usize];
    Run {
        id: None,
        uuid: uuid::Uuid::new_v4(),
        started_at,
        finished_at: Some(started_at + Duration::seconds(10)),
        status: RunStatus::Complete,
        labels: vec![],
        tags: BTreeMap::new(),
        note: None,
        tool_version: "0.1.0".into(),
        params: Params {
            engine: EngineKind::Posix,
            cache: CacheMode::Flush,
            iodepth: 1,
            engines: Vec::new(),
            caches: Vec::new(),
            threads: 1,
            file_size: ByteSize(32 << 20),
            file_sizes: vec![ByteSize(32 << 20)],
            record_sizes: vec![ByteSize(4096)],
            tests: vec![TestKind::Write],
            repeat: 3,
            warmup: 0,
            order: RoundOrder::Grouped,
            repeat_auto: None,
            seed: Some(1),
            auto: false,
            verify: false,
            read_pct: Some(50),
            stride_records: Some(17),
            latency: false,
            dir: Some("/srv".into()),
        },
        host: Host {
            hostname: Some(host.into()),
            ..Host::default()
        },
        filesystem: Filesystem {
            fs_type: Some("ext4".into()),
            mount_point: Some("/srv".into()),
            ..Filesystem::default()
        },
        source: None,
        state_at_start: None,
        state_at_end: None,
        process: None,
        warmup: Vec::new(),
        results: (1..=3)
            .map(|repetition| Measurement {
                test: TestKind::Write,
                file_size: ByteSize(32 << 20),
                record_size: ByteSize(4096),
                repetition,
                bytes: 32 << 20,
                elapsed_ns: 1,
                throughput: level * wobble * (1.0 + 0.002 * repetition as f64),
                latency_ns: None,
                engine: EngineKind::Posix,
                cache: CacheMode::Flush,
            })
            .collect(),
    }
}

#[test]
fn a_planted_step_is_found_and_a_flat_series_is_left_alone() {
    let scratch = tempfile::tempdir().unwrap();
    let db = scratch.path().join("h.db");
    let mut s = store::open(&db).unwrap();
    // host "stepped": 12 days at 500 MB/s, then a kernel update, 12 days at 400 MB/s
    let mut runs: Vec<Run> = (0..24)
        .map(|day| planted("stepped", day, if day < 12 { 500e6 } else { 400e6 }))
        .collect();
    // host "flat": 24 days at 300 MB/s
    runs.extend((0..24).map(|day| planted("flat", day, 300e6)));
    s.save_runs(&runs).unwrap();
    drop(s);

    let (code, out, err) = iozone_db(&db, &["trend", "--format", "json"]);
    assert_eq!(code, Some(0), "{err}");
    let report: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(report["series_examined"], 2, "{report}");
    let steps = report["steps"].as_array().unwrap();
    assert_eq!(steps.len(), 1, "{report}");
    let step = &steps[0];
    assert_eq!(step["hostname"], "stepped");
    assert_eq!(step["id"], 13, "the first run at the new level");
    let change = step["change_pct"].as_f64().unwrap();
    assert!((change + 20.0).abs() < 3.0, "{step}");
    assert_eq!(
        (step["runs_before"].as_u64(), step["runs_after"].as_u64()),
        (Some(12), Some(12))
    );

    let (code, table, _) = iozone_db(&db, &["trend", "--host", "flat"]);
    assert_eq!(code, Some(0));
    assert!(table.contains("0 steps in 1 series"), "{table}");
    let (code, table, _) = iozone_db(&db, &["trend"]);
    assert_eq!(code, Some(0));
    assert!(
        table.contains("stepped") && table.contains("-20"),
        "{table}"
    );
}
