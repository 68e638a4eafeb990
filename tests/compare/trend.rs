//! `trend` on planted histories: runs written through the store interface with a level
//! we choose, then the real binary asked where the level stepped.

use iozone::model::*;
use iozone::store;

use crate::common::{ok, on, planted};

/// A database in `dir` of two hosts' daily runs: "stepped", 12 days at 500 MB/s, then
/// (a kernel update) 12 days at 400 MB/s; "flat", 24 days at 300 MB/s.
fn stepped_and_flat(dir: &std::path::Path) -> std::path::PathBuf {
    let db = dir.join("h.db");
    let mut s = store::open(&db).unwrap();
    let mut runs: Vec<Run> = (0..24)
        .map(|day| planted("stepped", day, if day < 12 { 500e6 } else { 400e6 }))
        .collect();
    runs.extend((0..24).map(|day| planted("flat", day, 300e6)));
    s.save_runs(&runs).unwrap();
    db
}

#[test]
fn a_planted_step_is_found_and_a_flat_series_is_left_alone() {
    let scratch = tempfile::tempdir().unwrap();
    let db = stepped_and_flat(scratch.path());

    let (code, out, err) = on(&db, &["trend", "--format", "json"]);
    assert_eq!(code, Some(0), "{err}");
    let report: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(report["series_examined"], 2, "{report}");
    let steps = report["steps"].as_array().unwrap();
    assert_eq!(steps.len(), 1, "{report}");
    let step = &steps[0];
    assert_eq!(step["hostname"], "stepped");
    assert_eq!(step["id"], 13, "the first run at the new level");
    let change = step["change_pct"].as_f64().unwrap();
    assert!((change + 20.0).abs() < 3.0, "{step}");
    assert_eq!(
        (step["runs_before"].as_u64(), step["runs_after"].as_u64()),
        (Some(12), Some(12))
    );

    let (code, table, _) = on(&db, &["trend", "--host", "flat"]);
    assert_eq!(code, Some(0));
    assert!(table.contains("0 steps in 1 series"), "{table}");
    let (code, table, _) = on(&db, &["trend"]);
    assert_eq!(code, Some(0));
    assert!(
        table.contains("stepped") && table.contains("-20"),
        "{table}"
    );
}

#[test]
fn trend_looks_at_a_window_of_runs_unless_told_all() {
    let scratch = tempfile::tempdir().unwrap();
    let db = stepped_and_flat(scratch.path());
    let report = |args: &[&str]| -> serde_json::Value {
        let (code, out, err) = on(&db, &[&["trend", "--format", "json"], args].concat());
        assert_eq!(code, Some(0), "{err}");
        serde_json::from_str(&out).unwrap()
    };
    // the newest 10 runs: five of each host, too few to judge, and no step among them
    let window = report(&["--limit", "10"]);
    assert_eq!(window["series_too_short"], 2, "{window}");
    assert_eq!(window["steps"].as_array().unwrap().len(), 0, "{window}");
    for all in [report(&["--all"]), report(&[])] {
        assert_eq!(all["steps"].as_array().unwrap().len(), 1, "{all}");
    }
    let (code, _, err) = on(&db, &["trend", "--limit", "10", "--all"]);
    assert_eq!(code, Some(2), "{err}");
}

