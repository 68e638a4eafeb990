//! `compare`: what changed in the environment, the rows with their verdicts (worst
//! first), and a geometric-mean summary per test. The tables' headers, cells and
//! closing sentences (`compare/sentences.rs`) are shared with the HTML report;
//! `compare --by` is in `fleet.rs`.

mod sentences;

use comfy_table::Color;
use serde::Serialize;

use super::cells::Scale;
use super::listing::{Listing, TextStyle};
use super::{cells, printable};
use crate::compare::{Comparison, EnvChange, Row, RowMatch, TestSummary, Verdict};
use crate::units::{ByteSize, RateUnit};

pub(super) use sentences::{
    explanation, key_name, machine_sentence, needed_sentences, one_sided_sentences, rule_sentence,
};

/// Which runs each side pooled, for headers and JSON.
#[derive(Clone, Debug, Serialize)]
pub struct SideInfo {
    pub selector: String,
    pub runs: Vec<i64>,
}

impl SideInfo {
    /// The side `selector` names, of `runs`.
    pub fn new(selector: &crate::selector::Selector, runs: &[crate::model::Run]) -> SideInfo {
        SideInfo {
            selector: selector.text.clone(),
            runs: runs.iter().filter_map(|r| r.id).collect(),
        }
    }
}

#[derive(Serialize)]
struct CompareJson<'a> {
    baseline: &'a SideInfo,
    candidate: &'a SideInfo,
    #[serde(flatten)]
    comparison: &'a Comparison,
}

/// A side in words: its selector (a label as typed, controls escaped) and the runs it
/// pooled, `label:DR9 (runs 2, 1)`.
pub(super) fn side_text(s: &SideInfo) -> String {
    let ids: Vec<String> = s.runs.iter().map(i64::to_string).collect();
    format!(
        "{} (run{} {})",
        printable::text(&s.selector),
        if ids.len() == 1 { "" } else { "s" },
        ids.join(", ")
    )
}

/// `compare --format json`: the object docs/comparing.md's "Reading a comparison" documents.
pub fn compare_json(base: &SideInfo, cand: &SideInfo, c: &Comparison) -> String {
    super::json(&CompareJson {
        baseline: base,
        candidate: cand,
        comparison: c,
    })
}

/// `cache/engine qdN ×threads`, `*` for a parameter dropped from the match.
pub(super) fn mode(key: &RowMatch) -> String {
    cells::mode(
        key.cache().map(|c| c.name()),
        key.engine().map(|e| e.name()),
        key.iodepth(),
        key.threads(),
    )
}

/// An interval's confidence in percent, with as many decimals as it has (at most two):
/// `95%`, `98%`, `99.69%`.
pub(super) fn level(pct: f64) -> String {
    let text = format!("{pct:.2}");
    format!("{}%", text.trim_end_matches('0').trim_end_matches('.'))
}

/// A row's interval, as every table shows it.
pub(super) fn ci(row: &Row) -> String {
    cells::interval(row.ci_low_pct, row.ci_high_pct)
}

pub(super) fn p(row: &Row) -> String {
    cells::p_values(row.p_value, row.p_adjusted)
}

pub(super) fn verdict_color(v: Verdict) -> Option<Color> {
    match v {
        Verdict::Regression => Some(Color::Red),
        Verdict::Improvement => Some(Color::Green),
        Verdict::Inconclusive => Some(Color::Yellow),
        Verdict::Unchanged => None,
    }
}

/// A row's file: its size, or a metadata test's tree (`4 × 10000 files`).
pub(super) fn file_size(key: &RowMatch) -> String {
    if let Some((files, dirs, file_bytes)) = key.tree() {
        return cells::tree(files, dirs, file_bytes);
    }
    key.file_size().map_or("*".into(), |f| f.to_string())
}

/// A row's record size; `-` for a metadata test, which has none.
fn record_size(key: &RowMatch) -> String {
    match key.tree() {
        Some(_) => "-".into(),
        None => key.record_size().to_string(),
    }
}

