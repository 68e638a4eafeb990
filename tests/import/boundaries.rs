//! Files that state instants, numbers and text at the edge of what a database keeps, in
//! every format `import` reads, on both stores: a run at the edge is imported, one
//! beyond it is refused whole with one line naming the file, the run and the field —
//! and after each, every command that reads still works (one fio file from the year
//! 10000 once made every listing of a SQLite database fail, for good).

use std::path::{Path, PathBuf};

use chrono::{DateTime, NaiveDate, Utc};
use serde_json::{Value, json};

use crate::common::{Db, fixture, json};

/// What importing a case must do.
#[derive(Debug)]
enum Expect {
    /// Imported: one run more.
    Imported,
    /// Refused whole, naming this field of the file's first run.
    Refused(&'static str),
    /// Refused whole by the parser (a time it cannot read at all), at no field.
    Unparsed,
}

/// A file to import and what must come of it.
struct Case {
    name: String,
    text: String,
    expect: Expect,
}

fn case(name: impl Into<String>, text: impl Into<String>, expect: Expect) -> Case {
    Case {
        name: name.into(),
        text: text.into(),
        expect,
    }
}

fn at(text: &str) -> DateTime<Utc> {
    text.parse().unwrap()
}

/// Seconds since the epoch of the first instant of `year` (proleptic Gregorian).
fn year_start(year: i32) -> i64 {
    NaiveDate::from_ymd_opt(year, 1, 1)
        .unwrap()
        .and_hms_opt(0, 0, 0)
        .unwrap()
        .and_utc()
        .timestamp()
}

/// fio's JSON, stamped with `key` (`timestamp` or `timestamp_ms`) alone.
fn fio(key: &str, stamp: i64) -> String {
    let mut doc: Value = serde_json::from_str(
        &std::fs::read_to_string(fixture("fio/buffered-write-4k.json")).unwrap(),
    )
    .unwrap();
    let root = doc.as_object_mut().unwrap();
    root.remove("timestamp");
    root.remove("timestamp_ms");
    root.insert(key.into(), json!(stamp));
    doc.to_string()
}

/// iozone3's text output, begun at `began` (as C's ctime prints it, the year as chrono
/// writes one beyond 9999: `+10000`).
fn iozone3(began: chrono::NaiveDateTime) -> String {
    let text = std::fs::read_to_string(fixture("iozone3/single-32m-r64k.txt")).unwrap();
    let line = format!("Run began: {}", began.format("%a %b %e %H:%M:%S %Y"));
    text.replace("Run began: Mon Nov 30 05:41:47 2026", &line)
}

/// Our JSON export of one run (`base`, exported earlier) with `change` made to it and
/// a UUID of its own.
fn own_json(base: &Value, change: impl FnOnce(&mut Value)) -> String {
    let mut doc = base.clone();
    let run = &mut doc["runs"][0];
    run["uuid"] = json!(uuid::Uuid::new_v4().to_string());
    change(run);
    doc.to_string()
}

/// Our CSV export of one run (`base`) with `column` set to `value` on every line, under
/// a UUID of its own.
fn own_csv(base: &str, column: &str, value: &str) -> String {
    own_csv_with(base, &[(column, value)])
}

/// Our CSV export of one run (`base`) with each column set to its value on every line,
/// under a UUID of its own.
fn own_csv_with(base: &str, set: &[(&str, &str)]) -> String {
    let mut lines = base.lines();
    let header = lines.next().unwrap();
    let names: Vec<&str> = header.split(',').collect();
    let uuid = uuid::Uuid::new_v4().to_string();
    let mut out = format!("{header}\n");
    for line in lines {
        let mut fields: Vec<String> = line.split(',').map(str::to_string).collect();
        fields[0] = uuid.clone();
        for (column, value) in set {
            let at = names.iter().position(|n| n == column).unwrap();
            fields[at] = value.to_string();
        }
        out.push_str(&fields.join(","));
        out.push('\n');
    }
    out
}

/// Every boundary case, in every format: at the edge of the years 1970 to 9999 and
/// beyond it (the year 10000, the years before 1 and 1970), and numbers and text no
/// database keeps.
fn cases(base_json: &Value, base_csv: &str) -> Vec<Case> {
    use Expect::*;
    let last = at("9999-12-31T23:59:59Z").timestamp();
    let mut cases = vec![
        // fio: seconds, then milliseconds
        case("fio-last-second", fio("timestamp", last), Imported),
        case(
            "fio-10000",
            fio("timestamp", 253_402_300_800),
            Refused("started_at"),
        ),
        case("fio-epoch", fio("timestamp", 0), Imported),
        case(
            "fio-before-epoch",
            fio("timestamp", -1),
            Refused("started_at"),
        ),
        case(
            "fio-year-0",
            fio("timestamp", year_start(0)),
            Refused("started_at"),
        ),
        case(
            "fio-before-year-0",
            fio("timestamp", -62_167_219_201),
            Refused("started_at"),
        ),
        case(
            "fio-ms-last",
            fio("timestamp_ms", last * 1000 + 999),
            Imported,
        ),
        case(
            "fio-ms-10000",
            fio("timestamp_ms", (last + 1) * 1000),
            Refused("started_at"),
        ),
        case("fio-ms-epoch", fio("timestamp_ms", 0), Imported),
        case(
            "fio-ms-before-epoch",
            fio("timestamp_ms", -1),
            Refused("started_at"),
        ),
        case(
            "fio-ms-beyond-chrono",
            fio("timestamp_ms", i64::MIN),
            Unparsed,
        ),
        case("fio-beyond-chrono", fio("timestamp", i64::MAX), Unparsed),
        // iozone3's "Run began" line
        case(
            "iozone3-last-second",
            iozone3(at("9999-12-31T23:59:59Z").naive_utc()),
            Imported,
        ),
        case(
            "iozone3-10000",
            iozone3(at("+10000-01-01T00:00:00Z").naive_utc()),
            Refused("started_at"),
        ),
        case(
            "iozone3-epoch",
            iozone3(at("1970-01-01T00:00:00Z").naive_utc()),
            Imported,
        ),
        case(
            "iozone3-1969",
            iozone3(at("1969-12-31T23:59:59Z").naive_utc()),
            Refused("started_at"),
        ),
        case(
            "iozone3-year-0",
            iozone3(at("0000-06-01T00:00:00Z").naive_utc()),
            Refused("started_at"),
        ),
        case(
            "iozone3-before-year-0",
            iozone3(at("-0001-06-01T00:00:00Z").naive_utc()),
            Refused("started_at"),
        ),
        // the classic table states no time: the import's stands in
        case(
            "classic",
            std::fs::read_to_string(fixture("classic/bebox-beos-dr8.txt")).unwrap(),
            Imported,
        ),
    ];
    // our JSON: every instant, a count, a figure's latency, text
    for (name, field, value, expect) in [
        (
            "json-start-last",
            "started_at",
            "9999-12-31T23:59:59.999999999Z",
            Imported,
        ),
        (
            "json-start-10000",
            "started_at",
            "+10000-01-01T00:00:00Z",
            Refused("started_at"),
        ),
        (
            "json-start-epoch",
            "started_at",
            "1970-01-01T00:00:00Z",
            Imported,
        ),
        (
            "json-start-1969",
            "started_at",
            "1969-12-31T23:59:59Z",
            Refused("started_at"),
        ),
        (
            "json-start-before-0",
            "started_at",
            "-0001-01-01T00:00:00Z",
            Refused("started_at"),
        ),
        (
            "json-end-10000",
            "finished_at",
            "+10000-01-01T00:00:00Z",
            Refused("finished_at"),
        ),
        (
            "json-end-before-0",
            "finished_at",
            "-0001-01-01T00:00:00Z",
            Refused("finished_at"),
        ),
    ] {
        cases.push(case(
            name,
            own_json(base_json, |r| r[field] = json!(value)),
            expect,
        ));
    }
    cases.extend([
        case(
            "json-imported-10000",
            own_json(base_json, |r| {
                r["source"]["imported_at"] = json!("+10000-01-01T00:00:00Z")
            }),
            Refused("source.imported_at"),
        ),
        case(
            "json-latency-beyond-i64",
            own_json(
                base_json,
                |r| {
                    r["results"][0]["latency_ns"] =
                        json!({"p50": 1, "p99": 2, "p999": 3, "max": u64::MAX, "samples": 4})
                },
            ),
            Refused("results[0].latency_ns.max"),
        ),
        case(
            "json-bytes-beyond-i64",
            own_json(base_json, |r| r["results"][0]["bytes"] = json!(1_u64 << 63)),
            Refused("results[0].bytes"),
        ),
        case(
            "json-bytes-at-i64",
            own_json(base_json, |r| r["results"][0]["bytes"] = json!(i64::MAX)),
            Imported,
        ),
        case(
            "json-label-nul",
            own_json(base_json, |r| r["labels"] = json!(["ok", "a\u{0}b"])),
            Refused("labels[1]"),
        ),
        case(
            "json-note-nul",
            own_json(base_json, |r| r["note"] = json!("\u{0}")),
            Refused("note"),
        ),
        // our CSV: four-digit years only, as RFC 3339 has them
        case(
            "csv-start-last",
            own_csv(base_csv, "started_at", "9999-12-31T23:59:59Z"),
            Imported,
        ),
        case(
            "csv-start-epoch",
            own_csv(base_csv, "started_at", "1970-01-01T00:00:00Z"),
            Imported,
        ),
        case(
            "csv-start-1969",
            own_csv(base_csv, "started_at", "1969-12-31T23:59:59Z"),
            Refused("started_at"),
        ),
        case(
            "csv-start-year-0",
            own_csv(base_csv, "started_at", "0000-01-01T00:00:00Z"),
            Refused("started_at"),
        ),
        case(
            "csv-start-10000",
            own_csv(base_csv, "started_at", "+10000-01-01T00:00:00Z"),
            Unparsed,
        ),
        case(
            "csv-end-year-0",
            own_csv(base_csv, "finished_at", "0000-01-01T00:00:00Z"),
            Refused("finished_at"),
        ),
        case(
            "csv-latency-beyond-i64",
            own_csv_with(
                base_csv,
                &[
                    ("lat_p50_ns", "1"),
                    ("lat_p99_ns", "2"),
                    ("lat_p999_ns", "3"),
                    ("lat_max_ns", &u64::MAX.to_string()),
                    ("lat_samples", "4"),
                ],
            ),
            Refused("results[0].latency_ns.max"),
        ),
        // a NUL within the first 64 KiB is taken for a binary file; one further on is
        // refused by the run's check (below)
        case(
            "csv-note-nul",
            own_csv(base_csv, "note", "a\u{0}b"),
            Unparsed,
        ),
    ]);
    cases
}

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
