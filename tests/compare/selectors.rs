//! Selectors end to end: ids and ranges select any of them, conditions all of them, a
//! selector of both says how it was read, and `compare --explain` lists each side's runs.

use iozone::store;

use crate::common::{compare_json, on, planted};

/// Seven planted runs on host `vm` (ids 1 to 7), the even ones labelled journal.
fn seven_runs() -> (tempfile::TempDir, std::path::PathBuf) {
    let scratch = tempfile::tempdir().unwrap();
    let db = scratch.path().join("h.db");
    let runs: Vec<_> = (1..=7)
        .map(|day| {
            let mut run = planted("vm", day, 300e6);
            if day % 2 == 0 {
                run.labels = vec!["journal".into()];
            }
            run
        })
        .collect();
    store::open(&db).unwrap().save_runs(&runs).unwrap();
    (scratch, db)
}

/// The ids of a side of `compare --format json`.
fn side(comparison: &serde_json::Value, side: &str) -> Vec<u64> {
    let mut ids: Vec<u64> = comparison[side]["runs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|id| id.as_u64().unwrap())
        .collect();
    ids.sort_unstable();
    ids
}

#[test]
fn ids_and_ranges_are_any_of_and_conditions_all_of() {
    let (_scratch, db) = seven_runs();
    let c = compare_json(&db, &["1", "3,5,7"]);
    assert_eq!(side(&c, "candidate"), [3, 5, 7]);
    let c = compare_json(&db, &["1..3", "5.."]);
    assert_eq!(
        (side(&c, "baseline"), side(&c, "candidate")),
        (vec![1, 2, 3], vec![5, 6, 7])
    );
    let c = compare_json(&db, &["label:journal,host:vm", "1,3..5"]);
    assert_eq!(side(&c, "baseline"), [2, 4, 6]);
    assert_eq!(side(&c, "candidate"), [1, 3, 4, 5]);
    // JSON keeps the selector as typed
    assert_eq!(c["candidate"]["selector"], "1,3..5");
}

#[test]
fn a_selector_of_ids_and_conditions_says_how_it_was_read() {
    let (_scratch, db) = seven_runs();
    let (code, _, err) = on(&db, &["compare", "1", "3..7,label:journal"]);
    assert_eq!(code, Some(0), "{err}");
    assert!(
        err.contains(
            "Selected candidate '3..7,label:journal', read as runs 3 to 7 with label journal: runs 6, 4"
        ),
        "{err}"
    );
    // a selector of ids alone, or of conditions alone, is read as written: nothing said
    assert!(!err.contains("baseline"), "{err}");
    // none of the runs named meets the condition: the reading, and status 2
    let (code, out, err) = on(&db, &["compare", "1", "3,journal"]);
    assert_eq!(code, Some(2), "{err}");
    assert!(out.is_empty());
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains("no recorded run matches '3,journal', read as run 3 with label journal"),
        "{err}"
    );
    // -q keeps stderr for errors
    let (code, _, err) = on(&db, &["-q", "compare", "1", "3..7,label:journal"]);
    assert_eq!((code, err.as_str()), (Some(0), ""));
}

#[test]
fn compare_explain_lists_the_runs_of_each_side() {
    let (_scratch, db) = seven_runs();
    for flag in ["--explain", "-v"] {
        let (code, out, err) = on(&db, &["compare", "1,2", "label:journal", flag]);
        assert_eq!(code, Some(0), "{err}");
        assert!(!out.is_empty(), "the comparison is on stdout");
        let lines: Vec<&str> = err.lines().collect();
        assert!(
            lines[0].ends_with("Selected baseline '1,2', read as runs 1 or 2: runs 2, 1"),
            "{err}"
        );
        let run_line = |id: &str| {
            lines
                .iter()
                .find(|l| l.trim_start().starts_with(&format!("{id}  ")))
                .unwrap_or_else(|| panic!("no line for run {id}: {err}"))
                .to_string()
        };
        assert!(run_line("2").contains("vm  ext4  /srv  journal"), "{err}");
        assert!(
            err.contains(
                "Selected candidate 'label:journal', read as every run with label journal: runs 6, 4, 2"
            ),
            "{err}"
        );
        assert!(run_line("6").contains("journal"), "{err}");
    }
}

#[test]
fn a_range_written_wrong_is_a_usage_error() {
    let (_scratch, db) = seven_runs();
    for (selector, why) in [("7..3", "its ids go up"), ("..3", "its first id")] {
        let (code, _, err) = on(&db, &["compare", "1", selector]);
        assert_eq!(code, Some(2), "{err}");
        assert!(err.contains(why), "{selector}: {err}");
    }
}

#[test]
fn explain_lists_a_side_s_newest_twenty_runs_and_counts_the_rest() {
    let scratch = tempfile::tempdir().unwrap();
    let db = scratch.path().join("h.db");
    let runs: Vec<_> = (1..=26).map(|day| planted("vm", day, 300e6)).collect();
    store::open(&db).unwrap().save_runs(&runs).unwrap();
    let (code, _, err) = on(&db, &["compare", "1", "2..", "--explain"]);
    assert_eq!(code, Some(0), "{err}");
    assert!(
        err.contains("read as runs 2 on: 25 runs: 26, 25, 24, …, 2"),
        "{err}"
    );
    assert!(
        err.contains("… and 5 older runs; `iozone history` lists them"),
        "{err}"
    );
    let listed: Vec<&str> = err.lines().filter(|l| l.contains("  vm  ")).collect();
    assert_eq!(
        listed.len(),
        1 + 20,
        "run 1, then 20 of the candidate's: {err}"
    );
}
