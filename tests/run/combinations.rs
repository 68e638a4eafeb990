//! Several engines and cache modes in one interleaved run: every combination recorded,
//! shown and compared with another inside the same run; and a database from before
//! runs could measure several reads and compares exactly as it did.

use std::path::Path;

use serde_json::Value;

use crate::common::{Measure, expect_bad_input, iozone, json, ok, on};

/// The run's lists name every engine and cache mode, its first of each stands for
/// them, and every combination was measured in every round.
fn assert_every_combination_measured(run: &Value) {
    let params = &run["params"];
    assert_eq!(
        params["engines"],
        serde_json::json!(["posix", "pread", "mmap"])
    );
    assert_eq!(params["caches"], serde_json::json!(["flush", "buffered"]));
    // the first of each, for readers that know one engine per run
    assert_eq!(
        (&params["engine"], &params["cache"]),
        (&"posix".into(), &"flush".into())
    );
    let results = run["results"].as_array().unwrap();
    // 6 combinations × 4 tests (write, rewrite, read, reread) × 3 rounds
    assert_eq!(results.len(), 6 * 4 * 3);
    for engine in ["posix", "pread", "mmap"] {
        for cache in ["flush", "buffered"] {
            let through = |m: &&Value| m["engine"] == engine && m["cache"] == cache;
            let reps: Vec<u64> = results
                .iter()
                .filter(through)
                .map(|m| m["repetition"].as_u64().unwrap())
                .collect();
            assert_eq!(reps.len(), 12, "{engine}/{cache}");
            assert!(
                [1, 2, 3].iter().all(|r| reps.contains(r)),
                "{engine}/{cache}"
            );
        }
    }
}

/// `show` has a row per combination, named as compare names modes.
fn assert_shown_per_combination(db: &Path) {
    let show = ok(db, &["show", "1"]);
    assert!(
        show.contains("cache flush,buffered, engine posix,pread,mmap"),
        "{show}"
    );
    for mode in [
        "flush/posix",
        "buffered/posix",
        "flush/pread",
        "buffered/pread",
        "flush/mmap",
        "buffered/mmap",
    ] {
        assert!(
            show.contains(&format!(" {mode} ")),
            "{mode} missing:\n{show}"
        );
    }
    // the latency table lists the combinations in the run table's order
    let (figures, latency) = show
        .split_once("latency per operation")
        .expect("a latency table");
    assert_eq!(modes_in_order(figures), modes_in_order(latency), "{show}");
}

/// The modes (`flush/posix`) a table names, each once, in the order it names them.
fn modes_in_order(table: &str) -> Vec<&str> {
    let mut modes: Vec<&str> = Vec::new();
    let caches = ["flush/", "buffered/", "direct/", "sync/"];
    let is_mode = |w: &&str| caches.iter().any(|c| w.starts_with(c));
    for word in table.split_whitespace().filter(is_mode) {
        if !modes.contains(&word) {
            modes.push(word);
        }
    }
    modes
}

/// Two engines inside the run: a verdict per (test, cache mode) row, the two parts
/// paired round by round, and not the run compared with itself.
fn assert_engines_compared_within_the_run(db: &Path) {
    let compared = json(
        ok(
            db,
            &[
                "compare",
                "1,engine:posix",
                "1,engine:pread",
                "--ignore-param",
                "engine",
                "--format",
                "json",
            ],
        )
        .as_bytes(),
    );
    let rows = compared["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 4 * 2, "{compared}");
    let verdicts = ["regression", "improvement", "unchanged", "inconclusive"];
    for row in rows {
        assert!(
            verdicts.contains(&row["verdict"].as_str().unwrap()),
            "{row}"
        );
        assert_eq!(row["engine"], Value::Null, "engine is ignored: {row}");
        assert_eq!(row["n_baseline"], 3, "posix's 3 rounds only: {row}");
        assert_eq!(row["n_candidate"], 3, "pread's 3 rounds only: {row}");
        // the two parts of one run, paired run by run
        assert_eq!(row["noise_source"], "paired: 3 rounds", "{row}");
        let (lo, hi) = (row["ci_low_pct"].as_f64(), row["ci_high_pct"].as_f64());
        assert!(lo.unwrap() <= row["change_pct"].as_f64().unwrap(), "{row}");
        assert!(hi.unwrap() >= row["change_pct"].as_f64().unwrap(), "{row}");
    }
    // two parts of one run are not the run compared with itself
    let (code, _, stderr) = on(
        db,
        &[
            "compare",
            "1,engine:posix",
            "1,engine:pread",
            "--ignore-param",
            "engine",
        ],
    );
    assert_eq!(code, Some(0), "{stderr}");
    assert!(!stderr.contains("compared with itself"), "{stderr}");
    // without dropping the engine, the two parts have no row in common
    let (code, _, stderr) = on(db, &["compare", "1,engine:posix", "1,engine:pread"]);
    assert_ne!(code, Some(0));
    assert!(stderr.contains("no row in common"));
}

#[test]
fn six_combinations_in_one_run_are_recorded_shown_and_compared() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("history.db");
    let measured = dir.path().join("measured");
    std::fs::create_dir(&measured).unwrap();
    let run = Measure::new(&db, &measured)
        .args(&["--engine", "posix,pread,mmap"])
        .cache("flush,buffered")
        .size("256k")
        .records("4k")
        .repeat(3)
        .warmup(0)
        .json();
    assert_every_combination_measured(&run);
    assert_shown_per_combination(&db);
    assert_engines_compared_within_the_run(&db);
}

