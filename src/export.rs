//! Exports: every recorded fact of the selected runs, as a JSON document that imports
//! back with nothing lost, or as CSV with one line per result for spreadsheets.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use crate::model::Run;
use crate::render::Listing;

/// Tells our export from any other JSON on import.
pub const FORMAT: &str = "iozone-export";
pub const VERSION: u32 = 1;

/// The JSON export: a header and the run objects of README's "JSON output", results included.
#[derive(Debug, Serialize, Deserialize)]
pub struct Export {
    pub format: String,
    pub version: u32,
    pub exported_at: DateTime<Utc>,
    pub tool_version: String,
    pub runs: Vec<Run>,
}

pub fn to_json(runs: Vec<Run>, exported_at: DateTime<Utc>) -> String {
    crate::render::json(&Export {
        format: FORMAT.into(),
        version: VERSION,
        exported_at,
        tool_version: env!("CARGO_PKG_VERSION").into(),
        runs,
    })
}

/// The CSV columns, run facts first, then the result's own.
pub const CSV_COLUMNS: [&str; 32] = [
    "uuid",
    "started_at",
    "finished_at",
    "status",
    "labels",
    "tags",
    "note",
    "hostname",
    "os",
    "os_version",
    "kernel",
    "arch",
    "fs_type",
    "mount_point",
    "mount_options",
    "engine",
    "cache",
    "threads",
    "repeat",
    "seed",
    "test",
    "file_size",
    "record_size",
    "repetition",
    "bytes",
    "elapsed_ns",
    "throughput",
    "lat_p50_ns",
    "lat_p99_ns",
    "lat_p999_ns",
    "lat_max_ns",
    "lat_samples",
];

/// One line per result; labels and tags joined with `;`, times RFC 3339.
pub fn to_csv(runs: &[Run]) -> String {
    let mut listing = Listing::new(&CSV_COLUMNS);
    for run in runs {
        for m in &run.results {
            let opt = |v: &Option<String>| v.clone().unwrap_or_default();
            let lat = |pick: fn(&crate::model::Latency) -> u64| {
                m.latency_ns
                    .as_ref()
                    .map_or(String::new(), |l| pick(l).to_string())
            };
            let status = serde_json::to_value(run.status).expect("status serializes");
            listing.push(vec![
                run.uuid.to_string(),
                crate::render::rfc3339(&run.started_at),
                run.finished_at
                    .as_ref()
                    .map_or(String::new(), crate::render::rfc3339),
                status.as_str().unwrap_or_default().into(),
                run.labels.join(";"),
                run.tags
                    .iter()
                    .map(|(k, v)| format!("{k}={v}"))
                    .collect::<Vec<_>>()
                    .join(";"),
                opt(&run.note),
                opt(&run.host.hostname),
                opt(&run.host.os),
                opt(&run.host.os_version),
                opt(&run.host.kernel),
                opt(&run.host.arch),
                opt(&run.filesystem.fs_type),
                opt(&run.filesystem.mount_point),
                opt(&run.filesystem.mount_options),
                run.params.engine.name().into(),
                run.params.cache.name().into(),
                run.params.threads.to_string(),
                run.params.repeat.to_string(),
                run.params.seed.to_string(),
                m.test.name().into(),
                m.file_size.bytes().to_string(),
                m.record_size.bytes().to_string(),
                m.repetition.to_string(),
                m.bytes.to_string(),
                m.elapsed_ns.to_string(),
                format!("{}", m.throughput),
                lat(|l| l.p50),
                lat(|l| l.p99),
                lat(|l| l.p999),
                lat(|l| l.max),
                lat(|l| l.samples),
            ]);
        }
    }
    listing.to_csv()
}
