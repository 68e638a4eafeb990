//! `report A B` tells the two groups apart: the baseline's lines in one colour family,
//! the candidate's in another, and with five runs a side each side drawn as its median
//! with its range, under a legend per side.

use std::collections::BTreeSet;

use crate::common::{Measure, on};

/// The stroke colours of the report's series of `class` (`baseline`, `candidate`).
fn colours(html: &str, class: &str) -> BTreeSet<String> {
    html.split(&format!("<polyline class=\"series {class}\""))
        .skip(1)
        .map(|rest| {
            let at = rest.find("stroke=\"").expect("a series has a stroke") + 8;
            rest[at..at + 7].to_string()
        })
        .collect()
}

#[test]
fn a_report_of_five_runs_a_side_draws_each_side_as_its_median_and_range() {
    let scratch = tempfile::tempdir().unwrap();
    let db = scratch.path().join("h.db");
    for label in ["A", "B"] {
        for _ in 0..5 {
            Measure::tiny(&db, scratch.path())
                .records("4k,16k")
                .repeat(2)
                .tests("write")
                .cache("buffered")
                .label(label)
                .record();
        }
    }
    let (code, html, err) = on(&db, &["report", "A", "B", "-o", "-"]);
    assert_eq!(code, Some(0), "{err}");
    let throughput = html
        .split("<section id=\"throughput\">")
        .nth(1)
        .and_then(|s| s.split("</section>").next())
        .expect("a throughput section");
    // write and rewrite: a median line and a band per side in each chart
    let charts = throughput
        .matches("<figure class=\"chart throughput\">")
        .count();
    assert_eq!(charts, 2, "{throughput}");
    for side in ["baseline", "candidate"] {
        let lines = format!("<polyline class=\"series {side}\"");
        let bands = format!("<polygon class=\"band {side}\"");
        assert_eq!(throughput.matches(&lines).count(), charts, "{side}");
        assert_eq!(throughput.matches(&bands).count(), charts, "{side}");
        let legend = format!("<ul class=\"legend {side}\">");
        assert_eq!(throughput.matches(&legend).count(), charts, "{side}");
    }
    assert!(!throughput.contains("class=\"series run\""));
    let (blue, orange) = (
        colours(throughput, "baseline"),
        colours(throughput, "candidate"),
    );
    assert!(blue.is_disjoint(&orange), "{blue:?} {orange:?}");
    assert!(
        throughput.contains("Baseline: A (runs 5, 4, 3, 2, 1)"),
        "{throughput}"
    );
    assert!(throughput.contains("Candidate: B (runs 10, 9, 8, 7, 6)"));
    assert!(throughput.contains("median of 5 runs · 64 KiB file"));
}

#[test]
fn a_report_of_a_few_runs_a_side_draws_a_shade_per_run() {
    let scratch = tempfile::tempdir().unwrap();
    let db = scratch.path().join("h.db");
    for label in ["A", "A", "B", "B"] {
        Measure::tiny(&db, scratch.path())
            .tests("write")
            .cache("buffered")
            .label(label)
            .record();
    }
    let (code, html, err) = on(&db, &["report", "A", "B", "-o", "-"]);
    assert_eq!(code, Some(0), "{err}");
    let (blue, orange) = (colours(&html, "baseline"), colours(&html, "candidate"));
    assert_eq!((blue.len(), orange.len()), (2, 2), "a shade per run");
    assert!(blue.is_disjoint(&orange));
    assert!(!html.contains("<polygon class=\"band"));
}
