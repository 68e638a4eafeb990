//! Throughput mode (`-t N`): per section of N processes, the "Parent sees" (or, failing
//! that, "Children see") figure of each test.

use super::{Cell, Header, Output, Via, error, first_number, rate};
use crate::import::ParseError;
use crate::model::TestKind;

impl Output<'_> {
    /// The cells of throughput mode. Each `Throughput test with N processes` line starts
    /// a section (`-l`/`-u` give several); per test the "Parent sees" figure is taken:
    /// the bytes of all processes over the wall time, as our threads measure. The
    /// "Children see" figure (the sum of each process's own rate, each over its own
    /// time) is further from that; it stands in only when a test has no parent line,
    /// as in logs trimmed to the children's lines.
    pub(super) fn throughput(&self, header: &Header) -> Result<Vec<Cell>, ParseError> {
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
