//! The normal table (`kB reclen write rewrite …`, one row per file and record size,
//! as a single measurement or auto mode prints it): figures are placed under the
//! header column their right edge lines up with. (Its rows are read as they come, by
//! `reader.rs`.)

use super::{Cell, Via, error, rate};
use crate::import::ParseError;
use crate::model::TestKind;

/// The test behind a table column, named as the two header lines name it.
fn table_column(name: &str) -> Option<(Via, TestKind)> {
    Some(match name {
        "write" => (Via::Main, TestKind::Write),
        "rewrite" => (Via::Main, TestKind::Rewrite),
        "read" => (Via::Main, TestKind::Read),
        "reread" => (Via::Main, TestKind::Reread),
        "random read" => (Via::Main, TestKind::RandomRead),
        "random write" => (Via::Main, TestKind::RandomWrite),
        "bkwd read" => (Via::Main, TestKind::BackwardRead),
        "record rewrite" => (Via::Main, TestKind::RecordRewrite),
        "stride read" => (Via::Main, TestKind::StrideRead),
        "fwrite" => (Via::Stdio, TestKind::Write),
        "frewrite" => (Via::Stdio, TestKind::Rewrite),
        "fread" => (Via::Stdio, TestKind::Read),
        "freread" => (Via::Stdio, TestKind::Reread),
        _ => return None,
    })
}

/// A table row's sizes and where it is.
pub(super) struct Row {
    pub file_kb: u64,
    pub record_kb: u64,
    pub line: usize,
}

impl Row {
    /// The row's figures, each placed under the header column its right edge lines up
    /// with: iozone right-aligns figures and leaves blanks for tests not run.
    pub(super) fn cells(
        &self,
        columns: &[Column],
        figures: &[(usize, &str)],
    ) -> Result<Vec<Cell>, ParseError> {
        let mut cells = Vec::new();
        let mut next = 0;
        for &(end, word) in figures {
            let at = |m: String| error(Some(self.line), m);
            let k = nearest_column(columns, next, end).ok_or_else(|| {
                at(format!(
                    "the figure '{word}' lines up with no column of the header"
                ))
            })?;
            next = k + 1;
            let kb_per_s = rate(word).map_err(at)?;
            // Columns we do not import, and 0 (no rate computed), carry no figure.
            if let (Some((via, test)), true) = (columns[k].test, kb_per_s > 0.0) {
                cells.push(Cell {
                    via,
                    test,
                    file_kb: self.file_kb,
                    record_kb: self.record_kb,
                    threads: 1,
                    kb_per_s,
                    line: self.line,
                });
            }
        }
        Ok(cells)
    }
}

/// A table column: where its header ends and what it measured.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Column {
    end: usize,
    test: Option<(Via, TestKind)>,
}

/// iozone's figures end where their header ends, or one place to the right (the read
/// columns' headers are a character narrower than their figures).
const ALIGNMENT_SLACK: usize = 1;

fn nearest_column(columns: &[Column], from: usize, end: usize) -> Option<usize> {
    (from..columns.len())
        .filter(|&k| columns[k].end.abs_diff(end) <= ALIGNMENT_SLACK)
        .min_by_key(|&k| columns[k].end.abs_diff(end))
}

pub(super) fn is_table_header(line: &str) -> bool {
    let mut words = line.split_whitespace();
    matches!(words.next(), Some("kB" | "KB")) && words.next() == Some("reclen")
}

/// The columns after `kB reclen`, named with the qualifier above them ("random" over
/// "read" is random read).
pub(super) fn table_columns(above: &str, header: &str) -> Vec<Column> {
    let qualifiers = words(above);
    words(header)
        .into_iter()
        .skip(2)
        .map(|(end, word)| {
            let name = match qualifiers.iter().find(|(e, _)| *e == end) {
                Some((_, q)) => format!("{q} {word}"),
                None => word.to_string(),
            };
            Column {
                end,
                test: table_column(&name),
            }
        })
        .collect()
}

/// The words of a line with the byte offset where each ends.
pub(super) fn words(line: &str) -> Vec<(usize, &str)> {
    let mut out = Vec::new();
    let mut start = None;
    for (i, c) in line.char_indices() {
        match (c.is_whitespace(), start) {
            (true, Some(s)) => {
                out.push((i, &line[s..i]));
                start = None;
            }
            (false, None) => start = Some(i),
            _ => {}
        }
    }
    if let Some(s) = start {
        out.push((line.len(), &line[s..]));
    }
    out
}
