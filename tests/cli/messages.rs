//! What the command line says when it is misused or asked something surprising: clap's
//! whole message for a usage error; a mistake at its edges (a missing directory, a
//! bound, a time window the wrong way round) in words, on one line, with exit status 2;
//! and the notes and warnings that say what a command selected.

use std::path::Path;

use serde_json::Value;

use crate::common::{Scene, expect_bad_input, is_usage_error, json, on};

/// stderr of a command that must exit with `code`.
fn stderr_of(scene: &Scene, args: &[&str], code: i32) -> String {
    let out = scene.iozone().args(args).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).to_string();
    assert_eq!(out.status.code(), Some(code), "{args:?}: {stderr}");
    stderr
}

#[test]
fn usage_errors_show_clap_s_whole_message() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    for (args, needles) in [
        (&["import"][..], &["<FILE>", "Usage: iozone import"][..]),
        (
            &["compare"],
            &["<BASELINE>", "<CANDIDATE>", "Usage: iozone compare"],
        ),
        (
            &["report", "A", "B"],
            &["--output <FILE>", "Usage: iozone report"],
        ),
        (&["histroy"], &["a similar subcommand exists: 'history'"]),
        (
            &["run", "--sise", "8M"],
            &["a similar argument exists: '--size'"],
        ),
    ] {
        let message = expect_bad_input(d, args);
        assert!(is_usage_error(&message), "{args:?}: {message}");
        for needle in needles {
            assert!(
                message.contains(needle),
                "{args:?}: no {needle} in\n{message}"
            );
        }
    }
    // help and version are answers, not errors
    for flag in ["--help", "--version"] {
        crate::common::iozone().arg(flag).assert().success();
    }
}

/// A copy of `run` (a `run --format json` object) as an aborted run labelled `ctrlc`,
/// imported into the scene's database; returns its id.
fn import_aborted_copy(scene: &Scene, run: &Value) -> i64 {
    let mut aborted = run.clone();
    aborted["uuid"] = Value::from("0badc0de-0000-4000-8000-000000000001");
    aborted["status"] = Value::from("aborted");
    aborted["labels"] = serde_json::json!(["ctrlc"]);
    aborted["results"] = serde_json::json!([]);
    let mut export = json(scene.ok(&["export", "--format", "json"]).as_bytes());
    export["runs"] = Value::Array(vec![aborted]);
    let file = scene.dir.path().join("aborted.json");
    std::fs::write(&file, export.to_string()).unwrap();
    scene.ok(&["import", file.to_str().unwrap()]);
    scene.history(&["-l", "ctrlc"])[0]["id"].as_i64().unwrap()
}

#[test]
fn selectors_say_which_runs_are_not_complete() {
    let scene = Scene::new();
    let done = scene.run(&[]);
    let aborted = import_aborted_copy(&scene, &done);
    let first = done["id"].to_string();
    let said = format!("selects runs that are not complete: {aborted} (aborted)");
    for (candidate, selector) in [("latest", "latest"), ("ctrlc", "ctrlc")] {
        let err = stderr_of(&scene, &["compare", &first, candidate], 2);
        assert!(err.contains(&format!("'{selector}' {said}")), "{err}");
        assert_eq!(err.lines().count(), 1, "{err}");
    }
    let report = scene.dir.path().join("r.html");
    let err = stderr_of(
        &scene,
        &["report", "ctrlc", "-o", report.to_str().unwrap()],
        2,
    );
    assert!(err.contains(&said), "{err}");
}

#[test]
fn history_says_in_plain_words_that_no_run_matches() {
    let scene = Scene::new();
    scene.run(&[]);
    for args in [
        &["history", "--label", "nosuch"][..],
        &["history", "--all", "-l", "nosuch"],
    ] {
        let stderr = stderr_of(&scene, args, 0);
        assert!(
            stderr.contains("History no runs match these filters (in "),
            "{args:?}: {stderr}"
        );
        assert!(!stderr.contains("recorded in"), "{stderr}");
    }
}

#[test]
fn history_says_there_are_more_only_when_there_are() {
    let scene = Scene::new();
    for _ in 0..2 {
        scene.run(&[]);
    }
    let stderr_of_history = |limit: &str| {
        let out = scene
            .iozone()
            .args(["history", "--limit", limit])
            .output()
            .unwrap();
        assert!(out.status.success());
        String::from_utf8_lossy(&out.stderr).to_string()
    };
    // exactly as many as the limit, or fewer: nothing more to show
    for limit in ["2", "3"] {
        let err = stderr_of_history(limit);
        assert!(!err.contains("Showing"), "--limit {limit}: {err}");
    }
    let err = stderr_of_history("1");
    assert!(
        err.contains("Showing the newest run; --limit N or --all for more"),
        "{err}"
    );
}

