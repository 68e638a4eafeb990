//! iozone3 output read a line at a time, so that an auto-mode table of millions of rows
//! never sits in memory: each table row's figures go on as they are read, in parts of
//! their runs ([`RunPart`]), and only the lines around the table are kept, to read the
//! output's header, throughput figures and `-R` report from when the output ends. The
//! runs close at the end of the text, once the hash of all of it (their UUIDs' key,
//! [`Origin::new`]'s) is known.

use std::io::{BufRead, Read};

use chrono::{DateTime, Utc};

use super::table::{Column, Row, is_table_header, table_columns, words};
use super::{BANNER, COMPLETE, Cell, Header, Output, Via, draft, error, measurement};
use crate::import::text::{Draft, Figured};
use crate::import::{NAMESPACE, Origin, ParseError, Piece};
use crate::model::{Measurement, RunPart};

/// Figures a part holds: a few hundred kilobytes, a few of them queued.
const PART: usize = 8_192;

/// The longest line read: iozone's are under 200 bytes (an auto-mode row with the
/// stdio columns); a text with longer ones is not its output, and may have no end.
const LONGEST_LINE: usize = 64 << 10;

/// Reads the iozone3 outputs of `reader` (the file `file`, imported at `imported_at`),
/// handing their runs to `emit` in parts as they are read; stops early when `emit`
/// says nobody listens.
pub fn read(
    mut reader: impl BufRead,
    file: &str,
    imported_at: DateTime<Utc>,
    emit: &mut dyn FnMut(Piece) -> bool,
) -> Result<(), ParseError> {
    let mut hash = sha1_smol::Sha1::new();
    hash.update(NAMESPACE.as_bytes());
    let mut reading = Reading {
        emit,
        // the record runs open with: their UUIDs come when they close
        provisional: Origin {
            file: file.to_string(),
            imported_at,
            content_key: uuid::Uuid::nil(),
        },
        runs: Vec::new(),
        listening: true,
    };
    let mut output = Pending::new(1);
    let mut bytes = Vec::new();
    let mut number = 0;
    let mut cut_short = false;
    // looked for in every line: a searcher made once rather than once a line
    let banner = memchr::memmem::Finder::new(BANNER);
    loop {
        bytes.clear();
        let read = ((&mut reader).take(LONGEST_LINE as u64 + 1))
            .read_until(b'\n', &mut bytes)
            .map_err(|e| error(Some(number + 1), format!("cannot be read: {e}")))?;
        if read == 0 {
            break;
        }
        if bytes.len() > LONGEST_LINE {
            return Err(error(
                Some(number + 1),
                format!("longer than {LONGEST_LINE} bytes: not iozone3 output"),
            ));
        }
        hash.update(&bytes);
        number += 1;
        cut_short = !bytes.ends_with(b"\n");
        let line =
            std::str::from_utf8(&bytes).map_err(|_| error(Some(number), "not text (UTF-8)"))?;
        let line = line.strip_suffix('\n').unwrap_or(line);
        let line = line.strip_suffix('\r').unwrap_or(line);
        if number > 1 && banner.find(line.as_bytes()).is_some() {
            let done = std::mem::replace(&mut output, Pending::new(number));
            done.end(number - 1, false, &mut reading)?;
        }
        output.line(line, number, &mut reading)?;
        if !reading.listening {
            return Ok(());
        }
    }
    output.end(number, cut_short, &mut reading)?;
    let origin = Origin {
        file: file.to_string(),
        imported_at,
        content_key: uuid::Builder::from_sha1_bytes(key_bytes(&hash)).into_uuid(),
    };
    reading.close(&origin)
}

/// The first 16 bytes of the hash: a name-based UUID's.
fn key_bytes(hash: &sha1_smol::Sha1) -> [u8; 16] {
    let mut bytes = [0; 16];
    bytes.copy_from_slice(&hash.digest().bytes()[..16]);
    bytes
}

/// What the whole text has opened so far, and where its parts go.
struct Reading<'e> {
    emit: &'e mut dyn FnMut(Piece) -> bool,
    provisional: Origin,
    /// Every run opened, by its number: the order of their first figures in the text,
    /// which numbers their UUIDs as a text read whole numbers them.
    runs: Vec<Opened>,
    listening: bool,
}

/// A run opened: its draft (no figures), what its figures decide of it, and the
/// figures not yet passed on.
struct Opened {
    draft: Draft,
    figured: Figured,
    waiting: Vec<Measurement>,
}

