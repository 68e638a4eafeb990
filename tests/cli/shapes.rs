//! Every command's JSON and CSV on one database agree in shape: the run's id is `id`
//! everywhere, a missing value is null in JSON and empty in CSV, run objects keep one
//! key order, history's JSON carries the headline figures of its table, and a CSV
//! figure is the JSON's figure, every digit.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::common::{Measure, fixture, json, ok};

/// A CSV's header and rows, read by a real CSV reader.
fn csv(text: &str) -> (Vec<String>, Vec<Vec<String>>) {
    let mut reader = csv::Reader::from_reader(text.as_bytes());
    let headers = reader.headers().unwrap().iter().map(String::from).collect();
    let rows = reader
        .records()
        .map(|r| r.unwrap().iter().map(String::from).collect())
        .collect();
    (headers, rows)
}

/// Every object key and string value of a JSON document, with where it is.
fn walk<'a>(value: &'a Value, path: String, found: &mut Vec<(String, &'a Value)>) {
    match value {
        Value::Object(map) => {
            for (key, v) in map {
                walk(v, format!("{path}.{key}"), found);
            }
        }
        Value::Array(items) => {
            for (i, v) in items.iter().enumerate() {
                walk(v, format!("{path}[{i}]"), found);
            }
        }
        leaf => found.push((path, leaf)),
    }
}

/// The rules every JSON document follows: no `run_id` key, no stand-in for a missing
/// value (that is null).
fn assert_json_shape(what: &str, document: &Value) {
    let mut leaves = Vec::new();
    walk(document, String::new(), &mut leaves);
    for (path, value) in leaves {
        assert!(
            !path.contains("run_id"),
            "{what}: {path} names a run id run_id"
        );
        if let Some(text) = value.as_str() {
            assert!(
                !["", "-", "unknown", "null", "none", "n/a"]
                    .contains(&text.to_lowercase().as_str()),
                "{what}: {path} is {text:?}, not null"
            );
        }
    }
}

/// The rules every CSV follows: the run id is `id`, a missing value is an empty cell.
fn assert_csv_shape(what: &str, text: &str) -> (Vec<String>, Vec<Vec<String>>) {
    let (headers, rows) = csv(text);
    assert!(
        !headers.iter().any(|h| h == "run_id"),
        "{what}: {headers:?}"
    );
    for row in &rows {
        for (header, cell) in headers.iter().zip(row) {
            assert!(
                !["-", "unknown", "null", "none", "NaN", "n/a"].contains(&cell.as_str()),
                "{what}: {header} is {cell:?}, not empty"
            );
        }
    }
    (headers, rows)
}

fn keys(object: &Value) -> Vec<&str> {
    object
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect()
}

fn column<'a>(headers: &[String], row: &'a [String], name: &str) -> &'a str {
    let at = headers.iter().position(|h| h == name);
    &row[at.unwrap_or_else(|| panic!("no column {name} in {headers:?}"))]
}

/// A database of three measured runs (two labelled `a`, one `b`) and an imported one
/// labelled `classic`, most of whose facts are unknown, so missing values show; and
/// the first run as `run` printed it.
fn shapes_database(dir: &Path) -> (PathBuf, Value) {
    let db = dir.join("h.db");
    let run = |label: &str| Measure::small(&db, dir).repeat(3).label(label).json();
    let measured = run("a");
    run("a");
    run("b");
    let classic = fixture("classic/486dx4-freebsd.txt");
    ok(&db, &["import", classic.to_str().unwrap(), "-l", "classic"]);
    (db, measured)
}

/// One key order for a run, the struct's: run, show and export print the same object;
/// history the same without results and warm-up, plus its headlines. History's entry
/// for run 1.
fn assert_one_key_order<'a>(
    measured: &Value,
    show: &Value,
    export: &Value,
    history: &'a Value,
) -> &'a Value {
    assert_eq!(keys(measured), keys(show));
    assert_eq!(keys(&export["runs"][0]), keys(show));
    assert_eq!(&keys(show)[..3], ["id", "uuid", "started_at"]);
    let listed = history
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["id"] == 1)
        .unwrap();
    let mut expected: Vec<&str> = keys(show)
        .into_iter()
        .filter(|k| !["results", "warmup"].contains(k))
        .collect();
    expected.extend(["write_throughput", "read_throughput"]);
    assert_eq!(keys(listed), expected);
    listed
}

/// `iozone ARGS --format FORMAT` on the database, which must succeed: its stdout.
type Get<'a> = &'a dyn Fn(&[&str], &str) -> String;

