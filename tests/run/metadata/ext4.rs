//! A metadata regression found where it happens: the same tree on one ext4 filesystem
//! mounted as made, then with `dirsync` (every directory change written through before
//! it returns, as a mail spool may be mounted), the runs alternated. `compare` flags
//! the operations that change a directory, and not those that only look. The runs use
//! `--cache flush` (a sync and cold dentries before each phase): with `buffered`, the
//! lookups right after dirsync's creates were 38–49% slower in three of three
//! executions (the journal still busy with them), a real effect of the mount that is
//! not the one this test is about. Three runs a side: with two, a slowed row whose
//! rounds spread by 150% under load was left inconclusive in two of seven executions.

use crate::common::{Db, Measure, Mount, compare_json, require_root};

#[test]
fn dirsync_slows_the_directory_changes_and_compare_flags_only_those() {
    if !require_root("mount an ext4 filesystem on a loop device") {
        return;
    }
    let mount = Mount::ext4(64, "");
    let db = Db::sqlite();
    let measure = |label: &str| {
        Measure::new(db.location(), mount.path())
            .tests("create,stat,open,rename,unlink")
            .repeat(3)
            .warmup(1)
            .cache("flush")
            .label(label)
            .args(&["--files", "40"])
            .record();
    };
    for _ in 0..3 {
        measure("default");
        mount.remount("dirsync");
        measure("dirsync");
        mount.remount("defaults");
    }
    let c = compare_json(db.location(), &["label:default", "label:dirsync"]);
    let verdicts: Vec<(String, String)> = (c["rows"].as_array().unwrap().iter())
        .map(|r| {
            let name = |v: &serde_json::Value| v.as_str().unwrap().to_string();
            (name(&r["test"]), name(&r["verdict"]))
        })
        .collect();
    for (test, verdict) in &verdicts {
        let slowed = ["create", "rename", "unlink"].contains(&test.as_str());
        match slowed {
            true => assert_eq!(verdict, "regression", "{test}: {verdicts:?}"),
            false => assert_ne!(verdict, "regression", "{test}: {verdicts:?}"),
        }
    }
    assert_eq!(verdicts.len(), 5, "{verdicts:?}");
}
