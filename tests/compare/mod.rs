//! `compare` and `trend` end to end, on real runs and on planted histories.

mod clients;
mod consistency;
mod filesystems;
mod groups;
mod narrow;
mod segments;
mod selectors;
mod trend;
mod width;

use crate::common::{Measure, compare_json, on};

#[test]
fn bad_input_is_one_line_and_status_2() {
    let scratch = tempfile::tempdir().unwrap();
    let db = scratch.path().join("h.db");
    Measure::small(&db, scratch.path())
        .label("a")
        .tests("write")
        .record();
    Measure::small(&db, scratch.path())
        .label("b")
        .tests("read")
        .record();
    for (args, needle) in [
        (
            &["compare", "a", "nope"][..],
            "no recorded run matches 'nope'",
        ),
        (
            &["compare", "label:zz", "a"],
            "no recorded run matches 'label:zz'",
        ),
        (&["compare", "a", "b"], "no row in common"),
        (
            &["compare", "a", "a", "--threshold", "150"],
            "--threshold must be between 0 and 100",
        ),
        (
            &["compare", "a", "a", "--alpha", "1.5"],
            "--alpha must be between 0 and 1",
        ),
        (&["compare", "colour:red", "a"], "unknown key 'colour'"),
        (&["compare", "a", "999"], "no recorded run matches '999'"),
        (
            &["trend", "--min-step", "0"],
            "more than 0 and less than 100",
        ),
    ] {
        let (code, _, stderr) = on(&db, args);
        assert_eq!(code, Some(2), "{args:?}: {stderr}");
        // one line, or clap's whole message for a value it refused
        assert!(
            stderr.lines().count() == 1 || crate::common::is_usage_error(&stderr),
            "{args:?}: {stderr}"
        );
        assert!(
            stderr.contains(needle),
            "{args:?}: expected '{needle}' in {stderr}"
        );
    }
}

#[test]
fn comparing_across_an_engine_on_purpose() {
    let scratch = tempfile::tempdir().unwrap();
    let db = scratch.path().join("h.db");
    Measure::small(&db, scratch.path())
        .tests("read")
        .args(&["--engine", "posix"])
        .record();
    Measure::small(&db, scratch.path())
        .tests("read")
        .args(&["--engine", "mmap"])
        .record();
    let (code, _, stderr) = on(&db, &["compare", "engine:posix", "engine:mmap"]);
    assert_eq!(code, Some(2), "{stderr}");
    let c = compare_json(
        &db,
        &["engine:posix", "engine:mmap", "--ignore-param", "engine"],
    );
    let rows = c["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 2, "{c}"); // read and reread at 64 KiB
    for row in rows {
        assert!(row["engine"].is_null(), "{row}");
        assert_eq!(row["cache"], "buffered");
        for key in [
            "test",
            "file_size",
            "record_size",
            "threads",
            "baseline_median",
            "candidate_median",
            "change_pct",
            "ci_low_pct",
            "ci_high_pct",
            "p_value",
            "verdict",
        ] {
            assert!(row.get(key).is_some(), "missing {key} in {row}");
        }
    }
    let changes: Vec<&str> = c["environment_changes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["field"].as_str().unwrap())
        .collect();
    assert!(changes.contains(&"params.engine"), "{changes:?}");
    assert_eq!(c["baseline"]["selector"], "engine:posix");
    assert_eq!(c["candidate"]["runs"], serde_json::json!([2]));
}

#[test]
fn other_formats() {
    let scratch = tempfile::tempdir().unwrap();
    let db = scratch.path().join("h.db");
    Measure::small(&db, scratch.path())
        .label("a")
        .tests("write")
        .record();
    Measure::small(&db, scratch.path())
        .label("b")
        .tests("write")
        .record();
    let (code, csv, _) = on(&db, &["compare", "a", "b", "--format", "csv"]);
    assert_eq!(code, Some(0));
    assert!(
        csv.starts_with("test,file_size,record_size,cache,engine,threads"),
        "{csv}"
    );
    assert_eq!(csv.lines().count(), 3, "{csv}");
    let (code, md, _) = on(&db, &["compare", "a", "b", "--format", "markdown"]);
    assert_eq!(code, Some(0));
    assert!(md.contains("| Test") && md.contains("|-"), "{md}");
    let (code, table, _) = on(&db, &["compare", "a", "b"]);
    assert_eq!(code, Some(0));
    assert!(table.contains("Baseline:  a (run 1)"), "{table}");
    assert!(table.contains("Geometric mean change"), "{table}");
}

#[test]
fn report_writes_one_self_contained_html_file() {
    let scratch = tempfile::tempdir().unwrap();
    let db = scratch.path().join("h.db");
    Measure::small(&db, scratch.path())
        .label("a")
        .tests("write")
        .record();
    let sync_run = Measure::small(&db, scratch.path())
        .cache("sync")
        .tests("write");
    let (code, _, err) = sync_run.label("b").outcome();
    assert_eq!(code, Some(0), "{err}");
    let out = scratch.path().join("report.html");
    let (code, _, err) = on(
        &db,
        &[
            "report",
            "a",
            "b",
            "--ignore-param",
            "cache",
            "-o",
            out.to_str().unwrap(),
        ],
    );
    assert_eq!(code, Some(0), "{err}");
    assert!(err.contains("a comparison"), "{err}");
    let html = std::fs::read_to_string(&out).unwrap();
    assert!(
        html.starts_with("<!DOCTYPE html>") || html.starts_with("<!doctype html>"),
        "{}",
        &html[..80]
    );
    assert!(
        html.matches("<svg").count() >= 3,
        "charts for write, rewrite and the comparison"
    );
    for outside in ["http://", "https://", "src=", "<link", "<script"] {
        assert!(
            !html.contains(outside),
            "the report refers outside itself: {outside}"
        );
    }
    assert!(html.contains("regression"), "the sync writes regress");
    // no selector: the newest runs, over the report before
    let (code, _, err) = on(&db, &["report", "--force", "-o", out.to_str().unwrap()]);
    assert_eq!(code, Some(0), "{err}");
    // an unwritable destination is one line and status 2
    let (code, _, err) = on(&db, &["report", "-o", "/nonexistent/dir/r.html"]);
    assert_eq!(code, Some(2), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
}