#[test]
fn each_round_visits_every_combination_before_the_next_round() {
    let dir = tempfile::tempdir().unwrap();
    let out = iozone()
        .args(["run", "--no-record", "-v", "--engine", "posix,pread,mmap"])
        .args([
            "--cache",
            "flush,buffered",
            "-s",
            "64k",
            "-r",
            "4k",
            "-n",
            "3",
        ])
        .args(["--warmup", "0", "-i", "write", "-d"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(out.status.success());
    // "Measured write 4 KiB in 64 KiB flush/posix [2]: …", in the order measured
    let stderr = String::from_utf8_lossy(&out.stderr);
    let measured: Vec<(String, u32)> = stderr
        .lines()
        .filter_map(|l| l.trim().strip_prefix("Measured write 4 KiB in 64 KiB "))
        .map(|rest| {
            let (mode, round) = rest.split_once(" [").unwrap();
            let round = round.split_once(']').unwrap().0.parse().unwrap();
            (mode.to_string(), round)
        })
        .collect();
    assert_eq!(measured.len(), 6 * 3, "{stderr}");
    for (i, round) in measured.chunks(6).enumerate() {
        assert!(
            round.iter().all(|(_, r)| *r == i as u32 + 1),
            "{measured:?}"
        );
        let mut modes: Vec<&str> = round.iter().map(|(m, _)| m.as_str()).collect();
        modes.sort_unstable();
        modes.dedup();
        assert_eq!(modes.len(), 6, "round {}: {measured:?}", i + 1);
    }
}

#[test]
fn a_combination_that_cannot_be_measured_is_refused_by_name() {
    let dir = tempfile::tempdir().unwrap();
    let line = expect_bad_input(
        dir.path(),
        &[
            "run",
            "--engine",
            "posix,mmap",
            "--cache",
            "flush,direct",
            "-s",
            "64k",
        ],
    );
    // the way out names the engines that can go around the page cache, as each says
    let way_out = line
        .strip_prefix(
            "error: --engine mmap goes through the page cache and cannot do --cache direct; \
             use --engine ",
        )
        .unwrap_or_else(|| panic!("{line}"));
    let named: Vec<&str> = way_out
        .split([',', ' '])
        .filter(|w| !w.is_empty())
        .collect();
    for engine in ["posix", "pread", "uring"] {
        assert!(named.contains(&engine), "{line}");
    }
    assert!(
        !named.contains(&"mmap") && !named.contains(&"stdio"),
        "{line}"
    );
    assert!(way_out.contains(" or "), "a sentence, not a list: {line}");
    let line = expect_bad_input(
        dir.path(),
        &[
            "run",
            "--engine",
            "uring,pread",
            "--iodepth",
            "8",
            "-s",
            "64k",
        ],
    );
    assert!(
        line.contains("--engine pread keeps one operation in flight"),
        "{line}"
    );
}

/// A database as schema 5 left it: the two runs of `schema5-runs.sql`.
fn schema5_database(path: &Path) {
    let conn = rusqlite::Connection::open(path).unwrap();
    for step in [
        include_str!("../../migrations/0001_init.sql"),
        include_str!("../../migrations/0002_history_indexes.sql"),
        include_str!("../../migrations/0003_run_source.sql"),
        include_str!("../../migrations/0004_rounds_and_machine_state.sql"),
        include_str!("../../migrations/0005_iodepth.sql"),
    ] {
        conn.execute_batch(step).unwrap();
    }
    conn.pragma_update(None, "user_version", 5).unwrap();
    conn.execute_batch(include_str!("../fixtures/combinations/schema5-runs.sql"))
        .unwrap();
}

#[test]
fn runs_from_before_several_engines_read_and_compare_as_before() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("old.db");
    schema5_database(&db);
    // both outputs as iozone printed them for this database before the change (the
    // compare table since says the noise in a column of its own and where it came from
    // once, under the table, and states its intervals at the level the correction
    // across rows calls for)
    assert_eq!(
        ok(&db, &["compare", "1", "2"]),
        include_str!("../fixtures/combinations/schema5-compare.txt")
    );
    assert_eq!(
        ok(&db, &["show", "1"]),
        include_str!("../fixtures/combinations/schema5-show.txt")
    );
    // each result took its run's engine and cache mode
    let run = json(ok(&db, &["show", "2", "--format", "json"]).as_bytes());
    let results = run["results"].as_array().unwrap();
    assert_eq!(results.len(), 6);
    for m in results {
        assert_eq!(
            (&m["engine"], &m["cache"]),
            (&"mmap".into(), &"buffered".into())
        );
    }
    assert!(run["params"].get("engines").is_none());
}