/// `trend --all` walks the history host by host (so that memory holds one host's
/// points): its report is the one a single walk of every run gives, steps of equal
/// and different sizes on several hosts and on runs that name no host included.
#[test]
fn trend_all_host_by_host_is_the_report_of_one_walk() {
    let scratch = tempfile::tempdir().unwrap();
    let db = scratch.path().join("h.db");
    let mut s = store::open(&db).unwrap();
    let mut runs = Vec::new();
    for (host, before, after) in [
        ("b-host", 500e6, 400e6),
        ("a-host", 500e6, 400e6),
        ("c-host", 300e6, 300e6),
        ("d-host", 200e6, 260e6),
        ("", 700e6, 500e6),
    ] {
        for day in 0..24 {
            let mut run = planted(host, day, if day < 12 { before } else { after });
            if host.is_empty() {
                run.host.hostname = None;
            }
            runs.push(run);
        }
    }
    s.save_runs(&runs).unwrap();
    drop(s);
    for format in ["json", "table"] {
        let (code, all, err) = on(&db, &["trend", "--all", "--format", format]);
        assert_eq!(code, Some(0), "{err}");
        let (code, one_walk, err) = on(&db, &["trend", "--limit", "500", "--format", format]);
        assert_eq!(code, Some(0), "{err}");
        assert_eq!(all, one_walk, "{format}");
    }
    let (_, json, _) = on(&db, &["trend", "--all", "--format", "json"]);
    let report: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(report["series_examined"], 5, "{report}");
    assert_eq!(report["steps"].as_array().unwrap().len(), 4, "{report}");
}

/// `report --all` walks host by host too: its history (the steps, the charts of the
/// longest 24 series, those of equal length in key order, the table of short series and
/// the word on those left out) is the one a single walk of every run gives.
#[test]
fn report_all_host_by_host_is_the_report_of_one_walk() {
    let scratch = tempfile::tempdir().unwrap();
    let db = scratch.path().join("h.db");
    let mut runs = Vec::new();
    for (host, before, after) in [("b-host", 500e6, 400e6), ("", 700e6, 500e6)] {
        for day in 0..24 {
            let mut run = planted(host, day, if day < 12 { before } else { after });
            run.host.hostname = (!host.is_empty()).then(|| host.to_string());
            runs.push(run);
        }
    }
    // more series than a report charts, of lengths 4 to 8: ties at the cut
    for i in 0..30 {
        for day in 0..(i % 5 + 4) {
            runs.push(planted(&format!("e{i:02}"), day, 100e6 + i as f64));
        }
    }
    // and series of one to three runs, with no step: a table's rows
    for i in 0..6 {
        for day in 0..(i % 3 + 1) {
            runs.push(planted(&format!("s{i:02}"), day, 100e6));
        }
    }
    store::open(&db).unwrap().save_runs(&runs).unwrap();
    let report = |args: &[&str]| {
        let out = scratch.path().join("r.html");
        let out = out.to_str().unwrap();
        let (code, _, err) = on(&db, &[&["report", "--force", "-o", out], args].concat());
        assert_eq!(code, Some(0), "{err}");
        let html = std::fs::read_to_string(out).unwrap();
        // the history section (the runs listed above it are the newest `--limit`)
        let start = html.find("<section id=\"history\">").unwrap();
        let end = start + html[start..].find("</section>").unwrap();
        html[start..end].to_string()
    };
    let all = report(&["--all"]);
    assert_eq!(all.matches("<figure class=\"chart history\">").count(), 24);
    // of 32 series to chart, the 24 longest: those of length 4, and two of 5, left out
    assert!(
        all.contains(
            "8 more series not shown (by host: e00 1, e05 1, e10 1, e15 1, e20 1, 3 other hosts)"
        ),
        "{all}"
    );
    assert!(
        all.contains("<h3>6 series of 3 runs or fewer, with no step</h3>"),
        "{all}"
    );
    assert!(all.contains("from run"), "a step is drawn: {all}");
    assert!(all == report(&["--limit", "500"]), "report --all differs");
}

/// A database in `dir` of `n` runs over `hosts` hosts, a day apart, as `adjust` leaves
/// them.
fn many_runs(
    dir: &std::path::Path,
    n: i64,
    hosts: i64,
    adjust: impl FnOnce(&mut [Run]),
) -> std::path::PathBuf {
    let db = dir.join("h.db");
    let mut runs: Vec<Run> = (0..n)
        .map(|i| planted(&format!("h{}", i % hosts), i % 90, 300e6 + i as f64))
        .collect();
    adjust(&mut runs);
    store::open(&db).unwrap().save_runs(&runs).unwrap();
    db
}

