//! Exports: every recorded fact of the selected runs, as a JSON document that imports
//! back with nothing lost, or as CSV with one line per result for spreadsheets; and
//! `show`'s CSV of one run's results, which shares the export's result columns.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use crate::facts::Fact;
use crate::model::{Latency, Measurement, Run};
use crate::render::{self, JsonArray, Listing};

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
    crate::render::json(&Export::header(exported_at, runs))
}

impl Export {
    fn header(exported_at: DateTime<Utc>, runs: Vec<Run>) -> Export {
        Export {
            format: FORMAT.into(),
            version: VERSION,
            exported_at,
            tool_version: env!("CARGO_PKG_VERSION").into(),
            runs,
        }
    }
}

/// The JSON export written a run at a time, with [`to_json`]'s bytes: a database of any
/// size is exported in pages, never held whole.
pub struct JsonExport {
    runs: JsonArray,
}

impl JsonExport {
    /// The export and its text up to the array of runs.
    pub fn begin(exported_at: DateTime<Utc>) -> (JsonExport, String) {
        let whole = crate::render::json(&Export::header(exported_at, Vec::new()));
        // the runs are the header's last field: what precedes their empty array
        let head = whole
            .strip_suffix("[]\n}\n")
            .expect("the runs end the export")
            .to_string();
        let runs = JsonArray::new(1);
        (JsonExport { runs }, head)
    }

    /// The text of the next run.
    pub fn run(&mut self, run: &Run) -> String {
        self.runs.element(run)
    }

    /// The text that closes the export.
    pub fn end(self) -> String {
        self.runs.end() + "\n}\n"
    }
}

/// Declares the CSV columns once: the enum the writer and the importer name them by,
/// and their header words in order (a host or filesystem fact's as [`Fact`] names it).
macro_rules! csv_columns {
    ($($variant:ident = $name:expr,)*) => {
        /// A column of the CSV export: run facts first, then the result's own, then
        /// run facts added later (at the end, so existing columns keep their place).
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub enum CsvColumn {
            $($variant,)*
        }

        impl CsvColumn {
            /// Every column, in the export's order.
            pub const ALL: &'static [CsvColumn] = &[$(CsvColumn::$variant,)*];

            /// The column's header word.
            pub fn name(self) -> &'static str {
                match self {
                    $(CsvColumn::$variant => $name,)*
                }
            }
        }

        /// The export's header, in order.
        pub const CSV_COLUMNS: &[&str] = &[$($name,)*];
    };
}

csv_columns! {
    Uuid = "uuid",
    StartedAt = "started_at",
    FinishedAt = "finished_at",
    Status = "status",
    Labels = "labels",
    Tags = "tags",
    Note = "note",
    Hostname = Fact::Hostname.column(),
    Os = Fact::Os.column(),
    OsVersion = Fact::OsVersion.column(),
    Kernel = Fact::Kernel.column(),
    Arch = Fact::Arch.column(),
    FsType = Fact::FsType.column(),
    MountPoint = Fact::MountPoint.column(),
    MountOptions = Fact::MountOptions.column(),
    Engine = "engine",
    Cache = "cache",
    Threads = "threads",
    Repeat = "repeat",
    Seed = "seed",
    Test = "test",
    FileSize = "file_size",
    RecordSize = "record_size",
    Repetition = "repetition",
    Bytes = "bytes",
    ElapsedNs = "elapsed_ns",
    Throughput = "throughput",
    LatP50Ns = "lat_p50_ns",
    LatP99Ns = "lat_p99_ns",
    LatP999Ns = "lat_p999_ns",
    LatMaxNs = "lat_max_ns",
    LatSamples = "lat_samples",
    // a run fact, added after the others so that no column a spreadsheet reads moves
    Iodepth = "iodepth",
}

