//! A run killed outright (`kill -9`): shown as `aborted` once its process is gone,
//! marked so for good by the next run or `db check --repair`, and its test file removed
//! by the next run in the directory — that file only, never a live run's, never
//! through a link.

use std::path::Path;
use std::time::{Duration, SystemTime};

use rustix::process::{Pid, Signal, kill_process};

use crate::common::{iozone, iozone_process, json, leftovers, ok, spawn_until};

/// A verbose run in `dir`, killed with SIGKILL while its test file exists.
fn killed_run(db: &str, dir: &Path) {
    let (mut child, _stderr, _) = spawn_until(
        iozone_process()
            .env("IOZONE_DB", db)
            .args(["run", "-s", "4M", "-r", "4k", "-n", "20", "-v", "-d"])
            .arg(dir)
            .stdout(std::process::Stdio::null()),
        "Measured",
    );
    let pid = Pid::from_child(&child);
    // frozen, it cannot remove its file between the check and the kill
    loop {
        kill_process(pid, Signal::STOP).unwrap();
        if !leftovers(dir).is_empty() {
            break;
        }
        kill_process(pid, Signal::CONT).unwrap();
        std::thread::sleep(Duration::from_millis(5));
    }
    kill_process(pid, Signal::KILL).unwrap();
    child.wait().unwrap();
}

/// A short run in `dir`, to its end.
fn short_run(db: &str, dir: &Path) -> std::process::Output {
    iozone()
        .env("IOZONE_DB", db)
        .args(["run", "-s", "64k", "-r", "4k", "-n", "1", "-d"])
        .arg(dir)
        .output()
        .unwrap()
}

fn history(db: &str, args: &[&str]) -> serde_json::Value {
    json(ok(db, &[&["history", "--format", "json"], args].concat()).as_bytes())
}

#[test]
fn a_killed_run_is_aborted_and_the_next_run_removes_its_file() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("measured");
    std::fs::create_dir(&dir).unwrap();
    let db = tmp.path().join("history.db").display().to_string();
    killed_run(&db, &dir);
    let left = leftovers(&dir);
    assert_eq!(left.len(), 1, "{left:?}");

    // shown as aborted at once, by `history` and `show`; still `running` in the store
    assert_eq!(history(&db, &[])[0]["status"], "aborted");
    let shown = json(ok(&db, &["show", "1", "--format", "json"]).as_bytes());
    assert_eq!(shown["status"], "aborted", "{shown}");
    assert_eq!(
        history(&db, &["--status", "running"]),
        serde_json::json!([])
    );
    let check = iozone()
        .env("IOZONE_DB", &db)
        .args(["db", "check"])
        .output()
        .unwrap();
    let warned = String::from_utf8_lossy(&check.stderr);
    assert!(warned.contains("run 1 aborted"), "{warned}");
    assert!(warned.contains("--repair"), "{warned}");
    // counted as the warning says: marked running still, and killed
    let report = String::from_utf8_lossy(&check.stdout);
    assert!(report.contains("unfinished     1 (1 killed)"), "{report}");
    assert_eq!(warned.lines().count(), 1, "{warned}");

    // the next run in the directory removes the file and marks the run for good
    let out = short_run(&db, &dir);
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{said}");
    let name = left[0].file_name().unwrap().to_string_lossy().to_string();
    let removed: Vec<&str> = said.lines().filter(|l| l.contains("Removed")).collect();
    assert_eq!(removed.len(), 1, "one line: {said}");
    assert!(removed[0].contains(&name), "{said}");
    assert!(said.contains("Marked run 1 aborted"), "{said}");
    assert!(leftovers(&dir).is_empty());
    let aborted = history(&db, &["--status", "aborted"]);
    assert_eq!(aborted.as_array().unwrap().len(), 1, "{aborted}");
}

#[test]
fn db_check_repair_marks_a_killed_run_aborted_for_good() {
    let tmp = tempfile::tempdir().unwrap();
    let db = tmp.path().join("history.db").display().to_string();
    killed_run(&db, tmp.path());
    assert_eq!(
        history(&db, &["--status", "aborted"]),
        serde_json::json!([])
    );
    let out = iozone()
        .env("IOZONE_DB", &db)
        .args(["db", "check", "--repair"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(said.contains("Marked run 1 aborted"), "{said}");
    assert!(String::from_utf8_lossy(&out.stdout).contains("unfinished     0"));
    assert_eq!(history(&db, &["--status", "aborted"])[0]["id"], 1);
}

#[test]
fn only_dead_runs_files_are_removed_never_through_a_link() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("measured");
    std::fs::create_dir(&dir).unwrap();
    let db = tmp.path().join("history.db").display().to_string();
    // this test's own process runs, and started before the file was written
    let live = dir.join(format!("iozone-{}-0badf00d-0.tmp", std::process::id()));
    std::fs::write(&live, b"a live run's").unwrap();
    // the same pid on a file written before that process started: the pid was reused
    let reused = dir.join(format!("iozone-{}-0badf00d-1.tmp", std::process::id()));
    let file = std::fs::File::create(&reused).unwrap();
    file.set_modified(SystemTime::UNIX_EPOCH + Duration::from_secs(86_400))
        .unwrap();
    // a link under a dead run's name, to a file that must survive
    let target = tmp.path().join("precious");
    std::fs::write(&target, b"keep").unwrap();
    let link = dir.join(format!("iozone-{}-0badf00d-0.tmp", u32::MAX >> 1));
    std::os::unix::fs::symlink(&target, &link).unwrap();
    let out = short_run(&db, &dir);
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{said}");
    assert!(live.exists(), "a live process's file was removed");
    assert!(
        !reused.exists(),
        "a file older than its pid's process was kept"
    );
    assert!(link.symlink_metadata().is_ok(), "the link was removed");
    assert_eq!(std::fs::read(&target).unwrap(), b"keep");
    assert!(
        said.contains("iozone-") && said.contains("-0badf00d-1.tmp"),
        "{said}"
    );
}
