//! Builds a large history database through the store interface, for
//! `scripts/bench-history.sh`, and times recording single runs into it.
//!
//!     cargo run --release --example populate_history -- DB RUNS [HOSTS]
//!
//! DB is a SQLite path or a postgres:// URL. Runs come from HOSTS hosts (default 20)
//! over the last 365 days, 20 results each (5 record sizes × write, rewrite, read,
//! reread); one run in 100 carries the label `X`. Then one run per host labelled
//! `before` and one labelled `after`, with 5 repetitions each, the `after` runs of
//! one host in 20 writing 30% slower: the fleet comparison's workload.

use std::collections::BTreeMap;
use std::time::Instant;

use chrono::{Duration, Utc};
use iozone::model::*;
use iozone::store;
use iozone::units::ByteSize;

const RECORDS: [u64; 5] = [512, 1024, 4096, 16384, 65536];
const TESTS: [TestKind; 4] = [
    TestKind::Write,
    TestKind::Rewrite,
    TestKind::Read,
    TestKind::Reread,
];

/// A Debian server of 64 CPUs whose kernel changes with `i`.
fn host(hostname: String, i: u64) -> Host {
    Host {
        hostname: Some(hostname),
        os: Some("Debian GNU/Linux".into()),
        os_version: Some("12".into()),
        kernel: Some(format!("6.{}.0-amd64", i % 13)),
        arch: Some("x86_64".into()),
        cpu_model: Some("AMD EPYC 7763".into()),
        cpus: Some(64),
        memory_bytes: Some(256 << 30),
        page_size: Some(4096),
        ..Host::default()
    }
}

/// An NVMe filesystem at /srv, ext4, xfs or btrfs by `i`.
fn filesystem(i: u64) -> Filesystem {
    Filesystem {
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
    }
}

/// Run `i`'s 20 results, one repetition of each test at each record size: 32 MiB in
/// 50-60 ms, varied by `i` and the record size.
fn results(i: u64) -> Vec<Measurement> {
    RECORDS
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
                latency_ns: Some(Box::new(Latency {
                    p50: 800,
                    p99: 2_000,
                    p999: 9_000,
                    max: 40_000,
                    samples: 2_048,
                })),
                engine: EngineKind::Posix,
                cache: CacheMode::Flush,
                ops: None,
            })
        })
        .collect()
}

/// Run `i` of `total`, from host `i % hosts`, at its place in the year up to now.
fn run(i: u64, total: u64, hosts: u64) -> Run {
    // oldest first, one year of history up to now
    let started_at = Utc::now() - Duration::seconds(((total - i) * 365 * 86_400 / total) as i64);
    let results = results(i);
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
            engines: vec![EngineKind::Posix],
            caches: vec![CacheMode::Flush],
            iodepth: 1,
            threads: 1,
            file_sizes: vec![ByteSize(32 << 20)],
            record_sizes: RECORDS.map(ByteSize).to_vec(),
            tests: TESTS.to_vec(),
            repeat: 1,
            warmup: 0,
            order: RoundOrder::Interleaved,
            repeat_auto: None,
            seed: Some(i),
            auto: false,
            verify: false,
            read_pct: Some(50),
            stride_records: Some(17),
            latency: true,
            dir: Some("/srv/bench".into()),
            metadata: None,
        },
        host: host(format!("host-{:04}", i % hosts), i),
        filesystem: filesystem(i),
        source: None,
        state_at_start: None,
        state_at_end: None,
        process: None,
        warmup: Vec::new(),
        results,
    }
}

/// A run of host `h` with 5 repetitions, labelled `label`; `after` is 30% slower at
/// writing on every 20th host.
fn fleet_run(h: u64, hosts: u64, label: &str) -> Run {
    let mut r = run(h, hosts, hosts);
    r.labels = vec![label.to_string()];
    r.params.repeat = 5;
    let slow = label == "after" && h % 20 == 7;
    r.results = r
        .results
        .iter()
        .flat_map(|m| {
            (1..=5).map(move |rep| {
                let factor = if slow && m.test == TestKind::Write {
                    0.7
                } else {
                    1.0
                };
                Measurement {
                    repetition: rep,
                    throughput: m.throughput * factor * (1.0 + 0.01 * rep as f64),
                    ..m.clone()
                }
            })
        })
        .collect();
    r
}

fn main() -> anyhow::Result<()> {
    let mut args = std::env::args().skip(1);
    let path = args
        .next()
        .unwrap_or_else(|| "target/bench-history.db".into());
    let total: u64 = args.next().map_or(Ok(100_000), |n| n.parse())?;
    let hosts: u64 = args.next().map_or(Ok(20), |n| n.parse())?;
    let location = store::Location::parse(&path)?;
    if let store::Location::Sqlite(file) = &location {
        let _ = std::fs::remove_file(file);
    }
    let mut store = store::open(&location)?;
    let clock = Instant::now();
    let batch = 5_000;
    for start in (0..total).step_by(batch) {
        let runs: Vec<Run> = (start..(start + batch as u64).min(total))
            .map(|i| run(i, total, hosts))
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
            let r = run(total + k, total + 50, hosts);
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
    let fleet: Vec<Run> = (0..hosts)
        .flat_map(|h| [fleet_run(h, hosts, "before"), fleet_run(h, hosts, "after")])
        .collect();
    store.save_runs(&fleet)?;
    println!(
        "fleet: {} runs labelled before/after, one host in 20 regressed",
        fleet.len()
    );
    drop(store);
    if let store::Location::Sqlite(file) = &location {
        let size = std::fs::metadata(file)?.len();
        println!(
            "database: {:.1} MiB, {:.0} bytes per run",
            size as f64 / (1 << 20) as f64,
            size as f64 / (total + 50) as f64
        );
    }
    Ok(())
}
