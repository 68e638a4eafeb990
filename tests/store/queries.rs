//! What was recorded, read back through the commands.

use std::path::Path;

use predicates::prelude::*;

use crate::common::{Scene, expect_bad_input, json, on};

fn uname() -> (String, String) {
    let u = rustix::system::uname();
    (
        u.nodename().to_string_lossy().into_owned(),
        u.release().to_string_lossy().into_owned(),
    )
}

#[test]
fn a_run_is_recorded_with_this_hosts_environment() {
    let scene = Scene::new();
    let ran = scene.run(&["-l", "DR9", "--tag", "os=dr9"]);
    let id = ran["id"].as_i64().expect("a recorded run has an id");
    let history = scene.history(&[]);
    assert_eq!(history.len(), 1);
    let run = &history[0];
    let (hostname, kernel) = uname();
    assert_eq!(run["id"], id);
    assert_eq!(run["uuid"], ran["uuid"]);
    assert_eq!(run["status"], "complete");
    assert_eq!(run["host"]["hostname"], hostname.as_str());
    assert_eq!(run["host"]["kernel"], kernel.as_str());
    assert!(run["filesystem"]["type"].is_string(), "{run}");
    assert!(run["filesystem"]["mount_point"].is_string(), "{run}");
    assert_eq!(run["labels"], serde_json::json!(["DR9"]));
    assert!(run.get("results").is_none(), "history leaves results out");

    let table = scene.ok(&["history"]);
    for needle in [hostname.as_str(), kernel.as_str(), "DR9", "complete"] {
        assert!(table.contains(needle), "{needle} not in\n{table}");
    }
}

#[test]
fn show_prints_one_run_in_every_format() {
    let scene = Scene::new();
    let ran = scene.run(&[]);
    let uuid = ran["uuid"].as_str().unwrap();
    for reference in ["latest", &ran["id"].to_string(), &uuid[..8]] {
        let shown = json(
            scene
                .ok(&["show", reference, "--format", "json"])
                .as_bytes(),
        );
        assert_eq!(shown, ran, "show {reference} differs from what run printed");
    }
    let csv = scene.ok(&["show", "latest", "--format", "csv"]);
    // header + 4 tests x 2 repetitions
    assert_eq!(csv.lines().count(), 9, "{csv}");
    assert!(csv.starts_with("id,uuid,test,file_size"), "{csv}");
    let md = scene.ok(&["show", "latest", "--format", "markdown"]);
    assert!(md.contains("| uuid") && md.contains(uuid), "{md}");
    let table = scene.ok(&["show", "latest"]);
    assert!(table.contains("latency per operation"), "{table}");
    assert!(table.contains("┆ p99.9 "), "{table}");
    assert!(table.contains("rewrite"), "{table}");
}

#[test]
fn history_filters_and_formats() {
    let scene = Scene::new();
    scene.run(&["-l", "DR8"]);
    scene.run(&["-l", "DR9", "--tag", "os=dr9", "-i", "read"]);
    scene.run(&["-l", "DR9", "-r", "16k"]);
    let ids = |args: &[&str]| -> Vec<i64> {
        scene
            .history(args)
            .iter()
            .map(|r| r["id"].as_i64().unwrap())
            .collect()
    };
    assert_eq!(ids(&[]), [3, 2, 1]);
    assert_eq!(ids(&["--label", "DR9"]), [3, 2]);
    assert_eq!(ids(&["-l", "DR9", "--tag", "os=dr9"]), [2]);
    assert_eq!(ids(&["--test", "write"]), [3, 1]);
    assert_eq!(ids(&["--record", "16k"]), [3]);
    assert_eq!(ids(&["--since", "1d"]), [3, 2, 1]);
    assert_eq!(ids(&["--until", "2000-01-01"]), Vec::<i64>::new());
    assert_eq!(ids(&["--status", "complete", "--limit", "2"]), [3, 2]);
    let (hostname, _) = uname();
    assert_eq!(ids(&["--host", &hostname]), [3, 2, 1]);
    assert_eq!(ids(&["--host", "no-such-host"]), Vec::<i64>::new());

    let csv = scene.ok(&["history", "--format", "csv"]);
    assert_eq!(csv.lines().count(), 4, "{csv}");
    assert!(
        csv.lines()
            .next()
            .unwrap()
            .starts_with("id,uuid,started_at")
    );
    let md = scene.ok(&["history", "--format", "markdown"]);
    assert!(md.lines().nth(1).unwrap().starts_with("|-"), "{md}");
    // the header, its rule, three runs, and the blank line that ends a table
    assert_eq!(md.lines().count(), 6, "{md}");
    assert_eq!(md.lines().last(), Some(""), "{md}");
}

#[test]
fn no_record_stores_nothing() {
    let scene = Scene::new();
    let ran = scene.run(&["--no-record"]);
    assert!(ran["id"].is_null());
    // not even an empty database was created
    assert!(!scene.db.exists());
}

#[test]
fn db_path_follows_flag_then_environment() {
    let scene = Scene::new();
    let shown = scene.ok(&["db", "path"]);
    assert_eq!(shown.trim(), scene.db.display().to_string());
    let other = scene.dir.path().join("other.db");
    let shown = scene.ok(&["--db", other.to_str().unwrap(), "db", "path"]);
    assert_eq!(shown.trim(), other.display().to_string());
}

