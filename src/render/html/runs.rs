//! The report's first section: the selected runs, one table row each, with the
//! columns `history` shares (see [`crate::render::runs`]), the directory among them
//! when one host's runs measured in several.

use std::fmt::Write;

use super::{empty, table_cells, utc};
use crate::model::Run;
use crate::render::runs::{Places, RunColumn};

/// The report's runs table: what `history` shows, with the repetitions and the note
/// in place of the status and headline rates.
const RUN_COLUMNS: [(&str, RunColumn); 10] = [
    ("Run", RunColumn::Id),
    ("When", RunColumn::When),
    ("Host", RunColumn::Host),
    ("Kernel", RunColumn::Kernel),
    ("FS", RunColumn::Filesystem),
    ("Labels", RunColumn::Labels),
    ("File", RunColumn::FileSize),
    ("Mode", RunColumn::Mode),
    ("Repeat", RunColumn::Repeat),
    ("Note", RunColumn::Note),
];

/// Where the directory each run measured in goes, when one host's runs measured in
/// several places (see [`Places`]): after the filesystem type, as in `history`.
const LOCATION_AT: usize = 5;

pub(super) fn runs_section(runs: &[Run]) -> String {
    let mut out = String::from("<section id=\"runs\">\n<h2>Runs</h2>\n");
    if runs.is_empty() {
        out.push_str(&empty("No runs selected: nothing to show."));
        return out + "</section>\n";
    }
    let mut columns = RUN_COLUMNS.to_vec();
    if Places::of(runs).differ() {
        columns.insert(LOCATION_AT, ("Directory", RunColumn::Location));
    }
    let headers: Vec<(&str, bool)> = columns
        .iter()
        .map(|(header, column)| (*header, column.numeric()))
        .collect();
    out.push_str("<table>\n<thead><tr>");
    out.push_str(&table_cells(&headers, "th"));
    out.push_str("</tr></thead>\n<tbody>\n");
    for run in runs {
        let values: Vec<(String, bool)> = columns
            .iter()
            .map(|(_, column)| (column.cell(run, utc), column.numeric()))
            .collect();
        let pairs: Vec<(&str, bool)> = values.iter().map(|(v, n)| (v.as_str(), *n)).collect();
        let _ = writeln!(out, "<tr>{}</tr>", table_cells(&pairs, "td"));
    }
    out + "</tbody>\n</table>\n</section>\n"
}
