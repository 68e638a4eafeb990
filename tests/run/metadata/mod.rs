//! The metadata tests end to end: every test in every cache mode, counted in
//! operations over the tree asked for, with and without root; the tree shared by
//! threads; what each command makes of their rows on both stores; the faults a tree
//! meets; and a filesystem's metadata regression found on a real ext4.

mod commands;
mod ext4;
mod faults;

use std::path::Path;

use serde_json::Value;

use crate::common::{Measure, assert_no_leftovers, is_root, require_root};

/// A tiny tree's run in `dir`, printed as JSON (not recorded).
fn measured(dir: &Path, args: &[&str]) -> Value {
    let db = dir.join("history.db");
    let measure = Measure::new(&db, dir)
        .repeat(1)
        .warmup(0)
        .args(&["--no-record", "--files", "6", "--dirs", "2"])
        .args(args);
    let run = measure.json();
    assert_no_leftovers(dir);
    run
}

/// The results of `run` of `test` through `cache`.
fn results<'a>(run: &'a Value, test: &str, cache: &str) -> Vec<&'a Value> {
    (run["results"].as_array().unwrap().iter())
        .filter(|m| m["test"] == test && m["cache"] == cache)
        .collect()
}

#[test]
fn every_metadata_test_in_every_cache_mode_counts_its_operations() {
    let dir = tempfile::tempdir().unwrap();
    let run = measured(
        dir.path(),
        &["-i", "metadata", "--cache", "buffered,flush,sync"],
    );
    let tree = &run["params"]["metadata"];
    assert_eq!(
        (&tree["files"], &tree["dirs"], &tree["file_bytes"]),
        (&Value::from(6), &Value::from(2), &Value::from(0))
    );
    // as root the caches are dropped: no phase is warm
    assert_eq!(tree["warm"], !is_root());
    // 2 directories of 6 files: 12 files, each directory made, listed and removed once
    let expected = [
        ("mkdir", 2),
        ("create", 12),
        ("stat", 12),
        ("open", 12),
        ("readfile", 12),
        ("readdir", 12),
        ("rename", 12),
        ("unlink", 12),
        ("rmdir", 2),
    ];
    for cache in ["buffered", "flush", "sync"] {
        for (test, ops) in expected {
            let figures = results(&run, test, cache);
            assert_eq!(figures.len(), 1, "{test} {cache}");
            let m = figures[0];
            assert_eq!(m["ops"], ops, "{test} {cache}: {m}");
            assert_eq!(
                (&m["file_size"], &m["engine"]),
                (&Value::from(0), &"posix".into())
            );
            let rate = m["throughput"].as_f64().unwrap();
            let elapsed = m["elapsed_ns"].as_f64().unwrap();
            let per_second = f64::from(ops) * 1e9 / elapsed;
            assert!((rate - per_second).abs() <= 1e-6 * per_second, "{m}");
        }
    }
}

#[test]
fn the_table_says_ops_per_second_and_units_leave_it_alone() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("history.db");
    let run = |units: &str| {
        let (code, out, err) = Measure::new(&db, dir.path())
            .tests("write,create,stat")
            .size("64k")
            .records("64k")
            .repeat(2)
            .warmup(0)
            .cache("buffered")
            .args(&["--no-record", "--files", "5", "--units", units])
            .outcome();
        assert_eq!(code, Some(0), "{err}");
        out
    };
    for units in ["B", "GiB"] {
        let table = run(units);
        // the throughput table in the unit asked; the metadata table in ops/s
        let label = if units == "B" {
            "B/s, median"
        } else {
            "GiB/s, median"
        };
        assert!(table.contains(label), "{table}");
        assert!(table.contains("ops/s, median of 2 repetitions"), "{table}");
        let header = table.lines().find(|l| l.contains("Files")).unwrap();
        assert!(
            header.contains("create") && header.contains("stat"),
            "{table}"
        );
        assert!(!header.contains("write"), "{table}");
    }
    assert_no_leftovers(dir.path());
}

#[test]
fn flush_without_root_says_once_that_its_phases_are_warm_and_records_it() {
    if !require_root("run iozone as the unprivileged user nobody") {
        return;
    }
    use std::os::unix::fs::PermissionsExt;
    let shared = tempfile::tempdir().unwrap();
    std::fs::set_permissions(shared.path(), std::fs::Permissions::from_mode(0o1777)).unwrap();
    let binary = shared.path().join("iozone");
    std::fs::copy(assert_cmd::cargo::cargo_bin("iozone"), &binary).unwrap();
    let out = std::process::Command::new("setpriv")
        .args(["--reuid=nobody", "--regid=nogroup", "--clear-groups"])
        .arg(&binary)
        .args(["run", "--no-record", "--format", "json", "-n", "1"])
        .args(["--warmup", "0", "-i", "create,stat", "--files", "4", "-d"])
        .arg(shared.path())
        .env("NO_COLOR", "1")
        .env("IOZONE_DB", shared.path().join("history.db"))
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{said}");
    let warm: Vec<&str> = said.lines().filter(|l| l.contains("start warm")).collect();
    assert_eq!(warm.len(), 1, "said once: {said}");
    assert!(warm[0].contains("needs root"), "{said}");
    let run = crate::common::json(&out.stdout);
    assert_eq!(run["params"]["metadata"]["warm"], true, "{run}");
    assert_eq!(results(&run, "stat", "flush").len(), 1);
    std::fs::remove_file(&binary).unwrap();
    assert_no_leftovers(shared.path());
}

#[test]
fn threads_in_shared_directories_share_out_the_directories_and_list_every_file() {
    let dir = tempfile::tempdir().unwrap();
    let run = measured(
        dir.path(),
        &[
            "-i",
            "create,readdir,rmdir",
            "-t",
            "3",
            "--shared-dir",
            "--random-order",
            "--cache",
            "buffered",
        ],
    );
    let tree = &run["params"]["metadata"];
    assert_eq!(
        (&tree["shared_dir"], &tree["random_order"]),
        (&true.into(), &true.into())
    );
    let ops = |test| results(&run, test, "buffered")[0]["ops"].as_u64().unwrap();
    // 3 threads × 6 files in each of 2 shared directories, each thread listing both
    assert_eq!(ops("create"), 36);
    assert_eq!(ops("readdir"), 3 * 36);
    // each shared directory removed once, by one thread
    assert_eq!(ops("rmdir"), 2);
}

#[test]
fn metadata_flags_and_combinations_that_cannot_be_measured_are_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let bad = |args: &[&str]| {
        let line = [&["run", "-q", "--no-record", "-n", "1"][..], args].concat();
        crate::common::expect_bad_input(dir.path(), &line)
    };
    let line = bad(&["-i", "create", "--files", "0"]);
    assert!(
        line.contains("--files and --dirs must be at least 1"),
        "{line}"
    );
    let line = bad(&["-i", "write", "--files", "10"]);
    assert!(line.contains("--files is for the metadata tests"), "{line}");
    let line = bad(&["-i", "create", "--engine", "mmap"]);
    assert!(line.contains("plain system calls"), "{line}");
    let line = bad(&["-i", "stat", "--cache", "direct"]);
    assert!(line.contains("--cache direct means nothing"), "{line}");
}