#[test]
fn db_check_and_migrate() {
    let scene = Scene::new();
    scene.run(&[]);
    let report = scene.ok(&["db", "check"]);
    assert!(report.contains("integrity      ok"), "{report}");
    assert!(report.contains("runs           1"), "{report}");
    scene
        .iozone()
        .args(["db", "migrate"])
        .assert()
        .success()
        .stderr(predicate::str::contains("the latest"));
}

#[test]
fn info_describes_host_and_filesystem() {
    let scene = Scene::new();
    let text = scene.ok(&[
        "info",
        scene.dir.path().to_str().unwrap(),
        "--format",
        "json",
    ]);
    let info = json(text.as_bytes());
    let (hostname, kernel) = uname();
    assert_eq!(info["host"]["hostname"], hostname.as_str());
    assert_eq!(info["host"]["kernel"], kernel.as_str());
    assert!(info["filesystem"]["type"].is_string());
    let table = scene.ok(&["info"]);
    assert!(
        table.contains("mount point") && table.contains(&kernel),
        "{table}"
    );
}

fn refuse(db: &Path, args: &[&str], needle: &str) {
    let (code, _, err) = on(db, args);
    assert_eq!(code, Some(2), "{args:?}: {err}");
    assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
    assert!(
        err.contains(needle),
        "{args:?}: expected '{needle}' in {err}"
    );
}

#[test]
fn unknown_runs_and_bad_references() {
    let scene = Scene::new();
    scene.run(&[]);
    let show = |reference: &str, needle: &str| {
        let out = scene.iozone().args(["show", reference]).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{reference}: {err}");
        // one line, or clap's whole message for a reference it refused
        assert!(
            err.lines().count() == 1 || crate::common::is_usage_error(&err),
            "{err}"
        );
        assert!(err.contains(needle), "{reference}: {err}");
    };
    show("999", "no recorded run matches '999'");
    show("latest~5", "no recorded run matches 'latest~5'");
    show("ffffffff", "no recorded run matches");
    show("nope!", "invalid run 'nope!'");
    // history's own bad input
    expect_bad_input(scene.dir.path(), &["history", "--since", "yesterday"]);
}

#[test]
fn foreign_corrupt_future_and_unwritable_databases_are_refused_untouched() {
    let scene = Scene::new();
    // not SQLite at all
    let text = scene.dir.path().join("notes.txt");
    std::fs::write(&text, "not a database\n".repeat(200)).unwrap();
    let before = std::fs::read(&text).unwrap();
    refuse(&text, &["history"], "is not an iozone database");
    let dir = scene.dir.path().to_str().unwrap();
    refuse(
        &text,
        &["run", "-s", "64k", "-d", dir],
        "is not an iozone database",
    );
    assert_eq!(std::fs::read(&text).unwrap(), before);
    // SQLite, but someone else's
    let other = scene.dir.path().join("other.db");
    rusqlite::Connection::open(&other)
        .unwrap()
        .execute_batch("CREATE TABLE songs (title TEXT)")
        .unwrap();
    let before = std::fs::read(&other).unwrap();
    refuse(&other, &["db", "check"], "is not an iozone database");
    assert_eq!(std::fs::read(&other).unwrap(), before);
    // ours, from the future
    scene.run(&[]);
    rusqlite::Connection::open(&scene.db)
        .unwrap()
        .pragma_update(None, "user_version", 999)
        .unwrap();
    let before = std::fs::read(&scene.db).unwrap();
    refuse(&scene.db, &["history"], "written by a newer iozone");
    refuse(&scene.db, &["db", "migrate"], "written by a newer iozone");
    assert_eq!(std::fs::read(&scene.db).unwrap(), before);
    // a path that cannot be a database file
    let missing_dir = scene.dir.path().join("no/such/dir/history.db");
    refuse(&missing_dir, &["history"], "does not exist");
    refuse(
        &missing_dir,
        &["run", "-s", "64k", "-d", dir],
        "its directory",
    );
    refuse(
        scene.dir.path(),
        &["history"],
        "is a directory, not a database file",
    );
    // no run file was left by the refused `run`
    crate::common::assert_no_leftovers(scene.dir.path());
}

#[test]
fn eight_runs_recording_at_once_lose_nothing() {
    let scene = Scene::new();
    let children: Vec<_> = (0..8)
        .map(|i| {
            crate::common::iozone_process()
                .env("IOZONE_DB", &scene.db)
                .args([
                    "run", "-s", "256k", "-r", "4k", "-n", "3", "-q", "--cache", "buffered",
                ])
                .args(["-l", &format!("writer-{i}")])
                .arg("-d")
                .arg(scene.dir.path())
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    for child in children {
        let out = child.wait_with_output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let runs = scene.history(&["--all"]);
    assert_eq!(runs.len(), 8);
    for run in &runs {
        assert_eq!(run["status"], "complete");
        let id = run["id"].to_string();
        let shown = json(scene.ok(&["show", &id, "--format", "json"]).as_bytes());
        assert_eq!(
            shown["results"].as_array().unwrap().len(),
            4 * 3,
            "run {id}"
        );
    }
    let mut labels: Vec<String> = runs
        .iter()
        .map(|r| r["labels"][0].as_str().unwrap().to_string())
        .collect();
    labels.sort();
    assert_eq!(
        labels,
        (0..8).map(|i| format!("writer-{i}")).collect::<Vec<_>>()
    );
}
