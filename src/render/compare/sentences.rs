//! What a comparison says in sentences, in the terminal and the report alike: what
//! each row rests on, the rows one side only has, the rule a regression follows, and
//! how many runs or rounds would settle the inconclusive rows.

use super::{file_size, level, mode};
use crate::compare::{Comparison, Row, RowMatch, Verdict};
use crate::units::count;

/// What a row's noise and verdict rest on, beyond its figures: where the noise came
/// from, then the row's note, when that says more than the noise does.
pub(in crate::render) fn explanation(row: &Row) -> Option<String> {
    let source = row.noise_source.as_deref().map(noise_from);
    let parts: Vec<String> = source.into_iter().chain(extra_note(row)).collect();
    (!parts.is_empty()).then(|| parts.join("; "))
}

/// Where a row's noise came from, in words: the runs compared, with the series'
/// history or alone, a pairing within the same runs, or the default.
fn noise_from(source: &str) -> String {
    match source.split_once(": ") {
        _ if source == "runs" => "noise from the runs compared".into(),
        _ if source == "default" => {
            "noise: the default (too few runs to measure it, and no history)".into()
        }
        Some(("history", runs)) => {
            format!("noise from the runs compared and the series' history ({runs})")
        }
        Some(("paired", rounds)) => format!("noise within the same runs, paired ({rounds})"),
        _ => format!("noise from {source}"),
    }
}

/// The part of a row's note that its noise and source columns do not already say:
/// the note names them first (`noise ±3.2%, runs`), and anything after is its own.
fn extra_note(row: &Row) -> Option<String> {
    let note = row.note.as_deref()?;
    let said = match (row.noise_pct, &row.noise_source) {
        (Some(noise), Some(source)) => format!("noise ±{noise:.1}%, {source}"),
        _ => return Some(note.to_string()),
    };
    let rest = match note.strip_prefix(&said) {
        Some(rest) => rest.trim_start_matches([';', ',', '.', ':', ' ']),
        None => note,
    };
    (!rest.is_empty()).then(|| rest.to_string())
}

/// Under the environment's changes, where a side's machine state is summed up: where
/// each run's is told.
pub(in crate::render) fn machine_sentence(c: &Comparison) -> Option<&'static str> {
    (c.environment_changes.iter().any(|e| e.summary.is_some()))
        .then_some("Each run's machine state: iozone show RUN, or compare --format json")
}

/// A row key in words: `write 32 MiB 4 KiB flush/posix`.
pub(in crate::render) fn key_name(k: &RowMatch) -> String {
    format!(
        "{} {} {} {}",
        k.test().name(),
        file_size(k),
        k.record_size(),
        mode(k)
    )
}

fn one_sided(keys: &[RowMatch]) -> String {
    keys.iter().map(key_name).collect::<Vec<_>>().join("; ")
}

/// The rows only one side measured, a sentence per side that has any (no full stop:
/// the terminal ends it with the line, the report with a dot).
pub(in crate::render) fn one_sided_sentences(c: &Comparison) -> Vec<String> {
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
pub(in crate::render) fn rule_sentence(c: &Comparison) -> String {
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
         noise between runs comes from the runs, the series' history or a default (each row \
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
pub(in crate::render) fn needed_sentences(c: &Comparison) -> Vec<String> {
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
