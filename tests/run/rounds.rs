//! Rounds: warm-up rounds kept apart, interleaved and grouped orders, `--repeat auto`,
//! and the machine's state recorded with the run.

use crate::common::{assert_no_leftovers, expect_bad_input, iozone, json, run_in, run_json_in};

/// A run of two cells, fast enough for a test.
const SMALL: [&str; 7] = ["run", "-s", "256k", "-r", "4k,64k", "--cache", "buffered"];

#[test]
fn warm_up_rounds_are_kept_apart_from_the_measured_ones() {
    let dir = tempfile::tempdir().unwrap();
    let run = run_json_in(
        dir.path(),
        &[&SMALL[..], &["-n", "3", "--warmup", "2"]].concat(),
    );
    let p = &run["params"];
    assert_eq!(
        (p["repeat"].as_u64(), p["warmup"].as_u64()),
        (Some(3), Some(2))
    );
    assert_eq!(p["order"], "interleaved");
    assert!(p["repeat_auto"].is_null());
    // 2 cells × 4 tests × 3 measured rounds, and × 2 warm-up rounds apart
    let results = run["results"].as_array().unwrap();
    let warmup = run["warmup"].as_array().unwrap();
    assert_eq!((results.len(), warmup.len()), (24, 16));
    let reps = |v: &[serde_json::Value]| -> std::collections::BTreeSet<u64> {
        v.iter()
            .map(|m| m["repetition"].as_u64().unwrap())
            .collect()
    };
    assert_eq!(reps(results), [1, 2, 3].into());
    assert_eq!(reps(warmup), [1, 2].into());
    // the stored run reads back the same, and the table counts measured rounds only
    let id = run["id"].to_string();
    let shown = iozone()
        .args(["show", &id, "--format", "json"])
        .output()
        .unwrap();
    let shown = json(&shown.stdout);
    assert_eq!(shown["warmup"], run["warmup"]);
    assert_eq!(shown["results"], run["results"]);
    let text = iozone().args(["show", &id]).output().unwrap();
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(text.contains("median of 3 repetitions"), "{text}");
    assert!(
        text.contains("2 warm-up rounds measured and left out"),
        "{text}"
    );
    assert!(
        text.contains("2 warm-up (16 measurements kept apart"),
        "{text}"
    );
    assert_no_leftovers(dir.path());
}

#[test]
fn no_warm_up_and_the_grouped_order() {
    let dir = tempfile::tempdir().unwrap();
    let args = [
        &SMALL[..],
        &["-n", "2", "--warmup", "0", "--order", "grouped"],
    ]
    .concat();
    let run = run_json_in(dir.path(), &args);
    assert_eq!(run["params"]["order"], "grouped");
    assert_eq!(run["warmup"].as_array().unwrap().len(), 0);
    assert_eq!(run["results"].as_array().unwrap().len(), 16);
}

#[test]
fn interleaved_rounds_visit_the_cells_in_a_seeded_order_per_round() {
    let dir = tempfile::tempdir().unwrap();
    let cells = ["-r", "4k,8k,16k,32k,64k", "-i", "write"];
    let order = |seed: &str| -> Vec<String> {
        let out = run_in(
            dir.path(),
            &[
                &[
                    "run",
                    "-s",
                    "256k",
                    "-n",
                    "3",
                    "--seed",
                    seed,
                    "-v",
                    "--no-record",
                ],
                &cells[..],
            ]
            .concat(),
        );
        assert!(out.status.success());
        // "Measured write 4 KiB in 256 KiB [2]: ..." in the order measured
        String::from_utf8_lossy(&out.stderr)
            .lines()
            .filter(|l| l.contains("Measured write") && !l.contains("warm-up"))
            .map(|l| l.split(':').next().unwrap().trim().to_string())
            .collect()
    };
    let first = order("7");
    assert_eq!(first.len(), 15, "{first:?}");
    assert_eq!(first, order("7"), "the same seed gives the same order");
    let rounds: Vec<&[String]> = first.chunks(5).collect();
    assert!(
        rounds.windows(2).any(|w| {
            let cell = |s: &String| s.split('[').next().unwrap().to_string();
            w[0].iter().map(cell).ne(w[1].iter().map(cell))
        }),
        "every round visited the cells in the same order: {first:?}"
    );
    // every round visits every cell once
    for round in &rounds {
        let mut cells: Vec<&str> = round
            .iter()
            .map(|s| s.split(" in ").next().unwrap())
            .collect();
        cells.sort();
        cells.dedup();
        assert_eq!(cells.len(), 5, "{round:?}");
    }
}

