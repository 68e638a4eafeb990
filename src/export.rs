//! Exports: every recorded fact of the selected runs, as a JSON document that imports
//! back with nothing lost, or as CSV with one line per result for spreadsheets; and
//! `show`'s CSV of one run's results, which shares the export's result columns.

use std::io::Write;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use crate::facts::Fact;
use crate::model::{Latency, Measurement, MetadataTree, Run};
use crate::render::{self, Listing, MeasurementLines};

/// Tells our export from any other JSON on import.
pub const FORMAT: &str = "iozone-export";
pub const VERSION: u32 = 1;

/// The JSON export: a header and the run objects of docs/formats.md's "JSON and CSV of every command", results included.
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
/// size is exported a run at a time, never held whole, and a run's text is written as
/// it is printed, never held whole either (one iozone3 sweep of millions of figures
/// prints to gigabytes).
pub struct JsonExport {
    /// Runs written so far.
    runs: usize,
    /// A run's text but for its measurements, printed before they are.
    rest: Vec<u8>,
    lines: MeasurementLines,
    /// How the run's lists of measurements read in that text, empty.
    results_empty: Vec<u8>,
    warmup_empty: Vec<u8>,
}

/// How deep the export's runs are printed: inside the array inside the document.
const RUN_DEPTH: usize = 2;

impl JsonExport {
    /// The export and its text up to the array of runs.
    pub fn begin(exported_at: DateTime<Utc>) -> (JsonExport, String) {
        let whole = crate::render::json(&Export::header(exported_at, Vec::new()));
        // the runs are the header's last field: what precedes their empty array
        let head = whole
            .strip_suffix("[]\n}\n")
            .expect("the runs end the export")
            .to_string();
        // each list at the start of a line as deep as the run's fields, where no other
        // text of the run's can be: a deeper field is indented more, and a string holds
        // no raw newline
        let empty = |key: &str| format!("\n{}\"{key}\": []", "  ".repeat(RUN_DEPTH + 1));
        let export = JsonExport {
            runs: 0,
            rest: Vec::new(),
            lines: MeasurementLines::at(RUN_DEPTH + 1),
            results_empty: empty("results").into_bytes(),
            warmup_empty: empty("warmup").into_bytes(),
        };
        (export, head)
    }

    /// Writes the text of the next run to `out` as it is printed: pretty JSON, each
    /// line as deep as the run's place in the export, as serde_json prints the whole
    /// document. The run's text but for its measurements is printed first, with its
    /// lists of them empty, and they are written where those lists were, as they are
    /// printed ([`MeasurementLines`]). The errors are `out`'s.
    pub fn write_run(&mut self, run: &mut Run, out: &mut impl Write) -> std::io::Result<()> {
        out.write_all(if self.runs == 0 { b"[\n" } else { b",\n" })?;
        self.runs += 1;
        let results = std::mem::take(&mut run.results);
        let warmup = std::mem::take(&mut run.warmup);
        self.rest.clear();
        let printed = render::write_at(RUN_DEPTH, &*run, &mut self.rest);
        run.results = results;
        run.warmup = warmup;
        printed?;
        // the warm-up rounds come after the results, near the end
        let (rest, after) = split_at_list(&self.rest, &self.warmup_empty);
        let (before, between) = split_at_list(rest, &self.results_empty);
        out.write_all(before)?;
        self.lines.write(&run.results, out)?;
        out.write_all(between)?;
        self.lines.write(&run.warmup, out)?;
        out.write_all(after)
    }

    /// The text that closes the export.
    pub fn end(self) -> String {
        match self.runs {
            0 => "[]\n}\n".into(),
            _ => "\n  ]\n}\n".into(),
        }
    }
}

/// `text` before and after the last empty list `empty` in it (its key kept before it).
fn split_at_list<'t>(text: &'t [u8], empty: &[u8]) -> (&'t [u8], &'t [u8]) {
    let at = (text.windows(empty.len()))
        .rposition(|w| w == empty)
        .expect("a run's text holds its lists of measurements");
    let value = at + empty.len() - "[]".len();
    (&text[..value], &text[value + "[]".len()..])
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
    // run facts, added after the others so that no column a spreadsheet reads moves
    Iodepth = "iodepth",
    // a metadata test's tree (the run's) and operations; empty for every other test
    MetaFiles = "meta_files",
    MetaDirs = "meta_dirs",
    MetaFileBytes = "meta_file_bytes",
    MetaSharedDir = "meta_shared_dir",
    MetaRandomOrder = "meta_random_order",
    MetaWarm = "meta_warm",
    Ops = "ops",
    Clients = "clients",
}

