//! The classic table of a run: a row per file and record size, a column per test, each
//! cell the median of the repetitions with their spread. A run of several engines or
//! cache modes has a row per combination at each size, with a mode column.

use std::collections::BTreeMap;

use comfy_table::{Cell, CellAlignment, Color, ContentArrangement, Table, presets};

use crate::model::{CacheMode, EngineKind, Run, TestKind};
use crate::stats::{NOISY_RANGE, Summary};
use crate::units::{ByteSize, RateUnit, count};

type Row = (ByteSize, ByteSize, EngineKind, CacheMode);

pub fn run_table(run: &Run, unit: RateUnit, color: bool) -> String {
    let mut cells: BTreeMap<Row, BTreeMap<TestKind, Vec<f64>>> = BTreeMap::new();
    for m in &run.results {
        cells
            .entry((m.file_size, m.record_size, m.engine, m.cache))
            .or_default()
            .entry(m.test)
            .or_default()
            .push(m.throughput);
    }
    let summaries: BTreeMap<Row, BTreeMap<TestKind, Summary>> = cells
        .into_iter()
        .map(|(row, tests)| {
            let s = tests
                .into_iter()
                .filter_map(|(t, v)| Summary::of(&v).map(|s| (t, s)))
                .collect();
            (row, s)
        })
        .collect();
    let unit = unit.resolve(
        summaries
            .values()
            .flat_map(|t| t.values().map(|s| s.median)),
    );
    let tests: Vec<TestKind> = run.params.tests.clone();

    let mut table = Table::new();
    table
        .load_style(presets::UTF8_FULL_CONDENSED.with_rounded_corners())
        .set_content_arrangement(ContentArrangement::Disabled);
    if color {
        table.enforce_styling();
    }
    let combined = run.params.combined();
    let mut header = vec![Cell::new("File"), Cell::new("Record")];
    if combined {
        header.push(Cell::new("Mode"));
    }
    header.extend(tests.iter().map(|t| Cell::new(t.name())));
    table.set_header(header);

    let mut any_noisy = false;
    for ((file, record, engine, cache), row) in &summaries {
        let mut line = vec![
            Cell::new(file.to_string()).set_alignment(CellAlignment::Right),
            Cell::new(record.to_string()).set_alignment(CellAlignment::Right),
        ];
        if combined {
            // depth and threads are the whole run's, said under the table
            let mode =
                super::cells::mode(Some(cache.name()), Some(engine.name()), Some(1), Some(1));
            line.push(Cell::new(mode));
        }
        for test in &tests {
            line.push(match row.get(test) {
                Some(s) => {
                    any_noisy |= s.is_noisy();
                    cell(s, unit, color)
                }
                None => Cell::new(""),
            });
        }
        table.add_row(line);
    }

    let mut out = table.to_string();
    out.push('\n');
    let repeat = run.params.repeat;
    out.push_str(&format!(
        "{}, median of {repeat} repetition{} ± half their range",
        unit.label(),
        if repeat == 1 { "" } else { "s" }
    ));
    if run.params.iodepth > 1 {
        out.push_str(&format!(", queue depth {}", run.params.iodepth));
    }
    if run.params.threads > 1 {
        out.push_str(&format!(", {} threads aggregated", run.params.threads));
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

fn cell(s: &Summary, unit: RateUnit, color: bool) -> Cell {
    let text = if s.n > 1 {
        format!(
            "{} ±{:.1}%{}",
            unit.format(s.median),
            s.spread_pct(),
            if s.is_noisy() { " ~" } else { "" }
        )
    } else {
        unit.format(s.median)
    };
    let cell = Cell::new(text).set_alignment(CellAlignment::Right);
    if color && s.is_noisy() {
        cell.fg(Color::Yellow)
    } else {
        cell
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
    let missed = crate::stats::imprecise_cells(&run.results, auto.precision_pct / 100.0);
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
