//! Messages for mistakes at the edges of the command line (issue 13): each says what
//! was wrong in words, on one line, with exit status 2.

use std::path::Path;

use crate::compare::iozone_db;

/// Runs `iozone ARGS` on `db`; it must fail with one line, status 2, holding `needle`.
fn refused(db: &Path, args: &[&str], needle: &str) {
    let (code, out, err) = iozone_db(db, args);
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
    let (_, _, err) = iozone_db(&db, &["info", missing]);
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
    let (_, _, err) = iozone_db(&db, &["trend", "--min-runs", "1"]);
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
    let (code, _, err) = iozone_db(&db, &["db", "migrate"]);
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
    let (code, _, err) = iozone_db(
        &db,
        &["history", "--since", "2026-12-01", "--until", "2026-12-01"],
    );
    assert_eq!(code, Some(0), "{err}");
}
