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
mod report;
mod table;
#[cfg(test)]
mod tests;
mod throughput;

use chrono::{DateTime, NaiveDateTime, Utc};

use super::text::{Draft, error, from_throughput, into_runs, parent_dir, scaled};
use super::{Origin, ParseError};
use crate::model::{EngineKind, Run, TestKind};
use options::{Options, merge};

const BANNER: &str = "Iozone: Performance Test of File I/O";
/// The last line iozone prints before the `-R` report. Without it a table or a set of
/// throughput figures may be cut short, or iozone was stopped mid-run.
const COMPLETE: &str = "iozone test complete.";
const KB: u64 = 1024;

/// Whether `text` is iozone3 output: its banner says so.
pub fn looks_like(text: &str) -> bool {
    text.contains(BANNER)
}

/// The runs of every iozone3 output in `text`.
pub fn parse(text: &str, origin: &Origin) -> Result<Vec<Run>, ParseError> {
    let lines: Vec<&str> = text.lines().collect();
    // A last line without its line end may be cut mid-number.
    let cut_short = !text.is_empty() && !text.ends_with('\n');
    let starts = output_starts(&lines);
    let mut drafts = Vec::new();
    for (k, &start) in starts.iter().enumerate() {
        let end = starts.get(k + 1).copied().unwrap_or(lines.len());
        let output = Output {
            lines: &lines[start..end],
            first: start + 1,
            cut_short: cut_short && end == lines.len(),
        };
        drafts.extend(output.drafts()?);
    }
    into_runs(
        drafts,
        origin,
        "no iozone3 table, -R report or throughput figures",
    )
}

/// Where each output begins: at each banner (the first line iozone prints), and at the
/// start of the text.
fn output_starts(lines: &[&str]) -> Vec<usize> {
    let mut starts = vec![0];
    starts.extend(
        lines
            .iter()
            .enumerate()
            .filter(|(i, line)| *i > 0 && line.contains(BANNER))
            .map(|(i, _)| i),
    );
    starts
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

/// One iozone output: its lines, and the line number of the first.
struct Output<'a> {
    lines: &'a [&'a str],
    first: usize,
    /// Whether the text ends inside this output's last line.
    cut_short: bool,
}

impl Output<'_> {
    fn number(&self, index: usize) -> usize {
        self.first + index
    }

    /// The runs of this output: one per I/O path and process count.
    fn drafts(&self) -> Result<Vec<Draft>, ParseError> {
        let header = self.header()?;
        if header.options.not_rates {
            return Err(error(
                None,
                "the figures are operations per second or microseconds per operation \
                 (iozone -O or -N), not kB/s: rerun iozone without them to import",
            ));
        }
        let mut groups = Groups::new(&header);
        // The table's cells go straight into the drafts: a large table is never held
        // twice, as cells and as measurements.
        self.table(&mut groups)?;
        for cell in self.throughput(&header)? {
            groups.add(cell)?;
        }
        if !groups.is_empty() && !header.complete {
            return Err(error(
                Some(self.number(self.lines.len().saturating_sub(1))),
                format!(
                    "the output stops before `{COMPLETE}`: the file is cut short or iozone was interrupted"
                ),
            ));
        }
        if groups.is_empty() {
            // The report repeats the table; it is the source only when it is all there is.
            for cell in self.report()? {
                groups.add(cell)?;
            }
        }
        Ok(groups.into_drafts())
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

/// One draft per I/O path and process count, in the order their figures appear.
struct Groups<'h> {
    header: &'h Header,
    drafts: Vec<((Via, u32), Draft)>,
}

impl<'h> Groups<'h> {
    fn new(header: &'h Header) -> Groups<'h> {
        Groups {
            header,
            drafts: Vec::new(),
        }
    }

    /// Puts `cell`'s figure into the draft of its I/O path and process count.
    fn add(&mut self, cell: Cell) -> Result<(), ParseError> {
        let key = (cell.via, cell.threads);
        let index = match self.drafts.iter().position(|(k, _)| *k == key) {
            Some(i) => i,
            None => {
                let draft = draft(self.header, cell.via, cell.threads);
                self.drafts.push((key, draft));
                self.drafts.len() - 1
            }
        };
        let at = |m: String| error(Some(cell.line), m);
        let m = measurement(&cell).map_err(at)?;
        self.drafts[index].1.add(m).map_err(at)
    }

    fn is_empty(&self) -> bool {
        self.drafts.is_empty()
    }

    fn into_drafts(self) -> Vec<Draft> {
        self.drafts.into_iter().map(|(_, d)| d).collect()
    }
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