/// The byte unit of a comparison's rates, resolved against its rows that count bytes
/// (`--units` never scales operations).
pub(super) fn resolved(c: &Comparison, unit: RateUnit) -> RateUnit {
    let bytes = (c.rows.iter())
        .filter(|r| r.key.rate_kind() == crate::model::RateKind::Bytes)
        .flat_map(|r| [r.baseline_median, r.candidate_median]);
    unit.resolve(bytes)
}

/// The scale the rate columns are headed with: ops/s when every row counts
/// operations, the byte unit otherwise (a row in the other scale then names its own).
pub(super) fn header_scale(c: &Comparison, unit: RateUnit) -> Scale {
    let ops = |r: &Row| r.key.rate_kind() == crate::model::RateKind::Ops;
    match !c.rows.is_empty() && c.rows.iter().all(ops) {
        true => Scale::Ops,
        false => Scale::Bytes(unit),
    }
}

/// A row's rate under a column headed in `header`: in the row's own scale, which it
/// names when it is not the header's.
fn rate_cell(row: &Row, header: Scale, rate: f64) -> String {
    let own = Scale::for_kind(row.key.rate_kind(), header_unit(header));
    match own == header {
        true => cells::scaled(own, rate),
        false => format!("{} {}", cells::scaled(own, rate), own.label()),
    }
}

/// The byte unit a header scale holds (MiB/s when it is ops/s: no byte row is shown).
fn header_unit(header: Scale) -> RateUnit {
    match header {
        Scale::Bytes(unit) => unit,
        Scale::Ops => RateUnit::MiB,
    }
}

/// The rows table's columns before the verdict, with whether each holds a number
/// (aligned right): the terminal and the report show the same table. `unit` is
/// resolved ([`resolved`]).
pub(super) fn row_headers(c: &Comparison, unit: RateUnit) -> [(String, bool); 11] {
    let label = header_scale(c, unit).label();
    [
        ("Test".into(), false),
        ("File".into(), true),
        ("Record".into(), true),
        ("Mode".into(), false),
        (format!("Baseline {label}"), true),
        (format!("Candidate {label}"), true),
        ("Change".into(), true),
        (format!("{} CI", level(c.ci_level_pct)), true),
        ("p (adj.)".into(), true),
        ("Noise".into(), true),
        ("runs".into(), true),
    ]
}

/// The columns a terminal too narrow for the whole rows table leaves out, the first
/// first, rather than let a row take more than two lines: what the verdict already
/// weighs, then what the noise and the verdict already say. [`row_headers`]' indices.
const LEFT_OUT_FIRST: [usize; 4] = [8, 10, 7, 9];

/// The most lines a row of the rows table takes on a terminal.
const ROW_LINES: usize = 2;

/// A row's cells under [`row_headers`], the rates under a header in `header`.
pub(super) fn row_cells(row: &Row, header: Scale) -> [String; 11] {
    [
        row.key.test().name().into(),
        file_size(&row.key),
        record_size(&row.key),
        mode(&row.key),
        rate_cell(row, header, row.baseline_median),
        rate_cell(row, header, row.candidate_median),
        cells::change(row.change_pct),
        ci(row),
        p(row),
        noise(row),
        format!("{}/{}", row.runs_baseline, row.runs_candidate),
    ]
}

/// How far one run's level strays, as the verdict took it: `±3.2%`; `-` for none.
fn noise(row: &Row) -> String {
    row.noise_pct
        .filter(|n| n.is_finite())
        .map_or("-".into(), |n| format!("±{n:.1}%"))
}

/// The indices of the numeric columns, for [`Listing::numeric`].
fn numeric(headers: &[(String, bool)]) -> Vec<usize> {
    (0..headers.len()).filter(|&i| headers[i].1).collect()
}

