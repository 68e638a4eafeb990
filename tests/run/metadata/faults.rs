//! What a metadata run meets: Ctrl-C in the middle of a phase, a kill that leaves its
//! tree for the next run to remove, a filesystem out of inodes, a directory it cannot
//! write to. Each ends with one clear line and no tree left behind.

use std::path::Path;
use std::time::Duration;

use rustix::process::{Pid, Signal, kill_process};

use crate::common::{
    Mount, assert_no_leftovers, iozone_process, leftovers, require_root, spawn_until, wait_bounded,
};

/// A long metadata run in `dir`, returned once its tree is there and filling.
fn long_run(
    dir: &Path,
    db: &Path,
) -> (
    std::process::Child,
    std::io::BufReader<std::process::ChildStderr>,
) {
    let (child, stderr, _) = spawn_until(
        iozone_process()
            .env("IOZONE_DB", db)
            .args([
                "run", "-n", "100000", "--warmup", "0", "--cache", "buffered",
            ])
            .args(["-i", "create,stat", "--files", "1000000", "-d"])
            .arg(dir)
            .stdout(std::process::Stdio::null()),
        "Measuring",
    );
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    while leftovers(dir).is_empty() {
        assert!(std::time::Instant::now() < deadline, "no tree appeared");
        std::thread::sleep(Duration::from_millis(5));
    }
    // in the middle of the create phase
    std::thread::sleep(Duration::from_millis(200));
    (child, stderr)
}

fn rest_of(stderr: std::io::BufReader<std::process::ChildStderr>) -> String {
    let mut rest = String::new();
    std::io::Read::read_to_string(&mut { stderr }, &mut rest).unwrap();
    rest
}

#[test]
fn ctrl_c_in_the_middle_of_a_phase_removes_the_tree() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("history.db");
    let (mut child, stderr) = long_run(dir.path(), &db);
    assert_eq!(leftovers(dir.path()).len(), 1, "the tree");
    kill_process(Pid::from_child(&child), Signal::INT).unwrap();
    let status = wait_bounded(&mut child, "the run did not stop on Ctrl-C");
    let rest = rest_of(stderr);
    assert_eq!(status.code(), Some(130), "{rest}");
    assert!(rest.contains("test files were removed"), "{rest}");
    assert_no_leftovers(dir.path());
}

#[test]
fn the_next_run_removes_the_tree_of_a_killed_one() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("measured");
    std::fs::create_dir(&dir).unwrap();
    let db = tmp.path().join("history.db");
    let (mut child, _stderr) = long_run(&dir, &db);
    kill_process(Pid::from_child(&child), Signal::KILL).unwrap();
    child.wait().unwrap();
    let left = leftovers(&dir);
    assert_eq!(left.len(), 1, "{left:?}");
    let name = left[0].file_name().unwrap().to_string_lossy().to_string();
    assert!(name.ends_with("-tree.tmp") && left[0].is_dir(), "{name}");
    let out = iozone_process()
        .env("IOZONE_DB", &db)
        .args([
            "run", "-n", "1", "--warmup", "0", "-i", "stat", "--files", "3", "-d",
        ])
        .arg(&dir)
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{said}");
    let removed: Vec<&str> = said.lines().filter(|l| l.contains("Removed")).collect();
    assert_eq!(removed.len(), 1, "{said}");
    assert!(removed[0].contains(&name), "{said}");
    assert_no_leftovers(&dir);
}

#[test]
fn a_filesystem_out_of_inodes_is_one_line_and_leaves_nothing() {
    if !require_root("make a tiny ext4 filesystem on a loop device") {
        return;
    }
    // 64 inodes, of which ext4 keeps 11 for itself and the root and lost+found use two
    let mount = Mount::ext4_made(8, &["-N", "64"], "");
    let db_dir = tempfile::tempdir().unwrap();
    let (code, out, err) = crate::common::on(
        db_dir.path().join("history.db"),
        &[
            "run", "-q", "-n", "1", "--warmup", "0", "-i", "create", "--files", "200", "-d",
        ]
        .iter()
        .map(|s| s.to_string())
        .chain([mount.path().display().to_string()])
        .collect::<Vec<_>>(),
    );
    assert_eq!(code, Some(2), "{out}{err}");
    let lines: Vec<&str> = err.lines().filter(|l| !l.trim().is_empty()).collect();
    assert_eq!(lines.len(), 1, "{err}");
    assert!(
        lines[0].contains("no inode left on the filesystem while creating"),
        "{err}"
    );
    assert!(lines[0].contains("(create test)"), "{err}");
    assert_no_leftovers(mount.path());
}

#[test]
fn a_read_only_directory_is_refused_before_any_tree() {
    if !require_root("mount a read-only tmpfs") {
        return;
    }
    let mount = Mount::tmpfs("1m", "ro");
    let line = crate::common::expect_bad_input(
        mount.path(),
        &["run", "-q", "--no-record", "-i", "metadata"],
    );
    assert!(line.contains("read-only filesystem"), "{line}");
}
