//! Tests of the whole report: self-contained, escaped, every section drawn, and the
//! same figures' text as the terminal.

use chrono::TimeZone;

use super::history::history_figure;
use super::throughput::run_name;
use super::*;
use crate::compare::{Ignored, Options, compare};
use crate::model::{Measurement, TestKind};
use crate::render::TextStyle;
use crate::render::cells::{self, change};
use crate::store::tests::sample_run;
use crate::units::ByteSize;

/// A run with `reps` repetitions of every (test, record) at `level` bytes/s.
pub(super) fn run(id: i64, host: &str, label: &str, figures: &[(TestKind, u64, &[f64])]) -> Run {
    let mut run = sample_run(host, id * 10);
    run.id = Some(id);
    run.labels = vec![label.into()];
    run.results = figures
        .iter()
        .flat_map(|(test, record, values)| {
            values.iter().enumerate().map(move |(i, &v)| Measurement {
                test: *test,
                file_size: ByteSize(1 << 20),
                record_size: ByteSize(*record),
                repetition: i as u32 + 1,
                bytes: 1 << 20,
                elapsed_ns: 1,
                throughput: v,
                latency_ns: None,
                engine: crate::model::EngineKind::Posix,
                cache: crate::model::CacheMode::Flush,
                ops: None,
            })
        })
        .collect();
    run.stamp_combination();
    run
}

const FAST: &[f64] = &[100e6, 101e6, 99e6, 100.5e6, 99.5e6];
const SLOW: &[f64] = &[80e6, 81e6, 79e6, 80.5e6, 79.5e6];

fn two_sides() -> (Vec<Run>, Vec<Run>) {
    let base = vec![run(
        1,
        "bebox",
        "A",
        &[
            (TestKind::Write, 4096, FAST),
            (TestKind::Write, 65536, FAST),
            (TestKind::Read, 4096, FAST),
        ],
    )];
    let mut cand = run(
        2,
        "bebox",
        "B",
        &[
            (TestKind::Write, 4096, SLOW),
            (TestKind::Write, 65536, FAST),
            (TestKind::Read, 4096, FAST),
        ],
    );
    cand.host.kernel = Some("6.13.0".into());
    (base, vec![cand])
}

fn options() -> Options {
    Options {
        threshold: 0.05,
        alpha: 0.05,
        ignore: Ignored::default(),
    }
}

fn step(key: &SeriesKey, pct: f64) -> Step {
    Step {
        series: key.clone(),
        run_id: Some(2),
        started_at: Utc.with_ymd_and_hms(2026, 11, 1, 12, 20, 0).unwrap(),
        before: 100e6,
        after: 100e6 * (1.0 + pct / 100.0),
        change_pct: pct,
        runs_before: 1,
        runs_after: 1,
    }
}

/// The series of `runs` as `report` builds them, each with its steps.
fn histories<'a>(runs: &[Run], steps: &'a [Step]) -> Vec<SeriesHistory<'a>> {
    crate::trend::tests::series_points(runs)
        .into_iter()
        .map(|(key, points)| {
            let steps = steps.iter().filter(|s| s.series == key).collect();
            SeriesHistory { key, points, steps }
        })
        .collect()
}

fn full_report(runs: &[Run], steps: &[Step], c: &Comparison, sides: &[SideInfo]) -> String {
    report_html(&ReportInput {
        title: "iozone report".into(),
        generated_at: Utc.with_ymd_and_hms(2026, 12, 1, 8, 0, 0).unwrap(),
        runs,
        comparison: Some((&sides[0], &sides[1], c)),
        sides: Some((&sides[0], &sides[1])),
        series: histories(runs, steps),
        series_left_out: Vec::new(),
        unit: RateUnit::Auto,
    })
}

fn sides() -> Vec<SideInfo> {
    vec![
        SideInfo {
            selector: "A".into(),
            runs: vec![1],
        },
        SideInfo {
            selector: "B".into(),
            runs: vec![2],
        },
    ]
}

/// A document with everything in it: two runs, a comparison, a series with a step.
fn sample_report() -> (String, Vec<Run>) {
    let (base, cand) = two_sides();
    let c = compare(&base, &cand, Default::default(), &options()).unwrap();
    let runs: Vec<Run> = cand.into_iter().chain(base).collect();
    let key = histories(&runs, &[])[0].key.clone();
    let steps = [step(&key, -18.2)];
    (full_report(&runs, &steps, &c, &sides()), runs)
}

