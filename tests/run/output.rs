//! What a run prints: the classic table, the JSON run object, and status on stderr.

use predicates::prelude::*;

use crate::common::{assert_has_keys, assert_no_leftovers, iozone, run_in, run_json_in};

#[test]
fn classic_form_32_512_reports_the_four_basic_tests() {
    let dir = tempfile::tempdir().unwrap();
    let run = run_json_in(
        dir.path(),
        &["run", "32", "512", "-n", "1", "--cache", "buffered"],
    );
    assert_eq!(run["params"]["file_size"], 33554432);
    assert_eq!(run["params"]["record_sizes"], serde_json::json!([512]));
    let results = run["results"].as_array().unwrap();
    for test in ["write", "rewrite", "read", "reread"] {
        let r = results
            .iter()
            .find(|r| r["test"] == test)
            .unwrap_or_else(|| panic!("no {test}"));
        assert_eq!(r["record_size"], 512);
        assert_eq!(r["file_size"], 33554432);
        assert_eq!(r["bytes"], 33554432);
        assert!(r["elapsed_ns"].as_u64().unwrap() > 0);
        assert!(r["throughput"].as_f64().unwrap() > 0.0);
        for p in ["p50", "p99", "p999", "max"] {
            assert!(r["latency_ns"][p].as_u64().unwrap() > 0, "{test} {p}");
        }
    }
    assert_no_leftovers(dir.path());
}

/// `run 1.5 512` is a file of 1.5 MB, as `run 32 512` is one of 32 MB; it once read
/// 1.5 as bytes and failed with "record size 512 B is larger than the file (2 B)".
#[test]
fn classic_form_takes_a_decimal_size_in_megabytes() {
    let dir = tempfile::tempdir().unwrap();
    let run = run_json_in(
        dir.path(),
        &[
            "run", "1.5", "512", "-n", "1", "--warmup", "0", "-i", "write", "--cache", "buffered",
        ],
    );
    assert_eq!(run["params"]["file_size"], 1_572_864);
    assert_eq!(run["results"][0]["file_size"], 1_572_864);
    assert_no_leftovers(dir.path());
}

#[test]
fn the_footer_speaks_of_a_range_only_when_there_is_one() {
    let dir = tempfile::tempdir().unwrap();
    let table = |repeat: &str| {
        let out = run_in(
            dir.path(),
            &["run", "-s", "64k", "-r", "4k", "-n", repeat, "-q"],
        );
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    };
    let one = table("1");
    assert!(one.contains("/s, 1 repetition; 1 warm-up round"), "{one}");
    assert!(!one.contains("range") && !one.contains('±'), "{one}");
    let two = table("2");
    assert!(
        two.contains(", median of 2 repetitions ± half their range;"),
        "{two}"
    );
}

/// The keys a run object documents, and those of its parameters, host and filesystem.
const RUN_KEYS: &[&str] = &[
    "id",
    "uuid",
    "started_at",
    "finished_at",
    "status",
    "labels",
    "tags",
    "note",
    "tool_version",
    "params",
    "host",
    "filesystem",
    "results",
];
const PARAMS_KEYS: &[&str] = &[
    "engine",
    "cache",
    "iodepth",
    "threads",
    "file_size",
    "record_sizes",
    "tests",
    "repeat",
    "seed",
];
const HOST_KEYS: &[&str] = &[
    "hostname",
    "os",
    "os_version",
    "kernel",
    "arch",
    "cpu_model",
    "cpus",
    "memory_bytes",
];
const FILESYSTEM_KEYS: &[&str] = &[
    "mount_point",
    "type",
    "device",
    "mount_options",
    "block_size",
    "total_bytes",
    "free_bytes",
    "device_model",
    "rotational",
    "scheduler",
];

