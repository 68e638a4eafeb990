//! An engine another tool ran and we do not have (fio's libaio) is recorded under its
//! own name at its own depth, shown, exported and compared as such: never as one of
//! ours it resembles, and never as a configuration ours would refuse to run.

use serde_json::Value;

use super::runs;
use crate::common::{Measure, compare_json, fixture, on};

#[test]
fn a_libaio_job_is_recorded_as_libaio_at_its_depth_and_compares_as_another_engine() {
    let scratch = tempfile::tempdir().unwrap();
    let db = scratch.path().join("h.db");
    // fio 3.33: --ioengine=libaio --iodepth=16 --direct=1 --rw=write --bs=4k --size=32m
    let libaio = fixture("fio/libaio-qd16-direct-write-4k.json");
    let (code, _, err) = on(&db, &["import", libaio.to_str().unwrap(), "-l", "aio"]);
    assert_eq!(code, Some(0), "{err}");
    let imported = &runs(&db)[0];
    let params = &imported["params"];
    assert_eq!(params["engine"], "libaio", "{params}");
    assert_eq!(params["iodepth"], 16, "{params}");
    assert_eq!(params["cache"], "direct", "{params}");

    let (_, shown, _) = on(&db, &["show", "1", "--format", "json"]);
    let shown: Value = serde_json::from_str(&shown).unwrap();
    assert_eq!(shown["results"][0]["engine"], "libaio");
    let (_, table, _) = on(&db, &["show", "1"]);
    assert!(table.contains("engine libaio, queue depth 16"), "{table}");
    let (_, history, _) = on(&db, &["history"]);
    assert!(history.contains("direct/libaio qd16"), "{history}");

    // one of ours over the same file and record sizes
    Measure::new(&db, scratch.path())
        .args(&[
            "-s", "32m", "-r", "4k", "-i", "write", "-n", "1", "--warmup", "0", "--cache",
            "buffered", "--engine", "pread", "-l", "ours",
        ])
        .record();
    // the engine is part of the row: apart, nothing in common
    let (code, _, err) = on(&db, &["compare", "aio", "ours"]);
    assert_eq!(code, Some(2), "{err}");
    // across it on purpose: the engine is in what changed, under each side's name
    // the engine's name selects the run, as ours do
    let c = compare_json(
        &db,
        &[
            "engine:libaio",
            "ours",
            "--ignore-param",
            "engine",
            "--ignore-param",
            "cache",
            "--ignore-param",
            "iodepth",
        ],
    );
    assert_eq!(c["rows"].as_array().unwrap().len(), 1, "{c}");
    let changes = c["environment_changes"].as_array().unwrap();
    let engine = changes
        .iter()
        .find(|e| e["field"] == "params.engine")
        .unwrap_or_else(|| panic!("no engine among the changes: {changes:?}"));
    assert_eq!(
        (&engine["baseline"], &engine["candidate"]),
        (
            &serde_json::json!(["libaio"]),
            &serde_json::json!(["pread"])
        ),
        "{engine}"
    );
    let (_, text, _) = on(
        &db,
        &[
            "compare",
            "aio",
            "ours",
            "--ignore-param",
            "engine",
            "--ignore-param",
            "cache",
            "--ignore-param",
            "iodepth",
        ],
    );
    assert!(
        text.lines()
            .any(|l| l.contains("libaio") && l.contains("pread")),
        "{text}"
    );
}

#[test]
fn a_foreign_engine_survives_export_and_import_in_json_and_csv() {
    let scratch = tempfile::tempdir().unwrap();
    let db = scratch.path().join("h.db");
    let libaio = fixture("fio/libaio-qd16-direct-write-4k.json");
    let (code, _, err) = on(&db, &["import", libaio.to_str().unwrap()]);
    assert_eq!(code, Some(0), "{err}");
    for format in ["json", "csv"] {
        let (code, out, err) = on(&db, &["export", "--format", format]);
        assert_eq!(code, Some(0), "{err}");
        let file = scratch.path().join(format!("export.{format}"));
        std::fs::write(&file, &out).unwrap();
        let again = scratch.path().join(format!("{format}.db"));
        let (code, _, err) = on(&again, &["import", file.to_str().unwrap()]);
        assert_eq!(code, Some(0), "{format}: {err}");
        let back = &runs(&again)[0];
        assert_eq!(back["params"]["engine"], "libaio", "{format}");
        assert_eq!(back["params"]["iodepth"], 16, "{format}");
    }
}

#[test]
fn run_refuses_an_engine_it_does_not_have() {
    let scratch = tempfile::tempdir().unwrap();
    let stderr = crate::common::expect_bad_input(scratch.path(), &["run", "--engine", "libaio"]);
    assert!(
        stderr.contains("invalid value 'libaio'") && stderr.contains("pread"),
        "{stderr}"
    );
}