fn assert_clean(html: &str) {
    for bad in [
        "NaN", "inf", "http://", "https://", "src=", "<link", "<script",
    ] {
        assert!(!html.contains(bad), "the report contains {bad:?}:\n{html}");
    }
}

#[test]
fn the_document_is_self_contained() {
    let (html, _) = sample_report();
    assert!(html.starts_with("<!DOCTYPE html>"));
    assert!(html.trim_end().ends_with("</html>"));
    assert!(html.contains("<style>"));
    assert_clean(&html);
}

#[test]
fn every_test_has_a_chart() {
    let (html, _) = sample_report();
    let charts: Vec<&str> = html
        .split("<figure class=\"chart throughput\">")
        .skip(1)
        .collect();
    assert_eq!(charts.len(), 2, "write and read");
    assert!(charts.iter().all(|c| c.contains("<svg")));
    assert!(charts[0].contains("<h3>write</h3>") && charts[1].contains("<h3>read</h3>"));
    // record ticks on the write chart, which has 4 KiB and 64 KiB
    assert!(charts[0].contains(">4 KiB</text>") && charts[0].contains(">64 KiB</text>"));
}

#[test]
fn the_legends_name_every_run() {
    let (html, runs) = sample_report();
    // a two-group report: a legend per side under each chart
    let figure = html
        .split("<figure class=\"chart throughput\">")
        .nth(1)
        .unwrap();
    let legend = figure.split("</figure>").next().unwrap();
    assert_eq!(legend.matches("<ul class=\"legend ").count(), 2, "{legend}");
    for run in &runs {
        assert!(legend.contains(&escape(&run_name(run))), "{legend}");
    }
    assert!(
        legend.contains("#1 · A · bebox · 2026-11-01 12:10 UTC"),
        "{legend}"
    );
}

#[test]
fn a_run_of_several_engines_draws_a_line_for_each() {
    let mut combined = run(3, "bebox", "api", &[(TestKind::Write, 4096, &[1e9, 1.1e9])]);
    crate::store::tests::also_through(&mut combined, crate::model::EngineKind::Mmap, 2.0);
    let html = super::throughput::throughput_section(
        std::slice::from_ref(&combined),
        None,
        RateUnit::Auto,
    );
    let legend = html.split("<ul class=\"legend\">").nth(1).unwrap();
    let name = run_name(&combined);
    let first = format!(
        "{name} · {}/{}",
        combined.params.cache().name(),
        combined.params.engine().name()
    );
    for mode_line in [
        first,
        format!("{name} · {}/mmap", combined.params.cache().name()),
    ] {
        assert!(
            legend.contains(&escape(&mode_line)),
            "{mode_line}: {legend}"
        );
    }
}

#[test]
fn hostile_text_is_escaped() {
    let mut r = run(
        1,
        "<script>alert(1)</script>",
        "<b>&\"x",
        &[(TestKind::Write, 4096, FAST)],
    );
    r.note = Some("a < b & 'c'".into());
    let steps = [];
    let html = report_html(&ReportInput {
        title: "<i>title</i>".into(),
        generated_at: Utc::now(),
        runs: std::slice::from_ref(&r),
        comparison: None,
        sides: None,
        series: histories(std::slice::from_ref(&r), &steps),
        series_left_out: Vec::new(),
        unit: RateUnit::Auto,
    });
    assert!(html.contains("&lt;b&gt;&amp;&quot;x"));
    assert!(!html.contains("<b>&\"x"));
    assert!(html.contains("&lt;script&gt;alert(1)&lt;/script&gt;"));
    assert!(html.contains("a &lt; b &amp; &#39;c&#39;"));
    assert!(!html.contains("<i>title"));
    assert_clean(&html);
}

#[test]
fn the_comparison_marks_a_regression() {
    let (html, _) = sample_report();
    let section = html.split("<section id=\"comparison\">").nth(1).unwrap();
    assert!(section.contains("<tr class=\"regression\">"), "{section}");
    assert!(section.contains("<span class=\"badge regression\">regression</span>"));
    assert!(section.contains("\u{2212}20.0%"));
    // the environment change above the rows, the bar chart below
    let env = section.find("host.kernel").unwrap();
    assert!(env < section.find("<table class=\"rows\">").unwrap());
    assert!(section.contains("class=\"band\"") && section.contains("#c62828"));
}

#[test]
fn a_step_is_marked_with_its_change() {
    let (html, _) = sample_report();
    let history = html.split("<section id=\"history\">").nth(1).unwrap();
    assert!(history.contains("class=\"step\""));
    assert!(history.contains(">-18.2%</text>"), "{history}");
}

