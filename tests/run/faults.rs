//! Faults during a run: a full filesystem, Ctrl-C and SIGTERM, and data that changed
//! under the run's feet. Each ends the run with a clear message, a non-zero status and
//! no test file left behind.

use std::io::{BufReader, Write};
use std::os::unix::fs::FileExt;
use std::path::Path;
use std::process::Child;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use rustix::process::{Pid, Signal, kill_process};

use crate::common::{
    Mount, assert_no_leftovers, iozone_process, leftovers, require_root, spawn_until_measuring,
    wait_bounded,
};

/// Starts a long run in `dir` and returns once it has begun measuring.
fn start_long_run(dir: &Path, extra: &[&str]) -> (Child, BufReader<std::process::ChildStderr>) {
    spawn_until_measuring(
        iozone_process()
            .args(["run", "-n", "100000", "-i", "write,read"])
            .args(extra)
            .arg("-d")
            .arg(dir),
    )
}

/// Waits for the child to exit (bounded), returning its status and the rest of stderr.
fn finish(
    mut child: Child,
    mut stderr: BufReader<std::process::ChildStderr>,
) -> (Option<i32>, String) {
    let status = wait_bounded(&mut child, "the run did not stop");
    let mut rest = String::new();
    std::io::Read::read_to_string(&mut stderr, &mut rest).unwrap();
    (status.code(), rest)
}

fn wait_for_test_file(dir: &Path) {
    let deadline = Instant::now() + Duration::from_secs(30);
    while leftovers(dir).is_empty() {
        assert!(Instant::now() < deadline, "no test file appeared");
        std::thread::sleep(Duration::from_millis(5));
    }
}

fn interrupt_with(signal: Signal, expected_code: i32, needle: &str, engine: &[&str]) {
    let dir = tempfile::tempdir().unwrap();
    let args = ["-s", "1M", "-r", "4k", "--cache", "buffered"];
    let (child, stderr) = start_long_run(dir.path(), &[&args[..], engine].concat());
    wait_for_test_file(dir.path());
    std::thread::sleep(Duration::from_millis(100));
    kill_process(Pid::from_child(&child), signal).unwrap();
    let (code, rest) = finish(child, stderr);
    assert_eq!(code, Some(expected_code), "{rest}");
    assert!(rest.contains(needle), "{rest}");
    assert!(rest.contains("test files were removed"), "{rest}");
    assert_no_leftovers(dir.path());
}

#[test]
fn ctrl_c_stops_the_run_and_removes_its_files() {
    interrupt_with(Signal::INT, 130, "interrupted by Ctrl-C", &[]);
}

/// A queued engine stops with operations in flight: they are reaped before the
/// buffers they use are freed and the file is removed.
#[test]
fn ctrl_c_stops_a_queued_run_with_operations_in_flight() {
    let queued = ["--engine", "uring", "--iodepth", "32"];
    interrupt_with(Signal::INT, 130, "interrupted by Ctrl-C", &queued);
}

#[test]
fn sigterm_stops_the_run_and_removes_its_files() {
    interrupt_with(Signal::TERM, 143, "interrupted by SIGTERM", &[]);
}

#[test]
fn threads_stop_together_on_ctrl_c() {
    let dir = tempfile::tempdir().unwrap();
    let (child, stderr) = start_long_run(
        dir.path(),
        &["-s", "1M", "-r", "4k", "--cache", "buffered", "-t", "3"],
    );
    wait_for_test_file(dir.path());
    std::thread::sleep(Duration::from_millis(100));
    kill_process(Pid::from_child(&child), Signal::INT).unwrap();
    let (code, rest) = finish(child, stderr);
    assert_eq!(code, Some(130), "{rest}");
    assert_no_leftovers(dir.path());
}

/// Another process keeps overwriting one byte of every test file it finds, as a
/// failing disk or a stray writer would; `--verify` must notice.
#[test]
fn verify_catches_a_corrupted_byte() {
    verify_catches_a_corrupted_byte_on(&[]);
}

#[test]
fn verify_catches_a_corrupted_byte_read_through_a_queue() {
    verify_catches_a_corrupted_byte_on(&["--engine", "uring", "--iodepth", "8"]);
}

fn verify_catches_a_corrupted_byte_on(engine: &[&str]) {
    let dir = tempfile::tempdir().unwrap();
    let args = ["-s", "64k", "-r", "4k", "--cache", "buffered", "--verify"];
    let (child, stderr) = start_long_run(dir.path(), &[&args[..], engine].concat());
    let done = Arc::new(AtomicBool::new(false));
    let corrupter = {
        let done = Arc::clone(&done);
        let dir = dir.path().to_path_buf();
        std::thread::spawn(move || {
            let mut value = 0u8;
            while !done.load(Ordering::Relaxed) {
                for path in leftovers(&dir) {
                    if let Ok(f) = std::fs::OpenOptions::new().write(true).open(&path) {
                        let _ = f.write_all_at(&[value], 1000);
                    }
                }
                value = value.wrapping_add(97);
            }
        })
    };
    let (code, rest) = finish(child, stderr);
    done.store(true, Ordering::Relaxed);
    corrupter.join().unwrap();
    assert_eq!(code, Some(2), "{rest}");
    assert!(rest.contains("verification failed"), "{rest}");
    assert!(rest.contains("at byte 1000"), "{rest}");
    assert_no_leftovers(dir.path());
}

/// The filesystem fills up during the run (another process takes every free block as
/// soon as it appears): the run stops with a clear message and removes its file.
#[test]
fn a_full_filesystem_during_the_run() {
    if !require_root("mount a small tmpfs") {
        return;
    }
    let mount = Mount::tmpfs("8m", "");
    let db_dir = tempfile::tempdir().unwrap();
    let db = db_dir.path().join("history.db");
    let db_arg = db.to_str().unwrap();
    let (child, stderr) = start_long_run(
        mount.path(),
        &[
            "-s", "4M", "-r", "64k", "--cache", "buffered", "--db", db_arg,
        ],
    );
    let done = Arc::new(AtomicBool::new(false));
    let filler = {
        let done = Arc::clone(&done);
        let path = mount.path().join("filler");
        std::thread::spawn(move || {
            let mut f = std::fs::File::create(path).unwrap();
            let chunk = [0x5au8; 4096];
            while !done.load(Ordering::Relaxed) {
                if f.write_all(&chunk).is_err() {
                    std::thread::yield_now();
                }
            }
        })
    };
    let (code, rest) = finish(child, stderr);
    done.store(true, Ordering::Relaxed);
    filler.join().unwrap();
    assert_eq!(code, Some(2), "{rest}");
    assert!(rest.contains("no space left on device"), "{rest}");
    assert_eq!(
        rest.lines().filter(|l| l.contains("error")).count(),
        1,
        "{rest}"
    );
    assert_no_leftovers(mount.path());
}
