//! Files that state instants, numbers and text at the edge of what a database keeps, in
//! every format `import` reads, on both stores: a run at the edge is imported, one
//! beyond it is refused whole with one line naming the file, the run and the field —
//! and after each, every command that reads still works (one fio file from the year
//! 10000 once made every listing of a SQLite database fail, for good).

mod cases;

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::common::{Db, fixture, json};
use cases::{Expect, cases, fio, own_csv, own_json};

/// A JSON and a CSV export of one imported iozone3 run, the bases of our own formats'
/// cases.
fn exports(scratch: &Path) -> (Value, String) {
    let db = Db::Sqlite(tempfile::tempdir_in(scratch).unwrap());
    db.ok(&[
        "import",
        fixture("iozone3/single-32m-r64k.txt").to_str().unwrap(),
    ]);
    let base_json = json(db.ok(&["export", "--format", "json"]).as_bytes());
    let base_csv = db.ok(&["export", "--format", "csv"]);
    (base_json, base_csv)
}

/// Imports every case into `db`, checking what each did and that the runs still list
/// after each; then that every command that reads works.
fn every_case_on(db: &Db) {
    let scratch = tempfile::tempdir().unwrap();
    let (base_json, base_csv) = exports(scratch.path());
    let mut recorded = 0;
    for case in cases(&base_json, &base_csv) {
        let file: PathBuf = scratch.path().join(&case.name);
        std::fs::write(&file, &case.text).unwrap();
        let shown = file.display().to_string();
        let (code, _, err) = db.on(&["import", &shown]);
        assert!(!err.contains("panicked"), "{}: {err}", case.name);
        match case.expect {
            Expect::Imported => {
                assert_eq!(code, Some(0), "{}: {err}", case.name);
                recorded += 1;
            }
            Expect::Refused(field) => {
                assert_eq!(code, Some(2), "{}: {err}", case.name);
                let lines: Vec<&str> = err.lines().collect();
                assert_eq!(lines.len(), 1, "{}: one line: {err}", case.name);
                let line = lines[0];
                assert!(
                    line.contains(&format!("{shown}: run 1 (")),
                    "{}: {line}",
                    case.name
                );
                assert!(
                    line.contains(&format!("): {field} ")),
                    "{}: {line}",
                    case.name
                );
                assert!(
                    line.contains("nothing was imported"),
                    "{}: {line}",
                    case.name
                );
            }
            Expect::Unparsed => {
                assert_eq!(code, Some(2), "{}: {err}", case.name);
                assert_eq!(err.lines().count(), 1, "{}: {err}", case.name);
                assert!(err.contains(&shown), "{}: {err}", case.name);
            }
        }
        // nothing of a refused file, and every run of an imported one, and the
        // listing still reads them all
        assert_eq!(db.uuids().len(), recorded, "after {}", case.name);
    }
    db.assert_every_reader_works(scratch.path());
}

#[test]
fn every_format_at_and_beyond_the_edges_on_sqlite() {
    every_case_on(&Db::sqlite());
}

#[test]
fn every_format_at_and_beyond_the_edges_on_postgres() {
    if let Some(db) = Db::postgres("import boundary cases into PostgreSQL") {
        every_case_on(&db);
    }
}

/// The files that once broke a database, as they were reported: a fio report from the
/// year 10000 (and one from before the year 0), our export of a run from the year 10000
/// or from the year -1, each imported into a database already holding a run.
#[test]
fn an_unreadable_year_never_reaches_a_sqlite_database() {
    the_reported_files_on(&Db::sqlite());
}

#[test]
fn an_unreadable_year_never_reaches_a_postgres_database() {
    if let Some(db) = Db::postgres("import the reported files into PostgreSQL") {
        the_reported_files_on(&db);
    }
}

fn the_reported_files_on(db: &Db) {
    let scratch = tempfile::tempdir().unwrap();
    db.ok(&[
        "import",
        fixture("fio/fsync-read-64k.json").to_str().unwrap(),
    ]);
    let (base_json, _) = exports(scratch.path());
    for (name, text, field) in [
        (
            "fio-10000.json",
            fio("timestamp", 253_402_300_800),
            "started_at",
        ),
        (
            "fio-before-0.json",
            fio("timestamp", -62_167_219_201),
            "started_at",
        ),
        (
            "export-10000.json",
            own_json(&base_json, |r| {
                r["started_at"] = json!("+10000-01-01T00:00:00Z")
            }),
            "started_at",
        ),
        (
            "export-minus-1.json",
            own_json(&base_json, |r| {
                r["started_at"] = json!("-0001-06-01T00:00:00Z")
            }),
            "started_at",
        ),
    ] {
        let file = scratch.path().join(name);
        std::fs::write(&file, text).unwrap();
        let (code, _, err) = db.on(&["import", file.to_str().unwrap()]);
        assert_eq!(code, Some(2), "{name}: {err}");
        assert_eq!(err.lines().count(), 1, "{name}: {err}");
        assert!(err.contains(&format!("): {field} ")), "{name}: {err}");
        assert_eq!(db.uuids().len(), 1, "{name}: nothing imported");
        db.assert_every_reader_works(scratch.path());
    }
    // and the runs go on to another store as they came
    let other = Db::sqlite();
    db.ok(&["sync", "--to", &other.location()]);
    assert_eq!(other.uuids(), db.uuids());
}

/// A NUL in a text field of a CSV export, past the 64 KiB the format is told from:
/// refused like one at the start, naming the run and the field.
#[test]
fn a_nul_past_the_first_64_kib_of_a_csv_is_refused() {
    let scratch = tempfile::tempdir().unwrap();
    let (_, base_csv) = exports(scratch.path());
    let mut text = String::new();
    let mut runs = 0;
    while text.len() < 70 << 10 {
        let body = own_csv(&base_csv, "note", "fine");
        let (header, lines) = body.split_once('\n').unwrap();
        if text.is_empty() {
            text = format!("{header}\n");
        }
        text.push_str(lines);
        runs += 1;
    }
    let body = own_csv(&base_csv, "note", "not\u{0}fine");
    text.push_str(body.split_once('\n').unwrap().1);
    assert!(text.find('\0').unwrap() > 64 << 10);
    let file = scratch.path().join("late-nul.csv");
    std::fs::write(&file, &text).unwrap();

    let db = Db::sqlite();
    let (code, _, err) = db.on(&["import", file.to_str().unwrap()]);
    assert_eq!(code, Some(2), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains(&format!("run {} (", runs + 1)), "{err}");
    assert!(err.contains("): note holds a NUL character"), "{err}");
    assert!(db.uuids().is_empty(), "nothing of the file was imported");
}
