//! Runs that do not end well are recorded as such, and the database stays consistent.

use std::time::Duration;

use rustix::process::{Pid, Signal, kill_process};

use crate::common::{Scene, iozone_process, leftovers, spawn_until_measuring};

/// Starts a long recorded run and returns once it is measuring.
fn start(scene: &Scene) -> std::process::Child {
    let (child, mut stderr) = spawn_until_measuring(
        iozone_process()
            .env("IOZONE_DB", &scene.db)
            .args([
                "run", "-s", "1M", "-r", "4k", "-n", "100000", "--cache", "buffered",
            ])
            .arg("-d")
            .arg(scene.dir.path()),
    );
    // keep draining stderr so the child never blocks on a full pipe
    std::thread::spawn(move || std::io::copy(&mut stderr, &mut std::io::sink()));
    std::thread::sleep(Duration::from_millis(300));
    child
}

#[test]
fn an_interrupted_run_is_recorded_as_aborted_without_figures() {
    let scene = Scene::new();
    let mut child = start(&scene);
    kill_process(Pid::from_child(&child), Signal::INT).unwrap();
    assert_eq!(child.wait().unwrap().code(), Some(130));
    let runs = scene.history(&[]);
    assert_eq!(runs.len(), 1);
    assert_eq!(runs[0]["status"], "aborted");
    assert!(runs[0]["finished_at"].is_string());
    let shown = crate::common::json(scene.ok(&["show", "latest", "--format", "json"]).as_bytes());
    assert_eq!(shown["results"], serde_json::json!([]));
}

#[test]
fn a_killed_run_leaves_a_consistent_database_and_shows_as_aborted() {
    let scene = Scene::new();
    let mut child = start(&scene);
    child.kill().unwrap(); // SIGKILL: no handler runs
    child.wait().unwrap();
    // SIGKILL cannot clean up: the test file stays (the next run in that directory
    // would remove it; tests/run/killed.rs shows that)
    for file in leftovers(scene.dir.path()) {
        std::fs::remove_file(file).unwrap();
    }
    let report = scene.ok(&["db", "check"]);
    assert!(report.contains("integrity      ok"), "{report}");
    // still marked running, and its process is gone: counted as killed, not as in
    // progress, as the warning says
    assert!(report.contains("unfinished     1 (1 killed)"), "{report}");
    let runs = scene.history(&[]);
    assert_eq!(runs.len(), 1);
    assert_eq!(runs[0]["status"], "aborted");
    assert!(runs[0]["finished_at"].is_null());
    // and the database takes new runs, the next of which marks it aborted for good
    scene.run(&[]);
    assert_eq!(scene.history(&["--status", "complete"]).len(), 1);
    assert_eq!(scene.history(&["--status", "aborted"]).len(), 1);
}