impl CsvColumn {
    /// The cell of result `m` of `run`: raw values, labels and tags joined with `;`,
    /// times RFC 3339, every digit of the throughput (the import reads it back).
    fn cell(self, run: &Run, m: &Measurement) -> String {
        let opt = |v: &Option<String>| v.clone().unwrap_or_default();
        let fact = |f: Fact| {
            f.value(&run.host, &run.filesystem)
                .raw()
                .unwrap_or_default()
        };
        let lat = |pick: fn(&Latency) -> u64| {
            m.latency_ns
                .as_ref()
                .map_or(String::new(), |l| pick(l).to_string())
        };
        match self {
            CsvColumn::Uuid => run.uuid.to_string(),
            CsvColumn::StartedAt => render::rfc3339(&run.started_at),
            CsvColumn::FinishedAt => run
                .finished_at
                .as_ref()
                .map_or(String::new(), render::rfc3339),
            CsvColumn::Status => render::cells::status(run.status),
            CsvColumn::Labels => run.labels.join(";"),
            CsvColumn::Tags => render::cells::tags(&run.tags, ";"),
            CsvColumn::Note => opt(&run.note),
            CsvColumn::Hostname => fact(Fact::Hostname),
            CsvColumn::Os => fact(Fact::Os),
            CsvColumn::OsVersion => fact(Fact::OsVersion),
            CsvColumn::Kernel => fact(Fact::Kernel),
            CsvColumn::Arch => fact(Fact::Arch),
            CsvColumn::FsType => fact(Fact::FsType),
            CsvColumn::MountPoint => fact(Fact::MountPoint),
            CsvColumn::MountOptions => fact(Fact::MountOptions),
            CsvColumn::Engine => m.engine.name().into(),
            CsvColumn::Cache => m.cache.name().into(),
            CsvColumn::Threads => run.params.threads.to_string(),
            CsvColumn::Repeat => run.params.repeat.to_string(),
            CsvColumn::Seed => run.params.seed.map_or(String::new(), |s| s.to_string()),
            CsvColumn::Iodepth => run.params.iodepth.to_string(),
            CsvColumn::Test => m.test.name().into(),
            CsvColumn::FileSize => m.file_size.bytes().to_string(),
            CsvColumn::RecordSize => m.record_size.bytes().to_string(),
            CsvColumn::Repetition => m.repetition.to_string(),
            CsvColumn::Bytes => m.bytes.to_string(),
            CsvColumn::ElapsedNs => m.elapsed_ns.to_string(),
            CsvColumn::Throughput => render::cells::raw(m.throughput),
            CsvColumn::LatP50Ns => lat(|l| l.p50),
            CsvColumn::LatP99Ns => lat(|l| l.p99),
            CsvColumn::LatP999Ns => lat(|l| l.p999),
            CsvColumn::LatMaxNs => lat(|l| l.max),
            CsvColumn::LatSamples => lat(|l| l.samples),
        }
    }
}

/// One line per result, every column of [`CsvColumn`].
pub fn to_csv(runs: &[Run]) -> String {
    csv_listing(runs).to_csv()
}

/// The lines of [`to_csv`] for `runs`: a page of them, when streamed.
pub fn csv_listing(runs: &[Run]) -> Listing {
    let mut listing = Listing::new(CSV_COLUMNS);
    for run in runs {
        for m in &run.results {
            listing.push(CsvColumn::ALL.iter().map(|c| c.cell(run, m)).collect());
        }
    }
    listing
}

/// The result columns of `show --format csv`, after the run's id and UUID: the
/// export's own, without the latency sample count.
const SHOW_RESULT_COLUMNS: [CsvColumn; 11] = [
    CsvColumn::Test,
    CsvColumn::FileSize,
    CsvColumn::RecordSize,
    CsvColumn::Repetition,
    CsvColumn::Bytes,
    CsvColumn::ElapsedNs,
    CsvColumn::Throughput,
    CsvColumn::LatP50Ns,
    CsvColumn::LatP99Ns,
    CsvColumn::LatP999Ns,
    CsvColumn::LatMaxNs,
];

/// `show --format csv`: one line per result of one run, raw values: its columns hold
/// what the export's columns of the same names hold, the run's id first.
pub fn results_csv(run: &Run) -> String {
    let mut headers = vec!["id", CsvColumn::Uuid.name()];
    headers.extend(SHOW_RESULT_COLUMNS.iter().map(|c| c.name()));
    let mut listing = Listing::new(&headers);
    for m in &run.results {
        let mut row = vec![
            run.id.map_or(String::new(), |id| id.to_string()),
            CsvColumn::Uuid.cell(run, m),
        ];
        row.extend(SHOW_RESULT_COLUMNS.iter().map(|&c| c.cell(run, m)));
        listing.push(row);
    }
    listing.to_csv()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::tests::sample_run;

    #[test]
    fn the_export_written_run_by_run_is_the_whole_export() {
        let at = Utc::now();
        for n in 0..3 {
            let runs: Vec<Run> = (0..n).map(|i| sample_run("h", i)).collect();
            let (mut export, mut text) = JsonExport::begin(at);
            for run in &runs {
                text.push_str(&export.run(run));
            }
            text.push_str(&export.end());
            assert_eq!(text, to_json(runs, at), "{n} runs");
        }
    }
}
