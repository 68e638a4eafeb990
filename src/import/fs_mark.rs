//! fs_mark's output (fsmark 3.3; the table alone, or with `-v` the per-call times
//! beside it): its command line and setup lines (`#` first), then a row per loop
//! (`-L`), `FSUse% Count Size Files/sec App Overhead`. Several outputs in one file
//! give runs in file order, each starting at its command line.
//!
//! fs_mark measures file creation: each file opened with O_CREAT, written (`-s`
//! bytes), fsynced by `-S 1`, closed. Files/sec is a loop's files over the loop's wall
//! time, the time fs_mark spends naming files (App Overhead) included; with several
//! threads, the sum of each thread's rate. It becomes our `create`, a loop a
//! repetition (files are kept between loops, so each loop's directory holds the
//! earlier loops' files too). `-S 0` is `buffered` and `-S 1` (fsync per file) `sync`;
//! the other sync methods time syncs after the loop, which no mode of ours does, and
//! are refused. Threads share their `-d` directory (`shared_dir`) when there are more
//! threads than `-d` directories; `-D` spreads files round-robin over subdirectories
//! (`-N` each) or by the clock, which states no count per directory and is refused.
//!
//! Not imported: the `-v` per-call times (whole microseconds, averages of each
//! thread's averages, no percentiles), the unlink times among them, and the average
//! and percentile lines newer fs_marks print after the table.

use super::ParseError;
use super::ops::{OpFigure, OpsRun, Rate, count, ctime, known_rate, option};
use super::text::error;
use crate::model::{CacheMode, MetadataTree, TestKind};

/// Columns of a row without `-v`, and what `-v` adds (min/avg/max of six calls).
const COLUMNS: usize = 5;
const VERBOSE_COLUMNS: usize = COLUMNS + 18;

/// Whether `text` is fs_mark's output: its command line, or its table's header.
pub fn looks_like(text: &str) -> bool {
    text.lines()
        .any(|l| command_words(l).is_some() || header_columns(l).is_some())
}

/// The runs of every fs_mark output in `text`.
pub fn parse(text: &str) -> Result<Vec<OpsRun>, ParseError> {
    let lines: Vec<&str> = text.lines().collect();
    let mut starts: Vec<usize> = (0..lines.len())
        .filter(|&i| command_words(lines[i]).is_some())
        .collect();
    if starts.first() != Some(&0) {
        starts.insert(0, 0);
    }
    let mut runs = Vec::new();
    for (k, &start) in starts.iter().enumerate() {
        let end = starts.get(k + 1).copied().unwrap_or(lines.len());
        if let Some(run) = output(&lines[start..end], start + 1)? {
            runs.push(run);
        }
    }
    if runs.is_empty() {
        return Err(error(
            None,
            "no fs_mark rows (`FSUse% Count Size Files/sec App Overhead`)",
        ));
    }
    Ok(runs)
}

/// The words of fs_mark's command line (`#  fs_mark  -d  /data  -n  2000`), or `None`.
fn command_words(line: &str) -> Option<Vec<&str>> {
    let words: Vec<&str> = line.strip_prefix('#')?.split_whitespace().collect();
    let program = words.first()?;
    (program.rsplit('/').next() == Some("fs_mark")).then_some(words)
}

/// The columns of the table's header line, or `None`.
fn header_columns(line: &str) -> Option<usize> {
    let line = line.trim();
    if !line.starts_with("FSUse%") || !line.contains("Files/sec") {
        return None;
    }
    Some(if line.contains("CREAT (Min/Avg/Max)") {
        VERBOSE_COLUMNS
    } else {
        COLUMNS
    })
}

/// What the `#` lines say.
#[derive(Debug, Default)]
struct Setup {
    command: Option<String>,
    dirs_given: usize,
    version: Option<String>,
    threads: Option<u32>,
    started_at: Option<chrono::DateTime<chrono::Utc>>,
    cache: Option<CacheMode>,
    /// Subdirectories each thread's files go to, and files in each (round robin).
    subdirs: Option<(u64, u64)>,
    dir: Option<String>,
}

