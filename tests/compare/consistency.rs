//! A row's verdict and its interval never contradict each other: the interval is the
//! test's own, stated at the level the correction across rows calls for, so a
//! regression lies wholly below zero, an improvement wholly above, an unchanged row
//! within ±threshold, and an inconclusive one not wholly within it and excluding zero
//! only for a change within the threshold (or a side measured on a busy machine, which
//! its note names). Checked on every row of real comparisons through the binary: runs
//! against runs, and the paired parts of one run (two engines, two cache modes).

use serde_json::Value;

use crate::common::{Measure, compare_json};

/// Checks every row of one `compare --format json` document; returns their verdicts.
fn verdicts_agree_with_intervals(comparison: &Value) -> Vec<String> {
    let threshold = comparison["threshold_pct"].as_f64().unwrap();
    let rows = comparison["rows"].as_array().unwrap();
    assert!(!rows.is_empty(), "{comparison}");
    rows.iter()
        .map(|row| {
            let verdict = row["verdict"].as_str().unwrap();
            let (low, high) = (
                row["ci_low_pct"]
                    .as_f64()
                    .unwrap_or_else(|| panic!("{row}")),
                row["ci_high_pct"]
                    .as_f64()
                    .unwrap_or_else(|| panic!("{row}")),
            );
            let change = row["change_pct"].as_f64().unwrap();
            assert!(
                low <= change && change <= high,
                "change outside its interval: {row}"
            );
            let excludes_zero = high < 0.0 || low > 0.0;
            let busy = row["note"]
                .as_str()
                .is_some_and(|n| n.contains("busy machine"));
            let agrees = match verdict {
                "regression" => high < 0.0 && change < -threshold,
                "improvement" => low > 0.0 && change > threshold,
                "unchanged" => -threshold <= low && high <= threshold,
                "inconclusive" => {
                    (low < -threshold || high > threshold)
                        && (!excludes_zero || change.abs() <= threshold || busy)
                }
                other => panic!("unknown verdict {other}: {row}"),
            };
            assert!(agrees, "{verdict} with the interval [{low}, {high}]: {row}");
            verdict.to_string()
        })
        .collect()
}

#[test]
fn every_verdict_agrees_with_its_interval() {
    // the files go beside the build, on a disk: flush's fdatasync must cost something
    // there (on a memory filesystem it would not, and nothing would regress)
    let scratch = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let db = scratch.path().join("h.db");
    let small = || Measure::small(&db, scratch.path()).tests("write,read");
    // run 1: two engines × two cache modes, the paired case; then two runs a side of
    // each cache mode, alternated, the unpaired one
    small()
        .cache("buffered,flush")
        .args(&["--engine", "posix,pread"])
        .record();
    for _ in 0..2 {
        for cache in ["buffered", "flush"] {
            small().cache(cache).label(cache).record();
        }
    }
    let mut verdicts = Vec::new();
    for args in [
        &[
            "1,engine:posix",
            "1,engine:pread",
            "--ignore-param",
            "engine",
        ][..],
        &[
            "1,cache:buffered",
            "1,cache:flush",
            "--ignore-param",
            "cache",
        ],
        &[
            "1,cache:flush",
            "1,cache:buffered",
            "--ignore-param",
            "cache",
        ],
        &["buffered", "flush", "--ignore-param", "cache"],
        &["flush", "buffered", "--ignore-param", "cache"],
    ] {
        verdicts.extend(verdicts_agree_with_intervals(&compare_json(&db, args)));
    }
    // writes timed with fdatasync against writes into memory: both directions must
    // have been checked, or the test checked nothing that could contradict
    for needed in ["regression", "improvement"] {
        assert!(
            verdicts.iter().any(|v| v == needed),
            "no {needed} among {verdicts:?}"
        );
    }
}