#[test]
fn terminal_and_html_show_the_same_change_interval_and_p_value() {
    let runs = vec![
        run(
            1,
            "h",
            "a",
            &[(TestKind::Write, 4096, &[100e6, 101e6, 99e6])],
        ),
        run(2, "h", "b", &[(TestKind::Write, 4096, &[80e6, 81e6, 79e6])]),
    ];
    let c = compare(&runs[..1], &runs[1..], Default::default(), &options()).unwrap();
    let row = &c.rows[0];
    let sides = sides();
    let html = full_report(&runs, &[], &c, &sides);
    let text = super::super::compare_text(
        &sides[0],
        &sides[1],
        &c,
        RateUnit::MiB,
        TextStyle::table(false),
    );
    for cell in [
        cells::change(row.change_pct),
        cells::interval(row.ci_low_pct, row.ci_high_pct),
        cells::p_values(row.p_value, row.p_adjusted),
    ] {
        assert!(cell != "-", "{row:?}");
        assert!(text.contains(&cell), "terminal lacks {cell}: {text}");
        assert!(html.contains(&escape(&cell)), "HTML lacks {cell}");
    }
}

#[test]
fn history_and_html_show_the_same_run_cells() {
    let mut runs = vec![run(
        7,
        "h<1>",
        "a",
        &[(TestKind::Write, 4096, &[100e6, 101e6, 99e6])],
    )];
    runs[0].params.threads = 4;
    runs[0].params.caches = vec![crate::model::CacheMode::Buffered];
    let results =
        std::collections::HashMap::from([(7, crate::model::RowSummary::of(&runs[0].results))]);
    let (listing, _) = crate::render::history_listing(&runs, &results, RateUnit::MiB);
    let text = listing.to_table();
    let html = report_html(&ReportInput {
        title: "t".into(),
        generated_at: Utc::now(),
        runs: &runs,
        comparison: None,
        sides: None,
        series: Vec::new(),
        series_left_out: Vec::new(),
        unit: RateUnit::Auto,
    });
    let mode = cells::run_mode(&runs[0].params);
    // the sample run keeps 32 operations in flight
    assert_eq!(mode, "buffered/pread qd32 ×4");
    for cell in [mode, "h<1>".to_string(), runs[0].labels.join(", ")] {
        assert!(text.contains(&cell), "terminal lacks {cell}: {text}");
        assert!(html.contains(&escape(&cell)), "HTML lacks {cell}");
    }
}

#[test]
fn empty_input_renders_every_section() {
    let html = report_html(&ReportInput {
        title: String::new(),
        generated_at: Utc::now(),
        runs: &[],
        comparison: None,
        sides: None,
        series: Vec::new(),
        series_left_out: Vec::new(),
        unit: RateUnit::Auto,
    });
    for id in ["runs", "throughput", "comparison", "history"] {
        assert!(html.contains(&format!("<section id=\"{id}\">")));
    }
    assert_eq!(html.matches("class=\"empty\"").count(), 4, "{html}");
    assert!(!html.contains("<svg"));
    assert_clean(&html);
}

#[test]
fn degenerate_data_draws_without_nan() {
    // one record size, one repetition, zero throughput, and all-equal figures
    let zero = run(1, "h", "z", &[(TestKind::Write, 4096, &[0.0])]);
    let flat = run(2, "h", "f", &[(TestKind::Write, 4096, &[5e6, 5e6, 5e6])]);
    let odd = run(
        3,
        "h",
        "o",
        &[(TestKind::Read, 4096, &[f64::NAN, f64::INFINITY])],
    );
    let runs = vec![zero, flat, odd];
    let c = compare(&runs[..1], &runs[1..2], Default::default(), &options()).unwrap();
    let mut broken = c.clone();
    broken.rows[0].change_pct = f64::INFINITY;
    broken.rows[0].ci_low_pct = Some(f64::NAN);
    broken.rows[0].ci_high_pct = Some(f64::NAN);
    broken.rows[0].p_value = Some(f64::NAN);
    broken.rows[0].p_adjusted = Some(f64::NAN);
    let key = histories(&runs, &[])[0].key.clone();
    let steps = [step(&key, f64::NAN), step(&key, 0.0)];
    for comparison in [&c, &broken] {
        let html = full_report(&runs, &steps, comparison, &sides());
        assert_clean(&html);
        assert!(html.contains("<svg"));
    }
    // one point in a series, and a series with none
    let one = SeriesHistory {
        key: key.clone(),
        points: vec![(Utc::now(), Some(1), 0.0)],
        steps: vec![&steps[0]],
    };
    let none = SeriesHistory {
        key,
        points: Vec::new(),
        steps: Vec::new(),
    };
    assert_clean(&history_section(&[one, none], &[], RateUnit::Auto));
}