/// The rows table, and what its rows rest on (see [`explanation`]), each said once
/// under it: when rows differ in it, each is numbered and every row's noise carries
/// its number (`±3.2% [2]`); when every row has the same, it is said for every row.
fn rows_listing(c: &Comparison, unit: RateUnit) -> (Listing, Vec<String>) {
    let headers = row_headers(c, unit);
    let mut names: Vec<&str> = headers.iter().map(|(h, _)| h.as_str()).collect();
    names.push("Verdict");
    let verdict_column = names.len() - 1;
    let noise_column = headers.iter().position(|(h, _)| h == "Noise");
    let mut listing = Listing::new(&names)
        .numeric(&numeric(&headers))
        .at_most_lines(ROW_LINES)
        .optional(&LEFT_OUT_FIRST);
    let explained: Vec<Option<String>> = c.rows.iter().map(explanation).collect();
    let mut distinct: Vec<&str> = Vec::new();
    for text in explained.iter().flatten() {
        if !distinct.contains(&text.as_str()) {
            distinct.push(text);
        }
    }
    let numbered = distinct.len() > 1 || explained.iter().any(Option::is_none);
    let header = header_scale(c, unit);
    for (row, explained) in c.rows.iter().zip(&explained) {
        let mut line = row_cells(row, header).to_vec();
        let marker = explained.as_deref().filter(|_| numbered).and_then(|text| {
            let at = distinct.iter().position(|d| *d == text)?;
            Some(format!("[{}]", at + 1))
        });
        if let (Some(marker), Some(column)) = (marker, noise_column) {
            line[column] = format!("{} {marker}", line[column]);
        }
        line.push(row.verdict.name().to_string());
        listing.push_colored(
            line,
            verdict_color(row.verdict).map(|color| (verdict_column, color)),
        );
    }
    let footnotes = match numbered {
        true => (distinct.iter().enumerate())
            .map(|(i, text)| format!("[{}] {text}", i + 1))
            .collect(),
        false => distinct
            .iter()
            .map(|text| format!("Every row: {text}"))
            .collect(),
    };
    (listing, footnotes)
}

fn changes_listing(c: &Comparison) -> Listing {
    let mut listing = Listing::new(&["What changed", "Baseline", "Candidate"]).wrapped(110);
    for change in &c.environment_changes {
        listing.push(change_cells(change).to_vec());
    }
    listing
}

