//! A two-group report's throughput lines: the baseline's in blues, the candidate's in
//! oranges, so which side a line belongs to is seen before which run it is. While each
//! side has no more runs than its family has shades, every run keeps a line of its own;
//! with more on either side, each side draws its median over its runs with the
//! slowest-to-fastest run shaded around it, so twenty runs read as easily as two.

use std::collections::BTreeMap;

use super::rate;
use super::throughput::{
    RunLine, chart_line, in_list_order, legend_html, line_name, several_file_sizes,
};
use crate::model::{RowKey, Run, TestKind};
use crate::render::SideInfo;
use crate::render::svg::{self, Line, Point, Side, Spread, Stroke};
use crate::stats::Summary;
use crate::units::{ByteSize, RateUnit, count};

/// The two sides of a report, and how their runs are drawn.
pub(super) struct Groups<'a> {
    baseline: &'a SideInfo,
    candidate: &'a SideInfo,
    /// Each side as its median and range rather than a line per run.
    pooled: bool,
}

impl<'a> Groups<'a> {
    pub fn new(baseline: &'a SideInfo, candidate: &'a SideInfo) -> Self {
        let most = baseline.runs.len().max(candidate.runs.len());
        Groups {
            baseline,
            candidate,
            pooled: most > svg::SHADES,
        }
    }

    /// The side a run was selected for; a run on both sides (which `report` warns
    /// about) is charted once, with the baseline.
    fn side_of(&self, run: &Run) -> Option<(Side, &SideInfo)> {
        let id = run.id?;
        [
            (Side::Baseline, self.baseline),
            (Side::Candidate, self.candidate),
        ]
        .into_iter()
        .find(|(_, info)| info.runs.contains(&id))
    }

    fn info(&self, side: Side) -> &SideInfo {
        match side {
            Side::Baseline => self.baseline,
            Side::Candidate => self.candidate,
        }
    }

    /// What the section's note says the drawing means.
    pub fn note(&self) -> String {
        let colours = "the baseline's lines are blue, the candidate's orange";
        match self.pooled {
            true => format!(
                "with more than {} runs on a side, each side is drawn as the median of its runs' \
                 medians, the band spanning its slowest to its fastest run; {colours}",
                svg::SHADES
            ),
            false => format!(
                "the thin bar spans the slowest to the fastest repetition; {colours}, one shade \
                 per run"
            ),
        }
    }

    /// The heading of a side's legend: `Baseline: DR8 (runs 1, 2, 3)`.
    fn heading(&self, side: Side) -> String {
        let info = self.info(side);
        let ids: Vec<String> = info.runs.iter().map(i64::to_string).collect();
        let name = match side {
            Side::Baseline => "Baseline",
            Side::Candidate => "Candidate",
        };
        format!(
            "{name}: {} ({} {})",
            info.selector,
            if ids.len() == 1 { "run" } else { "runs" },
            ids.join(", ")
        )
    }
}

/// The chart's lines for one test and the legends under it, one per side.
pub(super) fn group_lines(
    groups: &Groups,
    test: TestKind,
    lines: &[RunLine],
    unit: RateUnit,
) -> (Vec<Line>, String) {
    let several_files = several_file_sizes(lines);
    let mut chart = Vec::new();
    let mut legends = String::new();
    for side in [Side::Baseline, Side::Candidate] {
        let mine: Vec<&RunLine> = lines
            .iter()
            .filter(|l| groups.side_of(l.run).is_some_and(|(s, _)| s == side))
            .collect();
        // within a side, a dash pattern per file size and mode (the colour tells the
        // sides apart, whose modes may differ when the comparison ignores them)
        let keys = in_list_order(mine.iter().map(|l| l.key));
        let dash = |key: &RowKey| keys.iter().position(|k| k == key).unwrap_or(0);
        let entries = match groups.pooled {
            true => pooled_lines(groups, side, test, &mine, unit, &dash, &mut chart),
            false => mine
                .iter()
                .map(|l| {
                    let stroke =
                        svg::side_style(side, shade(groups.info(side), l.run), dash(&l.key));
                    chart.push(Line {
                        stroke,
                        ..chart_line(test, l, unit)
                    });
                    (stroke, line_name(l, several_files))
                })
                .collect(),
        };
        legends.push_str(&legend_html(
            &format!("legend {}", side.name()),
            Some(&groups.heading(side)),
            &entries,
        ));
    }
    (chart, legends)
}

/// A run's shade: its place among its side's runs, darkest first.
fn shade(info: &SideInfo, run: &Run) -> usize {
    run.id
        .and_then(|id| info.runs.iter().position(|&r| r == id))
        .unwrap_or(0)
}

