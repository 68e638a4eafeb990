//! The files of the boundary cases, in every format `import` reads, and what importing
//! each must do.

use chrono::{DateTime, NaiveDate, Utc};
use serde_json::{Value, json};

use crate::common::fixture;

/// What importing a case must do.
#[derive(Debug)]
pub(super) enum Expect {
    /// Imported: one run more.
    Imported,
    /// Refused whole, naming this field of the file's first run.
    Refused(&'static str),
    /// Refused whole by the parser (a time it cannot read at all), at no field.
    Unparsed,
}

/// A file to import and what must come of it.
pub(super) struct Case {
    pub(super) name: String,
    pub(super) text: String,
    pub(super) expect: Expect,
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
pub(super) fn fio(key: &str, stamp: i64) -> String {
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
pub(super) fn own_json(base: &Value, change: impl FnOnce(&mut Value)) -> String {
    let mut doc = base.clone();
    let run = &mut doc["runs"][0];
    run["uuid"] = json!(uuid::Uuid::new_v4().to_string());
    change(run);
    doc.to_string()
}

/// Our CSV export of one run (`base`) with `column` set to `value` on every line, under
/// a UUID of its own.
pub(super) fn own_csv(base: &str, column: &str, value: &str) -> String {
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
pub(super) fn cases(base_json: &Value, base_csv: &str) -> Vec<Case> {
    let mut cases = fio_cases();
    cases.extend(iozone3_and_classic_cases());
    cases.extend(own_json_cases(base_json));
    cases.extend(own_csv_cases(base_csv));
    cases
}

/// fio's instants, in seconds, then in milliseconds.
fn fio_cases() -> Vec<Case> {
    use Expect::*;
    let last = at("9999-12-31T23:59:59Z").timestamp();
    vec![
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
    ]
}

/// iozone3's "Run began" line, and the classic table, which states no time: the
/// import's stands in.
fn iozone3_and_classic_cases() -> Vec<Case> {
    use Expect::*;
    vec![
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
        case(
            "classic",
            std::fs::read_to_string(fixture("classic/bebox-beos-dr8.txt")).unwrap(),
            Imported,
        ),
    ]
}

/// Our JSON's instants: a run's start and end.
fn own_json_instant_cases(base_json: &Value) -> Vec<Case> {
    use Expect::*;
    let mut cases = Vec::new();
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
    cases
}

/// Our JSON: every instant, a count, a figure's latency, text.
fn own_json_cases(base_json: &Value) -> Vec<Case> {
    use Expect::*;
    let mut cases = own_json_instant_cases(base_json);
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
    ]);
    cases
}

/// Our CSV: four-digit years only, as RFC 3339 has them; a latency beyond i64; a NUL.
fn own_csv_cases(base_csv: &str) -> Vec<Case> {
    use Expect::*;
    vec![
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
    ]
}