/// The run of one output (`lines`, the first at line `first`), or `None` when it has
/// no rows.
fn output(lines: &[&str], first: usize) -> Result<Option<OpsRun>, ParseError> {
    let mut setup = Setup::default();
    let mut columns = None;
    let mut rows = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let number = first + i;
        let at = |m| error(Some(number), m);
        if let Some(words) = command_words(line) {
            setup.command = Some(words.join(" "));
            setup.dirs_given = words.iter().filter(|w| **w == "-d").count();
            setup.dir = option(&words, "-d")
                .filter(|d| d.starts_with('/'))
                .map(|d| d.trim_end_matches('/').to_string());
        } else if let Some(rest) = line.trim().strip_prefix('#') {
            setup.read(rest.trim()).map_err(at)?;
        } else if let Some(n) = header_columns(line) {
            columns = Some(n);
        } else if let Some(n) = columns
            && let Some(row) = Row::read(line, n).map_err(at)?
        {
            rows.push((number, row));
        }
    }
    if rows.is_empty() {
        return Ok(None);
    }
    setup.run(&rows, first).map(Some)
}

impl Setup {
    /// A `#` line after the command line.
    fn read(&mut self, line: &str) -> Result<(), String> {
        if let Some(rest) = line.strip_prefix("Version ") {
            // `3.3, 1 thread(s) starting at Tue Dec  1 22:49:34 2026`
            let (version, rest) = rest.split_once(", ").ok_or("no thread count")?;
            let (threads, time) = rest
                .split_once(" thread(s) starting at ")
                .ok_or_else(|| format!("'{rest}' is not `N thread(s) starting at TIME`"))?;
            self.version = Some(version.to_string());
            let threads = count(threads, "thread count")?;
            self.threads = Some(
                u32::try_from(threads)
                    .ok()
                    .filter(|&t| t > 0)
                    .ok_or_else(|| format!("thread count {threads} is out of range"))?,
            );
            self.started_at = Some(ctime(time).ok_or_else(|| format!("'{time}' is not a time"))?);
        } else if let Some(method) = line.strip_prefix("Sync method: ") {
            self.cache = Some(sync_method(method)?);
        } else if let Some(dirs) = line.strip_prefix("Directories:") {
            self.subdirs = subdirectories(dirs.trim())?;
        }
        Ok(())
    }

    /// The run of the `rows` read, the output's first line at `first`.
    fn run(self, rows: &[(usize, Row)], first: usize) -> Result<OpsRun, ParseError> {
        let whole = |m: String| error(None, m);
        let threads = self
            .threads
            .ok_or_else(|| whole("no `Version N, T thread(s) starting at` line".into()))?;
        let cache = self
            .cache
            .ok_or_else(|| whole("no `Sync method:` line".into()))?;
        if self.command.is_none() {
            return Err(error(
                Some(first),
                "no fs_mark command line (`# fs_mark ...`)",
            ));
        }
        let dirs_given = u32::try_from(self.dirs_given.max(1)).unwrap_or(u32::MAX);
        if !threads.is_multiple_of(dirs_given) {
            return Err(whole(format!(
                "{threads} threads over {dirs_given} directories is not what fs_mark runs"
            )));
        }
        let shared_dir = threads > dirs_given;
        if shared_dir && dirs_given > 1 {
            return Err(whole(format!(
                "{threads} threads in groups sharing each of {dirs_given} directories: \
                 no tree of ours is shared by some threads and not others"
            )));
        }
        let mut run = OpsRun::new("fs_mark");
        run.version = self.version;
        run.command = self.command;
        run.started_at = self.started_at;
        run.dir = self.dir;
        run.cache = cache;
        run.threads = threads;
        let mut before = 0;
        for (repetition, (number, row)) in (1..).zip(rows) {
            let at = |m| error(Some(*number), m);
            let files = row
                .count
                .checked_sub(before)
                .filter(|&f| f > 0)
                .ok_or_else(|| at(format!("Count {} does not follow {before}", row.count)))?;
            before = row.count;
            if !files.is_multiple_of(u64::from(threads)) {
                return Err(at(format!(
                    "{files} files are not {threads} threads' alike"
                )));
            }
            let per_thread = files / u64::from(threads);
            let tree = tree(per_thread, row.size, self.subdirs, shared_dir).map_err(at)?;
            if repetition > 1 && tree != run.tree {
                return Err(at("a loop of other files than the first's".into()));
            }
            run.tree = tree;
            let bytes = super::ops::product(files, row.size, "bytes").map_err(at)?;
            run.add(OpFigure {
                test: TestKind::Create,
                repetition,
                ops: files,
                bytes,
                rate: Rate::PerSecond(row.files_per_sec),
                line: *number,
            })?;
        }
        Ok(run)
    }
}

