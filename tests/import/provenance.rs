//! What an imported run says about where it came from: the file and tool in `show`,
//! and no made-up start time where the file states none (issue 13).

use super::{fixture, import};
use crate::compare::iozone_db;

#[test]
fn a_file_without_a_time_is_listed_as_imported_and_shown_with_its_source() {
    let scratch = tempfile::tempdir().unwrap();
    let db = scratch.path().join("h.db");
    let classic = fixture("classic/bebox-beos-dr8.txt");
    let (code, _, err) = import(&db, &[classic.to_str().unwrap()]);
    assert_eq!(code, Some(0), "{err}");
    let (code, table, err) = iozone_db(&db, &["history"]);
    assert_eq!(code, Some(0), "{err}");
    assert!(table.contains("imported 20"), "{table}");

    let (code, shown, err) = iozone_db(&db, &["show", "1"]);
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
    let (code, _, err) = import(&db, &[single.to_str().unwrap()]);
    assert_eq!(code, Some(0), "{err}");
    let (_, table, _) = iozone_db(&db, &["history"]);
    assert!(!table.contains("imported"), "{table}");
    assert!(table.contains("2026-11-30"), "{table}");
    let (_, shown, _) = iozone_db(&db, &["show", "1"]);
    // the line may wrap between words
    assert!(
        shown.contains("(iozone3") && shown.contains("3.489)"),
        "{shown}"
    );
}
