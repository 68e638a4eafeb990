//! Metadata runs through every command, on SQLite and on PostgreSQL: recorded, listed,
//! shown, compared, trended, reported, exported and imported back, in every output
//! format, their rates in operations per second wherever a rate is shown.

use serde_json::Value;

use crate::common::{Db, Measure, json};

/// Two metadata runs of two repetitions on `db`, labelled `a` and `b`, beside a
/// throughput run: what every command below reads.
fn recorded(db: &Db, dir: &std::path::Path) {
    for label in ["a", "b"] {
        Measure::new(db.location(), dir)
            .tests("create,stat,readfile,unlink")
            .repeat(2)
            .warmup(0)
            .cache("buffered")
            .label(label)
            .args(&["--files", "8", "--dirs", "4"])
            .record();
    }
    Measure::tiny(db.location(), dir).label("bytes").record();
}

fn every_command_reads_metadata_runs_in_ops(db: &Db) {
    let dir = tempfile::tempdir().unwrap();
    recorded(db, dir.path());
    db.assert_every_reader_works(dir.path());
    // the runs listed with their tree
    let history = db.ok(&["history"]);
    assert!(history.contains("4 × 8 files"), "{history}");
    for format in ["json", "csv", "markdown"] {
        db.ok(&["history", "--format", format]);
    }
    // shown with the tree and the table in ops/s
    let shown = db.ok(&["show", "1"]);
    assert!(
        shown.contains("metadata tree") && shown.contains("ops/s"),
        "{shown}"
    );
    let markdown = db.ok(&["show", "1", "--format", "markdown"]);
    assert!(markdown.contains("ops/s"), "{markdown}");
    let run = json(db.ok(&["show", "1", "--format", "json"]).as_bytes());
    assert_eq!(run["params"]["metadata"]["files"], 8);
    assert_eq!(run["results"][0]["ops"], 32);
    // compared in ops/s, the tree in each row, --units leaving them alone
    let compared = db.ok(&["compare", "label:a", "label:b", "--units", "GiB"]);
    assert!(compared.contains("Baseline ops/s"), "{compared}");
    assert!(compared.contains("4 × 8 files"), "{compared}");
    let rows = json(
        db.ok(&["compare", "label:a", "label:b", "--format", "json"])
            .as_bytes(),
    );
    let rows = rows["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 4);
    for row in rows {
        assert_eq!(
            (&row["files"], &row["dirs"]),
            (&Value::from(8), &Value::from(4))
        );
        assert_eq!(row["rate_unit"], "ops/s");
    }
    let csv = db.ok(&["compare", "label:a", "label:b", "--format", "csv"]);
    assert!(
        csv.lines().nth(1).unwrap().ends_with(",8,4,0,ops/s"),
        "{csv}"
    );
    db.ok(&["compare", "label:a", "label:b", "--format", "markdown"]);
    // a metadata run never matches a throughput run's rows
    let (_, _, apart) = db.on(&["compare", "label:a", "label:bytes"]);
    assert!(!apart.contains("panicked"), "{apart}");
    for format in ["json", "csv", "markdown"] {
        db.ok(&["trend", "--format", format]);
    }
    let report = dir.path().join("report.html");
    db.ok(&[
        "report",
        "label:a",
        "label:b",
        "-o",
        report.to_str().unwrap(),
    ]);
    let html = std::fs::read_to_string(&report).unwrap();
    assert!(html.contains("Metadata operations") && html.contains("ops/s"));
    round_trip(db, dir.path());
}

/// Both exports of the metadata runs, imported into a new database, read back as they
/// were: the tree, the operations and every figure.
fn round_trip(db: &Db, scratch: &std::path::Path) {
    for format in ["json", "csv"] {
        let file = scratch.join(format!("export.{format}"));
        let path = file.to_str().unwrap();
        db.ok(&["export", "--label", "a", "--format", format, "-o", path]);
        let again = Db::sqlite();
        again.ok(&["import", path]);
        let back = json(again.ok(&["show", "1", "--format", "json"]).as_bytes());
        let label_a = json(db.ok(&["show", "1", "--format", "json"]).as_bytes());
        assert_eq!(
            back["params"]["metadata"], label_a["params"]["metadata"],
            "{format}"
        );
        let figures = |run: &Value| -> Vec<(Value, Value, Value)> {
            (run["results"].as_array().unwrap().iter())
                .map(|m| (m["test"].clone(), m["ops"].clone(), m["throughput"].clone()))
                .collect()
        };
        assert_eq!(figures(&back), figures(&label_a), "{format}");
    }
}

#[test]
fn every_command_reads_metadata_runs_in_ops_on_sqlite() {
    every_command_reads_metadata_runs_in_ops(&Db::sqlite());
}

#[test]
fn every_command_reads_metadata_runs_in_ops_on_postgres() {
    if let Some(db) = Db::postgres("metadata runs through every command") {
        every_command_reads_metadata_runs_in_ops(&db);
    }
}