#[test]
fn repeat_auto_adds_rounds_until_precise_or_out_of_time() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("auto.db");
    let db = db.to_str().unwrap();
    // a precision no cell reaches in a second: it stops on time, and says which cells missed
    let auto = ["-n", "auto", "--warmup", "0", "--precision"];
    let args = [
        &["--db", db],
        &SMALL[..],
        &auto[..],
        &["0.001", "--max-time", "1"],
    ]
    .concat();
    let out = run_in(dir.path(), &args);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("not reached in"), "{stdout}");
    let show = |run: &str, format: &str| {
        let out = iozone()
            .args(["--db", db, "show", run, "--format", format])
            .output()
            .unwrap();
        out.stdout
    };
    let run = json(&show("latest", "json"));
    let rounds = run["params"]["repeat"].as_u64().unwrap();
    assert!(rounds >= 6, "auto starts with 6 rounds, took {rounds}");
    assert_eq!(run["params"]["repeat_auto"]["precision_pct"], 0.001);
    assert_eq!(run["params"]["repeat_auto"]["max_time_s"], 1.0);
    assert_eq!(run["results"].as_array().unwrap().len() as u64, rounds * 8);
    // a loose precision is reached, usually at the first check after the minimum of
    // 6 rounds (a busy machine may take a few more: the interval narrows with rounds)
    let args = [&["--db", db], &SMALL[..], &auto[..], &["99"]].concat();
    let run = run_json_in(dir.path(), &args);
    let rounds = run["params"]["repeat"].as_u64().unwrap();
    assert!(rounds >= 6, "{rounds}");
    let shown = show(&run["id"].to_string(), "table");
    let shown = String::from_utf8_lossy(&shown);
    let reached = format!("reached in all 8 cells after {rounds} rounds");
    assert!(shown.contains(&reached), "{shown}");
}

#[test]
fn bad_round_options_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let line = expect_bad_input(dir.path(), &["run", "-n", "often"]);
    assert!(line.contains("give a number such as 5, or auto"), "{line}");
    let line = expect_bad_input(dir.path(), &["run", "-n", "auto", "--precision", "0"]);
    assert!(line.contains("--precision"), "{line}");
    let line = expect_bad_input(dir.path(), &["run", "-n", "auto", "--max-time", "-3"]);
    assert!(line.contains("--max-time"), "{line}");
    let line = expect_bad_input(dir.path(), &["run", "--order", "random"]);
    assert!(line.contains("interleaved"), "{line}");
}

#[test]
fn the_machine_state_is_recorded_at_both_ends() {
    let dir = tempfile::tempdir().unwrap();
    let run = run_json_in(dir.path(), &[&SMALL[..], &["-n", "1"]].concat());
    for end in ["state_at_start", "state_at_end"] {
        let state = &run[end];
        assert!(state["load_1m"].as_f64().is_some(), "{end}: {state}");
        assert!(state["dirty_bytes"].as_u64().is_some(), "{end}: {state}");
        assert!(
            state["mem_available_bytes"].as_u64().unwrap() > 0,
            "{end}: {state}"
        );
    }
    let shown = iozone()
        .args(["show", &run["id"].to_string()])
        .output()
        .unwrap();
    let shown = String::from_utf8_lossy(&shown.stdout);
    assert!(
        shown.contains("machine at start") && shown.contains("load "),
        "{shown}"
    );
}