/// More runs than a page holds (500): listings read page by page say what one read
/// of them all says, in the same order, each run once.
#[test]
fn listings_read_in_pages_are_the_whole_listing() {
    let scratch = tempfile::tempdir().unwrap();
    let db = many_runs(scratch.path(), 1100, 3, |runs| {
        // runs that started at the same instant are told apart by id, across a page's end
        let same = runs[550].started_at;
        for run in &mut runs[495..510] {
            run.started_at = same;
        }
    });
    let stdout = |args: &[&str]| ok(&db, args);
    for format in ["json", "csv"] {
        assert_eq!(
            stdout(&["history", "--all", "--format", format]),
            stdout(&["history", "--limit", "5000", "--format", format]),
            "{format}"
        );
    }
    let listed: Vec<serde_json::Value> =
        serde_json::from_str(&stdout(&["history", "--all", "--format", "json"])).unwrap();
    let ids: Vec<u64> = listed.iter().map(|r| r["id"].as_u64().unwrap()).collect();
    let mut unique = ids.clone();
    unique.sort_unstable();
    unique.dedup();
    assert_eq!((ids.len(), unique.len()), (1100, 1100));
    let export: serde_json::Value =
        serde_json::from_str(&stdout(&["export", "--format", "json"])).unwrap();
    let exported: Vec<&str> = export["runs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["uuid"].as_str().unwrap())
        .collect();
    // oldest first: the history's order reversed
    let newest_first: Vec<&str> = listed.iter().map(|r| r["uuid"].as_str().unwrap()).collect();
    assert_eq!(exported, newest_first.into_iter().rev().collect::<Vec<_>>());
    let csv = stdout(&["export", "--format", "csv"]);
    assert_eq!(csv.lines().count(), 1 + 3 * 1100);
    assert_eq!(
        stdout(&["trend", "--all", "--format", "json"]),
        stdout(&["trend", "--limit", "5000", "--format", "json"])
    );
}

/// `history --all` as a table and in Markdown, written page by page in the widths of
/// every page, is the listing of them all at once: the widest cell and the slowest
/// figure (which picks the rate unit) are on other pages than the first.
#[test]
fn history_all_as_text_is_the_whole_listing() {
    let scratch = tempfile::tempdir().unwrap();
    let db = many_runs(scratch.path(), 1234, 4, |runs| {
        // oldest first: run 5 is listed on the last page, run 700 on the second
        runs[5].labels = vec!["a label | with a pipe, and spaces".into()];
        for result in &mut runs[5].results {
            result.throughput = 2000.0;
        }
        runs[700].host.hostname = Some("a-much-longer-hostname-than-the-others".into());
        runs[701].results.clear();
        runs[702].status = RunStatus::Aborted;
    });
    let stdout = |args: &[&str]| ok(&db, args);
    for format in [
        &["--format", "table"][..],
        &["--format", "markdown"],
        &["--units", "GiB"],
    ] {
        let all = stdout(&[&["history", "--all"], format].concat());
        assert_eq!(
            all,
            stdout(&[&["history", "--limit", "5000"], format].concat()),
            "{format:?}"
        );
        // one header, a line a run
        assert_eq!(all.matches("write ").count(), 1, "{format:?}");
        assert!(all.lines().count() >= 1234, "{format:?}");
    }
    let table = stdout(&["history", "--all"]);
    assert!(
        table.contains(" KiB/s"),
        "the slowest run's unit: {table:.400}"
    );
    // none matching: the same word on stderr for the table, the header alone in Markdown
    for format in ["table", "markdown"] {
        let none = |limit: &[&str]| {
            let args = [&["history", "--host", "nowhere", "--format", format], limit].concat();
            on(&db, &args)
        };
        assert_eq!(none(&["--all"]), none(&["--limit", "5000"]), "{format}");
    }
}
