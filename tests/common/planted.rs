//! Runs planted straight into a store, at chosen levels and days: histories a test
//! could not measure in its time.

/// A recorded run of one test at `level` bytes/s (± a small deterministic wobble).
pub fn planted(host: &str, day: i64, level: f64) -> iozone::model::Run {
    use chrono::{Duration, Utc};
    use iozone::model::*;
    use iozone::units::ByteSize;
    use std::collections::BTreeMap;

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
            engines: vec![EngineKind::Posix],
            caches: vec![CacheMode::Flush],
            iodepth: 1,
            threads: 1,
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
            metadata: None,
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
                ops: None,
            })
            .collect(),
    }
}

/// A recorded run of `planted`'s kind measuring every one of `tests` at every one of
/// `file_sizes` × `record_sizes` (three repetitions each, at `level` bytes/s with the
/// row's own wobble), in `mount_point` (also its directory), with `state` as the machine's
/// at its start: a comparison of many rows, as a real sweep makes one.
pub fn planted_sweep(
    host: &str,
    day: i64,
    level: f64,
    mount_point: &str,
    sweep: (&[iozone::model::TestKind], &[u64], &[u64]),
    state: Option<iozone::model::MachineState>,
) -> iozone::model::Run {
    use iozone::model::Measurement;
    use iozone::units::ByteSize;

    let (tests, file_sizes, record_sizes) = sweep;
    let mut run = planted(host, day, level);
    let template = run.results[0].clone();
    run.results = Vec::new();
    for (f, &file_size) in file_sizes.iter().enumerate() {
        for (r, &record_size) in record_sizes.iter().enumerate() {
            // each row strays from run to run by its own amount: rows differ in noise
            let row = (f * record_sizes.len() + r) as f64;
            let wobble = 1.0
                + [0.0, -1.5, 2.0, -1.0, 1.0, -2.0, 1.5][(day % 7) as usize]
                    * (0.01 + 0.0013 * row);
            for repetition in 1..=3 {
                for &test in tests {
                    run.results.push(Measurement {
                        test,
                        file_size: ByteSize(file_size),
                        record_size: ByteSize(record_size),
                        repetition,
                        bytes: file_size,
                        throughput: level * wobble * (1.0 + 0.002 * f64::from(repetition)),
                        ..template.clone()
                    });
                }
            }
        }
    }
    run.params.tests = tests.to_vec();
    run.params.file_sizes = file_sizes.iter().copied().map(ByteSize).collect();
    run.params.record_sizes = record_sizes.iter().copied().map(ByteSize).collect();
    run.params.dir = Some(mount_point.into());
    run.filesystem.mount_point = Some(mount_point.into());
    run.host.cpus = Some(2);
    run.state_at_start = state;
    run
}
