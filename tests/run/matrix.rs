//! Every test under every cache mode and engine, on small real files, with every byte
//! read checked by `--verify`.

use serde_json::Value;

use crate::common::{assert_no_leftovers, run_in, run_json_in};

const ALL_TESTS: [&str; 10] = [
    "write",
    "rewrite",
    "read",
    "reread",
    "random_read",
    "random_write",
    "backward_read",
    "record_rewrite",
    "stride_read",
    "mix",
];

/// Every test, twice, on a 256 KiB file of 4 KiB records.
pub(super) fn run_all_tests(
    dir: &std::path::Path,
    cache: &str,
    engine: &str,
    extra: &[&str],
) -> Value {
    let args = [
        "run", "-s", "256k", "-r", "4k", "-i", "all", "-n", "2", "--verify",
    ];
    let mode = ["--cache", cache, "--engine", engine];
    run_json_in(dir, &[&args[..], &mode, extra].concat())
}

pub(super) fn check_results(run: &Value, threads: u64, label: &str) {
    let results = run["results"].as_array().unwrap();
    assert_eq!(results.len(), ALL_TESTS.len() * 2, "{label}");
    for test in ALL_TESTS {
        let reps: Vec<&Value> = results.iter().filter(|r| r["test"] == test).collect();
        assert_eq!(reps.len(), 2, "{label}: {test}");
        for r in reps {
            assert_eq!(r["file_size"], 262144, "{label}: {test}");
            assert_eq!(r["record_size"], 4096, "{label}: {test}");
            assert_eq!(
                r["bytes"].as_u64(),
                Some(262144 * threads),
                "{label}: {test}"
            );
            let elapsed = r["elapsed_ns"].as_u64().unwrap();
            assert!(elapsed > 0, "{label}: {test}");
            let throughput = r["throughput"].as_f64().unwrap();
            let expected = (262144 * threads) as f64 * 1e9 / elapsed as f64;
            assert!(
                (throughput - expected).abs() / expected < 1e-9,
                "{label}: {test}"
            );
            let lat = &r["latency_ns"];
            let samples = lat["samples"].as_u64().unwrap();
            // 64 records, timed one in 4 on average (the 4 KiB sampling interval), per worker
            assert!(
                (6 * threads..=40 * threads).contains(&samples),
                "{label}: {test}: {samples} samples"
            );
            let (p50, p99, max) = (
                lat["p50"].as_u64().unwrap(),
                lat["p99"].as_u64().unwrap(),
                lat["max"].as_u64().unwrap(),
            );
            assert!(
                p50 > 0 && p50 <= p99 && p99 <= max,
                "{label}: {test}: {lat}"
            );
            assert!(
                max <= elapsed,
                "{label}: {test}: one op longer than the phase"
            );
        }
    }
}

#[test]
fn every_test_cache_mode_and_engine() {
    let dir = tempfile::tempdir().unwrap();
    for cache in ["flush", "buffered", "direct", "sync"] {
        for engine in ["posix", "pread", "mmap", "stdio"] {
            let label = format!("{cache}/{engine}");
            if cache == "direct" && (engine == "mmap" || engine == "stdio") {
                let args = [
                    "run", "-s", "256k", "-r", "4k", "--cache", cache, "--engine", engine,
                ];
                let out = run_in(dir.path(), &args);
                assert_eq!(out.status.code(), Some(2), "{label}");
                let err = String::from_utf8_lossy(&out.stderr);
                assert!(err.contains("cannot do --cache direct"), "{label}: {err}");
                continue;
            }
            let run = run_all_tests(dir.path(), cache, engine, &[]);
            assert_eq!(run["params"]["cache"], cache);
            assert_eq!(run["params"]["engine"], engine);
            assert_eq!(run["params"]["verify"], true);
            check_results(&run, 1, &label);
            assert_no_leftovers(dir.path());
        }
    }
}

#[test]
fn workers_each_write_their_own_file_and_add_up() {
    let dir = tempfile::tempdir().unwrap();
    let run = run_all_tests(dir.path(), "buffered", "pread", &["--threads", "3"]);
    assert_eq!(run["params"]["threads"], 3);
    check_results(&run, 3, "3 threads");
    assert_no_leftovers(dir.path());
}

#[test]
fn mix_honours_the_read_share_and_still_verifies() {
    let dir = tempfile::tempdir().unwrap();
    for pct in ["0", "100"] {
        let args = [
            "run", "-s", "128k", "-r", "4k", "-i", "mix", "-n", "1", "--verify",
        ];
        let run = run_json_in(dir.path(), &[&args[..], &["--read-pct", pct]].concat());
        assert_eq!(
            run["params"]["read_pct"].as_u64(),
            Some(pct.parse().unwrap())
        );
        assert_eq!(run["results"][0]["test"], "mix");
    }
}

#[test]
fn auto_mode_sweeps_file_sizes_and_skips_records_larger_than_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let run = run_json_in(
        dir.path(),
        &[
            "run",
            "--auto",
            "--min-size",
            "64k",
            "--max-size",
            "256k",
            "-r",
            "4k,128k",
            "-i",
            "write",
            "-n",
            "1",
            "--cache",
            "buffered",
        ],
    );
    assert_eq!(
        run["params"]["file_sizes"],
        serde_json::json!([65536, 131072, 262144])
    );
    let pairs: Vec<(u64, u64)> = run["results"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["test"] == "write")
        .map(|r| {
            (
                r["file_size"].as_u64().unwrap(),
                r["record_size"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        pairs,
        [
            (65536, 4096),
            (131072, 4096),
            (131072, 131072),
            (262144, 4096),
            (262144, 131072)
        ]
    );
}

#[test]
fn a_given_seed_is_used_and_recorded() {
    // --seed is recorded and reused; two runs with it must both verify
    let dir = tempfile::tempdir().unwrap();
    for _ in 0..2 {
        let run = run_all_tests(dir.path(), "buffered", "posix", &["--seed", "12345"]);
        assert_eq!(run["params"]["seed"], 12345);
    }
}