#[test]
fn json_run_object_has_the_documented_fields() {
    let dir = tempfile::tempdir().unwrap();
    let run = run_json_in(
        dir.path(),
        &[
            "run",
            "-s",
            "64k",
            "-r",
            "4k",
            "-n",
            "1",
            "-l",
            "DR9",
            "-l",
            "nightly",
            "--tag",
            "os=dr9",
            "--note",
            "after upgrade",
        ],
    );
    assert_has_keys(&run, "run", RUN_KEYS);
    assert_has_keys(&run["params"], "params", PARAMS_KEYS);
    assert_has_keys(&run["host"], "host", HOST_KEYS);
    assert_has_keys(&run["filesystem"], "filesystem", FILESYSTEM_KEYS);
    assert_eq!(run["status"], "complete");
    assert_eq!(run["labels"], serde_json::json!(["DR9", "nightly"]));
    assert_eq!(run["tags"]["os"], "dr9");
    assert_eq!(run["note"], "after upgrade");
    assert_eq!(
        run["params"]["tests"],
        serde_json::json!(["write", "rewrite", "read", "reread"])
    );
    assert_eq!(
        run["params"]["dir"],
        dir.path().canonicalize().unwrap().display().to_string()
    );
    assert_eq!(run["uuid"].as_str().unwrap().len(), 36);
    let started = run["started_at"].as_str().unwrap();
    assert!(
        chrono::DateTime::parse_from_rfc3339(started).is_ok(),
        "{started}"
    );
}

#[test]
fn table_has_a_row_per_record_size_and_a_column_per_test() {
    let dir = tempfile::tempdir().unwrap();
    let out = run_in(
        dir.path(),
        &[
            "run", "-s", "64k", "-r", "4k,16k", "-n", "3", "--units", "kB",
        ],
    );
    assert!(out.status.success());
    let stdout = String::from_utf8(out.stdout).unwrap();
    let header = stdout.lines().nth(1).unwrap();
    for col in ["File", "Record", "write", "rewrite", "read", "reread"] {
        assert!(header.contains(col), "{header}");
    }
    let rows: Vec<&str> = stdout.lines().filter(|l| l.contains("64 KiB")).collect();
    assert_eq!(rows.len(), 2, "{stdout}");
    assert!(
        rows[0].contains("4 KiB") && rows[1].contains("16 KiB"),
        "{stdout}"
    );
    assert!(rows[0].contains('±'), "{stdout}");
    assert!(
        stdout.contains("KiB/s, median of 3 repetitions"),
        "{stdout}"
    );
    // status and the interpreted sizes go to stderr, never into the data
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(stderr.contains("Measuring"), "{stderr}");
    assert!(stderr.contains("records 4 KiB, 16 KiB"), "{stderr}");
    assert!(!stdout.contains("Measuring"));
}

#[test]
fn quiet_prints_only_data() {
    let dir = tempfile::tempdir().unwrap();
    iozone()
        .args(["run", "-s", "64k", "-r", "4k", "-n", "1", "-q"])
        .arg("-d")
        .arg(dir.path())
        .assert()
        .success()
        .stderr(predicate::str::is_empty())
        .stdout(predicate::str::contains("write"));
}

#[test]
fn tests_by_iozone3_number() {
    let dir = tempfile::tempdir().unwrap();
    let run = run_json_in(
        dir.path(),
        &[
            "run", "-s", "64k", "-r", "4k", "-n", "1", "-i", "0", "-i", "2,3",
        ],
    );
    assert_eq!(
        run["params"]["tests"],
        serde_json::json!([
            "write",
            "rewrite",
            "random_read",
            "random_write",
            "backward_read"
        ])
    );
}

#[test]
fn help_and_version_exit_zero() {
    iozone()
        .arg("--version")
        .assert()
        .success()
        .stdout(predicate::str::contains("iozone"));
    iozone()
        .args(["run", "--help"])
        .assert()
        .success()
        .stdout(predicate::str::contains("--cache"));
    // no subcommand: clap's message, which lists the commands and points at the help
    iozone()
        .assert()
        .code(2)
        .stderr(predicate::str::contains("[subcommands: run, history"))
        .stderr(predicate::str::contains("try '--help'"));
}
