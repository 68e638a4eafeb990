//! Exports: every recorded fact of the selected runs, as a JSON document that imports
//! back with nothing lost, or as CSV with one line per result for spreadsheets; and
//! `show`'s CSV of one run's results, which shares the export's result columns.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use crate::facts::Fact;
use crate::model::{Latency, Measurement, MetadataTree, Run};
use crate::render::{self, Listing};

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
/// size is exported in pages, never held whole, and a run's text is handed on in
/// pieces as it is printed, never held whole either (one iozone3 sweep of millions of
/// figures prints to gigabytes).
pub struct JsonExport {
    /// Runs written so far.
    runs: usize,
}

/// The size of the pieces [`JsonExport::write_run`] hands on: large enough that the
/// writes cost nothing, small beside anything else in memory.
const PIECE: usize = 64 << 10;

/// How deep the export's runs are printed: inside the array inside the document.
const RUN_INDENT: &str = "    ";

impl JsonExport {
    /// The export and its text up to the array of runs.
    pub fn begin(exported_at: DateTime<Utc>) -> (JsonExport, String) {
        let whole = crate::render::json(&Export::header(exported_at, Vec::new()));
        // the runs are the header's last field: what precedes their empty array
        let head = whole
            .strip_suffix("[]\n}\n")
            .expect("the runs end the export")
            .to_string();
        (JsonExport { runs: 0 }, head)
    }

    /// Hands the text of the next run to `write`, in pieces of about 64 KiB.
    pub fn write_run<E>(
        &mut self,
        run: &Run,
        write: impl FnMut(&str) -> Result<(), E>,
    ) -> Result<(), E> {
        self.write_run_in(run, PIECE, write)
    }

    /// [`JsonExport::write_run`] in pieces of `piece` bytes or a few more. Pretty JSON,
    /// each line indented as deep as the run's place in the export, as serde_json
    /// prints the whole document: a JSON string never holds a raw newline, so every
    /// newline printed is one to indent after.
    fn write_run_in<E>(
        &mut self,
        run: &Run,
        piece: usize,
        write: impl FnMut(&str) -> Result<(), E>,
    ) -> Result<(), E> {
        let mut pieces = Pieces {
            pending: Vec::with_capacity(piece + RUN_INDENT.len() + 4),
            piece,
            write,
            failed: None,
        };
        let opening = if self.runs == 0 { "[\n" } else { ",\n" };
        pieces.pending.extend_from_slice(opening.as_bytes());
        pieces.pending.extend_from_slice(RUN_INDENT.as_bytes());
        self.runs += 1;
        let printed = serde_json::to_writer_pretty(&mut pieces, run)
            .map_err(std::io::Error::from)
            .and_then(|()| std::io::Write::flush(&mut pieces));
        match (printed, pieces.failed) {
            (_, Some(e)) => Err(e),
            (Ok(()), None) => Ok(()),
            (Err(e), None) => unreachable!("model types always serialize: {e}"),
        }
    }

    /// The text that closes the export.
    pub fn end(self) -> String {
        match self.runs {
            0 => "[]\n}\n".into(),
            _ => "\n  ]\n}\n".into(),
        }
    }
}

/// Printed JSON on its way out: indented after each newline, and handed to `write` as
/// text whenever a piece's worth has gathered, cut where no character is split.
struct Pieces<F, E> {
    pending: Vec<u8>,
    piece: usize,
    write: F,
    /// What `write` failed with: the printer only learns that it did.
    failed: Option<E>,
}

impl<F: FnMut(&str) -> Result<(), E>, E> Pieces<F, E> {
    /// Adds `bytes`, handing on each piece as it fills: a string printed at once (a
    /// label of megabytes) goes out in pieces too.
    fn gather(&mut self, mut bytes: &[u8]) -> std::io::Result<()> {
        while !bytes.is_empty() {
            let room = self.piece.saturating_sub(self.pending.len()).max(1);
            let (now, later) = bytes.split_at(room.min(bytes.len()));
            self.pending.extend_from_slice(now);
            if self.pending.len() >= self.piece {
                self.hand_on()?;
            }
            bytes = later;
        }
        Ok(())
    }

    /// Hands on what has gathered, up to the last whole character.
    fn hand_on(&mut self) -> std::io::Result<()> {
        let whole = match std::str::from_utf8(&self.pending) {
            Ok(text) => text.len(),
            Err(e) => e.valid_up_to(),
        };
        if whole == 0 {
            return Ok(());
        }
        let text = std::str::from_utf8(&self.pending[..whole]).expect("cut at a character");
        if let Err(e) = (self.write)(text) {
            self.failed = Some(e);
            return Err(std::io::Error::other("the output failed"));
        }
        self.pending.drain(..whole);
        Ok(())
    }
}

impl<F: FnMut(&str) -> Result<(), E>, E> std::io::Write for Pieces<F, E> {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        for (i, line) in bytes.split(|&b| b == b'\n').enumerate() {
            if i > 0 {
                self.gather(b"\n")?;
                self.gather(RUN_INDENT.as_bytes())?;
            }
            self.gather(line)?;
        }
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.hand_on()
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
    // a metadata test's tree (the run's) and operations; empty for every other test
    MetaFiles = "meta_files",
    MetaDirs = "meta_dirs",
    MetaFileBytes = "meta_file_bytes",
    MetaSharedDir = "meta_shared_dir",
    MetaRandomOrder = "meta_random_order",
    MetaWarm = "meta_warm",
    Ops = "ops",
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
            let mut runs: Vec<Run> = (0..n).map(|i| sample_run("h", i)).collect();
            if let Some(run) = runs.first_mut() {
                // characters of two, three and four bytes, for the pieces to cut around
                run.labels.push("é€😀\n".repeat(50));
            }
            let whole = to_json(runs.clone(), at);
            for piece in [1, 2, 3, 7, 100, PIECE] {
                let (mut export, mut text) = JsonExport::begin(at);
                let mut pieces = 0;
                for run in &runs {
                    export
                        .write_run_in(run, piece, |part| {
                            assert!(part.len() < piece + 8, "{piece}: {}", part.len());
                            pieces += 1;
                            text.push_str(part);
                            Ok::<_, ()>(())
                        })
                        .unwrap();
                }
                text.push_str(&export.end());
                assert_eq!(text, whole, "{n} runs in pieces of {piece}");
                if n > 0 && piece < 100 {
                    assert!(pieces > 100, "{n} runs, {piece}: {pieces} pieces");
                }
            }
        }
    }

    #[test]
    fn a_failed_output_stops_the_run_with_its_error() {
        let (mut export, _) = JsonExport::begin(Utc::now());
        let mut calls = 0;
        let failed = export.write_run_in(&sample_run("h", 0), 10, |_| {
            calls += 1;
            match calls {
                3 => Err("disk full"),
                _ => Ok(()),
            }
        });
        assert_eq!((failed, calls), (Err("disk full"), 3));
    }
}