/// History's JSON carries the figures of its CSV (and table), every digit.
fn assert_history_csv_holds_json_figures(get: Get, history: &Value) {
    let (headers, rows) = assert_csv_shape("history", &get(&["history"], "csv"));
    assert_eq!(headers[0], "id");
    for row in &rows {
        let id: i64 = column(&headers, row, "id").parse().unwrap();
        let object = history
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["id"] == id)
            .unwrap();
        for name in ["write_throughput", "read_throughput"] {
            let cell = column(&headers, row, name);
            match object[name].as_f64() {
                Some(figure) => assert_eq!(cell.parse::<f64>().unwrap(), figure, "{name} of {id}"),
                None => assert_eq!(cell, "", "{name} of {id}"),
            }
        }
    }
}

/// Compare's CSV holds the JSON's figures, every digit, and empty for its nulls.
fn assert_compare_csv_holds_json_figures(get: Get, compare: &Value, versus_import: &Value) {
    for (args, document) in [
        (&["compare", "a", "b"][..], compare),
        (
            &["compare", "b", "classic", "--ignore-param", "file_size"],
            versus_import,
        ),
    ] {
        let (headers, rows) = assert_csv_shape("compare", &get(args, "csv"));
        let json_rows = document["rows"].as_array().unwrap();
        assert_eq!(rows.len(), json_rows.len());
        for (row, object) in rows.iter().zip(json_rows) {
            for name in [
                "baseline_median",
                "candidate_median",
                "change_pct",
                "ci_low_pct",
                "ci_high_pct",
                "p_value",
                "p_adjusted",
                "noise_pct",
                "min_detectable_pct",
            ] {
                let cell = column(&headers, row, name);
                match object[name].as_f64() {
                    Some(figure) => {
                        assert_eq!(cell.parse::<f64>().unwrap(), figure, "{name}: {row:?}")
                    }
                    None => assert_eq!(cell, "", "{name}: {row:?}"),
                }
            }
        }
    }
}

#[test]
fn json_and_csv_agree_across_commands() {
    let scratch = tempfile::tempdir().unwrap();
    let (db, measured) = shapes_database(scratch.path());
    let dir = scratch.path().to_str().unwrap();

    let get = |args: &[&str], format: &str| ok(&db, &[args, &["--format", format]].concat());
    let show = json(get(&["show", "1"], "json").as_bytes());
    let history = json(get(&["history"], "json").as_bytes());
    let export = json(get(&["export"], "json").as_bytes());
    let compare = json(get(&["compare", "a", "b"], "json").as_bytes());
    let versus_import = json(
        get(
            &["compare", "b", "classic", "--ignore-param", "file_size"],
            "json",
        )
        .as_bytes(),
    );
    let trend = json(get(&["trend"], "json").as_bytes());
    let info = json(get(&["info", dir], "json").as_bytes());
    for (what, document) in [
        ("run", &measured),
        ("show", &show),
        ("history", &history),
        ("export", &export),
        ("compare", &compare),
        ("compare with an import", &versus_import),
        ("trend", &trend),
        ("info", &info),
    ] {
        assert_json_shape(what, document);
    }

    let listed = assert_one_key_order(&measured, &show, &export, &history);
    assert_history_csv_holds_json_figures(&get, &history);
    assert!(
        listed["write_throughput"].as_f64().unwrap() > 0.0,
        "{listed}"
    );
    let (headers, rows) = assert_csv_shape("show", &get(&["show", "1"], "csv"));
    assert_eq!(headers[0], "id");
    let results = show["results"].as_array().unwrap();
    assert_eq!(rows.len(), results.len());
    for (row, result) in rows.iter().zip(results) {
        assert_eq!(column(&headers, row, "id"), "1");
        let throughput: f64 = column(&headers, row, "throughput").parse().unwrap();
        assert_eq!(throughput, result["throughput"].as_f64().unwrap());
    }

    let (headers, _) = assert_csv_shape("trend", &get(&["trend"], "csv"));
    assert!(headers.iter().any(|h| h == "id"), "{headers:?}");
    assert_csv_shape("export", &get(&["export"], "csv"));

    assert_compare_csv_holds_json_figures(&get, &compare, &versus_import);
    // an imported run's unknown facts are null on its side of what changed
    let hostname = versus_import["environment_changes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["field"] == "host.hostname")
        .unwrap_or_else(|| panic!("{versus_import}"));
    assert_eq!(hostname["candidate"], serde_json::json!([null]));
}