impl Reading<'_> {
    fn emit(&mut self, part: RunPart) {
        if self.listening {
            self.listening = (self.emit)(Piece::Part(part));
        }
    }

    /// Opens a run from `draft`; returns its number.
    fn open(&mut self, draft: Draft) -> usize {
        let slot = self.runs.len();
        let run = draft.clone().into_run(&self.provisional, slot);
        self.emit(RunPart::Open {
            slot,
            run: Box::new(run),
        });
        self.runs.push(Opened {
            draft,
            figured: Figured::default(),
            waiting: Vec::with_capacity(PART),
        });
        slot
    }

    /// Adds a figure to run `slot`, stamped with its engine and cache mode.
    fn add(&mut self, slot: usize, mut m: Measurement) {
        let run = &mut self.runs[slot];
        (m.engine, m.cache) = (run.draft.engine, run.draft.cache);
        run.figured.add(&m);
        run.waiting.push(m);
        if run.waiting.len() == PART {
            self.pass_on(slot);
        }
    }

    /// Passes on the figures of run `slot` still waiting.
    fn pass_on(&mut self, slot: usize) {
        let waiting = &mut self.runs[slot].waiting;
        if waiting.is_empty() {
            return;
        }
        let results = std::mem::replace(waiting, Vec::with_capacity(PART));
        self.emit(RunPart::Figures { slot, results });
    }

    /// Closes every run, numbered in the text's order under `origin`'s key; a text
    /// without a figure is an error.
    fn close(mut self, origin: &Origin) -> Result<(), ParseError> {
        if self.runs.is_empty() {
            return Err(error(
                None,
                "no measurements found: no iozone3 table, -R report or throughput figures",
            ));
        }
        for slot in 0..self.runs.len() {
            self.pass_on(slot);
        }
        for (slot, opened) in std::mem::take(&mut self.runs).into_iter().enumerate() {
            let run = opened.draft.into_run_figured(origin, slot, opened.figured);
            self.emit(RunPart::Close {
                slot,
                run: Box::new(run),
            });
        }
        Ok(())
    }
}

/// An output being read: the lines kept (all but its table's rows), where it is in
/// its table, and the runs it found.
struct Pending {
    first: usize,
    kept: Vec<String>,
    /// Where the table's rows were among the kept lines, and how many there were.
    gap: (usize, usize),
    table: Table,
    found: Found,
}

/// Where an output is in its table.
enum Table {
    Before,
    /// In the rows: the columns, and the header above them, which opens the table's
    /// runs.
    In(Vec<Column>, Box<Header>),
    After,
}

/// An output's runs by I/O path and process count, in the order they began, and the
/// figures they have had.
#[derive(Default)]
struct Found {
    runs: Vec<((Via, u32), usize)>,
    seen: Seen,
}

impl Pending {
    fn new(first: usize) -> Pending {
        Pending {
            first,
            kept: Vec::new(),
            gap: (0, 0),
            table: Table::Before,
            found: Found::default(),
        }
    }

    fn line(&mut self, line: &str, number: usize, reading: &mut Reading) -> Result<(), ParseError> {
        if let Table::In(columns, header) = &self.table {
            let words = words(line);
            let sizes = match words.as_slice() {
                [(_, kb), (_, rec), ..] => kb.parse::<u64>().ok().zip(rec.parse::<u64>().ok()),
                _ => None,
            };
            if let Some((file_kb, record_kb)) = sizes {
                let row = Row {
                    file_kb,
                    record_kb,
                    line: number,
                };
                self.gap.1 += 1;
                for cell in row.cells(columns, &words[2..])? {
                    self.found.add(cell, header, reading)?;
                }
                return Ok(());
            }
            // the end of the table
            self.table = Table::After;
        }
        let header_of_table = matches!(self.table, Table::Before) && is_table_header(line);
        let above = self.kept.last().map_or("", String::as_str);
        let columns = header_of_table.then(|| table_columns(above, line));
        self.kept.push(line.to_string());
        if let Some(columns) = columns {
            self.gap.0 = self.kept.len();
            let header = self.header(false)?;
            self.table = Table::In(columns, Box::new(header));
        }
        Ok(())
    }

    /// The header of the lines kept so far; an error when they say the figures are
    /// not rates.
    fn header(&self, cut_short: bool) -> Result<Header, ParseError> {
        let lines: Vec<&str> = self.kept.iter().map(String::as_str).collect();
        let header = self.output(&lines, cut_short).header()?;
        if header.options.not_rates {
            return Err(error(
                None,
                "the figures are operations per second or microseconds per operation \
                 (iozone -O or -N), not kB/s: rerun iozone without them to import",
            ));
        }
        Ok(header)
    }