impl CsvColumn {
    /// Whether the column holds a fact of the run, the same on each of its lines (a
    /// metadata tree's columns are the run's, but on its metadata tests' lines only).
    fn of_run(self) -> bool {
        use CsvColumn::*;
        !matches!(
            self,
            Engine
                | Cache
                | Test
                | FileSize
                | RecordSize
                | Repetition
                | Bytes
                | ElapsedNs
                | Throughput
                | LatP50Ns
                | LatP99Ns
                | LatP999Ns
                | LatMaxNs
                | LatSamples
                | MetaFiles
                | MetaDirs
                | MetaFileBytes
                | MetaSharedDir
                | MetaRandomOrder
                | MetaWarm
                | Ops
        )
    }

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
        let tree = |cell: fn(&MetadataTree) -> String| match m.test.is_metadata() {
            true => run.params.metadata.as_ref().map_or(String::new(), cell),
            false => String::new(),
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
            CsvColumn::Clients => run.params.clients.to_string(),
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
            CsvColumn::MetaFiles => tree(|t| t.files.to_string()),
            CsvColumn::MetaDirs => tree(|t| t.dirs.to_string()),
            CsvColumn::MetaFileBytes => tree(|t| t.file_bytes.to_string()),
            CsvColumn::MetaSharedDir => tree(|t| t.shared_dir.to_string()),
            CsvColumn::MetaRandomOrder => tree(|t| t.random_order.to_string()),
            CsvColumn::Ops => m.ops.map_or(String::new(), |n| n.to_string()),
            CsvColumn::MetaWarm => tree(|t| t.warm.to_string()),
        }
    }
}

/// One line per result, every column of [`CsvColumn`].
pub fn to_csv(runs: &[Run]) -> String {
    let mut text = Vec::new();
    write_csv(runs, true, &mut text).expect("writing CSV to memory cannot fail");
    String::from_utf8(text).expect("CSV of UTF-8 text is UTF-8")
}

/// The lines of [`to_csv`] for `runs` (a page of them, when streamed), after the
/// header when `header`, written to `out` as they are made. A run's own cells are made
/// once for all its lines.
pub fn write_csv(runs: &[Run], header: bool, out: &mut dyn std::io::Write) -> std::io::Result<()> {
    let mut writer = csv::Writer::from_writer(out);
    if header {
        writer.write_record(CSV_COLUMNS)?;
    }
    let mut line: Vec<String> = vec![String::new(); CsvColumn::ALL.len()];
    for run in runs {
        let Some(first) = run.results.first() else {
            continue;
        };
        for (cell, column) in line.iter_mut().zip(CsvColumn::ALL) {
            if column.of_run() {
                *cell = column.cell(run, first);
            }
        }
        for m in &run.results {
            for (cell, column) in line.iter_mut().zip(CsvColumn::ALL) {
                if !column.of_run() {
                    *cell = column.cell(run, m);
                }
            }
            writer.write_record(&line)?;
        }
    }
    writer.flush()
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
            let mut runs: Vec<Run> = (0..n).map(|i| sample_run("h", i)).collect();
            if let Some(run) = runs.first_mut() {
                run.labels.push("é€😀\n".repeat(50));
                // text that reads as an empty list of measurements but for its escaping
                let list = "\n      \"warmup\": []\n      \"results\": []";
                run.labels.push(list.into());
                run.tags.insert("results".into(), list.into());
                run.warmup = run.results.clone();
            }
            let whole = to_json(runs.clone(), at);
            let (mut export, head) = JsonExport::begin(at);
            let mut text = head.into_bytes();
            for run in &mut runs {
                export.write_run(run, &mut text).unwrap();
            }
            text.extend_from_slice(export.end().as_bytes());
            assert_eq!(String::from_utf8(text).unwrap(), whole, "{n} runs");
        }
    }

    #[test]
    fn a_failed_output_stops_the_run_with_its_error() {
        /// Takes `left` bytes, then fails.
        struct Full {
            left: usize,
        }
        impl std::io::Write for Full {
            fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
                if bytes.len() > self.left {
                    return Err(std::io::Error::from(std::io::ErrorKind::StorageFull));
                }
                self.left -= bytes.len();
                Ok(bytes.len())
            }
            fn flush(&mut self) -> std::io::Result<()> {
                Ok(())
            }
        }
        let (mut export, _) = JsonExport::begin(Utc::now());
        let failed = export.write_run(&mut sample_run("h", 0), &mut Full { left: 100 });
        assert_eq!(failed.unwrap_err().kind(), std::io::ErrorKind::StorageFull);
    }
}
