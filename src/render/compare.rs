//! `compare`: what changed in the environment, the rows with their verdicts (worst
//! first), and a geometric-mean summary per test. The tables' headers, cells and
//! closing sentences are shared with the HTML report; `compare --by` is in `fleet.rs`.

use comfy_table::Color;
use serde::Serialize;

use super::listing::{Listing, TextStyle};
use super::{cells, printable};
use crate::compare::{Comparison, EnvChange, Row, RowKey, TestSummary, Verdict};
use crate::units::{ByteSize, RateUnit, count};

/// Which runs each side pooled, for headers and JSON.
#[derive(Clone, Debug, Serialize)]
pub struct SideInfo {
    pub selector: String,
    pub runs: Vec<i64>,
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

/// `compare --format json`: the object README's "Reading a comparison" documents.
pub fn compare_json(base: &SideInfo, cand: &SideInfo, c: &Comparison) -> String {
    super::json(&CompareJson {
        baseline: base,
        candidate: cand,
        comparison: c,
    })
}

/// `cache/engine qdN ×threads`, `*` for a parameter dropped from the match.
pub(super) fn mode(key: &RowKey) -> String {
    cells::mode(
        key.cache.map(|c| c.name()),
        key.engine.map(|e| e.name()),
        key.iodepth,
        key.threads,
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

pub(super) fn file_size(key: &RowKey) -> String {
    key.file_size.map_or("*".into(), |f| f.to_string())
}

/// The rows table's columns before the verdict, with whether each holds a number
/// (aligned right): the terminal and the report show the same table.
pub(super) fn row_headers(c: &Comparison, unit: RateUnit) -> [(String, bool); 10] {
    [
        ("Test".into(), false),
        ("File".into(), true),
        ("Record".into(), true),
        ("Mode".into(), false),
        (format!("Baseline {}", unit.label()), true),
        (format!("Candidate {}", unit.label()), true),
        ("Change".into(), true),
        (format!("{} CI", level(c.ci_level_pct)), true),
        ("p (adj.)".into(), true),
        ("runs".into(), true),
    ]
}

/// A row's cells under [`row_headers`].
pub(super) fn row_cells(row: &Row, unit: RateUnit) -> [String; 10] {
    [
        row.key.test.name().into(),
        file_size(&row.key),
        row.key.record_size.to_string(),
        mode(&row.key),
        cells::rate(unit, row.baseline_median),
        cells::rate(unit, row.candidate_median),
        cells::change(row.change_pct),
        ci(row),
        p(row),
        format!("{}/{}", row.runs_baseline, row.runs_candidate),
    ]
}

/// The indices of the numeric columns, for [`Listing::numeric`].
fn numeric(headers: &[(String, bool)]) -> Vec<usize> {
    (0..headers.len()).filter(|&i| headers[i].1).collect()
}

/// The rows table, and the notes that more than one row shares: each is said once,
/// under the table, and its rows carry its number (`inconclusive [1]`), so a note
/// repeated on every row (the classic comparison's) does not widen the table.
fn rows_listing(c: &Comparison, unit: RateUnit) -> (Listing, Vec<String>) {
    let headers = row_headers(c, unit);
    let mut names: Vec<&str> = headers.iter().map(|(h, _)| h.as_str()).collect();
    names.push("Verdict");
    let verdict_column = names.len() - 1;
    let mut listing = Listing::new(&names).numeric(&numeric(&headers));
    let shared = shared_notes(c);
    for row in &c.rows {
        let verdict = match &row.note {
            Some(note) => match shared.iter().position(|n| n == note) {
                Some(i) => format!("{} [{}]", row.verdict.name(), i + 1),
                None => format!("{} ({note})", row.verdict.name()),
            },
            None => row.verdict.name().to_string(),
        };
        let mut line = row_cells(row, unit).to_vec();
        line.push(verdict);
        listing.push_colored(
            line,
            verdict_color(row.verdict).map(|color| (verdict_column, color)),
        );
    }
    let footnotes = shared
        .iter()
        .enumerate()
        .map(|(i, note)| format!("[{}] {note}", i + 1))
        .collect();
    (listing, footnotes)
}

/// Notes found on more than one row, in the order they first appear.
fn shared_notes(c: &Comparison) -> Vec<&str> {
    let mut seen: Vec<(&str, usize)> = Vec::new();
    for note in c.rows.iter().filter_map(|r| r.note.as_deref()) {
        match seen.iter_mut().find(|(n, _)| *n == note) {
            Some((_, seen)) => *seen += 1,
            None => seen.push((note, 1)),
        }
    }
    seen.into_iter()
        .filter(|&(_, seen)| seen > 1)
        .map(|(note, _)| note)
        .collect()
}

fn changes_listing(c: &Comparison) -> Listing {
    let mut listing = Listing::new(&["What changed", "Baseline", "Candidate"]).wrapped(110);
    for change in &c.environment_changes {
        listing.push(change_cells(change).to_vec());
    }
    listing
}

/// An environment change's cells: the fact's JSON path, then each side's values
/// (`unknown` for a run that did not record the fact: null in JSON).
pub(super) fn change_cells(e: &EnvChange) -> [String; 3] {
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

/// A row key in words: `write 32 MiB 4 KiB flush/posix`.
pub(super) fn key_name(k: &RowKey) -> String {
    format!(
        "{} {} {} {}",
        k.test.name(),
        file_size(k),
        k.record_size,
        mode(k)
    )
}

fn one_sided(keys: &[RowKey]) -> String {
    keys.iter().map(key_name).collect::<Vec<_>>().join("; ")
}

/// The rows only one side measured, a sentence per side that has any (no full stop:
/// the terminal ends it with the line, the report with a dot).
pub(super) fn one_sided_sentences(c: &Comparison) -> Vec<String> {
    [
        ("baseline", &c.baseline_only),
        ("candidate", &c.candidate_only),
    ]
    .into_iter()
    .filter(|(_, keys)| !keys.is_empty())
    .map(|(side, keys)| format!("Only in the {side}: {}", one_sided(keys)))
    .collect()
}

/// How many rows regressed, and what a regression takes: below every rendering.
pub(super) fn rule_sentence(c: &Comparison) -> String {
    // rows with one measurement on a side have no p-value and enter no correction
    let corrected = match c.corrected_over {
        0 => "(no row here has a p-value)".to_string(),
        n => format!("over {}", count(n, "row")),
    };
    // the ordinary interval when the correction selects every row (or nothing has a
    // p-value); else the level it was widened to
    let ordinary = (1.0 - c.alpha) * 100.0;
    let interval = match (c.ci_level_pct - ordinary).abs() < 1e-9 {
        true => format!("the test's own {} interval", level(ordinary)),
        false => format!(
            "the test's own, widened from {} to {} for the correction (false-coverage-rate \
             adjusted, Benjamini–Yekutieli)",
            level(ordinary),
            level(c.ci_level_pct)
        ),
    };
    format!(
        "{} of {} regressed. Each run counts once (the median of its repetitions), and the \
         noise between runs comes from the runs, the series' history or a default (the note \
         says which). A regression needs p < {} after Benjamini–Hochberg correction \
         {corrected} and a change beyond {}%; the interval is {interval}, so it never \
         contradicts the verdict.",
        c.regressions(),
        count(c.rows.len(), "row"),
        c.alpha,
        c.threshold_pct,
    )
}

/// For inconclusive rows: about how many runs a side (or, for rows paired within the
/// same runs, rounds) would tell a change of the threshold, from their own noise.
pub(super) fn needed_sentences(c: &Comparison) -> Vec<String> {
    let inconclusive = || c.rows.iter().filter(|r| r.verdict == Verdict::Inconclusive);
    let runs: Vec<usize> = inconclusive().filter_map(|r| r.runs_needed).collect();
    let rounds: Vec<usize> = inconclusive().filter_map(|r| r.rounds_needed).collect();
    let sentence = |needed: &[usize], what: &str, how: &str| {
        let (lo, hi) = (needed.iter().min()?, needed.iter().max()?);
        let range = match lo == hi {
            true => format!("about {lo}"),
            false => format!("about {lo} to {hi}"),
        };
        Some(format!(
            "{}: {range} {what} would resolve a {}% change \
             (80% power, from each row's noise; {how}).",
            count(needed.len(), "inconclusive row"),
            c.threshold_pct
        ))
    };
    [
        sentence(&runs, "runs a side", "--repeat adds repetitions, not runs"),
        sentence(
            &rounds,
            "rounds in one run",
            "paired within the same runs, --repeat sets the rounds",
        ),
    ]
    .into_iter()
    .flatten()
    .collect()
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
    let unit = unit.resolve(
        c.rows
            .iter()
            .flat_map(|r| [r.baseline_median, r.candidate_median]),
    );
    let mut out = format!(
        "Baseline:  {}\nCandidate: {}\n\n",
        side_text(base),
        side_text(cand)
    );
    if c.environment_changes.is_empty() {
        out.push_str("Environment: no differences recorded between the two sides\n\n");
    } else {
        out.push_str(&render(&changes_listing(c)));
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
    ]);
    let opt = cells::raw_or_empty;
    for r in &c.rows {
        let k = &r.key;
        listing.push(vec![
            k.test.name().into(),
            k.file_size
                .map_or(String::new(), |f: ByteSize| f.bytes().to_string()),
            k.record_size.bytes().to_string(),
            k.cache.map_or(String::new(), |x| x.name().into()),
            k.engine.map_or(String::new(), |x| x.name().into()),
            k.threads.map_or(String::new(), |x| x.to_string()),
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
            k.iodepth.map_or(String::new(), |x| x.to_string()),
        ]);
    }
    listing.to_csv()
}
