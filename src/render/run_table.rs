//! The classic table of a run: a row per file and record size, a column per test, each
//! cell the median of the repetitions with their spread. A run of several engines or
//! cache modes has a row per combination at each size, with a mode column.

use std::collections::BTreeMap;

use comfy_table::Color;

use super::listing::{Listing, TextStyle};

use crate::model::{RowKey, Run, TestKind, by_row, throughputs};
use crate::stats::{NOISY_RANGE, Summary};
use crate::units::{RateUnit, count};

/// A line of the table: the run's rows that differ in their test only (the first
/// one's key), each test's summary, if it has a finite figure.
type Line = (RowKey, BTreeMap<TestKind, Summary>);

/// The table's lines, in the order the run lists its rows.
fn lines(run: &Run) -> Vec<Line> {
    let mut rows: Vec<_> = by_row(&run.params, &run.results).into_iter().collect();
    rows.sort_by_key(|(key, _)| key.list_order());
    let mut lines: Vec<Line> = Vec::new();
    for (key, figures) in rows {
        let same_line = |(first, _): &Line| {
            key == RowKey {
                test: key.test,
                ..*first
            }
        };
        if !lines.last().is_some_and(same_line) {
            lines.push((key, BTreeMap::new()));
        }
        if let (Some(summary), Some((_, tests))) =
            (Summary::of(&throughputs(&figures)), lines.last_mut())
        {
            tests.insert(key.test, summary);
        }
    }
    lines
}

pub fn run_table(run: &Run, unit: RateUnit, style: TextStyle) -> String {
    let lines = lines(run);
    let medians = lines
        .iter()
        .flat_map(|(_, tests)| tests.values().map(|s| s.median));
    let unit = unit.resolve(medians);
    let (listing, any_noisy) = listing(run, &lines, unit);
    listing.render(style) + &style.paragraph(&notes(run, unit, any_noisy))
}

/// The table: a line per row but for the test, a column per test; and whether any
/// cell is noisy (painted, and marked `~`).
fn listing(run: &Run, lines: &[Line], unit: RateUnit) -> (Listing, bool) {
    let tests = &run.params.tests;
    let combined = run.params.combined();
    let mut header = vec!["File", "Record"];
    if combined {
        header.push("Mode");
    }
    header.extend(tests.iter().map(|t| t.name()));
    let first_test = header.len() - tests.len();
    let mut listing = Listing::new(&header).numeric(&[0, 1]);
    let numeric: Vec<usize> = (first_test..header.len()).collect();
    listing = listing.numeric(&numeric);

    let mut any_noisy = false;
    for (key, row) in lines {
        let mut line = vec![key.file_size.to_string(), key.record_size.to_string()];
        if combined {
            // depth and threads are the whole run's, said under the table
            let (cache, engine) = (key.cache.name(), key.engine.name());
            line.push(super::cells::mode(
                Some(cache),
                Some(engine),
                Some(1),
                Some(1),
            ));
        }
        let mut paint = Vec::new();
        for test in tests {
            line.push(match row.get(test) {
                Some(s) => {
                    any_noisy |= s.is_noisy();
                    if s.is_noisy() {
                        paint.push((line.len(), Color::Yellow));
                    }
                    cell(s, unit)
                }
                None => String::new(),
            });
        }
        listing.push_painted(line, paint);
    }
    (listing, any_noisy)
}

/// What is said under the table: the unit and the figures, the run-wide depth and
/// workers, the rounds, the precision reached, and what `~` means when a cell has it.
fn notes(run: &Run, unit: RateUnit, any_noisy: bool) -> String {
    let mut out = String::new();
    // one repetition is its own figure: no median, no range (its cells show none)
    let figures = match run.params.repeat {
        1 => "1 repetition".to_string(),
        n => format!("median of {n} repetitions ± half their range"),
    };
    out.push_str(&format!("{}, {figures}", unit.label()));
    if run.params.iodepth > 1 {
        out.push_str(&format!(", queue depth {}", run.params.iodepth));
    }
    if run.params.threads > 1 {
        out.push_str(&format!(", {} threads aggregated", run.params.threads));
    }
    if run.params.clients > 1 {
        out.push_str(&format!(
            ", {} clients aggregated as \"all done\" (all bytes ÷ (latest end − earliest start))",
            run.params.clients
        ));
    }
    out.push_str(&rounds_note(run));
    out.push('\n');
    if let Some(line) = precision_note(run) {
        out.push_str(&line);
        out.push('\n');
    }
    if any_noisy {
        out.push_str(&format!(
            "~ noisy: repetitions vary by more than {:.0}%; try more --repeat, a bigger --size or a quieter machine\n",
            NOISY_RANGE * 100.0
        ));
    }
    out
}

fn cell(s: &Summary, unit: RateUnit) -> String {
    if s.n > 1 {
        format!(
            "{} ±{:.1}%{}",
            unit.format(s.median),
            s.spread_pct(),
            if s.is_noisy() { " ~" } else { "" }
        )
    } else {
        unit.format(s.median)
    }
}

/// "; 1 warm-up round left out, rounds interleaved" for runs that measured in rounds.
fn rounds_note(run: &Run) -> String {
    let p = &run.params;
    match p.warmup {
        0 => format!("; no warm-up, rounds {}", p.order.name()),
        w => format!(
            "; {} measured and left out, rounds {}",
            count(w as usize, "warm-up round"),
            p.order.name()
        ),
    }
}

/// Under `--repeat auto`: whether every cell's median reached the precision asked.
pub fn precision_note(run: &Run) -> Option<String> {
    let auto = run.params.repeat_auto?;
    let cells: std::collections::BTreeSet<_> = run
        .results
        .iter()
        .map(|m| (m.file_size, m.record_size, m.test))
        .collect();
    let missed = crate::model::imprecise_cells(&run.results, auto.precision_pct / 100.0);
    let target = format!("±{}% (95% interval of the median)", auto.precision_pct);
    if missed.is_empty() {
        return Some(format!(
            "precision {target} reached in all {} after {}",
            count(cells.len(), "cell"),
            count(run.params.repeat as usize, "round")
        ));
    }
    let which: Vec<String> = missed
        .iter()
        .map(|c| {
            let width = c
                .half_width
                .map_or("no interval".into(), |h| format!("±{:.1}%", h * 100.0));
            format!("{} {} in {} ({width})", c.test, c.record_size, c.file_size)
        })
        .collect();
    Some(format!(
        "precision {target} not reached in {} of {} after {} (--max-time {} s): {}",
        missed.len(),
        count(cells.len(), "cell"),
        count(run.params.repeat as usize, "round"),
        auto.max_time_s,
        which.join(", ")
    ))
}
