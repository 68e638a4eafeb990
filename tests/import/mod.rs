//! `import`, `export`, `completions` and `man` end to end, on the real fixtures.

mod boundaries;
mod foreign_engine;
mod input;
mod metadata;
mod provenance;
mod roundtrip;
mod stream;

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::common::{Measure, compare_json, fixture, json, on};

/// Every run in `db`, as `history --all --format json` lists them.
fn runs(db: &Path) -> Vec<Value> {
    let (code, out, err) = on(db, &["history", "--all", "--format", "json"]);
    assert_eq!(code, Some(0), "{err}");
    serde_json::from_str(&out).unwrap()
}

#[test]
fn the_classic_example_end_to_end() {
    let scratch = tempfile::tempdir().unwrap();
    let db = scratch.path().join("h.db");
    let dr8 = fixture("classic/bebox-beos-dr8.txt");
    let bsd = fixture("classic/486dx4-freebsd.txt");
    let (code, _, err) = on(
        &db,
        &[
            "import",
            dr8.to_str().unwrap(),
            "--label",
            "DR8",
            "--host",
            "bebox",
        ],
    );
    assert_eq!(code, Some(0), "{err}");
    assert!(err.contains("Imported") && err.contains("1 run"), "{err}");
    let (code, _, err) = on(&db, &["import", bsd.to_str().unwrap(), "-l", "FreeBSD"]);
    assert_eq!(code, Some(0), "{err}");

    let history = runs(&db);
    assert_eq!(history.len(), 2);
    let bebox = history.iter().find(|r| r["labels"][0] == "DR8").unwrap();
    assert_eq!(bebox["host"]["hostname"], "bebox");
    assert_eq!(bebox["source"]["tool"], "classic");
    assert_eq!(bebox["params"]["file_size"], 33554432);

    let c = compare_json(&db, &["DR8", "FreeBSD"]);
    let rows = c["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 10, "5 record sizes × read and write: {c}");
    for row in rows {
        assert_eq!(row["verdict"], "inconclusive", "{row}");
        assert!(row["change_pct"].as_f64().unwrap().is_finite());
        assert_eq!(row["n_baseline"], 1);
    }
    let read_512 = rows
        .iter()
        .find(|r| r["test"] == "read" && r["record_size"] == 512)
        .unwrap();
    assert_eq!(read_512["baseline_median"], 773910.0);

    // the same file again adds nothing
    let (code, _, err) = on(&db, &["import", dr8.to_str().unwrap(), "--label", "DR8"]);
    assert_eq!(code, Some(0), "{err}");
    assert!(err.contains("0 runs (1 already there)"), "{err}");
    assert_eq!(runs(&db).len(), 2);
}

#[test]
fn fio_and_iozone3_outputs_import() {
    let scratch = tempfile::tempdir().unwrap();
    let db = scratch.path().join("h.db");
    let files = [
        "fio/buffered-write-4k.json",
        "fio/fsync-read-64k.json",
        "fio/two-jobs-write-read-16k-clean.json",
        "iozone3/single-32m-r64k.txt",
        "iozone3/auto-n64k-g4m.txt",
        "iozone3/throughput-t2.txt",
    ];
    for f in files {
        let path = fixture(f);
        let (code, _, err) = on(&db, &["import", path.to_str().unwrap()]);
        assert_eq!(code, Some(0), "{f}: {err}");
    }
    let history = runs(&db);
    let tools: Vec<&str> = history
        .iter()
        .map(|r| r["source"]["tool"].as_str().unwrap())
        .collect();
    assert!(
        tools.contains(&"fio") && tools.contains(&"iozone3"),
        "{tools:?}"
    );
    let fio = history
        .iter()
        .find(|r| {
            r["source"]["file"]
                .as_str()
                .unwrap()
                .ends_with("buffered-write-4k.json")
        })
        .unwrap();
    assert_eq!(fio["source"]["version"], "fio-3.33");
    let shown = json(
        on(&db, &["show", &fio["id"].to_string(), "--format", "json"])
            .1
            .as_bytes(),
    );
    assert_eq!(shown["results"][0]["test"], "write");
    assert_eq!(shown["results"][0]["record_size"], 4096);
}

#[test]
fn export_then_import_into_a_new_database_loses_nothing() {
    let scratch = tempfile::tempdir().unwrap();
    let first = scratch.path().join("first.db");
    // first, as its fio report is older than the runs recorded now: ids follow time
    let queued = fixture("fio/uring-qd32-write-4k-edited.json");
    on(&first, &["import", queued.to_str().unwrap()]);
    Measure::small(&first, scratch.path())
        .label("a")
        .args(&["--tag", "k=v", "-r", "4k,64k"])
        .record();
    Measure::small(&first, scratch.path())
        .label("b")
        .tests("read")
        .record();
    let classic = fixture("classic/bebox-beos-dr8.txt");
    on(&first, &["import", classic.to_str().unwrap(), "-l", "DR8"]);

    let export = |db: &Path| -> (String, Value) {
        let (code, out, err) = on(db, &["export", "--format", "json"]);
        assert_eq!(code, Some(0), "{err}");
        let mut v: Value = serde_json::from_str(&out).unwrap();
        v.as_object_mut().unwrap().remove("exported_at");
        (out, v)
    };
    let (text, exported) = export(&first);
    assert_eq!(exported["format"], "iozone-export");
    let exported_runs = exported["runs"].as_array().unwrap();
    assert_eq!(exported_runs.len(), 4);
    let depths: Vec<&Value> = exported_runs
        .iter()
        .map(|r| &r["params"]["iodepth"])
        .collect();
    assert!(depths.contains(&&Value::from(32)), "{depths:?}");
    let file = scratch.path().join("export.json");
    std::fs::write(&file, text).unwrap();

    let second = scratch.path().join("second.db");
    let (code, _, err) = on(&second, &["import", file.to_str().unwrap()]);
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(
        export(&second).1,
        exported,
        "a second export differs from the first"
    );
    // and again: nothing new
    let (_, _, err) = on(&second, &["import", file.to_str().unwrap()]);
    assert!(err.contains("0 runs (4 already there)"), "{err}");

    // CSV out and back: the same results
    let (code, csv, _) = on(&first, &["export", "--format", "csv"]);
    assert_eq!(code, Some(0));
    let csv_file = scratch.path().join("export.csv");
    std::fs::write(&csv_file, &csv).unwrap();
    let third = scratch.path().join("third.db");
    let (code, _, err) = on(&third, &["import", csv_file.to_str().unwrap()]);
    assert_eq!(code, Some(0), "{err}");
    let (_, csv_again, _) = on(&third, &["export", "--format", "csv"]);
    assert_eq!(csv_again, csv);
    let (_, json_again, _) = on(&third, &["export", "--format", "json"]);
    assert!(json_again.contains("\"iodepth\": 32"), "{json_again}");
}

/// A database of three fio runs imported in this order: `psync` (a buffered job),
/// `qd32` (io_uring at depth 32) and `qd1` (the same job at depth 1).
fn three_depths(dir: &Path) -> PathBuf {
    let db = dir.join("h.db");
    // the same io_uring job at depth 1, beside the fixture's depth 32
    let deep = fixture("fio/uring-qd32-write-4k-edited.json");
    let shallow = dir.join("uring-qd1.json");
    let text = std::fs::read_to_string(&deep).unwrap();
    std::fs::write(
        &shallow,
        text.replace("\"iodepth\" : \"32\"", "\"iodepth\" : \"1\""),
    )
    .unwrap();
    for (file, label) in [
        (fixture("fio/buffered-write-4k.json"), "psync"),
        (deep, "qd32"),
        (shallow, "qd1"),
    ] {
        let (code, _, err) = on(&db, &["import", file.to_str().unwrap(), "-l", label]);
        assert_eq!(code, Some(0), "{err}");
    }
    db
}

/// History's mode and `show` say the depth only where it is not 1; history's CSV has
/// its column.
fn assert_depth_shown_where_not_1(db: &Path) {
    let (code, table, _) = on(db, &["history"]);
    assert_eq!(code, Some(0));
    let line = |label: &str| {
        table
            .lines()
            .find(|l| l.contains(label))
            .unwrap_or_else(|| panic!("no {label} in {table}"))
            .to_string()
    };
    assert!(line("qd32").contains("buffered/uring qd32"), "{table}");
    assert!(!line("psync").contains(" qd"), "{table}");
    assert!(!line("qd1").contains("uring qd"), "{table}");
    let (_, csv, _) = on(db, &["history", "--format", "csv"]);
    let header = csv.lines().next().unwrap();
    assert!(header.split(',').any(|h| h == "iodepth"), "{csv}");
    // imported in that order: psync is run 1, depth 32 run 2
    let show = |id: &str| on(db, &["show", id]).1;
    let deep = show("2");
    assert!(
        deep.contains("engine uring, queue depth 32, 1 thread"),
        "{deep}"
    );
    // and the results table's note, as `run` prints it
    assert!(deep.contains(", 1 repetition, queue depth 32;"), "{deep}");
    let shallow = show("1");
    assert!(shallow.contains("engine pread, 1 thread"), "{shallow}");
    assert!(!shallow.contains("queue depth"), "{shallow}");
}

/// Depths are part of a comparison's row: apart, nothing in common; dropped on
/// purpose, one row with the depth null and the difference said.
fn assert_depths_compared_apart(db: &Path) {
    // depths are part of the row: apart, nothing in common
    let (code, _, err) = on(db, &["compare", "qd1", "qd32"]);
    assert_eq!(code, Some(2), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains("queue depth") && err.contains("--ignore-param"),
        "{err}"
    );
    // dropped on purpose: one row, the depth null, and the difference said
    let c = compare_json(db, &["qd1", "qd32", "--ignore-param", "iodepth"]);
    let rows = c["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 1, "{c}");
    assert_eq!(rows[0]["iodepth"], Value::Null);
    assert_eq!(rows[0]["engine"], "uring");
    let change = c["environment_changes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["field"] == "params.iodepth")
        .unwrap_or_else(|| panic!("no depth change in {c}"));
    assert_eq!(change["baseline"], serde_json::json!(["1"]));
    assert_eq!(change["candidate"], serde_json::json!(["32"]));
    let (code, table, _) = on(db, &["compare", "qd1", "qd32", "--ignore-param", "iodepth"]);
    assert_eq!(code, Some(0));
    assert!(table.contains("buffered/uring qd*"), "{table}");
    // a depth on both sides is kept in the row
    let c = compare_json(db, &["qd32", "qd32"]);
    assert_eq!(c["rows"][0]["iodepth"], 32);
}

#[test]
fn a_queued_fio_run_shows_and_compares_by_its_depth() {
    let scratch = tempfile::tempdir().unwrap();
    let db = three_depths(scratch.path());
    let depth_of = |label: &str| {
        runs(&db)
            .into_iter()
            .find(|r| {
                r["labels"]
                    .as_array()
                    .unwrap()
                    .contains(&Value::from(label))
            })
            .unwrap_or_else(|| panic!("no run labelled {label}"))["params"]["iodepth"]
            .clone()
    };
    assert_eq!(depth_of("qd32"), 32);
    assert_eq!(depth_of("qd1"), 1);
    assert_eq!(depth_of("psync"), 1);

    assert_depth_shown_where_not_1(&db);
    assert_depths_compared_apart(&db);
}

#[test]
fn bad_files_import_nothing_and_say_which() {
    let scratch = tempfile::tempdir().unwrap();
    let db = scratch.path().join("h.db");
    let write = |name: &str, text: &str| {
        let p = scratch.path().join(name);
        std::fs::write(&p, text).unwrap();
        p
    };
    let unknown = write("notes.txt", "just some notes\nnothing to see\n");
    let full = std::fs::read_to_string(fixture("classic/bebox-beos-dr8.txt")).unwrap();
    let garbled = write("garbled.txt", &full.replace("773910", "77x3910"));
    let fio = std::fs::read_to_string(fixture("fio/buffered-write-4k.json")).unwrap();
    let truncated = write("truncated.json", &fio[..fio.len() / 2]);
    let missing = scratch.path().join("missing.txt");
    for (path, needle) in [
        (&unknown, "not in a known format"),
        (&garbled, "garbled.txt"),
        (&truncated, "truncated.json"),
        (&missing, "cannot read"),
    ] {
        let (code, _, err) = on(&db, &["import", path.to_str().unwrap()]);
        assert_eq!(code, Some(2), "{path:?}: {err}");
        assert_eq!(err.lines().count(), 1, "{path:?}: {err}");
        assert!(
            err.contains(needle),
            "{path:?}: expected '{needle}' in {err}"
        );
        assert!(!err.contains("panicked"), "{err}");
    }
    assert!(runs(&db).is_empty());
    // several files: the good one lands, the bad one is reported, status 2
    let good = fixture("classic/486dx4-freebsd.txt");
    let (code, _, err) = on(
        &db,
        &["import", good.to_str().unwrap(), unknown.to_str().unwrap()],
    );
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("1 of 2 files could not be imported"), "{err}");
    assert_eq!(runs(&db).len(), 1);
}

#[test]
fn a_label_with_a_comma_is_refused_and_nothing_imported() {
    let scratch = tempfile::tempdir().unwrap();
    let db = scratch.path().join("h.db");
    let file = fixture("classic/486dx4-freebsd.txt");
    let (code, _, err) = on(&db, &["import", file.to_str().unwrap(), "-l", "a,b"]);
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.starts_with("error: invalid value 'a,b' for '--label"),
        "{err}"
    );
    assert!(err.contains("a label cannot hold a comma"), "{err}");
    assert!(!db.exists(), "a refused import created {db:?}");
}

#[test]
fn completions_and_man_page() {
    let scratch = tempfile::tempdir().unwrap();
    let db = scratch.path().join("h.db");
    for shell in ["bash", "zsh", "fish"] {
        let (code, out, err) = on(&db, &["completions", shell]);
        assert_eq!(code, Some(0), "{err}");
        assert!(
            out.contains("compare") && out.contains("history"),
            "{shell}"
        );
    }
    let (code, man, _) = on(&db, &["man"]);
    assert_eq!(code, Some(0));
    assert!(man.contains(".TH") && man.contains("iozone"), "{man}");
}
