//! The text IOzone 3 prints (`iozone ... > out.txt`), in its four forms: a single
//! measurement (`-s 32m -r 64k -i 0 -i 1`), the auto-mode table (`-a`: file size ×
//! record size rows), the Excel-style report section (`-R`: one table per test, file
//! sizes down and record sizes across) and throughput mode (`-t N`: "Children see" and
//! "Parent sees" lines per test). Several outputs pasted into one file give runs in
//! file order.
//!
//! Figures are kB/s with kB = 1024 bytes. The columns write … stride read become one
//! run (engine posix, or mmap with `-B`); the stdio columns fwrite … freread a second
//! run with engine stdio. Not imported: the `-O`/`-N` outputs (operations per second,
//! microseconds per operation: not rates of bytes), iozone's mixed workload (`-i 8`
//! mixes readers and writers across processes, not our `mix`), the pread/pwrite
//! throughput tests, CPU utilisation and the `-R` throughput report; the host and the
//! filesystem, which iozone3 does not state.
//!
//! A file per form: `table.rs` (the normal and auto-mode table), `report.rs` (the
//! `-R` section), `throughput.rs` (`-t`); `options.rs` reads the command line and the
//! lines iozone echoes about it. Here: splitting a text into outputs, each output's
//! header, and turning figures into runs.

mod options;
mod reader;
mod report;
mod table;
#[cfg(test)]
mod tests;
mod throughput;

use chrono::{DateTime, NaiveDateTime, Utc};

use super::text::{Draft, error, from_throughput, parent_dir, scaled};
use super::{Origin, ParseError, Piece};
use crate::model::{EngineKind, Run, RunPart, TestKind};
use options::{Options, merge};
pub use reader::read;

const BANNER: &str = "Iozone: Performance Test of File I/O";
/// The last line iozone prints before the `-R` report. Without it a table or a set of
/// throughput figures may be cut short, or iozone was stopped mid-run.
const COMPLETE: &str = "iozone test complete.";
const KB: u64 = 1024;

/// Whether `text` is iozone3 output: its banner says so.
pub fn looks_like(text: &str) -> bool {
    text.contains(BANNER)
}

/// The runs of every iozone3 output in `text`, read as a stream is ([`read`]) and put
/// together, keyed by `origin`.
pub fn parse(text: &str, origin: &Origin) -> Result<Vec<Run>, ParseError> {
    let mut runs: Vec<Run> = Vec::new();
    let mut put_together = |piece| {
        match piece {
            Piece::Part(RunPart::Open { run, .. }) => runs.push(*run),
            Piece::Part(RunPart::Figures { slot, results }) => runs[slot].results.extend(results),
            Piece::Part(RunPart::Close { slot, run }) => {
                let results = std::mem::take(&mut runs[slot].results);
                runs[slot] = Run { results, ..*run };
            }
            Piece::Run(run) => runs.push(*run),
        }
        true
    };
    read(
        text.as_bytes(),
        &origin.file,
        origin.imported_at,
        &mut put_together,
    )?;
    // the key of `origin`, which need not be the text's own
    for (index, run) in runs.iter_mut().enumerate() {
        run.uuid = origin.run_uuid(index);
    }
    Ok(runs)
}

/// Which I/O path a column measured: iozone's own (read/write, or mmap with `-B`), or
/// the C library's buffered streams (the fwrite/fread columns).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Via {
    Main,
    Stdio,
}

/// One figure as iozone printed it.
#[derive(Clone, Debug, PartialEq)]
struct Cell {
    via: Via,
    test: TestKind,
    file_kb: u64,
    record_kb: u64,
    /// Processes whose files the figure covers.
    threads: u32,
    kb_per_s: f64,
    line: usize,
}

/// What an output states about the run as a whole.
#[derive(Clone, Debug, Default, PartialEq)]
struct Header {
    version: Option<String>,
    command: Option<String>,
    started_at: Option<DateTime<Utc>>,
    options: Options,
    /// `File size set to N kB` / `Record Size N kB`: the sizes of a single measurement.
    file_kb: Option<u64>,
    record_kb: Option<u64>,
    complete: bool,
}

/// One iozone output: its lines but its table's rows, and the line number of the
/// first.
struct Output<'a> {
    lines: &'a [&'a str],
    first: usize,
    /// Whether the text ends inside this output's last line.
    cut_short: bool,
    /// Where among `lines` the table's rows were, and how many (they are not kept).
    gap: (usize, usize),
}

