//! The report's metadata section: each run's metadata tests as a table, a row per run,
//! tree and cache mode, a column per test, each cell the median of the repetitions in
//! operations per second with their spread, as the run's own table has them.

use std::collections::BTreeSet;

use super::table_cells;
use super::throughput::run_name;
use crate::model::{Run, TestKind, by_row, throughputs};
use crate::render::cells::{self, Scale};
use crate::stats::Summary;

pub(super) fn metadata_section(runs: &[Run]) -> String {
    let tests: BTreeSet<TestKind> = (runs.iter())
        .flat_map(|r| r.results.iter().map(|m| m.test))
        .filter(|t| t.is_metadata())
        .collect();
    let mut out = String::from(
        "<section id=\"metadata\">\n<h2>Metadata operations</h2>\n<p class=\"note\">Each cell is \
         the median of a run's repetitions, in operations per second (ops/s), ± half their \
         range.</p>\n<div class=\"wide\"><table>\n<thead><tr>",
    );
    let mut headers: Vec<(&str, bool)> = vec![("Run", false), ("Tree", true), ("Mode", false)];
    headers.extend(tests.iter().map(|t| (t.name(), true)));
    out.push_str(&table_cells(&headers, "th"));
    out.push_str("</tr></thead>\n<tbody>\n");
    for run in runs {
        let rows = by_row(&run.params, &run.results);
        let mut lines: Vec<_> = rows.keys().filter(|k| k.test.is_metadata()).collect();
        lines.sort_by_key(|k| (k.files, k.dirs, k.file_bytes, k.cache, k.engine));
        lines.dedup_by_key(|k| (k.files, k.dirs, k.file_bytes, k.cache, k.engine));
        for line in lines {
            let mut cells_of_line = vec![
                run_name(run),
                cells::row_file(line),
                cells::mode(
                    Some(line.cache.name()),
                    Some(line.engine.name()),
                    Some(line.iodepth),
                    Some(line.threads),
                ),
            ];
            for &test in &tests {
                let key = crate::model::RowKey { test, ..*line };
                let summary = rows.get(&key).and_then(|f| Summary::of(&throughputs(f)));
                cells_of_line.push(summary.map_or(String::new(), |s| {
                    format!(
                        "{} ±{:.1}%",
                        cells::scaled(Scale::Ops, s.median),
                        s.spread_pct()
                    )
                }));
            }
            let row: Vec<(&str, bool)> = (cells_of_line.iter().zip(&headers))
                .map(|(cell, (_, num))| (cell.as_str(), *num))
                .collect();
            out.push_str(&format!("<tr>{}</tr>\n", table_cells(&row, "td")));
        }
    }
    out + "</tbody>\n</table></div>\n</section>\n"
}
