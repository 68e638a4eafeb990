//! `compare` and `trend` tell one truth about the same runs: a step that `trend`
//! reports is a change for `compare` (never noise), and a verdict about given runs
//! stays when runs at another level are recorded later.

use iozone::model::Run;
use iozone::store;
use serde_json::Value;

use crate::common::{Measure, Mount, compare_json, ok, on, planted, require_root};

/// Each host's daily runs at these levels (bytes/s), one list of (level, runs) per host.
const SERIES: [(&str, &[(f64, i64)]); 4] = [
    ("down", &[(500e6, 10), (400e6, 10)]),
    ("up", &[(300e6, 8), (390e6, 7)]),
    ("twice", &[(200e6, 6), (150e6, 6), (120e6, 6)]),
    ("flat", &[(100e6, 18)]),
];

/// A database of the planted series above.
fn planted_series(dir: &std::path::Path) -> std::path::PathBuf {
    let db = dir.join("h.db");
    let mut runs: Vec<Run> = Vec::new();
    for (host, levels) in SERIES {
        let mut day = 0;
        for &(level, count) in levels {
            for _ in 0..count {
                runs.push(planted(host, day, level));
                day += 1;
            }
        }
    }
    store::open(&db).unwrap().save_runs(&runs).unwrap();
    db
}

/// A host's run ids, oldest first.
fn ids_of(db: &std::path::Path, host: &str) -> Vec<i64> {
    let listed: Vec<Value> = serde_json::from_str(&ok(
        db,
        &["history", "--host", host, "--all", "--format", "json"],
    ))
    .unwrap();
    listed
        .iter()
        .rev()
        .map(|r| r["id"].as_i64().unwrap())
        .collect()
}

fn selector(ids: &[i64]) -> String {
    ids.iter().map(i64::to_string).collect::<Vec<_>>().join(",")
}

/// The sample standard deviation of the logarithms of `levels`, as a percentage of
/// the level (as `noise_pct` states a noise).
fn spread_pct(levels: &[f64]) -> f64 {
    let logs: Vec<f64> = levels.iter().map(|l| l.ln()).collect();
    let mean = logs.iter().sum::<f64>() / logs.len() as f64;
    let var = logs.iter().map(|l| (l - mean).powi(2)).sum::<f64>() / (logs.len() - 1) as f64;
    var.sqrt().exp_m1() * 100.0
}

/// A run's median (its only row).
fn median(db: &std::path::Path, id: i64) -> f64 {
    let c = compare_json(db, &[&id.to_string(), &id.to_string()]);
    c["rows"][0]["baseline_median"].as_f64().unwrap()
}

#[test]
fn every_step_trend_reports_is_a_change_for_compare() {
    let scratch = tempfile::tempdir().unwrap();
    let db = planted_series(scratch.path());
    let (code, out, err) = on(&db, &["trend", "--format", "json"]);
    assert_eq!(code, Some(0), "{err}");
    let report: Value = serde_json::from_str(&out).unwrap();
    let steps = report["steps"].as_array().unwrap();
    // down, up and twice's two steps; the flat series none
    assert_eq!(steps.len(), 4, "{report}");
    let mut checked = 0;
    for step in steps {
        let (before, after) = (step["runs_before"].as_u64(), step["runs_after"].as_u64());
        if before < Some(5) || after < Some(5) {
            continue;
        }
        let host = step["hostname"].as_str().unwrap();
        let first = step["id"].as_i64().unwrap();
        let ids = ids_of(&db, host);
        let at = ids.iter().position(|&id| id == first).unwrap();
        let (five_before, five_after) = (&ids[at - 5..at], &ids[at..at + 5]);
        let down = step["change_pct"].as_f64().unwrap() < 0.0;
        let c = compare_json(&db, &[&selector(five_before), &selector(five_after)]);
        let row = &c["rows"][0];
        let expected = if down { "regression" } else { "improvement" };
        assert_eq!(row["verdict"], expected, "{step}\n{row}");

        // the last run before against the first after: the noise of the two segments,
        // never one measured across the step
        let (last, next) = (ids[at - 1], ids[at]);
        let c = compare_json(&db, &[&last.to_string(), &next.to_string()]);
        let row = &c["rows"][0];
        assert_eq!(row["verdict"], expected, "{step}\n{row}");
        let segment = |from: u64, to: u64| -> Vec<f64> {
            (ids[from as usize..to as usize].iter())
                .map(|&id| median(&db, id))
                .collect()
        };
        let start = at as u64 - before.unwrap();
        let end = at as u64 + after.unwrap();
        let own = spread_pct(&segment(start, at as u64)).max(spread_pct(&segment(at as u64, end)));
        let noise = row["noise_pct"].as_f64().unwrap();
        assert!(
            noise <= own,
            "noise {noise} beyond the segments' own {own}: {row}"
        );
        let note = row["note"].as_str().unwrap();
        assert!(
            note.contains(&format!("at run {first} between the sides")),
            "{note}"
        );
        checked += 1;
    }
    assert_eq!(
        checked, 4,
        "every step of the planted series has five runs a side or more"
    );
}

/// A run `-l LABEL` in `dir`, as the two-filesystem case records them.
fn one_run(db: &std::path::Path, dir: &std::path::Path, label: &str) {
    Measure::new(db, dir)
        .size("2M")
        .records("4k,64k")
        .repeat(3)
        .tests("write,rewrite")
        .cache("flush")
        .label(label)
        .record();
}

/// The rows a comparison calls regressions, by test and record size.
fn regressions(c: &Value) -> Vec<(String, u64)> {
    (c["rows"].as_array().unwrap().iter())
        .filter(|r| r["verdict"] == "regression")
        .map(|r| {
            (
                r["test"].as_str().unwrap().to_string(),
                r["record_size"].as_u64().unwrap(),
            )
        })
        .collect()
}

/// Two filesystems that differ in writes: `data=journal` against the default mount
/// (images in memory, see [`Mount::ext4_in_memory`]), three runs each; then three more runs on the first filesystem remounted
/// `data=journal`, at the other level. The same comparison of the same six runs must
/// find every regression it found before: runs at another level are not its noise.
#[test]
fn regressions_stay_found_when_runs_at_another_level_arrive() {
    if !require_root("mount two ext4 loop filesystems and remount one") {
        return;
    }
    let first = Mount::ext4_in_memory(64, "");
    let journal = Mount::ext4_in_memory(64, "data=journal");
    let scratch = tempfile::tempdir().unwrap();
    let db = scratch.path().join("h.db");
    // alternated, so that a burst of other work slows both sides, not one
    for _ in 0..3 {
        one_run(&db, first.path(), "default");
        one_run(&db, journal.path(), "journal");
    }
    let before = compare_json(&db, &["default", "journal"]);
    let found = regressions(&before);
    assert!(!found.is_empty(), "data=journal slowed nothing: {before}");

    first.remount("data=journal");
    for _ in 0..3 {
        one_run(&db, first.path(), "later");
    }
    let after = compare_json(&db, &["default", "journal"]);
    for (test, record) in &found {
        let row = (after["rows"].as_array().unwrap().iter())
            .find(|r| r["test"] == test.as_str() && r["record_size"] == *record)
            .unwrap();
        assert_eq!(
            row["verdict"], "regression",
            "lost after the later runs: {row}"
        );
    }
    // the later runs are another segment: the six runs compared measured their noise
    for row in after["rows"].as_array().unwrap() {
        assert_eq!(row["noise_source"], "runs", "{row}");
    }
}