impl Output<'_> {
    fn number(&self, index: usize) -> usize {
        let rows = if index >= self.gap.0 { self.gap.1 } else { 0 };
        self.first + index + rows
    }

    fn header(&self) -> Result<Header, ParseError> {
        let mut header = Header::default();
        for (i, line) in self.lines.iter().enumerate() {
            let trimmed = line.trim();
            if let Some(rest) = trimmed.strip_prefix("Version $Revision:") {
                header.version = Some(rest.trim_end_matches('$').trim().to_string());
            } else if let Some(rest) = trimmed.strip_prefix("Command line used:") {
                header.command = Some(rest.trim().to_string());
            } else if let Some(rest) = trimmed.strip_prefix("Run began:") {
                let at = run_began(rest).map_err(|m| error(Some(self.number(i)), m))?;
                header.started_at = Some(at);
            } else if let Some(rest) = trimmed.strip_prefix("File size set to") {
                header.file_kb = first_number(rest);
            } else if let Some(rest) = trimmed.strip_prefix("Record Size") {
                header.record_kb = first_number(rest);
            } else if let Some(rest) = trimmed.strip_prefix("File stride size set to") {
                header.options.stride = first_number(rest);
            } else if trimmed == COMPLETE {
                header.complete = true;
            } else {
                header.options.echoed(trimmed);
            }
        }
        if let Some(command) = &header.command {
            let from_command = Options::from_command(command);
            header.options = merge(header.options, from_command);
        }
        Ok(header)
    }
}

/// A kB/s figure: a finite, non-negative number.
fn rate(word: &str) -> Result<f64, String> {
    word.parse::<f64>()
        .ok()
        .filter(|r| r.is_finite() && *r >= 0.0)
        .ok_or_else(|| format!("'{word}' is not a rate in kB/s"))
}

fn first_number(text: &str) -> Option<u64> {
    text.split_whitespace().find_map(|w| w.parse().ok())
}

/// `Mon Nov 30 05:41:48 2026`, as C's ctime prints it. iozone prints local time
/// without a zone; it is taken as UTC, the only reading that needs no guess about the
/// machine it ran on (off by the zone's offset when that was not UTC).
fn run_began(text: &str) -> Result<DateTime<Utc>, String> {
    let normalized = text.split_whitespace().collect::<Vec<_>>().join(" ");
    NaiveDateTime::parse_from_str(&normalized, "%a %b %e %H:%M:%S %Y")
        .map(|t| t.and_utc())
        .map_err(|_| {
            format!(
                "'Run began: {}' is not a time like 'Mon Nov 30 05:41:48 2026'",
                text.trim()
            )
        })
}

fn draft(header: &Header, via: Via, threads: u32) -> Draft {
    let opts = &header.options;
    let mut d = Draft::new("iozone3");
    d.version = header.version.clone();
    d.command = header.command.clone();
    d.started_at = header.started_at;
    d.engine = match (via, opts.mmap) {
        (Via::Stdio, _) => EngineKind::Stdio,
        (Via::Main, true) => EngineKind::Mmap,
        (Via::Main, false) => EngineKind::Posix,
    };
    d.cache = opts.cache();
    d.threads = threads;
    d.auto = opts.auto;
    d.verify = opts.verify;
    // iozone3's stride unless `-j` says otherwise
    d.stride_records = Some(opts.stride.unwrap_or(crate::model::DEFAULT_STRIDE));
    d.dir = opts
        .file
        .as_deref()
        .map(parent_dir)
        .filter(|d| !d.is_empty());
    d
}

/// A cell in our units: sizes in bytes, rates in bytes/s, and the bytes of every
/// process (each writes and reads a file of the stated size).
fn measurement(cell: &Cell) -> Result<crate::model::Measurement, String> {
    let file_size = scaled(cell.file_kb, KB, "file size (kB)")?;
    let record_size = scaled(cell.record_kb, KB, "record size (kB)")?;
    let bytes = scaled(file_size, u64::from(cell.threads), "bytes of all processes")?;
    from_throughput(
        cell.test,
        file_size,
        record_size,
        bytes,
        cell.kb_per_s * KB as f64,
    )
}