/// One line per file size and mode of `side`: at each record size, the median of its
/// runs' medians, banded by the slowest and the fastest run.
fn pooled_lines(
    groups: &Groups,
    side: Side,
    test: TestKind,
    lines: &[&RunLine],
    unit: RateUnit,
    dash: &dyn Fn(&RowKey) -> usize,
    chart: &mut Vec<Line>,
) -> Vec<(Stroke, String)> {
    let mut medians: BTreeMap<RowKey, BTreeMap<ByteSize, Vec<f64>>> = BTreeMap::new();
    let mut modes: BTreeMap<RowKey, Option<&str>> = BTreeMap::new();
    for l in lines {
        modes.insert(l.key, l.mode.as_deref());
        for (record, s) in &l.points {
            medians
                .entry(l.key)
                .or_default()
                .entry(*record)
                .or_default()
                .push(s.median);
        }
    }
    let selector = &groups.info(side).selector;
    let per = unit.bytes_per_sec();
    let mut entries = Vec::new();
    for key in in_list_order(medians.keys().copied()) {
        let by_record = &medians[&key];
        let stroke = svg::side_style(side, 1, dash(&key));
        let mut what = format!("{} file", key.file_size);
        if let Some(Some(mode)) = modes.get(&key) {
            what = format!("{what} · {mode}");
        }
        let runs = by_record.values().map(Vec::len).max().unwrap_or(0);
        let points = by_record
            .iter()
            .filter_map(|(record, values)| {
                let s = Summary::of(values)?;
                Some(Point {
                    x: (record.bytes().max(1) as f64).log2(),
                    y: s.median / per,
                    range: Some((s.min / per, s.max / per)),
                    tip: format!(
                        "{} {selector}: {test}, {what}, {record} records: median of {} {} {} \
                         (slowest run {}, fastest {})",
                        side.name(),
                        count(s.n, "run"),
                        rate(unit, s.median),
                        unit.label(),
                        rate(unit, s.min),
                        rate(unit, s.max)
                    ),
                })
            })
            .collect();
        chart.push(Line {
            stroke,
            spread: Spread::Band,
            points,
        });
        entries.push((
            stroke,
            format!(
                "median of {} · {what} · band: slowest to fastest run",
                count(runs, "run")
            ),
        ));
    }
    entries
}

#[cfg(test)]
mod tests {
    use super::super::tests::run;
    use super::super::throughput::throughput_section;
    use super::*;
    use std::collections::BTreeSet;

    /// `n` runs a side: the baseline's ids 1..=n at 100 MB/s, the candidate's after them
    /// at 80 MB/s, each at two record sizes.
    fn groups_of(n: i64) -> (Vec<Run>, SideInfo, SideInfo) {
        let mut runs = Vec::new();
        for id in 1..=2 * n {
            let (level, label) = if id <= n { (100e6, "A") } else { (80e6, "B") };
            let values = [level, level * 1.01, level * 0.99].map(|v| v + id as f64 * 1e5);
            runs.push(run(
                id,
                "bebox",
                label,
                &[
                    (TestKind::Write, 4096, &values),
                    (TestKind::Write, 65536, &values),
                ],
            ));
        }
        let side = |selector: &str, ids: std::ops::RangeInclusive<i64>| SideInfo {
            selector: selector.into(),
            runs: ids.collect(),
        };
        (runs, side("A", 1..=n), side("B", n + 1..=2 * n))
    }

    /// The stroke colours of the chart's series of `class`.
    fn colours(svg: &str, class: &str) -> BTreeSet<String> {
        svg.split(&format!("<polyline class=\"series {class}\""))
            .skip(1)
            .map(|rest| {
                let at = rest.find("stroke=\"").unwrap() + 8;
                rest[at..at + 7].to_string()
            })
            .collect()
    }

    #[test]
    fn a_few_runs_a_side_are_shades_of_two_families() {
        let (runs, a, b) = groups_of(3);
        let html = throughput_section(&runs, Some(&Groups::new(&a, &b)), RateUnit::Auto);
        let (blue, orange) = (colours(&html, "baseline"), colours(&html, "candidate"));
        assert_eq!(
            (blue.len(), orange.len()),
            (3, 3),
            "a shade per run: {html}"
        );
        assert!(blue.is_disjoint(&orange));
        assert!(!html.contains("class=\"series run\""));
        // a legend per side, headed by its selector and runs
        assert!(html.contains(
            "<ul class=\"legend baseline\"><li class=\"side\">Baseline: A (runs 1, 2, 3)</li>"
        ));
        assert!(html.contains(
            "<ul class=\"legend candidate\"><li class=\"side\">Candidate: B (runs 4, 5, 6)</li>"
        ));
        assert!(!html.contains("class=\"band"), "no bands for a few runs");
    }

    #[test]
    fn five_runs_a_side_draw_each_side_as_its_median_and_range() {
        let (runs, a, b) = groups_of(5);
        let html = throughput_section(&runs, Some(&Groups::new(&a, &b)), RateUnit::Auto);
        // one chart (write), one line and one band per side
        assert_eq!(
            html.matches("<polyline class=\"series baseline\"").count(),
            1
        );
        assert_eq!(
            html.matches("<polyline class=\"series candidate\"").count(),
            1
        );
        assert_eq!(html.matches("<polygon class=\"band baseline\"").count(), 1);
        assert_eq!(html.matches("<polygon class=\"band candidate\"").count(), 1);
        assert_ne!(colours(&html, "baseline"), colours(&html, "candidate"));
        assert!(html.contains("median of 5 runs · 1 MiB file"), "{html}");
        // the median of the baseline's run medians: runs 1..=5 add 0.1..0.5 MB/s
        let tip = "baseline A: write, 1 MiB file, 4 KiB records: median of 5 runs 95.7 MiB/s";
        assert!(html.contains(tip), "{html}");
        assert!(html.contains("slowest run 95.5, fastest 95.8"), "{html}");
    }

    #[test]
    fn a_run_on_both_sides_is_charted_once_with_the_baseline() {
        let (runs, a, mut b) = groups_of(2);
        b.runs.push(1);
        let html = throughput_section(&runs, Some(&Groups::new(&a, &b)), RateUnit::Auto);
        assert_eq!(colours(&html, "baseline").len(), 2);
        assert_eq!(colours(&html, "candidate").len(), 2);
    }
}