/// An environment change's cells: the fact's JSON path, then each side's values
/// (`unknown` for a run that did not record the fact: null in JSON), or, for the
/// machine's state, each side in a few words.
pub(super) fn change_cells(e: &EnvChange) -> [String; 3] {
    if let Some(summary) = &e.summary {
        let said = |side: &Option<String>| side.clone().unwrap_or_else(|| "unknown".into());
        return [
            e.field.clone(),
            said(&summary.baseline),
            said(&summary.candidate),
        ];
    }
    let values = |side: &[Option<String>]| {
        side.iter()
            .map(|v| v.as_deref().unwrap_or("unknown"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    [e.field.clone(), values(&e.baseline), values(&e.candidate)]
}

/// The per-test summary's columns, with whether each holds a number.
pub(super) const SUMMARY_HEADERS: [(&str, bool); 5] = [
    ("Test", false),
    ("Rows", true),
    ("Geometric mean change", true),
    ("Regressions", true),
    ("Improvements", true),
];

/// A test's cells under [`SUMMARY_HEADERS`].
pub(super) fn summary_cells(s: &TestSummary) -> [String; 5] {
    [
        s.test.name().into(),
        s.rows.to_string(),
        cells::change(s.geomean_change_pct),
        s.regressions.to_string(),
        s.improvements.to_string(),
    ]
}

fn summary_listing(c: &Comparison) -> Listing {
    let names: Vec<&str> = SUMMARY_HEADERS.iter().map(|(h, _)| *h).collect();
    let numeric: Vec<usize> = (0..names.len()).filter(|&i| SUMMARY_HEADERS[i].1).collect();
    let mut listing = Listing::new(&names).numeric(&numeric);
    for s in &c.summary {
        let color = match s.geomean_change_pct {
            x if s.regressions > 0 && x < 0.0 => Some((2, Color::Red)),
            x if s.improvements > 0 && x > 0.0 => Some((2, Color::Green)),
            _ => None,
        };
        listing.push_colored(summary_cells(s).to_vec(), color);
    }
    listing
}

/// The human report, for the terminal or in Markdown for a ticket.
pub fn compare_text(
    base: &SideInfo,
    cand: &SideInfo,
    c: &Comparison,
    unit: RateUnit,
    style: TextStyle,
) -> String {
    let render = |l: &Listing| l.render(style);
    let unit = resolved(c, unit);
    let mut out = format!(
        "Baseline:  {}\nCandidate: {}\n\n",
        side_text(base),
        side_text(cand)
    );
    if c.environment_changes.is_empty() {
        out.push_str("Environment: no differences recorded between the two sides\n\n");
    } else {
        out.push_str(&render(&changes_listing(c)));
        if let Some(sentence) = machine_sentence(c) {
            out.push_str(&style.paragraph(&format!("{sentence}.\n")));
        }
        out.push('\n');
    }
    let (rows, footnotes) = rows_listing(c, unit);
    out.push_str(&render(&rows));
    out.push_str(&style.paragraph(&lines(footnotes)));
    out.push('\n');
    out.push_str(&render(&summary_listing(c)));
    out.push('\n');
    let mut prose = vec![rule_sentence(c)];
    let single = |r: &&Row| r.n_baseline < 2 || r.n_candidate < 2;
    if c.rows.iter().any(|r| single(&r)) {
        prose.push(
            "Rows with one measurement on a side (imported results, say) compare by percentage only."
                .into(),
        );
    }
    prose.extend(needed_sentences(c));
    prose.extend(one_sided_sentences(c));
    out.push_str(&style.paragraph(&lines(prose)));
    out
}

/// Each of `sentences` on a line of its own.
fn lines(sentences: Vec<String>) -> String {
    sentences.into_iter().map(|s| s + "\n").collect()
}

/// One CSV row per compared row, raw values.
pub fn compare_csv(c: &Comparison) -> String {
    let mut listing = Listing::new(&[
        "test",
        "file_size",
        "record_size",
        "cache",
        "engine",
        "threads",
        "baseline_median",
        "candidate_median",
        "change_pct",
        "ci_low_pct",
        "ci_high_pct",
        "p_value",
        "p_adjusted",
        "n_baseline",
        "n_candidate",
        "runs_baseline",
        "runs_candidate",
        "noise_pct",
        "noise_source",
        "min_detectable_pct",
        "verdict",
        "note",
        // added after the others, so no column a spreadsheet reads moves
        "iodepth",
        "files",
        "dirs",
        "file_bytes",
        "rate_unit",
    ]);
    let opt = cells::raw_or_empty;
    for r in &c.rows {
        let k = &r.key;
        let tree = |part: fn((u64, u64, u64)) -> u64| {
            k.tree().map_or(String::new(), |t| part(t).to_string())
        };
        listing.push(vec![
            k.test().name().into(),
            k.file_size()
                .map_or(String::new(), |f: ByteSize| f.bytes().to_string()),
            k.record_size().bytes().to_string(),
            k.cache().map_or(String::new(), |x| x.name().into()),
            k.engine().map_or(String::new(), |x| x.name().into()),
            k.threads().map_or(String::new(), |x| x.to_string()),
            cells::raw(r.baseline_median),
            cells::raw(r.candidate_median),
            cells::raw(r.change_pct),
            opt(r.ci_low_pct),
            opt(r.ci_high_pct),
            opt(r.p_value),
            opt(r.p_adjusted),
            r.n_baseline.to_string(),
            r.n_candidate.to_string(),
            r.runs_baseline.to_string(),
            r.runs_candidate.to_string(),
            opt(r.noise_pct),
            r.noise_source.clone().unwrap_or_default(),
            opt(r.min_detectable_pct),
            r.verdict.name().into(),
            r.note.clone().unwrap_or_default(),
            k.iodepth().map_or(String::new(), |x| x.to_string()),
            tree(|(files, _, _)| files),
            tree(|(_, dirs, _)| dirs),
            tree(|(_, _, bytes)| bytes),
            Scale::for_kind(k.rate_kind(), RateUnit::Bytes)
                .label()
                .into(),
        ]);
    }
    listing.to_csv()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compare::{Ignored, Verdict};
    use crate::model::{CacheMode, EngineKind, RowKey, TestKind};

    fn row(noise: Option<(f64, &str)>, note: Option<&str>) -> Row {
        Row {
            key: RowMatch::new(
                RowKey {
                    test: TestKind::Write,
                    file_size: ByteSize(1 << 20),
                    record_size: ByteSize(4096),
                    cache: CacheMode::Flush,
                    engine: EngineKind::Posix,
                    iodepth: 1,
                    threads: 1,
                    files: 0,
                    dirs: 0,
                    file_bytes: 0,
                },
                Ignored::default(),
            ),
            baseline_median: 100e6,
            candidate_median: 80e6,
            change_pct: -20.0,
            ci_low_pct: None,
            ci_high_pct: None,
            ci_level_pct: None,
            p_value: None,
            p_adjusted: None,
            verdict: Verdict::Inconclusive,
            n_baseline: 3,
            n_candidate: 3,
            runs_baseline: 1,
            runs_candidate: 1,
            noise_pct: noise.map(|n| n.0),
            noise_source: noise.map(|n| n.1.to_string()),
            min_detectable_pct: None,
            runs_needed: None,
            rounds_needed: None,
            note: note.map(str::to_string),
        }
    }

    #[test]
    fn a_row_says_where_its_noise_came_from_and_what_its_note_adds() {
        let plain = row(Some((3.24, "runs")), Some("noise ±3.2%, runs"));
        assert_eq!(noise(&plain), "±3.2%");
        assert_eq!(
            explanation(&plain).as_deref(),
            Some("noise from the runs compared")
        );
        let more = row(
            Some((12.5, "history: 3 runs")),
            Some("noise ±12.5%, history: 3 runs; the sides lie on either side of a step"),
        );
        assert_eq!(
            explanation(&more).as_deref(),
            Some(
                "noise from the runs compared and the series' history (3 runs); the sides \
                 lie on either side of a step"
            )
        );
        let single = row(None, Some("n = 1 on a side: no statistics possible"));
        assert_eq!(noise(&single), "-");
        assert_eq!(
            explanation(&single).as_deref(),
            Some("n = 1 on a side: no statistics possible")
        );
        // a note worded otherwise is said whole
        let other = row(Some((2.0, "default")), Some("a busy baseline"));
        assert_eq!(
            explanation(&other).as_deref(),
            Some(
                "noise: the default (too few runs to measure it, and no history); a busy \
                 baseline"
            )
        );
        assert_eq!(explanation(&row(None, None)), None);
    }

    #[test]
    fn rows_that_differ_in_what_they_rest_on_are_numbered() {
        let comparison = |rows: Vec<Row>| Comparison {
            environment_changes: Vec::new(),
            rows,
            baseline_only: Vec::new(),
            candidate_only: Vec::new(),
            summary: Vec::new(),
            corrected_over: 0,
            threshold_pct: 5.0,
            alpha: 0.05,
            ci_level_pct: 95.0,
            history_runs: 0,
        };
        let mixed = comparison(vec![
            row(Some((3.0, "runs")), None),
            row(Some((4.0, "history: 5 runs")), None),
            row(Some((3.5, "runs")), None),
        ]);
        let (listing, footnotes) = rows_listing(&mixed, RateUnit::MiB);
        let noise = listing.headers.iter().position(|h| h == "Noise").unwrap();
        let cells: Vec<&str> = listing.rows.iter().map(|r| r[noise].as_str()).collect();
        assert_eq!(cells, ["±3.0% [1]", "±4.0% [2]", "±3.5% [1]"]);
        assert_eq!(footnotes.len(), 2, "{footnotes:?}");
        assert!(footnotes[1].starts_with("[2] noise from the runs compared and"));
        let verdicts: Vec<&str> = listing
            .rows
            .iter()
            .map(|r| r.last().unwrap().as_str())
            .collect();
        assert_eq!(verdicts, ["inconclusive"; 3]);
        // the same for every row: said once, no numbers
        let same = comparison(vec![row(Some((3.0, "runs")), None); 2]);
        let (listing, footnotes) = rows_listing(&same, RateUnit::MiB);
        assert_eq!(listing.rows[0][noise], "±3.0%");
        assert_eq!(footnotes, ["Every row: noise from the runs compared"]);
    }
}
