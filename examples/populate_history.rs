//! Builds a large history database through the store interface, for
//! `scripts/bench-history.sh`, and times recording single runs into it.
//!
//!     cargo run --release --example populate_history -- DB RUNS
//!
//! Runs come from 20 hosts over the last 365 days, 20 results each (5 record sizes ×
//! write, rewrite, read, reread); one run in 100 carries the label `X`.

use std::collections::BTreeMap;
use std::time::Instant;

use chrono::{Duration, Utc};
use iozone::model::*;
use iozone::store::{self, Store};
use iozone::units::ByteSize;

const RECORDS: [u64; 5] = [512, 1024, 4096, 16384, 65536];
const TESTS: [TestKind; 4] = [
    TestKind::Write,
    TestKind::Rewrite,
    TestKind::Read,
    TestKind::Reread,
];

fn run(i: u64, total: u64) -> Run {
    let host = format!("host-{:02}", i % 20);
    // oldest first, one year of history up to now
    let started_at = Utc::now() - Duration::seconds(((total - i) * 365 * 86_400 / total) as i64);
    let results = RECORDS
        .iter()
        .flat_map(|&record| {
            TESTS.map(|test| Measurement {
                test,
                file_size: ByteSize(32 << 20),
                record_size: ByteSize(record),
                repetition: 1,
                bytes: 32 << 20,
                elapsed_ns: 50_000_000 + (i * 7919 + record) % 10_000_000,
                throughput: (32u64 << 20) as f64 * 1e9
                    / (50_000_000 + (i * 7919 + record) % 10_000_000) as f64,
                latency_ns: Some(Latency {
                    p50: 800,
                    p99: 2_000,
                    p999: 9_000,
                    max: 40_000,
                    samples: 2_048,
                }),
            })
        })
        .collect();
    let mut labels = vec![format!("batch-{}", i / 1000)];
    if i.is_multiple_of(100) {
        labels.push("X".into());
    }
    Run {
        id: None,
        uuid: uuid::Uuid::new_v4(),
        started_at,
        finished_at: Some(started_at + Duration::seconds(30)),
        status: RunStatus::Complete,
        labels,
        tags: BTreeMap::from([("kernel".to_string(), format!("6.{}", i % 13))]),
        note: None,
        tool_version: env!("CARGO_PKG_VERSION").into(),
        params: Params {
            engine: EngineKind::Posix,
            cache: CacheMode::Flush,
            threads: 1,
            file_size: ByteSize(32 << 20),
            file_sizes: vec![ByteSize(32 << 20)],
            record_sizes: RECORDS.map(ByteSize).to_vec(),
            tests: TESTS.to_vec(),
            repeat: 1,
            seed: i,
            auto: false,
            verify: false,
            read_pct: 50,
            stride_records: 17,
            latency: true,
            dir: "/srv/bench".into(),
        },
        host: Host {
            hostname: Some(host),
            os: Some("Debian GNU/Linux".into()),
            os_version: Some("12".into()),
            kernel: Some(format!("6.{}.0-amd64", i % 13)),
            arch: Some("x86_64".into()),
            cpu_model: Some("AMD EPYC 7763".into()),
            cpus: Some(64),
            memory_bytes: Some(256 << 30),
            page_size: Some(4096),
            ..Host::default()
        },
        filesystem: Filesystem {
            mount_point: Some("/srv".into()),
            fs_type: Some(["ext4", "xfs", "btrfs"][(i % 3) as usize].into()),
            device: Some("/dev/nvme0n1p1".into()),
            mount_options: Some("rw,relatime".into()),
            block_size: Some(4096),
            total_bytes: Some(1 << 40),
            free_bytes: Some(1 << 39),
            block_device: Some("nvme0n1".into()),
            rotational: Some(false),
            scheduler: Some("none".into()),
            ..Filesystem::default()
        },
        source: None,
        results,
    }
}

fn main() -> anyhow::Result<()> {
    let mut args = std::env::args().skip(1);
    let path = args
        .next()
        .unwrap_or_else(|| "target/bench-history.db".into());
    let total: u64 = args.next().map_or(Ok(100_000), |n| n.parse())?;
    let _ = std::fs::remove_file(&path);
    let mut store = store::open(path.as_ref())?;
    let clock = Instant::now();
    let batch = 5_000;
    for start in (0..total).step_by(batch) {
        let runs: Vec<Run> = (start..(start + batch as u64).min(total))
            .map(|i| run(i, total))
            .collect();
        store.save_runs(&runs)?;
    }
    println!(
        "populated {total} runs in {:.1} s",
        clock.elapsed().as_secs_f64()
    );

    // recording a single run, as `iozone run` does at its end: one transaction each
    let mut times: Vec<f64> = (0..50)
        .map(|k| {
            let r = run(total + k, total + 50);
            let t = Instant::now();
            store.save_run(&r).map(|_| t.elapsed().as_secs_f64() * 1e3)
        })
        .collect::<Result<_, _>>()?;
    times.sort_by(f64::total_cmp);
    println!(
        "recording one run: median {:.2} ms, max {:.2} ms (50 runs, 20 results each)",
        times[times.len() / 2],
        times[times.len() - 1]
    );
    drop(store);
    let size = std::fs::metadata(&path)?.len();
    println!(
        "database: {:.1} MiB, {:.0} bytes per run",
        size as f64 / (1 << 20) as f64,
        size as f64 / (total + 50) as f64
    );
    Ok(())
}
