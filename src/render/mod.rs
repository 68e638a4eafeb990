//! Rendering: model values in, text out. No I/O here; callers print what is returned.

mod run_table;

pub use run_table::run_table;

/// Pretty JSON with a trailing newline, for any of the documented shapes.
pub fn json<T: serde::Serialize>(value: &T) -> String {
    let mut text = serde_json::to_string_pretty(value).expect("model types always serialize");
    text.push('\n');
    text
}
