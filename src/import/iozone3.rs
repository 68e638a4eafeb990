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

use chrono::{DateTime, NaiveDateTime, Utc};

use super::text::{Draft, error, from_throughput, into_runs, parent_dir, scaled};
use super::{Origin, ParseError};
use crate::model::{CacheMode, EngineKind, Run, TestKind};

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

/// The test behind a table column, named as the two header lines name it.
fn table_column(name: &str) -> Option<(Via, TestKind)> {
    Some(match name {
        "write" => (Via::Main, TestKind::Write),
        "rewrite" => (Via::Main, TestKind::Rewrite),
        "read" => (Via::Main, TestKind::Read),
        "reread" => (Via::Main, TestKind::Reread),
        "random read" => (Via::Main, TestKind::RandomRead),
        "random write" => (Via::Main, TestKind::RandomWrite),
        "bkwd read" => (Via::Main, TestKind::BackwardRead),
        "record rewrite" => (Via::Main, TestKind::RecordRewrite),
        "stride read" => (Via::Main, TestKind::StrideRead),
        "fwrite" => (Via::Stdio, TestKind::Write),
        "frewrite" => (Via::Stdio, TestKind::Rewrite),
        "fread" => (Via::Stdio, TestKind::Read),
        "freread" => (Via::Stdio, TestKind::Reread),
        _ => return None,
    })
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

/// The test behind a throughput-mode line ("… for  2 initial writers = …").
fn throughput_test(name: &str) -> Option<(Via, TestKind)> {
    Some(match name {
        "initial writers" => (Via::Main, TestKind::Write),
        "rewriters" => (Via::Main, TestKind::Rewrite),
        "readers" => (Via::Main, TestKind::Read),
        "re-readers" => (Via::Main, TestKind::Reread),
        "random readers" => (Via::Main, TestKind::RandomRead),
        "random writers" => (Via::Main, TestKind::RandomWrite),
        "reverse readers" => (Via::Main, TestKind::BackwardRead),
        "stride readers" => (Via::Main, TestKind::StrideRead),
        "fwriters" => (Via::Stdio, TestKind::Write),
        "re-fwriters" => (Via::Stdio, TestKind::Rewrite),
        "freaders" => (Via::Stdio, TestKind::Read),
        "re-freaders" => (Via::Stdio, TestKind::Reread),
        _ => return None,
    })
}

/// What the command line and the lines iozone echoes about it say.
#[derive(Clone, Debug, Default, PartialEq)]
struct Options {
    direct: bool,
    sync: bool,
    flush: bool,
    mmap: bool,
    auto: bool,
    verify: bool,
    /// `-O` or `-N`: figures are operations/s or µs/operation, not kB/s.
    not_rates: bool,
    /// The test file (`-f`, or the first of `-F`).
    file: Option<String>,
    stride: Option<u64>,
}

impl Options {
    /// Options from the command line, read the way iozone's getopt reads them
    /// (clustered flags such as `-aI`, arguments attached or separate).
    fn from_command(command: &str) -> Options {
        // The options of iozone 3.4xx's getopt string that take an argument.
        const WITH_ARGUMENT: &str = "JjkVrtsfFdluUSLH+PibXYgnyq";
        let mut opts = Options::default();
        let mut words = command.split_whitespace().skip(1).peekable();
        while let Some(word) = words.next() {
            let Some(flags) = word.strip_prefix('-') else {
                continue;
            };
            for (i, flag) in flags.char_indices() {
                if !WITH_ARGUMENT.contains(flag) {
                    opts.flag(flag);
                    continue;
                }
                let attached = &flags[i + flag.len_utf8()..];
                let argument = if attached.is_empty() {
                    words.next_if(|w| !w.starts_with('-'))
                } else {
                    Some(attached)
                };
                opts.argument(flag, argument);
                break;
            }
        }
        opts
    }

    fn flag(&mut self, flag: char) {
        match flag {
            'I' => self.direct = true,
            'o' => self.sync = true,
            'e' => self.flush = true,
            // -D is mmap with msync(MS_ASYNC): still I/O through a mapping.
            'B' | 'D' => self.mmap = true,
            'a' | 'A' => self.auto = true,
            'O' | 'N' => self.not_rates = true,
            _ => {}
        }
    }

    fn argument(&mut self, flag: char, argument: Option<&str>) {
        match (flag, argument) {
            // -F's further file names follow as plain words; the first names the directory.
            ('f' | 'F', Some(file)) => self.file = Some(file.to_string()),
            ('j', Some(stride)) => self.stride = stride.parse().ok(),
            ('V', _) => self.verify = true,
            _ => {}
        }
    }

    /// Adds what an echoed line says. iozone echoes every option it understood, so
    /// these also cover a command line that is missing or quoted oddly.
    fn echoed(&mut self, line: &str) {
        let line = line.trim();
        match line {
            "O_DIRECT feature enabled" => self.direct = true,
            "SYNC Mode." => self.sync = true,
            "Include fsync in write timing" => self.flush = true,
            "Using mmap files" | "Using msync(MS_ASYNC) on mmap files" => self.mmap = true,
            _ if line.starts_with("Auto Mode") => self.auto = true,
            _ if line.starts_with("Verify Mode") => self.verify = true,
            _ if line.starts_with("OPS Mode") || line.starts_with("Microseconds/op Mode") => {
                self.not_rates = true
            }
            _ if line.starts_with("Output is in") => {
                self.not_rates |= !line.to_ascii_lowercase().contains("bytes/sec")
            }
            _ => {}
        }
    }

    /// `-I` is O_DIRECT, `-o` O_SYNC, `-e` fsync in the write time (our flush mode
    /// without its cold reads: iozone3 never drops the cache); none of them, the page
    /// cache as is. When several are given the strongest bypass of the cache wins.
    fn cache(&self) -> CacheMode {
        if self.direct {
            CacheMode::Direct
        } else if self.sync {
            CacheMode::Sync
        } else if self.flush {
            CacheMode::Flush
        } else {
            CacheMode::Buffered
        }
    }
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
        let mut cells = self.table()?;
        cells.extend(self.throughput(&header)?);
        if !cells.is_empty() && !header.complete {
            return Err(error(
                Some(self.number(self.lines.len().saturating_sub(1))),
                format!(
                    "the output stops before `{COMPLETE}`: the file is cut short or iozone was interrupted"
                ),
            ));
        }
        if cells.is_empty() {
            // The report repeats the table; it is the source only when it is all there is.
            cells = self.report()?;
        }
        group(&header, cells)
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

    /// The cells of the normal table (`kB reclen write rewrite …`), if there is one.
    fn table(&self) -> Result<Vec<Cell>, ParseError> {
        let Some(at) = self.lines.iter().position(|l| is_table_header(l)) else {
            return Ok(Vec::new());
        };
        let above = at.checked_sub(1).map_or("", |i| self.lines[i]);
        let columns = table_columns(above, self.lines[at]);
        let mut cells = Vec::new();
        for (i, line) in self.lines.iter().enumerate().skip(at + 1) {
            let words = words(line);
            let sizes = match words.as_slice() {
                [(_, kb), (_, rec), ..] => kb.parse::<u64>().ok().zip(rec.parse::<u64>().ok()),
                _ => None,
            };
            let Some((file_kb, record_kb)) = sizes else {
                break; // the end of the table
            };
            let row = Row {
                file_kb,
                record_kb,
                line: self.number(i),
            };
            cells.extend(row.cells(&columns, &words[2..])?);
        }
        Ok(cells)
    }

    /// The cells of the `-R` report section: one table per test.
    fn report(&self) -> Result<Vec<Cell>, ParseError> {
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

    /// The cells of throughput mode. Each `Throughput test with N processes` line starts
    /// a section (`-l`/`-u` give several); per test the "Parent sees" figure is taken:
    /// the bytes of all processes over the wall time, as our threads measure. The
    /// "Children see" figure (the sum of each process's own rate, each over its own
    /// time) is further from that; it stands in only when a test has no parent line,
    /// as in logs trimmed to the children's lines.
    fn throughput(&self, header: &Header) -> Result<Vec<Cell>, ParseError> {
        let mut section: Option<Section> = None;
        let mut cells = Vec::new();
        for (i, line) in self.lines.iter().enumerate() {
            let trimmed = line.trim();
            let at = |m: &str| error(Some(self.number(i)), m);
            if let Some(rest) = trimmed.strip_prefix("Throughput test with") {
                if let Some(done) = section.take() {
                    cells.extend(done.cells()?);
                }
                let threads = first_number(rest)
                    .and_then(|n| u32::try_from(n).ok())
                    .filter(|&n| n > 0)
                    .ok_or_else(|| at("no process count after 'Throughput test with'"))?;
                section = Some(Section::new(threads, header.file_kb, header.record_kb));
            } else if let Some(rest) = trimmed.strip_prefix("Each process writes a") {
                let s = section
                    .as_mut()
                    .ok_or_else(|| at("sizes before 'Throughput test with'"))?;
                let mut numbers = rest.split_whitespace().filter_map(|w| w.parse().ok());
                s.file_kb = numbers.next();
                s.record_kb = numbers.next();
            } else if let Some(side) = Side::of(trimmed) {
                let s = section
                    .as_mut()
                    .ok_or_else(|| at("figures before 'Throughput test with'"))?;
                s.figure(side, trimmed, self.number(i))
                    .map_err(|m| at(&m))?;
            }
        }
        if let Some(done) = section {
            cells.extend(done.cells()?);
        }
        Ok(cells)
    }
}

/// Which throughput-mode figure a line holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Side {
    Children,
    Parent,
}

impl Side {
    fn of(line: &str) -> Option<(Side, &str)> {
        if let Some(rest) = line.strip_prefix("Children see throughput for") {
            Some((Side::Children, rest))
        } else {
            line.strip_prefix("Parent sees throughput for")
                .map(|rest| (Side::Parent, rest))
        }
    }
}

/// One throughput-mode section: its process count, sizes and figures.
struct Section {
    threads: u32,
    file_kb: Option<u64>,
    record_kb: Option<u64>,
    /// (side, test, kB/s, line), in file order.
    figures: Vec<(Side, Via, TestKind, f64, usize)>,
}

impl Section {
    fn new(threads: u32, file_kb: Option<u64>, record_kb: Option<u64>) -> Section {
        Section {
            threads,
            file_kb,
            record_kb,
            figures: Vec::new(),
        }
    }

    /// Reads `… for  2 initial writers \t=  506699.80 kB/sec`.
    fn figure(
        &mut self,
        (side, rest): (Side, &str),
        line: &str,
        number: usize,
    ) -> Result<(), String> {
        let (name, value) = rest
            .split_once('=')
            .ok_or_else(|| format!("no '=' in '{line}'"))?;
        let mut name_words = name.split_whitespace();
        name_words.next(); // the process count, already known
        let name = name_words.collect::<Vec<_>>().join(" ");
        let mut value_words = value.split_whitespace();
        let kb_per_s = rate(value_words.next().unwrap_or(""))?;
        let unit = value_words.next().unwrap_or("").to_ascii_lowercase();
        if unit != "kb/sec" {
            return Err(format!("'{line}' is not in kB/sec"));
        }
        // Tests we have no equivalent for (mixed workload, pread/pwrite) are left out.
        if let Some((via, test)) = throughput_test(&name) {
            self.figures.push((side, via, test, kb_per_s, number));
        }
        Ok(())
    }

    fn cells(self) -> Result<Vec<Cell>, ParseError> {
        let mut cells = Vec::new();
        for &(side, via, test, kb_per_s, line) in &self.figures {
            let has_parent = self
                .figures
                .iter()
                .any(|f| (f.0, f.1, f.2) == (Side::Parent, via, test));
            if side == Side::Children && has_parent {
                continue;
            }
            let (Some(file_kb), Some(record_kb)) = (self.file_kb, self.record_kb) else {
                return Err(error(
                    Some(line),
                    "the file and record sizes are not stated",
                ));
            };
            let threads = self.threads;
            cells.push(Cell {
                via,
                test,
                file_kb,
                record_kb,
                threads,
                kb_per_s,
                line,
            });
        }
        Ok(cells)
    }
}

/// A table row's sizes and where it is.
struct Row {
    file_kb: u64,
    record_kb: u64,
    line: usize,
}

impl Row {
    /// The row's figures, each placed under the header column its right edge lines up
    /// with: iozone right-aligns figures and leaves blanks for tests not run.
    fn cells(
        &self,
        columns: &[Column],
        figures: &[(usize, &str)],
    ) -> Result<Vec<Cell>, ParseError> {
        let mut cells = Vec::new();
        let mut next = 0;
        for &(end, word) in figures {
            let at = |m: String| error(Some(self.line), m);
            let k = nearest_column(columns, next, end).ok_or_else(|| {
                at(format!(
                    "the figure '{word}' lines up with no column of the header"
                ))
            })?;
            next = k + 1;
            let kb_per_s = rate(word).map_err(at)?;
            // Columns we do not import, and 0 (no rate computed), carry no figure.
            if let (Some((via, test)), true) = (columns[k].test, kb_per_s > 0.0) {
                cells.push(Cell {
                    via,
                    test,
                    file_kb: self.file_kb,
                    record_kb: self.record_kb,
                    threads: 1,
                    kb_per_s,
                    line: self.line,
                });
            }
        }
        Ok(cells)
    }
}

/// A table column: where its header ends and what it measured.
#[derive(Clone, Debug, PartialEq)]
struct Column {
    end: usize,
    test: Option<(Via, TestKind)>,
}

/// iozone's figures end where their header ends, or one place to the right (the read
/// columns' headers are a character narrower than their figures).
const ALIGNMENT_SLACK: usize = 1;

fn nearest_column(columns: &[Column], from: usize, end: usize) -> Option<usize> {
    (from..columns.len())
        .filter(|&k| columns[k].end.abs_diff(end) <= ALIGNMENT_SLACK)
        .min_by_key(|&k| columns[k].end.abs_diff(end))
}

fn is_table_header(line: &str) -> bool {
    let mut words = line.split_whitespace();
    matches!(words.next(), Some("kB" | "KB")) && words.next() == Some("reclen")
}

/// The columns after `kB reclen`, named with the qualifier above them ("random" over
/// "read" is random read).
fn table_columns(above: &str, header: &str) -> Vec<Column> {
    let qualifiers = words(above);
    words(header)
        .into_iter()
        .skip(2)
        .map(|(end, word)| {
            let name = match qualifiers.iter().find(|(e, _)| *e == end) {
                Some((_, q)) => format!("{q} {word}"),
                None => word.to_string(),
            };
            Column {
                end,
                test: table_column(&name),
            }
        })
        .collect()
}

/// The words of a line with the byte offset where each ends.
fn words(line: &str) -> Vec<(usize, &str)> {
    let mut out = Vec::new();
    let mut start = None;
    for (i, c) in line.char_indices() {
        match (c.is_whitespace(), start) {
            (true, Some(s)) => {
                out.push((i, &line[s..i]));
                start = None;
            }
            (false, None) => start = Some(i),
            _ => {}
        }
    }
    if let Some(s) = start {
        out.push((line.len(), &line[s..]));
    }
    out
}

/// A kB/s figure: a finite, non-negative number.
fn rate(word: &str) -> Result<f64, String> {
    word.parse::<f64>()
        .ok()
        .filter(|r| r.is_finite() && *r >= 0.0)
        .ok_or_else(|| format!("'{word}' is not a rate in kB/s"))
}

fn unquote(word: &str) -> Option<&str> {
    word.strip_prefix('"')?.strip_suffix('"')
}

fn quoted_number(word: &str, what: &str) -> Result<u64, String> {
    unquote(word)
        .and_then(|w| w.parse().ok())
        .ok_or_else(|| format!("{what} '{word}' is not a quoted whole number"))
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

/// Echoed lines and the command line each set options; either is enough.
fn merge(echoed: Options, command: Options) -> Options {
    Options {
        direct: echoed.direct || command.direct,
        sync: echoed.sync || command.sync,
        flush: echoed.flush || command.flush,
        mmap: echoed.mmap || command.mmap,
        auto: echoed.auto || command.auto,
        verify: echoed.verify || command.verify,
        not_rates: echoed.not_rates || command.not_rates,
        file: command.file,
        stride: command.stride.or(echoed.stride),
    }
}

/// One draft per I/O path and process count, in the order their figures appear.
fn group(header: &Header, cells: Vec<Cell>) -> Result<Vec<Draft>, ParseError> {
    let mut drafts: Vec<((Via, u32), Draft)> = Vec::new();
    for cell in cells {
        let key = (cell.via, cell.threads);
        let index = match drafts.iter().position(|(k, _)| *k == key) {
            Some(i) => i,
            None => {
                drafts.push((key, draft(header, cell.via, cell.threads)));
                drafts.len() - 1
            }
        };
        let at = |m: String| error(Some(cell.line), m);
        let m = measurement(&cell).map_err(at)?;
        drafts[index].1.add(m).map_err(at)?;
    }
    Ok(drafts.into_iter().map(|(_, d)| d).collect())
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
    d.stride_records = opts.stride.unwrap_or(d.stride_records);
    d.dir = opts.file.as_deref().map(parent_dir).unwrap_or_default();
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

#[cfg(test)]
mod tests {
    use chrono::TimeZone;

    use super::super::text::testing::{never_panics, origin};
    use super::*;
    use crate::model::Measurement;
    use crate::units::ByteSize;

    const SINGLE: &str = include_str!("../../tests/fixtures/iozone3/single-32m-r64k.txt");
    const SINGLE_R: &str = include_str!("../../tests/fixtures/iozone3/single-32m-r64k-R.txt");
    const AUTO: &str = include_str!("../../tests/fixtures/iozone3/auto-n64k-g4m.txt");
    const THROUGHPUT: &str = include_str!("../../tests/fixtures/iozone3/throughput-t2.txt");

    fn runs(text: &str) -> Vec<Run> {
        parse(text, &origin(text)).unwrap()
    }

    fn cell(run: &Run, test: TestKind, file_kb: u64, record_kb: u64) -> &Measurement {
        run.results
            .iter()
            .find(|m| {
                (m.test, m.file_size, m.record_size)
                    == (test, ByteSize(file_kb * KB), ByteSize(record_kb * KB))
            })
            .unwrap()
    }

    #[test]
    fn single_run_keeps_every_stated_fact() {
        let runs = runs(SINGLE);
        assert_eq!(runs.len(), 1);
        let run = &runs[0];
        let p = &run.params;
        assert_eq!(p.file_size, ByteSize(33_554_432));
        assert_eq!(p.record_sizes, vec![ByteSize(65_536)]);
        assert_eq!(
            p.tests,
            [
                TestKind::Write,
                TestKind::Rewrite,
                TestKind::Read,
                TestKind::Reread
            ]
        );
        assert_eq!(
            (p.engine, p.cache, p.threads),
            (EngineKind::Posix, CacheMode::Buffered, 1)
        );
        assert_eq!((p.auto, p.repeat, p.stride_records), (false, 1, 17));
        assert_eq!(p.dir, "/data");
        for (test, kb_per_s) in [
            (TestKind::Write, 2728381.0),
            (TestKind::Rewrite, 7796271.0),
            (TestKind::Read, 10670058.0),
            (TestKind::Reread, 8773181.0),
        ] {
            let m = cell(run, test, 32768, 64);
            assert_eq!(m.throughput, kb_per_s * 1024.0, "{test}");
            assert_eq!(m.bytes, 33_554_432);
            assert_eq!(m.latency_ns, None);
        }
        assert_eq!(cell(run, TestKind::Write, 32768, 64).elapsed_ns, 12_010_053);
        let source = run.source.as_ref().unwrap();
        assert_eq!(source.tool, "iozone3");
        assert_eq!(source.version.as_deref(), Some("3.489"));
        assert_eq!(
            source.command.as_deref(),
            Some("/usr/bin/iozone -s 32m -r 64k -i 0 -i 1 -f /data/ioz.tmp")
        );
        assert!(source.time_known);
        assert_eq!(
            run.started_at,
            Utc.with_ymd_and_hms(2026, 11, 30, 5, 41, 47).unwrap()
        );
        assert_eq!(run.host, Default::default());
    }

    #[test]
    fn the_table_is_taken_once_when_a_report_follows() {
        let run = &runs(SINGLE_R)[0];
        assert_eq!(run.results.len(), 4);
        assert_eq!(
            cell(run, TestKind::Write, 32768, 64).throughput,
            2051333.0 * 1024.0
        );
        assert_eq!(
            cell(run, TestKind::Reread, 32768, 64).throughput,
            10211065.0 * 1024.0
        );
    }

    #[test]
    fn a_report_alone_gives_the_tables_numbers() {
        let report_only: String = SINGLE_R
            .lines()
            .filter(|l| {
                !is_table_header(l)
                    && !l.contains("random")
                    && !l.trim_start().starts_with("32768      64")
            })
            .map(|l| format!("{l}\n"))
            .collect();
        assert!(!report_only.contains("reclen"));
        let from_report = &runs(&report_only)[0];
        let from_table = &runs(SINGLE_R)[0];
        assert_eq!(from_report.results, from_table.results);
        assert_eq!(from_report.params, from_table.params);
        // A report cut inside its last figure is refused.
        let cut = report_only.trim_end().trim_end_matches('5');
        let e = parse(cut, &origin(cut)).unwrap_err();
        assert_eq!(e.line, Some(cut.lines().count()));
    }

    #[test]
    fn auto_mode_is_a_run_and_its_stdio_columns_another() {
        let runs = runs(AUTO);
        assert_eq!(runs.len(), 2);
        let (main, stdio) = (&runs[0], &runs[1]);
        let kib = |sizes: &[ByteSize]| sizes.iter().map(|s| s.0 / KB).collect::<Vec<_>>();
        assert_eq!(
            kib(&main.params.file_sizes),
            [64, 128, 256, 512, 1024, 2048, 4096]
        );
        assert_eq!(
            kib(&main.params.record_sizes),
            [4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096]
        );
        assert_eq!(main.params.file_size, ByteSize(4 << 20));
        assert!(main.params.auto);
        // 5 + 6 + ... + 11 (file size, record size) pairs, nine tests each.
        assert_eq!(main.results.len(), 56 * 9);
        assert_eq!(main.params.tests, TestKind::ALL[..9]);
        assert_eq!(
            cell(main, TestKind::Write, 64, 4).throughput,
            983980.0 * 1024.0
        );
        assert_eq!(
            cell(main, TestKind::RandomWrite, 2048, 1024).throughput,
            21980064.0 * 1024.0
        );
        assert_eq!(
            cell(main, TestKind::StrideRead, 4096, 4096).throughput,
            11768599.0 * 1024.0
        );
        assert_eq!(cell(main, TestKind::Read, 4096, 4).bytes, 4 << 20);
        assert_eq!(main.params.engine, EngineKind::Posix);
        assert_eq!(stdio.params.engine, EngineKind::Stdio);
        assert_eq!(stdio.results.len(), 56 * 4);
        assert_eq!(
            cell(stdio, TestKind::Write, 64, 4).throughput,
            2278628.0 * 1024.0
        );
        assert_eq!(
            cell(stdio, TestKind::Reread, 4096, 4096).throughput,
            14271297.0 * 1024.0
        );
        assert_ne!(main.uuid, stdio.uuid);
        assert_eq!(
            main.started_at,
            Utc.with_ymd_and_hms(2026, 11, 30, 5, 41, 48).unwrap()
        );
    }

    #[test]
    fn blank_cells_are_tests_not_run() {
        // An -i 0 -i 2 row: read and reread blank, random read and write present.
        let row = "              64       4   983980  2772930  6271021  6421025  4564786  1017549";
        let blanked = row.replace("  6271021  6421025", &" ".repeat(18));
        let text = AUTO.replace(
            AUTO.lines().find(|l| l.starts_with(&row[..30])).unwrap(),
            &blanked,
        );
        let main = &runs(&text)[0];
        assert!(main.results.iter().all(|m| m.file_size != ByteSize(64 * KB)
            || m.record_size != ByteSize(4 * KB)
            || !matches!(m.test, TestKind::Read | TestKind::Reread)));
        assert_eq!(
            cell(main, TestKind::RandomRead, 64, 4).throughput,
            4564786.0 * 1024.0
        );
        assert_eq!(
            cell(main, TestKind::RandomWrite, 64, 4).throughput,
            1017549.0 * 1024.0
        );
    }

    #[test]
    fn throughput_mode_takes_what_the_parent_sees() {
        let runs = runs(THROUGHPUT);
        assert_eq!(runs.len(), 1);
        let run = &runs[0];
        assert_eq!(run.params.threads, 2);
        assert_eq!(run.params.file_size, ByteSize(16 << 20));
        assert_eq!(run.params.dir, "/data");
        assert_eq!(run.results.len(), 4);
        for (test, parent) in [
            (TestKind::Write, 380070.80),
            (TestKind::Rewrite, 1850087.97),
            (TestKind::Read, 11172468.43),
            (TestKind::Reread, 11316013.59),
        ] {
            let m = cell(run, test, 16384, 64);
            assert_eq!(m.throughput, parent * 1024.0, "{test}");
            assert_eq!(m.bytes, 2 * (16 << 20));
        }
        // Without the parent's line, the children's figure stands in.
        let children_only: String = THROUGHPUT
            .lines()
            .filter(|l| !l.contains("Parent sees"))
            .map(|l| format!("{l}\n"))
            .collect();
        let run = &parse(&children_only, &origin(&children_only)).unwrap()[0];
        assert_eq!(
            cell(run, TestKind::Write, 16384, 64).throughput,
            506699.80 * 1024.0
        );
    }

    #[test]
    fn the_same_text_gives_the_same_uuids() {
        let first: Vec<_> = runs(AUTO).iter().map(|r| r.uuid).collect();
        let again: Vec<_> = runs(AUTO).iter().map(|r| r.uuid).collect();
        assert_eq!(first, again);
        assert_ne!(runs(SINGLE)[0].uuid, runs(SINGLE_R)[0].uuid);
    }

    #[test]
    fn outputs_pasted_together_are_runs_in_order() {
        let both = format!("{SINGLE}{THROUGHPUT}");
        let runs = runs(&both);
        assert_eq!(runs.len(), 2);
        assert_eq!(runs[0].params.threads, 1);
        assert_eq!(runs[1].params.threads, 2);
        assert_eq!(
            runs[1].started_at,
            Utc.with_ymd_and_hms(2026, 11, 30, 5, 42, 13).unwrap()
        );
    }

    #[test]
    fn a_cut_short_output_is_an_error_at_its_last_line() {
        let cut = &SINGLE[..SINGLE.find("10670058").unwrap()];
        let e = parse(cut, &origin(cut)).unwrap_err();
        assert_eq!(e.line, Some(28));
        assert!(
            e.to_string()
                .starts_with("line 28: the output stops before"),
            "{e}"
        );
        let header_only = &SINGLE[..SINGLE.find("Run began").unwrap()];
        assert_eq!(
            parse(header_only, &origin(header_only)).unwrap_err().line,
            None
        );
    }

    #[test]
    fn malformed_figures_name_their_line() {
        let bad = SINGLE.replace("7796271", "77962x1");
        let e = parse(&bad, &origin(&bad)).unwrap_err();
        assert_eq!(e.line, Some(28));
        let bad = SINGLE.replace("Mon Nov 30 05:41:47 2026", "Mon Nov 31 05:41:47 2026");
        assert_eq!(parse(&bad, &origin(&bad)).unwrap_err().line, Some(16));
        let ops = SINGLE.replace(
            "Output is in kBytes/sec",
            "Output is in operations per second",
        );
        assert!(
            parse(&ops, &origin(&ops))
                .unwrap_err()
                .message
                .contains("-O")
        );
    }

    #[test]
    fn options_come_from_the_command_line_as_getopt_reads_it() {
        let o = Options::from_command("iozone -aIe -B -t 2 -s 1g -r512 -F /mnt/a /mnt/b -j 5");
        assert!(o.auto && o.direct && o.flush && o.mmap && !o.sync);
        assert_eq!(o.file.as_deref(), Some("/mnt/a"));
        assert_eq!(o.stride, Some(5));
        assert_eq!(o.cache(), CacheMode::Direct);
        let o = Options::from_command("iozone -o -s 32m -f ioz.tmp");
        assert_eq!(o.cache(), CacheMode::Sync);
        assert_eq!(parent_dir(o.file.as_deref().unwrap()), "");
        assert!(Options::from_command("iozone -O -a").not_rates);
        let text = SINGLE.replace("-s 32m", "-e -B -s 32m");
        let run = &runs(&text)[0];
        assert_eq!(
            (run.params.cache, run.params.engine),
            (CacheMode::Flush, EngineKind::Mmap)
        );
    }

    #[test]
    fn detection() {
        assert!(
            [SINGLE, SINGLE_R, AUTO, THROUGHPUT]
                .iter()
                .all(|t| looks_like(t))
        );
        assert!(!looks_like(
            "Command\tRead (bytes/sec)  Write (bytes/sec)\n"
        ));
    }

    #[test]
    fn never_panics_on_damaged_output() {
        never_panics(parse, &[SINGLE, SINGLE_R, AUTO, THROUGHPUT], 3000);
    }
}