    /// The output as kept, without its table's rows.
    fn output<'a>(&self, lines: &'a [&'a str], cut_short: bool) -> Output<'a> {
        Output {
            lines,
            first: self.first,
            cut_short,
            gap: self.gap,
        }
    }

    /// Ends the output, whose last line is `last`: its throughput figures, its
    /// report's when it has no others, and the final record of each of its runs.
    fn end(
        mut self,
        last: usize,
        cut_short: bool,
        reading: &mut Reading,
    ) -> Result<(), ParseError> {
        let header = self.header(cut_short)?;
        let lines: Vec<&str> = self.kept.iter().map(String::as_str).collect();
        let output = self.output(&lines, cut_short);
        for cell in output.throughput(&header)? {
            self.found.add(cell, &header, reading)?;
        }
        if !self.found.runs.is_empty() && !header.complete {
            return Err(error(
                Some(last),
                format!(
                    "the output stops before `{COMPLETE}`: the file is cut short or iozone was interrupted"
                ),
            ));
        }
        if self.found.runs.is_empty() {
            // The report repeats the table; it is the source only when it is all there is.
            for cell in output.report()? {
                self.found.add(cell, &header, reading)?;
            }
        }
        // the final record of each run: what the whole output says
        for &((via, threads), slot) in &self.found.runs {
            reading.runs[slot].draft = draft(&header, via, threads);
        }
        Ok(())
    }
}

impl Found {
    /// Puts `cell`'s figure into the run of its I/O path and process count, opened
    /// with `header` when it is the first.
    fn add(
        &mut self,
        cell: Cell,
        header: &Header,
        reading: &mut Reading,
    ) -> Result<(), ParseError> {
        let key = (cell.via, cell.threads);
        let slot = match self.runs.iter().find(|(k, _)| *k == key) {
            Some(&(_, slot)) => slot,
            None => {
                let slot = reading.open(draft(header, cell.via, cell.threads));
                self.runs.push((key, slot));
                slot
            }
        };
        let at = |m: String| error(Some(cell.line), m);
        let m = measurement(&cell).map_err(at)?;
        if !self.seen.mark(&cell) {
            return Err(at(format!(
                "a second {} figure for a {} file in {} records",
                m.test, m.file_size, m.record_size
            )));
        }
        reading.add(slot, m);
        Ok(())
    }
}

/// The figures an output's runs have had, to refuse a second one for the same test,
/// file size and record size without keeping the figures: by (processes, file size,
/// record size), the (I/O path, test) pairs had, as bits. A table (one process) lists
/// its rows in ascending order, so they are appended to a sorted list of 16 bytes a
/// row (found by halving, in chunks that never move); any other key goes to a map.
#[derive(Default)]
struct Seen {
    sorted: Vec<Vec<Row1>>,
    others: std::collections::BTreeMap<(u32, u64, u64), u32>,
}

/// A row of one process: its file size, record size and the pairs had.
#[derive(Clone, Copy)]
struct Row1 {
    file_kb: u64,
    record_kb: u32,
    had: u32,
}

/// Rows a chunk holds: half a megabyte.
const CHUNK: usize = 1 << 15;

impl Seen {
    /// Marks `cell`'s figure as had; `false` when it was had already.
    fn mark(&mut self, cell: &Cell) -> bool {
        // the tests iozone3 prints are the first of ours: 16 bits a path hold them
        let bit = 1u32 << ((cell.via as u32) * 16 + (cell.test as u32 % 16));
        let one = match u32::try_from(cell.record_kb) {
            Ok(record_kb) if cell.threads == 1 => Some((cell.file_kb, record_kb)),
            _ => None,
        };
        let had = match one.and_then(|key| self.row(key)) {
            Some(had) => had,
            None => {
                let key = (cell.threads, cell.file_kb, cell.record_kb);
                self.others.entry(key).or_default()
            }
        };
        let new = *had & bit == 0;
        *had |= bit;
        new
    }

    /// The bits of row `key` of one process in the sorted list, where it is or joins
    /// it; `None` for a row out of the list's order, which the map keeps.
    fn row(&mut self, key: (u64, u32)) -> Option<&mut u32> {
        let of = |r: &Row1| (r.file_kb, r.record_kb);
        let last = self.sorted.last().and_then(|c| c.last()).map(of);
        // a row's figures come together: each after its first is the last row's, found
        // without halving (halving for each was a third of the parser's time)
        if last == Some(key) {
            return self.sorted.last_mut()?.last_mut().map(|r| &mut r.had);
        }
        if last.is_none_or(|last| last < key) {
            if self.sorted.last().is_none_or(|c| c.len() == CHUNK) {
                self.sorted.push(Vec::with_capacity(CHUNK));
            }
            let chunk = self.sorted.last_mut().expect("a chunk was just made");
            chunk.push(Row1 {
                file_kb: key.0,
                record_kb: key.1,
                had: 0,
            });
            return chunk.last_mut().map(|r| &mut r.had);
        }
        let at = self
            .sorted
            .partition_point(|c| c.last().is_some_and(|r| of(r) < key));
        let chunk = self.sorted.get_mut(at)?;
        let i = chunk.binary_search_by_key(&key, of).ok()?;
        Some(&mut chunk[i].had)
    }
}
