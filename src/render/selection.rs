//! What a selector picked, in words for stderr: how it was read, and with
//! `compare --explain` a line per run it selected (id, start, host, filesystem,
//! directory, labels), so that a side that is not what was meant shows before its
//! comparison is read.

use unicode_width::UnicodeWidthStr;

use super::history::local_time;
use super::printable;
use super::runs::RunColumn;
use crate::model::Run;
use crate::units::count;

/// `baseline '3..7,label:journal', read as runs 3 to 7 with label journal: runs 5, 3`.
pub fn selection_line(side: &str, selector: &str, reading: &str, runs: &[Run]) -> String {
    let ids: Vec<String> = runs
        .iter()
        .map(|r| r.id.map_or("-".into(), |id| id.to_string()))
        .collect();
    format!(
        "{side} '{}', read as {reading}: {}",
        printable::text(selector),
        run_list(&ids)
    )
}

/// `runs 5, 3`, and `12 runs: 20, 19, …, 9` past ten.
fn run_list(ids: &[String]) -> String {
    match ids.len() {
        1 => format!("run {}", ids[0]),
        2..=10 => format!("runs {}", ids.join(", ")),
        n => format!(
            "{}: {}, …, {}",
            count(n, "run"),
            ids[..3].join(", "),
            ids[n - 1]
        ),
    }
}

/// A line per run, its columns aligned: id, start (local time), host, filesystem
/// type, the directory measured, labels.
pub fn selected_runs(runs: &[Run]) -> Vec<String> {
    let rows: Vec<[String; 6]> = runs
        .iter()
        .map(|run| {
            let cell =
                |column: RunColumn| printable::cell(&column.cell(run, local_time)).into_owned();
            [
                cell(RunColumn::Id),
                cell(RunColumn::When),
                cell(RunColumn::Host),
                cell(RunColumn::Filesystem),
                (run.params.dir.as_deref())
                    .or(run.filesystem.mount_point.as_deref())
                    .map_or("-".into(), |d| printable::cell(d).into_owned()),
                cell(RunColumn::Labels),
            ]
        })
        .collect();
    let widths: Vec<usize> = (0..6)
        .map(|i| rows.iter().map(|r| r[i].width()).max().unwrap_or(0))
        .collect();
    rows.iter()
        .map(|row| {
            let cells: Vec<String> = row
                .iter()
                .zip(&widths)
                .enumerate()
                .map(|(i, (text, &width))| {
                    let pad = " ".repeat(width - text.width());
                    // the id aligns right, as a number does in a table
                    match i {
                        0 => format!("{pad}{text}"),
                        _ => format!("{text}{pad}"),
                    }
                })
                .collect();
            cells.join("  ").trim_end().to_string()
        })
        .collect()
}
