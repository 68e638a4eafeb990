//! `compare --by host|fs|kernel`: how many groups regressed, overall and per test and
//! record size, and a line per group with its worst row.

use serde::Serialize;

use super::compare::{SideInfo, key_name, p, verdict_color};
use super::listing::{Listing, TextStyle};
use super::{cells, printable};
use crate::compare::{FleetComparison, GroupBy};

#[derive(Serialize)]
struct FleetJson<'a> {
    baseline: &'a SideInfo,
    candidate: &'a SideInfo,
    #[serde(flatten)]
    fleet: &'a FleetComparison,
}

/// `compare --by … --format json`: the sides, then the fleet comparison with `groups`.
pub fn fleet_json(base: &SideInfo, cand: &SideInfo, f: &FleetComparison) -> String {
    super::json(&FleetJson {
        baseline: base,
        candidate: cand,
        fleet: f,
    })
}

/// The fleet-wide summary lines, most regressed first.
fn fleet_summary(f: &FleetComparison) -> String {
    let noun = match f.by {
        GroupBy::Host => "hosts",
        GroupBy::Fs => "filesystem types",
        GroupBy::Kernel => "kernels",
    };
    let mut out = format!(
        "{} of {} {noun} regressed.\n",
        f.groups_regressed,
        f.groups.len()
    );
    for line in f.summary.iter().filter(|l| l.regressed > 0) {
        // a metadata test has no record size to be at
        let at = match line.test.is_metadata() {
            true => String::new(),
            false => format!(" at {}", line.record_size),
        };
        out.push_str(&format!(
            "{} of {} {noun} regressed in {}{at}\n",
            line.regressed,
            line.of,
            line.test.name(),
        ));
    }
    out
}

fn groups_listing(f: &FleetComparison) -> Listing {
    let by = match f.by {
        GroupBy::Host => "Host",
        GroupBy::Fs => "FS",
        GroupBy::Kernel => "Kernel",
    };
    let mut listing = Listing::new(&[
        by,
        "Verdict",
        "Regressions",
        "Rows",
        "Worst row",
        "Change",
        "p (adj.)",
    ])
    .numeric(&[2, 3, 5, 6]);
    for g in &f.groups {
        let (name, change, pv) = match &g.worst {
            Some(row) => (key_name(&row.key), cells::change(row.change_pct), p(row)),
            None => ("-".into(), "-".into(), "-".into()),
        };
        listing.push_colored(
            vec![
                g.key.clone(),
                g.verdict.name().into(),
                g.regressions.to_string(),
                g.rows.len().to_string(),
                name,
                change,
                pv,
            ],
            verdict_color(g.verdict).map(|color| (1, color)),
        );
    }
    listing
}

/// The fleet report for the terminal or, in Markdown, a ticket.
pub fn fleet_text(
    base: &SideInfo,
    cand: &SideInfo,
    f: &FleetComparison,
    style: TextStyle,
) -> String {
    let mut out = format!(
        "Baseline:  {} ({})\nCandidate: {} ({})\nCompared by {}.\n\n",
        printable::text(&base.selector),
        crate::units::count(base.runs.len(), "run"),
        printable::text(&cand.selector),
        crate::units::count(cand.runs.len(), "run"),
        f.by.name()
    );
    out.push_str(&fleet_summary(f));
    out.push('\n');
    out.push_str(&groups_listing(f).render(style));
    out.push_str(&format!(
        "Each {} is compared on its own: a regression needs p < {} after Benjamini–Hochberg \
         correction over that {}'s rows and a change beyond {}%.\n",
        f.by.name(),
        f.alpha,
        f.by.name(),
        f.threshold_pct
    ));
    for (what, keys) in [
        ("Only in the baseline", &f.baseline_only),
        ("Only in the candidate", &f.candidate_only),
        ("No row in common", &f.nothing_in_common),
    ] {
        if !keys.is_empty() {
            // group keys are host names, kernels, filesystem types: stored text
            let keys: Vec<_> = keys.iter().map(|k| printable::cell(k)).collect();
            out.push_str(&format!("{what}: {}\n", keys.join(", ")));
        }
    }
    out
}

/// One CSV line per group, with its worst row.
pub fn fleet_csv(f: &FleetComparison) -> String {
    let mut listing = Listing::new(&[
        "key",
        "verdict",
        "regressions",
        "rows",
        "worst_test",
        "worst_file_size",
        "worst_record_size",
        "worst_change_pct",
        "worst_p_adjusted",
    ]);
    for g in &f.groups {
        let w = g.worst.as_ref();
        listing.push(vec![
            g.key.clone(),
            g.verdict.name().into(),
            g.regressions.to_string(),
            g.rows.len().to_string(),
            w.map_or(String::new(), |r| r.key.test().name().into()),
            w.and_then(|r| r.key.file_size())
                .map_or(String::new(), |s| s.bytes().to_string()),
            w.map_or(String::new(), |r| r.key.record_size().bytes().to_string()),
            cells::raw_or_empty(w.map(|r| r.change_pct)),
            cells::raw_or_empty(w.and_then(|r| r.p_adjusted)),
        ]);
    }
    listing.to_csv()
}
