//! bonnie++'s CSV line (`bonnie++ -q` writes it to standard output): its file-creation
//! columns. Format 1.98 (bonnie++ 1.98 and 2.0x) and 1.96/1.97, which lack the two seek
//! columns; other lines (bonnie++'s header line, `#` comments, the human table on the
//! same stream) are read past. The human table itself is not imported: bonnie++ 2.00
//! prints its file-creation rates with `%d` from a floating-point value, so they are
//! not the rates it measured.
//!
//! `-n N[:max:min:dirs]` creates N × 1024 files of max bytes in `dirs` directories, one
//! process (`-c` runs copies of the I/O tests only). Sequential: create in name order,
//! stat in readdir order, delete in readdir order; random: the same in a shuffled
//! order. A line is two runs, sequential and random (`random_order`), each with
//! `create`, `stat` and `unlink`; with files of more than 0 bytes bonnie++'s stat
//! also reads each file, and the figure is `readfile`. Each phase's time includes a
//! sync() at its end. Lines of one seed and the same parameters (`-x N`) are
//! repetitions of the same two runs.
//!
//! `+++++` is a phase bonnie++ timed at under half a second: too fast to measure,
//! unknown, never zero. An empty field is a phase not run. Refused: files of random
//! sizes (max and min differ), links instead of files (`-n N:-1`, `-n N:-2`), and a
//! count of files that does not split evenly over the directories. The CSV does not
//! say whether `-b` (fsync after every write and directory fsyncs, our `sync`) was
//! given: the run is `buffered`, and its note says so. Not imported: the I/O
//! columns, CPU percentages, and the latencies (one figure a phase, no percentiles).

use super::ParseError;
use super::ops::{OpFigure, OpsRun, Rate, count, product, rate};
use super::text::error;
use crate::model::{MetadataTree, TestKind};

/// Files per unit of `-n`.
const FILES_PER_UNIT: u64 = 1024;
/// Where the file-creation columns begin in each layout.
const NUM_FILES_AT_198: usize = 21;
const NUM_FILES_AT_196: usize = 19;

/// Whether `text` holds bonnie++'s CSV line, or its human table (whose parse says to
/// import the CSV instead).
pub fn looks_like(text: &str) -> bool {
    text.lines()
        .any(|l| layout(l).is_some() || l.contains("------Sequential Create------"))
}

/// The runs of every CSV line in `text`: a sequential and a random run per line, or per
/// group of repetitions.
pub fn parse(text: &str) -> Result<Vec<OpsRun>, ParseError> {
    let mut runs: Vec<OpsRun> = Vec::new();
    let mut last: Option<Line> = None;
    for (i, text_line) in text.lines().enumerate() {
        let number = i + 1;
        let Some(at) = layout(text_line) else {
            continue;
        };
        let line = Line::read(text_line, at).map_err(|m| error(Some(number), m))?;
        if line.num_files == 0 {
            // an I/O-only line (`-n 0`)
            continue;
        }
        if !last.as_ref().is_some_and(|before| before.same_run(&line)) {
            runs.extend(line.runs().map_err(|m| error(Some(number), m))?);
        }
        // the last two runs are this line's, sequential and random
        let first = runs.len() - 2;
        let pair = &mut runs[first..];
        let repetition = pair
            .iter()
            .flat_map(|r| &r.figures)
            .map(|f| f.repetition)
            .max()
            .map_or(1, |r| r + 1);
        line.add_figures(pair, repetition, number)?;
        last = Some(line);
    }
    if runs.is_empty() {
        let message = if text.contains("------Sequential Create------") {
            "bonnie++'s human table is not imported (bonnie++ 2.00 prints its \
             file-creation rates wrongly): import its CSV line, the standard output of \
             bonnie++ -q"
        } else {
            "no bonnie++ CSV line with file-creation figures (bonnie++ -n)"
        };
        return Err(error(None, message));
    }
    runs.retain(|r| !r.figures.is_empty());
    Ok(runs)
}

/// Where a CSV line's file-creation columns begin, by its format version; `None` for a
/// line that is no bonnie++ CSV line.
fn layout(line: &str) -> Option<usize> {
    let (version, _) = line.trim().split_once(',')?;
    match version {
        "1.98" => Some(NUM_FILES_AT_198),
        "1.96" | "1.97" => Some(NUM_FILES_AT_196),
        _ => None,
    }
}

/// The fields of one CSV line that matter here.
#[derive(Debug)]
struct Line {
    /// Format, version, machine name, concurrency and seed: what makes lines one run.
    identity: Vec<String>,
    version: String,
    name: String,
    num_files: u64,
    /// max and min size, `link`/`symlink` in max for links.
    max_size: String,
    min_size: String,
    dirs: u64,
    /// create, stat, delete; sequential then random.
    rates: [Option<Rate>; 6],
}