#[test]
fn a_history_chart_has_a_point_per_run_and_the_levels_of_its_step() {
    let runs: Vec<Run> = (1..=4)
        .rev()
        .map(|i| run(i, "h", "x", &[(TestKind::Write, 4096, &[i as f64 * 1e6])]))
        .collect();
    let key = histories(&runs, &[])[0].key.clone();
    let steps = [step(&key, 100.0)];
    let series = histories(&runs, &steps);
    assert_eq!((series.len(), series[0].steps.len()), (1, 1));
    let figure = history_figure(&series[0], RateUnit::Auto);
    assert_eq!(figure.matches("<circle").count(), 4, "{figure}");
    assert_eq!(figure.matches("class=\"level\"").count(), 2);
    assert!(figure.contains(">+100.0%</text>") && figure.contains("from run 2"));
}

/// `n` runs of one write row on host `h`, ids from `first`, each a day apart.
fn runs_of(first: i64, n: i64, record: u64) -> Vec<Run> {
    (first..first + n)
        .map(|id| {
            let mut r = run(
                id,
                "h",
                "x",
                &[(TestKind::Write, record, &[id as f64 * 1e6])],
            );
            r.started_at += chrono::Duration::days(id);
            r
        })
        .collect()
}

#[test]
fn short_series_without_a_step_share_one_table() {
    // four runs at 4 KiB records: a chart; three at 64 KiB, and one at 1 MiB: table rows
    let runs: Vec<Run> = [
        runs_of(1, 4, 4096),
        runs_of(10, 3, 65536),
        runs_of(20, 1, 1 << 20),
    ]
    .concat();
    let series = histories(&runs, &[]);
    assert_eq!(series.len(), 3);
    let section = history_section(&series, &[], RateUnit::MiB);
    assert_eq!(
        section.matches("<figure class=\"chart history\">").count(),
        1,
        "{section}"
    );
    assert_eq!(
        section.matches("<figure class=\"short-series\">").count(),
        1
    );
    assert!(
        section.contains("<h3>2 series of 3 runs or fewer, with no step</h3>"),
        "{section}"
    );
    // a row per series, its runs and their medians oldest first
    assert_eq!(
        section.matches("<tr>").count(),
        3,
        "a header and two rows: {section}"
    );
    assert!(section.contains("<td>10, 11, 12</td>"), "{section}");
    assert!(
        section.contains("<td class=\"num\">9.5 · 10.5 · 11.4</td>"),
        "{section}"
    );
    assert!(!section.contains("left-out"));
    // a step found in a short series charts it
    let key = series
        .iter()
        .find(|s| s.points.len() == 3)
        .unwrap()
        .key
        .clone();
    let steps = [step(&key, 10.0)];
    let section = history_section(&histories(&runs, &steps), &[], RateUnit::MiB);
    assert_eq!(
        section.matches("<figure class=\"chart history\">").count(),
        2
    );
    assert!(
        section.contains("<h3>1 series of 3 runs or fewer"),
        "{section}"
    );
}

#[test]
fn series_left_out_are_counted_by_host_and_the_header_adds_up() {
    let runs = runs_of(1, 4, 4096);
    let mut left_out = vec![histories(&runs, &[])[0].key.clone(); 3];
    left_out[2].hostname = Some("vm".into());
    let html = report_html(&ReportInput {
        title: "t".into(),
        generated_at: Utc::now(),
        runs: &runs,
        comparison: None,
        sides: None,
        series: histories(&runs, &[]),
        series_left_out: left_out,
        unit: RateUnit::Auto,
    });
    assert!(
        html.contains("4 series in the history (1 charted, 3 not shown)"),
        "{html}"
    );
    assert!(
        html.contains("3 more series not shown (by host: h 2, vm 1): a report charts 24 series"),
        "{html}"
    );
    assert!(html.contains("--host, --fs, --label, --test or --record"));
    assert_clean(&html);
}

#[test]
fn changes_carry_a_true_minus() {
    assert_eq!(change(-18.24), "-18.2%");
}
