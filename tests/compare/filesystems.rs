//! The question the tool exists for, on real filesystems: the same runs on a tmpfs and
//! on an ext4 filesystem mounted `-o sync`; the writes must come out as regressions,
//! with the filesystem differences listed above them.

use crate::common::{Measure, Mount, compare_json, on, require_root};

#[test]
fn a_sync_mounted_ext4_regresses_against_tmpfs() {
    if !require_root("mount a tmpfs and an ext4 loop filesystem") {
        return;
    }
    let fast = Mount::tmpfs("16m", "");
    let slow = Mount::ext4(32, "sync");
    let scratch = tempfile::tempdir().unwrap();
    let db = scratch.path().join("h.db");
    // three runs a side, alternated: the runs measure their own run-to-run noise, so a
    // writeback storm from other work on the machine widens the interval (the change
    // here is near −100%) instead of leaving one run a side to the default
    for _ in 0..3 {
        Measure::small(&db, fast.path())
            .label("fast")
            .tests("write")
            .record();
        Measure::small(&db, slow.path())
            .label("slow")
            .tests("write")
            .record();
    }

    let c = compare_json(&db, &["fast", "slow"]);
    let rows = c["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 2, "{c}");
    for row in rows {
        assert_eq!(row["verdict"], "regression", "{row}");
        assert!(row["change_pct"].as_f64().unwrap() < -5.0, "{row}");
        assert!(row["p_value"].as_f64().unwrap() < 0.05, "{row}");
    }
    let changes = c["environment_changes"].as_array().unwrap();
    let change = |field: &str| {
        changes
            .iter()
            .find(|e| e["field"] == field)
            .unwrap_or_else(|| panic!("{field} not among {changes:?}"))
    };
    assert_eq!(
        change("filesystem.type")["baseline"],
        serde_json::json!(["tmpfs"])
    );
    assert_eq!(
        change("filesystem.type")["candidate"],
        serde_json::json!(["ext4"])
    );
    let options = change("filesystem.mount_options")["candidate"][0]
        .as_str()
        .unwrap();
    assert!(options.contains("sync"), "{options}");

    let (code, table, _) = on(&db, &["compare", "fast", "slow"]);
    assert_eq!(code, Some(0));
    assert!(
        table.contains("regression") && table.contains("filesystem.type"),
        "{table}"
    );
    let (code, _, stderr) = on(&db, &["compare", "fast", "slow", "--fail-on-regression"]);
    assert_eq!(code, Some(1), "{stderr}");
    // the other way round nothing regressed, so CI passes
    let (code, _, stderr) = on(&db, &["compare", "slow", "fast", "--fail-on-regression"]);
    assert_eq!(code, Some(0), "{stderr}");
}

/// `data=journal` writes every block twice (journal, then home): with `fdatasync` in
/// the timing (`flush`), writes slow down by half or more. Four runs a side, alternated,
/// on two ext4 loop filesystems that differ in that option alone (three a side missed
/// a −64% change once, while another job's writeback made runs spread by 90%), their
/// images in memory so that the machine's disk queue does not decide the figures.
#[test]
fn a_data_journal_ext4_regresses_in_writes() {
    if !require_root("mount two ext4 loop filesystems") {
        return;
    }
    let ordered = Mount::ext4_in_memory(64, "");
    let journal = Mount::ext4_in_memory(64, "data=journal");
    let scratch = tempfile::tempdir().unwrap();
    let db = scratch.path().join("h.db");
    for _ in 0..4 {
        for (mount, label) in [(&ordered, "ordered"), (&journal, "journal")] {
            Measure::new(&db, mount.path())
                .size("2M")
                .records("64k")
                .repeat(3)
                .tests("write")
                .cache("flush")
                .label(label)
                .record();
        }
    }
    let c = compare_json(&db, &["ordered", "journal"]);
    let rows = c["rows"].as_array().unwrap();
    let write = rows.iter().find(|r| r["test"] == "write").unwrap();
    assert_eq!(write["verdict"], "regression", "{c}");
    assert_eq!(
        (
            write["runs_baseline"].as_u64(),
            write["runs_candidate"].as_u64()
        ),
        (Some(4), Some(4))
    );
    assert!(write["ci_high_pct"].as_f64().unwrap() < 0.0, "{write}");
    let options = c["environment_changes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["field"] == "filesystem.mount_options")
        .unwrap_or_else(|| panic!("mount options not listed: {c}"))
        .to_string();
    assert!(options.contains("data=journal"), "{options}");
}
