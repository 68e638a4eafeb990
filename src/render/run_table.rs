//! The classic table of a run: a row per file and record size, a column per test, each
//! cell the median of the repetitions with their spread. A run of several engines or
//! cache modes has a row per combination at each size, with a mode column. The
//! metadata tests have a table of their own below it, in operations per second: a row
//! per tree and cache mode, a column per metadata test.

use std::collections::BTreeMap;

use comfy_table::Color;

use super::cells::Scale;
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
    let (metadata, sized): (Vec<Line>, Vec<Line>) = lines(run)
        .into_iter()
        .partition(|(key, _)| key.test.is_metadata());
    let mut out = String::new();
    // a run of no figure at all still shows its (empty) table of files
    if !sized.is_empty() || metadata.is_empty() {
        let medians = sized
            .iter()
            .flat_map(|(_, tests)| tests.values().map(|s| s.median));
        let scale = Scale::Bytes(unit.resolve(medians));
        out += &table(run, &sized, scale, style);
    }
    if !metadata.is_empty() {
        out += &table(run, &metadata, Scale::Ops, style);
    }
    out
}

/// One table of the run, its lines in one scale, with its notes.
fn table(run: &Run, lines: &[Line], scale: Scale, style: TextStyle) -> String {
    let (listing, any_noisy) = listing(run, lines, scale);
    listing.render(style) + &style.paragraph(&notes(run, scale, any_noisy))
}

/// The table: a line per row but for the test, a column per test; and whether any
/// cell is noisy (painted, and marked `~`).
fn listing(run: &Run, lines: &[Line], scale: Scale) -> (Listing, bool) {
    let metadata = scale == Scale::Ops;
    let tests: Vec<TestKind> = (run.params.tests.iter())
        .copied()
        .filter(|t| t.is_metadata() == metadata)
        .collect();
    let combined = run.params.combined();
    let mut header = match metadata {
        true => vec!["Files", "Dirs", "Bytes"],
        false => vec!["File", "Record"],
    };
    if combined || (metadata && run.params.caches.len() > 1) {
        header.push("Mode");
    }
    let with_mode = header.last() == Some(&"Mode");
    header.extend(tests.iter().map(|t| t.name()));
    let first_test = header.len() - tests.len();
    let sizes: &[usize] = match metadata {
        true => &[0, 1, 2],
        false => &[0, 1],
    };
    let mut listing = Listing::new(&header).numeric(sizes);
    let numeric: Vec<usize> = (first_test..header.len()).collect();
    listing = listing.numeric(&numeric);

    let mut any_noisy = false;
    for (key, row) in lines {
        let mut line = match metadata {
            true => vec![
                key.files.to_string(),
                key.dirs.to_string(),
                crate::units::ByteSize(key.file_bytes).to_string(),
            ],
            false => vec![key.file_size.to_string(), key.record_size.to_string()],
        };
        if with_mode {
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
        for test in &tests {
            line.push(match row.get(test) {
                Some(s) => {
                    any_noisy |= s.is_noisy();
                    if s.is_noisy() {
                        paint.push((line.len(), Color::Yellow));
                    }
                    cell(s, scale)
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
fn notes(run: &Run, scale: Scale, any_noisy: bool) -> String {
    let mut out = String::new();
    // one repetition is its own figure: no median, no range (its cells show none)
    let figures = match run.params.repeat {
        1 => "1 repetition".to_string(),
        n => format!("median of {n} repetitions ± half their range"),
    };
    out.push_str(&format!("{}, {figures}", scale.label()));
    if let (Scale::Ops, Some(tree)) = (scale, &run.params.metadata) {
        out.push_str(&metadata_note(tree));
    }
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

/// How the metadata table's tree was worked: files and directories per thread or
/// shared, the order, and a flush that could not drop the caches.
fn metadata_note(tree: &crate::model::MetadataTree) -> String {
    let mut note = match tree.shared_dir {
        true => ", directories shared by the threads".to_string(),
        false => ", files and directories per thread".to_string(),
    };
    if tree.random_order {
        note.push_str(", random order");
    }
    if tree.warm {
        note.push_str(
            ", flush phases warm (the dentry and inode caches could not be dropped: no root)",
        );
    }
    note
}

fn cell(s: &Summary, scale: Scale) -> String {
    if s.n > 1 {
        format!(
            "{} ±{:.1}%{}",
            scale.format(s.median),
            s.spread_pct(),
            if s.is_noisy() { " ~" } else { "" }
        )
    } else {
        scale.format(s.median)
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
    let cells: std::collections::BTreeSet<_> =
        run.results.iter().map(crate::model::cell_of).collect();
    // which engine and cache mode, where the run measured more than one
    let modes = run.params.engines.len() > 1 || run.params.caches.len() > 1;
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
            let mode = match modes {
                true => format!(" {}/{}", c.cache.name(), c.engine.name()),
                false => String::new(),
            };
            // a metadata test's cell is its test over the run's tree
            match c.test.is_metadata() {
                true => format!("{}{mode} ({width})", c.test),
                false => format!(
                    "{} {} in {}{mode} ({width})",
                    c.test, c.record_size, c.file_size
                ),
            }
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