#[test]
fn both_sides_selecting_the_same_runs_is_said() {
    let scene = Scene::new();
    let first = scene.run(&["-l", "A"])["id"].to_string();
    let second = scene.run(&["-l", "A"])["id"].to_string();
    let warning = |args: &[&str]| -> Vec<String> {
        let out = scene.iozone().args(args).output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr).to_string();
        assert!(out.status.success(), "{args:?}: {stderr}");
        stderr
            .lines()
            .filter(|l| l.starts_with("warning: "))
            .map(str::to_string)
            .collect()
    };
    assert_eq!(
        warning(&["compare", &first, &first]),
        [format!(
            "warning: both sides select the same runs ({first}): each is compared with itself"
        )]
    );
    assert_eq!(
        warning(&["compare", "A", &second]),
        [format!(
            "warning: run {second} is on both sides: it is compared with itself"
        )]
    );
    assert!(warning(&["compare", &first, &second]).is_empty());
    // a report of A against A says it, and charts each run once
    let html = scene.dir.path().join("r.html");
    let said = warning(&["report", "A", "A", "-o", html.to_str().unwrap()]);
    assert_eq!(
        said,
        [format!(
            "warning: both sides select the same runs ({first}, {second}): each is compared with itself"
        )]
    );
    let out = scene
        .iozone()
        .args(["report", "A", "A", "--force", "-o", html.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("(2 runs, a comparison"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Runs `iozone ARGS` on `db`; it must fail with one line, status 2, holding `needle`.
fn refused(db: &Path, args: &[&str], needle: &str) {
    let (code, out, err) = on(db, args);
    assert_eq!(code, Some(2), "{args:?}: {err}");
    assert!(out.is_empty(), "{args:?}: {out}");
    assert!(
        err.contains(needle),
        "{args:?}: expected '{needle}' in {err}"
    );
    assert!(!err.contains("panicked"), "{err}");
}

#[test]
fn info_on_a_missing_directory_says_it_does_not_exist() {
    let scratch = tempfile::tempdir().unwrap();
    let db = scratch.path().join("h.db");
    let missing = scratch.path().join("nonexistent");
    let missing = missing.to_str().unwrap();
    refused(
        &db,
        &["info", missing],
        &format!("{missing} does not exist"),
    );
    let (_, _, err) = on(&db, &["info", missing]);
    assert_eq!(err.lines().count(), 1, "{err}");
}

#[test]
fn trend_bounds_are_said_in_words() {
    let scratch = tempfile::tempdir().unwrap();
    let db = scratch.path().join("h.db");
    refused(
        &db,
        &["trend", "--min-step", "0"],
        "must be more than 0 and less than 100",
    );
    refused(
        &db,
        &["trend", "--min-runs", "1"],
        "must be 2 or more: a step needs at least two runs on each side",
    );
    let (_, _, err) = on(&db, &["trend", "--min-runs", "1"]);
    assert!(!err.contains("4294967295"), "{err}");
}

#[test]
fn db_without_a_subcommand_points_to_its_own_help() {
    let scratch = tempfile::tempdir().unwrap();
    let db = scratch.path().join("h.db");
    refused(&db, &["db"], "Run 'iozone db --help'");
}

#[test]
fn since_later_than_until_is_an_error() {
    let scratch = tempfile::tempdir().unwrap();
    let db = scratch.path().join("h.db");
    // an empty database: read commands refuse one that does not exist
    let (code, _, err) = on(&db, &["db", "migrate"]);
    assert_eq!(code, Some(0), "{err}");
    let swapped = ["--since", "2026-12-01", "--until", "2026-01-01"];
    for command in [
        &["history"][..],
        &["export", "--format", "json"],
        &["trend"],
    ] {
        refused(
            &db,
            &[command, &swapped].concat(),
            "--since is not before --until",
        );
    }
    // the same day on both sides is that whole day: not an error
    let (code, _, err) = on(
        &db,
        &["history", "--since", "2026-12-01", "--until", "2026-12-01"],
    );
    assert_eq!(code, Some(0), "{err}");
}