/// The tree of a loop: `files` per thread of `size` bytes, in one directory or spread
/// round-robin over subdirectories.
fn tree(
    files: u64,
    size: u64,
    subdirs: Option<(u64, u64)>,
    shared_dir: bool,
) -> Result<MetadataTree, String> {
    let (dirs, per_dir) = match subdirs {
        None => (1, files),
        Some((dirs, per_dir)) if dirs.checked_mul(per_dir) == Some(files) => (dirs, per_dir),
        Some((dirs, per_dir)) => {
            return Err(format!(
                "{files} files round-robin over {dirs} subdirectories of {per_dir}: \
                 not the same number in each"
            ));
        }
    };
    Ok(MetadataTree {
        files: per_dir,
        dirs,
        file_bytes: size,
        shared_dir,
        random_order: false,
        warm: false,
    })
}

/// Our cache mode for fs_mark's `Sync method:` line.
fn sync_method(text: &str) -> Result<CacheMode, String> {
    let name = text.split(':').next().unwrap_or("").trim();
    match name {
        "NO SYNC" => Ok(CacheMode::Buffered),
        "INBAND FSYNC" => Ok(CacheMode::Sync),
        _ => Err(format!(
            "sync method '{name}' (fs_mark -S 2 to 6) times syncs after the write loop: \
             no mode of ours measures that, not imported"
        )),
    }
}

/// The subdirectories of the `Directories:` line: `None` without, the count and files
/// each for round robin.
fn subdirectories(text: &str) -> Result<Option<(u64, u64)>, String> {
    if text.starts_with("no subdirectories") {
        return Ok(None);
    }
    if text.starts_with("Time based hash") {
        return Err(
            "files spread over subdirectories by the clock (fs_mark -D without -N): \
             how many each holds is not stated, not imported"
                .to_string(),
        );
    }
    // `Round Robin between directories across 4 subdirectories with 100 files per subdirectory.`
    let words: Vec<&str> = text.split_whitespace().collect();
    let before = |word: &str| {
        let at = words.iter().position(|w| *w == word)?;
        words.get(at.checked_sub(1)?)?.parse::<u64>().ok()
    };
    match (before("subdirectories"), before("files")) {
        (Some(dirs), Some(files)) if dirs > 0 && files > 0 => Ok(Some((dirs, files))),
        _ => Err(format!("'{text}' is not fs_mark's `Directories:` line")),
    }
}

/// A row of the table.
#[derive(Debug)]
struct Row {
    count: u64,
    size: u64,
    files_per_sec: f64,
}

impl Row {
    /// The row on `line` under a header of `columns`; `None` for a line that is no row
    /// (blank, or what follows the table).
    fn read(line: &str, columns: usize) -> Result<Option<Row>, String> {
        let words: Vec<&str> = line.split_whitespace().collect();
        if !words
            .first()
            .is_some_and(|w| w.starts_with(|c: char| c.is_ascii_digit()))
        {
            return Ok(None);
        }
        if words.len() != columns {
            return Err(format!(
                "a row of {} fields under a header of {columns}",
                words.len()
            ));
        }
        count(words[0], "FSUse%")?;
        for word in &words[4..] {
            count(word, "a time in microseconds")?;
        }
        Ok(Some(Row {
            count: count(words[1], "Count")?,
            size: count(words[2], "Size")?,
            files_per_sec: known_rate(words[3], "Files/sec")?,
        }))
    }
}

#[cfg(test)]
mod tests;
