//! The io_uring engine end to end: every test under every cache mode at queue depths
//! 1, 4 and 32, every byte read checked by `--verify`, and the depth refused where it
//! means nothing.

use super::matrix::{check_results, run_all_tests};
use std::process::Output;

use crate::common::{
    Measure, Mount, assert_no_leftovers, compare_json, expect_bad_input, iozone, iozone_process,
    on, require_root,
};

/// Every test and cache mode at `depth` in `dir`, with `extra` flags.
fn every_test_and_mode(dir: &std::path::Path, modes: &[&str], depth: &str, extra: &[&str]) {
    for &cache in modes {
        let label = format!("{cache} at depth {depth}");
        let run = run_all_tests(
            dir,
            cache,
            "uring",
            &[&["--iodepth", depth], extra].concat(),
        );
        assert_eq!(run["params"]["engine"], "uring", "{label}");
        assert_eq!(run["params"]["cache"], cache, "{label}");
        check_results(&run, 1, &label);
        assert_no_leftovers(dir);
    }
}

#[test]
fn every_test_and_cache_mode_at_depths_1_4_and_32() {
    let dir = tempfile::tempdir().unwrap();
    for depth in ["1", "4", "32"] {
        every_test_and_mode(
            dir.path(),
            &["flush", "buffered", "direct", "sync"],
            depth,
            &[],
        );
    }
}

#[test]
fn direct_io_on_an_ext4_loop_filesystem() {
    if !require_root("mount an ext4 loop filesystem") {
        return;
    }
    let mount = Mount::ext4(16, "");
    for depth in ["1", "4", "32"] {
        every_test_and_mode(mount.path(), &["direct"], depth, &[]);
    }
}

#[test]
fn workers_each_keep_their_own_queue() {
    let dir = tempfile::tempdir().unwrap();
    let run = run_all_tests(
        dir.path(),
        "buffered",
        "uring",
        &["--iodepth", "8", "--threads", "3"],
    );
    check_results(&run, 3, "3 threads at depth 8");
    assert_no_leftovers(dir.path());
}

#[test]
fn a_depth_is_refused_where_it_means_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    for engine in ["posix", "pread", "mmap", "stdio"] {
        let line = expect_bad_input(
            d,
            &["run", "-s", "64k", "--engine", engine, "--iodepth", "4"],
        );
        assert_eq!(
            line,
            format!(
                "error: --iodepth 4 needs --engine uring: --engine {engine} keeps one \
                 operation in flight"
            )
        );
    }
    for depth in ["0", "1025"] {
        let line = expect_bad_input(
            d,
            &["run", "-s", "64k", "--engine", "uring", "--iodepth", depth],
        );
        assert_eq!(
            line,
            format!("error: --iodepth must be 1..=1024, not {depth}")
        );
    }
    let line = expect_bad_input(
        d,
        &[
            "run",
            "-s",
            "4M",
            "-r",
            "2M",
            "--engine",
            "uring",
            "--iodepth",
            "1024",
        ],
    );
    assert!(
        line.contains("use a smaller --iodepth or --record"),
        "{line}"
    );
}

