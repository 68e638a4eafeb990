//! The `-R` report section: one table per test, titled in quotes, record sizes across
//! and file sizes down. It repeats the normal table and is read only when it is all
//! an output holds.

use super::{Cell, Output, Via, error, rate};
use crate::import::ParseError;
use crate::model::TestKind;

impl Output<'_> {
    /// The cells of the `-R` report section: one table per test.
    pub(super) fn report(&self) -> Result<Vec<Cell>, ParseError> {
        let mut cells = Vec::new();
        let mut i = 0;
        while i < self.lines.len() {
            let title = unquote(self.lines[i].trim()).map(str::to_ascii_lowercase);
            i += 1;
            let Some(title) = title.filter(|t| t.ends_with("report")) else {
                continue;
            };
            let end = self.lines[i..]
                .iter()
                .position(|l| l.trim().is_empty())
                .map_or(self.lines.len(), |n| i + n);
            if let Some((via, test)) = report_title(&title) {
                cells.extend(self.report_table(i, end, via, test)?);
            }
            i = end;
        }
        Ok(cells)
    }

    /// One report table: lines `start..end` hold the record sizes, then a row per file size.
    fn report_table(
        &self,
        start: usize,
        end: usize,
        via: Via,
        test: TestKind,
    ) -> Result<Vec<Cell>, ParseError> {
        let Some(header) = self.lines.get(start) else {
            return Err(error(
                Some(self.number(start)),
                "a report without its record sizes",
            ));
        };
        let at = |i: usize| move |m: String| error(Some(self.number(i)), m);
        let records: Vec<u64> = header
            .split_whitespace()
            .map(|w| quoted_number(w, "record size"))
            .collect::<Result<_, _>>()
            .map_err(at(start))?;
        let mut cells = Vec::new();
        for i in start + 1..end {
            let line = self.lines[i];
            if self.cut_short && i + 1 == self.lines.len() && !line.ends_with(char::is_whitespace) {
                return Err(error(Some(self.number(i)), "the last line is cut short"));
            }
            let mut words = line.split_whitespace();
            let file_kb = quoted_number(words.next().unwrap_or(""), "file size").map_err(at(i))?;
            for (k, word) in words.enumerate() {
                let record_kb = *records.get(k).ok_or_else(|| {
                    at(i)(format!(
                        "more figures than the {} record sizes",
                        records.len()
                    ))
                })?;
                let kb_per_s = rate(word).map_err(at(i))?;
                // A 0 is a test not run at that size (iozone fills the row from the left).
                if kb_per_s > 0.0 {
                    let line = self.number(i);
                    cells.push(Cell {
                        via,
                        test,
                        file_kb,
                        record_kb,
                        threads: 1,
                        kb_per_s,
                        line,
                    });
                }
            }
        }
        Ok(cells)
    }
}

/// The test behind a `-R` report title (without quotes, lower case).
fn report_title(title: &str) -> Option<(Via, TestKind)> {
    Some(match title {
        "writer report" => (Via::Main, TestKind::Write),
        "re-writer report" => (Via::Main, TestKind::Rewrite),
        "reader report" => (Via::Main, TestKind::Read),
        "re-reader report" => (Via::Main, TestKind::Reread),
        "random read report" => (Via::Main, TestKind::RandomRead),
        "random write report" => (Via::Main, TestKind::RandomWrite),
        "backward read report" => (Via::Main, TestKind::BackwardRead),
        "record rewrite report" => (Via::Main, TestKind::RecordRewrite),
        "stride read report" => (Via::Main, TestKind::StrideRead),
        "fwrite report" => (Via::Stdio, TestKind::Write),
        "re-fwrite report" => (Via::Stdio, TestKind::Rewrite),
        "fread report" => (Via::Stdio, TestKind::Read),
        "re-fread report" => (Via::Stdio, TestKind::Reread),
        _ => return None,
    })
}

pub(super) fn unquote(word: &str) -> Option<&str> {
    word.strip_prefix('"')?.strip_suffix('"')
}

pub(super) fn quoted_number(word: &str, what: &str) -> Result<u64, String> {
    unquote(word)
        .and_then(|w| w.parse().ok())
        .ok_or_else(|| format!("{what} '{word}' is not a quoted whole number"))
}
