//! The metadata tools' outputs end to end (fileop, fs_mark, bonnie++'s CSV line,
//! mdtest's summary): every real fixture imported into SQLite and PostgreSQL and read
//! back by every command, rates shown in operations per second, a phase too fast to
//! measure kept unknown, and what cannot be imported refused in one line.

use std::path::Path;

use serde_json::Value;

use crate::common::{Db, fixture, json};

/// Every fixture that imports, with its tool and how many runs it holds.
const IMPORTED: [(&str, &str, usize); 17] = [
    ("fileop-f10.txt", "fileop", 1),
    ("fileop-l4-u6.txt", "fileop", 3),
    ("fileop-e-f4.txt", "fileop", 1),
    ("fileop-e-l2-u3-b-w.txt", "fileop", 2),
    ("fileop-s4k-f3.txt", "fileop", 1),
    ("fs_mark-n2000-s0-S0-L3.txt", "fs_mark", 1),
    ("fs_mark-n500-s4096-S1-t2-v.txt", "fs_mark", 1),
    ("fs_mark-n400-D4-N100.txt", "fs_mark", 1),
    ("fs_mark-two-dirs-n200-s1024.txt", "fs_mark", 1),
    ("bonnie-n4.csv", "bonnie++", 2),
    ("bonnie-n1-x2.csv", "bonnie++", 2),
    ("bonnie-n1-4096.csv", "bonnie++", 2),
    ("mdtest-n1000-i3.txt", "mdtest", 1),
    ("mdtest-F-u-np2-n500-w4k-e4k-i2.txt", "mdtest", 1),
    ("mdtest-F-np1-2-n200.txt", "mdtest", 2),
    ("mdtest-n300-z2-b3-P.txt", "mdtest", 1),
    ("mdtest-dev-n1000.txt", "mdtest", 1),
];

fn path(name: &str) -> String {
    fixture(&format!("metadata/{name}"))
        .to_str()
        .unwrap()
        .to_string()
}

/// The runs imported from `name`, as `history --all --format json` lists them.
fn runs_of(db: &Db, name: &str) -> Vec<Value> {
    let listed = json(db.ok(&["history", "--all", "--format", "json"]).as_bytes());
    listed
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["source"]["file"].as_str().unwrap().ends_with(name))
        .cloned()
        .collect()
}

fn every_fixture_on(db: &Db) {
    for (name, tool, count) in IMPORTED {
        let (code, _, err) = db.on(&["import", &path(name)]);
        assert_eq!(code, Some(0), "{name}: {err}");
        let runs = runs_of(db, name);
        assert_eq!(runs.len(), count, "{name}");
        for run in &runs {
            assert_eq!(run["source"]["tool"], tool, "{name}");
            assert!(run["params"]["metadata"]["files"].as_u64().unwrap() > 0);
        }
    }
    // again: nothing new
    let (_, _, err) = db.on(&["import", &path("mdtest-n1000-i3.txt")]);
    assert!(err.contains("0 runs (1 already there)"), "{err}");
    let scratch = tempfile::tempdir().unwrap();
    db.assert_every_reader_works(scratch.path());
}

#[test]
fn every_metadata_fixture_imports_and_every_reader_reads_it_on_sqlite() {
    every_fixture_on(&Db::sqlite());
}

#[test]
fn every_metadata_fixture_imports_and_every_reader_reads_it_on_postgres() {
    if let Some(db) = Db::postgres("import the metadata tools' outputs into PostgreSQL") {
        every_fixture_on(&db);
    }
}

#[test]
fn an_imported_fs_mark_run_keeps_its_tree_and_shows_operations_per_second() {
    let db = Db::sqlite();
    db.ok(&["import", &path("fs_mark-n500-s4096-S1-t2-v.txt")]);
    let run = &runs_of(&db, "fs_mark-n500-s4096-S1-t2-v.txt")[0];
    assert_eq!(run["params"]["threads"], 2);
    assert_eq!(run["params"]["cache"], "sync");
    assert_eq!(
        run["params"]["metadata"],
        serde_json::json!({"files": 500, "dirs": 1, "file_bytes": 4096,
            "shared_dir": true, "random_order": false, "warm": false})
    );
    assert_eq!(run["source"]["version"], "3.3");
    assert_eq!(
        run["source"]["command"],
        "fs_mark -d /data/fsm -n 500 -s 4096 -S 1 -t 2 -L 2 -v"
    );
    let uuid = run["uuid"].as_str().unwrap();
    let shown = json(db.ok(&["show", uuid, "--format", "json"]).as_bytes());
    let results = shown["results"].as_array().unwrap();
    assert_eq!(results.len(), 2, "two loops, two repetitions: {shown}");
    assert_eq!(results[0]["test"], "create");
    assert_eq!(results[0]["ops"], 1000);
    assert_eq!(results[0]["throughput"], 2835.2);
    let table = db.ok(&["show", uuid]);
    assert!(table.contains("ops/s"), "{table}");
    assert!(table.contains("create"), "{table}");
    // the listing has the run's tree where a file size would be, and its mode
    let history = db.ok(&["history"]);
    let line = history.lines().find(|l| l.contains("sync/posix")).unwrap();
    assert!(line.contains("×2"), "{history}");
}