/// A depth-32 run and a depth-1 run of the same engine: recorded and shown with their
/// depth, apart in a comparison until the depth is dropped on purpose, and carried
/// whole through an export and an import.
#[test]
fn a_deep_run_records_shows_compares_and_exports_its_depth() {
    let scratch = tempfile::tempdir().unwrap();
    let db = scratch.path().join("h.db");
    for (depth, label) in [("1", "qd1"), ("32", "qd32")] {
        Measure::new(&db, scratch.path())
            .size("256k")
            .records("4k")
            .tests("write,random_read")
            .repeat(3)
            .args(&["--engine", "uring", "--iodepth", depth])
            .label(label)
            .record();
    }
    let (_, shown, _) = on(&db, &["show", "latest"]);
    assert!(shown.contains("engine uring, queue depth 32"), "{shown}");
    let (_, history, _) = on(&db, &["history"]);
    assert!(history.contains("flush/uring qd32"), "{history}");

    let (code, _, err) = on(&db, &["compare", "qd1", "qd32"]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("queue depth"), "{err}");
    let c = compare_json(&db, &["qd1", "qd32", "--ignore-param", "iodepth"]);
    let rows = c["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 3, "{c}");
    assert!(
        rows.iter()
            .all(|r| r["iodepth"].is_null() && r["verdict"].is_string())
    );

    let (code, first, _) = on(&db, &["export", "--format", "json"]);
    assert_eq!(code, Some(0));
    let file = scratch.path().join("export.json");
    std::fs::write(&file, &first).unwrap();
    let copy = scratch.path().join("copy.db");
    let (code, _, err) = on(&copy, &["import", file.to_str().unwrap()]);
    assert_eq!(code, Some(0), "{err}");
    let (_, again, _) = on(&copy, &["export", "--format", "json"]);
    let runs =
        |text: &str| serde_json::from_str::<serde_json::Value>(text).unwrap()["runs"].clone();
    assert_eq!(runs(&again), runs(&first));
    assert!(first.contains("\"iodepth\": 32"));
}

/// A filter that answers `io_uring_setup` with `errno`, as a container runtime's
/// default profile or a hardened service does; everything else is allowed.
fn refuse_io_uring(errno: i32) -> seccompiler::BpfProgram {
    let arch = std::env::consts::ARCH
        .try_into()
        .expect("seccompiler knows this architecture");
    let filter = seccompiler::SeccompFilter::new(
        [(libc::SYS_io_uring_setup, vec![])].into(),
        seccompiler::SeccompAction::Allow,
        seccompiler::SeccompAction::Errno(errno as u32),
        arch,
    )
    .unwrap();
    filter.try_into().unwrap()
}

/// `run --engine uring` in `dir` under a filter refusing io_uring with `errno`.
fn run_without_io_uring(dir: &std::path::Path, db: &std::path::Path, errno: i32) -> Output {
    use std::os::unix::process::CommandExt;
    let filter = refuse_io_uring(errno);
    let mut cmd = iozone_process();
    cmd.env("IOZONE_DB", db)
        .args([
            "run", "-s", "64k", "-r", "4k", "-n", "1", "--engine", "uring",
        ])
        .args(["--iodepth", "8", "-d"])
        .arg(dir);
    // SAFETY: between fork and exec the closure only makes the two system calls of
    // installing a filter compiled beforehand; it allocates nothing.
    unsafe {
        cmd.pre_exec(move || seccompiler::apply_filter(&filter).map_err(std::io::Error::other));
    }
    cmd.output().unwrap()
}

#[test]
fn io_uring_refused_by_seccomp_is_said_in_one_line_and_leaves_nothing() {
    let cases = [
        (
            libc::EPERM,
            "refused by kernel.io_uring_disabled or by a seccomp filter",
        ),
        (libc::ENOSYS, "this kernel has no io_uring"),
    ];
    for (errno, reason) in cases {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("runs.db");
        let work = dir.path().join("work");
        std::fs::create_dir(&work).unwrap();
        let out = run_without_io_uring(&work, &db, errno);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "errno {errno}: {stderr}");
        let lines: Vec<&str> = stderr.lines().filter(|l| !l.trim().is_empty()).collect();
        assert_eq!(lines.len(), 1, "errno {errno}: {stderr}");
        assert!(
            lines[0].starts_with("error: io_uring is unavailable here: ")
                && lines[0].contains(reason)
                && lines[0].contains("--engine pread"),
            "errno {errno}: {}",
            lines[0]
        );
        assert!(out.stdout.is_empty(), "errno {errno}: nothing measured");
        assert_no_leftovers(&work);
        let runs = iozone()
            .env("IOZONE_DB", &db)
            .args(["history", "--format", "json"])
            .output()
            .unwrap();
        let listed = String::from_utf8_lossy(&runs.stdout);
        assert!(
            !db.exists() || listed.trim() == "[]",
            "errno {errno}: no run may be recorded, found {listed}"
        );
    }
}
