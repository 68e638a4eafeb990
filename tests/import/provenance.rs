//! What an imported run says about where it came from: the file and tool in `show`,
//! and no made-up start time where the file states none.

use crate::common::{fixture, on};

#[test]
fn a_file_without_a_time_is_listed_as_imported_and_shown_with_its_source() {
    let scratch = tempfile::tempdir().unwrap();
    let db = scratch.path().join("h.db");
    let classic = fixture("classic/bebox-beos-dr8.txt");
    let (code, _, err) = on(&db, &["import", classic.to_str().unwrap()]);
    assert_eq!(code, Some(0), "{err}");
    let (code, table, err) = on(&db, &["history"]);
    assert_eq!(code, Some(0), "{err}");
    assert!(table.contains("imported 20"), "{table}");

    let (code, shown, err) = on(&db, &["show", "1"]);
    assert_eq!(code, Some(0), "{err}");
    assert!(
        shown.contains("unknown (the file states no time)"),
        "{shown}"
    );
    assert!(shown.contains("bebox-beos-dr8.txt"), "{shown}");
    assert!(shown.contains("(classic)"), "{shown}");
}

#[test]
fn a_file_with_a_time_keeps_it_and_names_tool_and_version() {
    let scratch = tempfile::tempdir().unwrap();
    let db = scratch.path().join("h.db");
    let single = fixture("iozone3/single-32m-r64k.txt");
    let (code, _, err) = on(&db, &["import", single.to_str().unwrap()]);
    assert_eq!(code, Some(0), "{err}");
    let (_, table, _) = on(&db, &["history"]);
    assert!(!table.contains("imported"), "{table}");
    assert!(table.contains("2026-11-30"), "{table}");
    let (_, shown, _) = on(&db, &["show", "1"]);
    // the line may wrap between words
    assert!(
        shown.contains("(iozone3") && shown.contains("3.489)"),
        "{shown}"
    );
}

#[test]
fn what_a_file_does_not_state_is_null_not_made_up() {
    let scratch = tempfile::tempdir().unwrap();
    let db = scratch.path().join("h.db");
    let classic = fixture("classic/bebox-beos-dr8.txt");
    let (code, _, err) = on(&db, &["import", classic.to_str().unwrap()]);
    assert_eq!(code, Some(0), "{err}");
    let (code, out, err) = on(&db, &["show", "1", "--format", "json"]);
    assert_eq!(code, Some(0), "{err}");
    let run: serde_json::Value = serde_json::from_str(&out).unwrap();
    for param in ["seed", "dir", "read_pct", "stride_records"] {
        assert!(run["params"][param].is_null(), "{param}: {}", run["params"]);
    }
    // and through an export and an import into another database, still unstated
    let (code, exported, err) = on(&db, &["export", "--format", "json"]);
    assert_eq!(code, Some(0), "{err}");
    let file = scratch.path().join("export.json");
    std::fs::write(&file, exported).unwrap();
    let other = scratch.path().join("other.db");
    let (code, _, err) = on(&other, &["import", file.to_str().unwrap()]);
    assert_eq!(code, Some(0), "{err}");
    let (_, out, _) = on(&other, &["show", "1", "--format", "json"]);
    let run: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert!(
        run["params"]["seed"].is_null() && run["params"]["dir"].is_null(),
        "{out}"
    );
    // a measured run states them all
    let work = scratch.path().join("work");
    std::fs::create_dir(&work).unwrap();
    let (code, _, err) = on(
        &db,
        &[
            "run",
            "-s",
            "64k",
            "-r",
            "4k",
            "-n",
            "1",
            "-q",
            "-d",
            work.to_str().unwrap(),
        ],
    );
    assert_eq!(code, Some(0), "{err}");
    let (_, out, _) = on(&db, &["show", "latest", "--format", "json"]);
    let run: serde_json::Value = serde_json::from_str(&out).unwrap();
    for param in ["seed", "dir", "read_pct", "stride_records"] {
        assert!(
            !run["params"][param].is_null(),
            "{param}: {}",
            run["params"]
        );
    }
}