#[test]
fn bonnies_plus_signs_are_stored_as_unknown_never_as_zero() {
    let db = Db::sqlite();
    db.ok(&["import", &path("bonnie-n4.csv")]);
    let runs = runs_of(&db, "bonnie-n4.csv");
    let shown: Vec<Value> = runs
        .iter()
        .map(|r| {
            json(
                db.ok(&["show", r["uuid"].as_str().unwrap(), "--format", "json"])
                    .as_bytes(),
            )
        })
        .collect();
    let sequential = shown
        .iter()
        .find(|r| r["params"]["metadata"]["random_order"] == false)
        .unwrap();
    assert_eq!(
        sequential["params"]["tests"],
        serde_json::json!(["create", "stat", "unlink"])
    );
    let results = sequential["results"].as_array().unwrap();
    assert_eq!(
        results.len(),
        1,
        "stat and unlink have no figure: {sequential}"
    );
    assert_eq!(results[0]["throughput"], 2947.0);
    let note = sequential["note"].as_str().unwrap();
    assert!(note.contains("unknown (no figure): stat, unlink"), "{note}");
    assert_eq!(sequential["host"]["hostname"], "vm");
    // the random run measured nothing bonnie++ could time: a run of unknowns
    let random = shown
        .iter()
        .find(|r| r["params"]["metadata"]["random_order"] == true)
        .unwrap();
    assert!(random["results"].as_array().unwrap().is_empty(), "{random}");
    // nowhere a zero: not in the CSV export either
    let csv = db.ok(&["export", "--format", "csv"]);
    let mut reader = csv::Reader::from_reader(csv.as_bytes());
    let throughput = reader
        .headers()
        .unwrap()
        .iter()
        .position(|h| h == "throughput")
        .unwrap();
    let rows: Vec<csv::StringRecord> = reader.records().map(Result::unwrap).collect();
    assert_eq!(rows.len(), 1, "{csv}");
    assert_eq!(&rows[0][throughput], "2947");
}

/// `import FILE` must fail with one line containing `needle`, and import nothing.
fn refused(db: &Db, file: &Path, needle: &str) {
    let (code, _, err) = db.on(&["import", file.to_str().unwrap()]);
    assert_eq!(code, Some(2), "{file:?}: {err}");
    assert_eq!(err.lines().count(), 1, "{file:?}: {err}");
    assert!(
        err.contains(needle),
        "{file:?}: expected '{needle}' in {err}"
    );
    assert!(!err.contains("panicked"), "{err}");
}

#[test]
fn broken_and_unimportable_outputs_are_one_line_and_import_nothing() {
    let db = Db::sqlite();
    let scratch = tempfile::tempdir().unwrap();
    let write = |name: &str, text: String| {
        let p = scratch.path().join(name);
        std::fs::write(&p, text).unwrap();
        p
    };
    let read = |name: &str| std::fs::read_to_string(fixture(&format!("metadata/{name}"))).unwrap();
    let fileop = read("fileop-f10.txt");
    let fs_mark = read("fs_mark-n2000-s0-S0-L3.txt");
    let mdtest = read("mdtest-n1000-i3.txt");
    let cases = [
        (
            write("fileop.txt", fileop.replace("1000 \n", "999 \n")),
            "fileop.txt: line 4: force factor 10 makes 1000 files, not 999",
        ),
        (
            write(
                "fileop-cut.txt",
                fileop[..fileop.find("A   10").unwrap()].to_string(),
            ),
            "no `A` rows",
        ),
        (
            write("fs_mark.txt", fs_mark.replace("18159.5", "18159,5")),
            "fs_mark.txt: line 12: Files/sec '18159,5'",
        ),
        (
            write(
                "fs_mark-post.txt",
                fs_mark.replace("NO SYNC: Test", "POST: Reopen"),
            ),
            "sync method 'POST'",
        ),
        (
            fixture("metadata/bonnie-n1-1024-4096-d4.csv"),
            "files of random sizes from 1024 to 4096 bytes",
        ),
        (fixture("metadata/bonnie-n4.txt"), "import its CSV line"),
        (
            write("bonnie.csv", read("bonnie-n4.csv").replace("2947", "29x7")),
            "bonnie.csv: line 1: '29x7'",
        ),
        (
            write("mdtest.txt", mdtest.replace("674.295", "674.2x5")),
            "mdtest.txt: line 18: 'File creation': '674.2x5' is not a rate",
        ),
        (
            write(
                "mdtest-times.txt",
                mdtest.replace("SUMMARY rate:", "SUMMARY time:"),
            ),
            "-Z",
        ),
    ];
    for (file, needle) in &cases {
        refused(&db, file, needle);
    }
    // forced into the wrong parser: still one line
    let (code, _, err) = db.on(&["import", &path("fileop-f10.txt"), "--format", "fs_mark"]);
    assert_eq!((code, err.lines().count()), (Some(2), 1), "{err}");
    assert!(err.contains("no fs_mark rows"), "{err}");
    let listed = json(db.ok(&["history", "--all", "--format", "json"]).as_bytes());
    assert_eq!(listed, serde_json::json!([]));
}
