//! An export is lossless: exported, imported elsewhere and exported again, a database
//! of a hundred real runs comes out byte for byte the same.

use std::path::Path;

use crate::common::{ok, on};

/// `export --format json`.
fn exported(db: &Path) -> String {
    ok(db, &["export", "--format", "json"])
}

/// An export with the one field that must differ, the export's own timestamp, blanked.
fn blanked(export: &str) -> String {
    export
        .lines()
        .map(
            |line| match line.trim_start().starts_with("\"exported_at\"") {
                true => "  \"exported_at\": \"(blanked)\",",
                false => line,
            },
        )
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn export_import_export_is_byte_identical_over_a_hundred_runs() {
    let work = tempfile::tempdir().unwrap();
    let first = work.path().join("first.db");
    let dir = work.path().to_str().unwrap();
    for i in 0..100 {
        let label = format!("run-{i}");
        // tiny runs: what matters is a hundred rates measured, with all their digits
        let (code, _, err) = on(
            &first,
            &[
                "run", "-s", "8k", "-r", "4k", "-n", "2", "--warmup", "1", "-i", "write", "-i",
                "read", "--cache", "buffered", "-q", "-l", &label, "-d", dir,
            ],
        );
        assert_eq!(code, Some(0), "{err}");
    }
    let once = exported(&first);
    let file = work.path().join("export.json");
    std::fs::write(&file, &once).unwrap();
    let second = work.path().join("second.db");
    let (code, _, err) = on(&second, &["import", file.to_str().unwrap()]);
    assert_eq!(code, Some(0), "{err}");
    let (once, twice) = (blanked(&once), blanked(&exported(&second)));
    assert!(once.matches("\"uuid\"").count() >= 100);
    if once != twice {
        let (a, b) = once
            .lines()
            .zip(twice.lines())
            .find(|(a, b)| a != b)
            .unwrap_or(("(lengths differ)", ""));
        panic!("the second export differs, first at:\n{a}\n{b}");
    }
}