impl Line {
    fn read(line: &str, at: usize) -> Result<Line, String> {
        let fields: Vec<&str> = line.trim().split(',').map(str::trim).collect();
        // the file-creation parameters, then six rates each with its CPU percentage
        if fields.len() < at + 17 {
            return Err(format!(
                "a bonnie++ CSV line of {} fields, too few for format {}",
                fields.len(),
                fields[0]
            ));
        }
        let number_or_empty = |word: &str, what: &str| match word {
            "" => Ok(0),
            w => count(w, what),
        };
        let mut rates = [None; 6];
        for (k, slot) in rates.iter_mut().enumerate() {
            *slot = phase_rate(fields[at + 5 + 2 * k])?;
        }
        Ok(Line {
            identity: fields[..5].iter().map(|f| f.to_string()).collect(),
            version: fields[1].to_string(),
            name: fields[2].to_string(),
            num_files: number_or_empty(fields[at], "num_files")?,
            max_size: fields[at + 1].to_string(),
            min_size: fields[at + 2].to_string(),
            dirs: number_or_empty(fields[at + 3], "num_dirs")?.max(1),
            rates,
        })
    }

    /// Whether `other` is a repetition of this line's runs (`-x`).
    fn same_run(&self, other: &Line) -> bool {
        (
            &self.identity,
            self.num_files,
            &self.max_size,
            &self.min_size,
            self.dirs,
        ) == (
            &other.identity,
            other.num_files,
            &other.max_size,
            &other.min_size,
            other.dirs,
        )
    }

    /// Bytes per file: the one size, when every file has it.
    fn file_bytes(&self) -> Result<u64, String> {
        if matches!(self.max_size.as_str(), "link" | "symlink") {
            return Err(format!(
                "bonnie++ made {}s, not files (-n N:-1 or -2): not imported",
                self.max_size
            ));
        }
        let size = |w: &str, what| if w.is_empty() { Ok(0) } else { count(w, what) };
        let (max, min) = (
            size(&self.max_size, "max_size")?,
            size(&self.min_size, "min_size")?,
        );
        if max != min {
            return Err(format!(
                "files of random sizes from {min} to {max} bytes: no test of ours creates \
                 files of differing sizes, not imported"
            ));
        }
        Ok(max)
    }

    /// The sequential and the random run, without figures.
    fn runs(&self) -> Result<[OpsRun; 2], String> {
        let files = product(self.num_files, FILES_PER_UNIT, "files")?;
        if !files.is_multiple_of(self.dirs) {
            return Err(format!(
                "{files} files over {} directories: not the same number in each",
                self.dirs
            ));
        }
        let file_bytes = self.file_bytes()?;
        let run = |random_order| {
            let mut run = OpsRun::new("bonnie++");
            run.version = Some(self.version.clone()).filter(|v| !v.is_empty());
            run.hostname = Some(self.name.clone()).filter(|n| !n.is_empty());
            run.tree = MetadataTree {
                files: files / self.dirs,
                dirs: self.dirs,
                file_bytes,
                shared_dir: false,
                random_order,
                // no tool here drops caches: only a flush run can have started warm
                warm: false,
            };
            run.remarks.push(
                "bonnie++'s CSV does not say whether -b (fsync after every write) was \
                 given: taken as not"
                    .to_string(),
            );
            run
        };
        Ok([run(false), run(true)])
    }

    /// This line's figures, as `repetition` of the sequential and random runs.
    fn add_figures(
        &self,
        runs: &mut [OpsRun],
        repetition: u32,
        number: usize,
    ) -> Result<(), ParseError> {
        let at = |m| error(Some(number), m);
        let files = product(self.num_files, FILES_PER_UNIT, "files").map_err(at)?;
        let file_bytes = runs[0].tree.file_bytes;
        let bytes = product(files, file_bytes, "bytes").map_err(at)?;
        let stat = if file_bytes > 0 {
            TestKind::Readfile
        } else {
            TestKind::Stat
        };
        let tests = [
            (TestKind::Create, bytes),
            (stat, if file_bytes > 0 { bytes } else { 0 }),
            (TestKind::Unlink, 0),
        ];
        for (k, rate) in self.rates.iter().enumerate() {
            let Some(rate) = *rate else {
                continue;
            };
            let (test, bytes) = tests[k % 3];
            runs[k / 3].add(OpFigure {
                test,
                repetition,
                ops: files,
                bytes,
                rate,
                line: number,
            })?;
        }
        Ok(())
    }
}

/// A rate field: empty for a phase not run, `+++++` for one too fast to measure.
fn phase_rate(field: &str) -> Result<Option<Rate>, String> {
    match field {
        "" => Ok(None),
        "+++++" => Ok(Some(Rate::TooFast)),
        word => rate(word)
            .map(|r| Some(Rate::PerSecond(r)))
            .ok_or_else(|| format!("'{word}' is not a rate in files per second")),
    }
}

#[cfg(test)]
mod tests;
