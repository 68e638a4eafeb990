//! Rendering: model values in, text out. No I/O here; callers print what is returned.
//!
//! What several renderers show is written once: the text of a figure, a mode, a status
//! or tags in [`cells`]; the columns of a table of runs in `runs.rs`; the comparison's
//! tables and sentences in `compare.rs`, which the HTML report (`html/`) reuses.

pub mod cells;
mod clients;
mod compare;
mod environment;
mod fleet;
mod history;
mod html;
mod json_array;
mod json_measurements;
mod listing;
pub mod printable;
mod run_table;
mod runs;
mod selection;
mod show;
mod svg;
mod trend;
pub mod wrap;

pub use compare::{SideInfo, compare_csv, compare_json, compare_text};
pub use environment::environment_listing;
pub use fleet::{fleet_csv, fleet_json, fleet_text};
pub use history::{
    HistoryElement, HistoryLine, history_csv, history_frame, history_json, history_listing,
};
pub use html::{MAX_CHARTS, MAX_TABLED, ReportInput, SeriesHistory, history_tabled, report_html};
pub use json_array::{JsonArray, write_at};
pub use json_measurements::MeasurementLines;
pub use listing::{Chunks, Layout, Listing, TextStyle};
pub use run_table::run_table;
pub use runs::Places;
pub use selection::{selected_runs, selection_line};
pub use show::show_text;
pub use trend::{trend_csv, trend_text};

/// Pretty JSON with a trailing newline, for any of the documented shapes.
pub fn json<T: serde::Serialize>(value: &T) -> String {
    let mut text = serde_json::to_string_pretty(value).expect("model types always serialize");
    text.push('\n');
    text
}

/// Instants in machine-readable outputs: RFC 3339, UTC, nanoseconds.
pub fn rfc3339(t: &chrono::DateTime<chrono::Utc>) -> String {
    t.to_rfc3339_opts(chrono::SecondsFormat::Nanos, true)
}
