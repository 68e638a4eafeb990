//! fileop's results table (the IOzone distribution's metadata tool, `fileop -f X`, or
//! `-l A -u B` for a row per force factor; with `-e` the same table without the line
//! above it that names the directory and the file size). Rows `A` hold a phase's rate:
//! its operations over the sum of their times, each timed alone with gettimeofday
//! (microseconds). Rows `B` and `W` (`-b`, `-w`: the best and worst single operation)
//! are not rates of a phase and are skipped. `inf` is a phase every operation of which
//! took under a microsecond: too fast to measure, unknown.
//!
//! Force factor X is X directories of X subdirectories of X files: X³ files of `-s`
//! bytes (1 by default) in X² directories, one process. Columns become our tests:
//!
//! - `mkdir`, `rmdir`: mkdir and rmdir over a tree of X + X² + X³ directories.
//! - `create` + `write` + `close`: our `create` (open with O_CREAT, write the file's
//!   bytes, close). fileop times the three apart over the same X³ files, so their
//!   times add (fileop's fsync between write and close is timed by none of them).
//! - `stat`: `stat`. `open`: `open`, without the close, which fileop does not time.
//!   `open` + `read`: `readfile`, likewise without the close.
//! - `delete`: `unlink` (of each file; fileop's own `unlink` column removes hard links
//!   its `link` phase made, and leaves the files).
//! - Not imported: `chdir`, `access`, `chmod`, `link`, fileop's `unlink`, and
//!   `readdir`, which times one readdir() call (the first entry) per directory, not
//!   the reading of a directory.
//!
//! fileop states no version, time or host. Its files are fsynced before they are
//! closed, outside every timing; the run is `buffered`.

use super::ParseError;
use super::ops::{OpFigure, OpsRun, Rate, combined, count, product};
use super::text::error;
use crate::model::{MetadataTree, TestKind};

/// The line fileop prints above the table unless `-e`.
const BANNER: &str = "Fileop:";
/// fileop's file size when `-s` is not given.
const DEFAULT_FILE_BYTES: u64 = 1;

/// Whether `text` holds fileop's table (its header line), or fileop's `-t` output
/// (whose parse says to import the table instead).
pub fn looks_like(text: &str) -> bool {
    text.lines().any(|l| columns(l).is_some()) || verbose(text)
}

/// Whether `text` is fileop's `-t` output: its banner and its `Total Time` lines.
fn verbose(text: &str) -> bool {
    text.contains(BANNER) && text.contains("Total Time =")
}

/// The runs of every table in `text`: one per `A` row.
pub fn parse(text: &str) -> Result<Vec<OpsRun>, ParseError> {
    let mut runs = Vec::new();
    let mut banner: Option<Banner> = None;
    let mut table: Option<Table> = None;
    for (i, line) in text.lines().enumerate() {
        let number = i + 1;
        let trimmed = line.trim();
        if trimmed.starts_with(BANNER) {
            banner = Some(Banner::read(trimmed).map_err(|m| error(Some(number), m))?);
            table = None;
        } else if let Some(columns) = columns(trimmed) {
            table = Some(Table {
                columns,
                banner: banner.take(),
            });
        } else if let Some(table) = &table {
            let at = |m| error(Some(number), m);
            let Some(row) = Row::read(trimmed, table.columns.len()).map_err(at)? else {
                continue;
            };
            if row.kind == 'A' {
                runs.push(table.run(&row, number)?);
            }
        }
    }
    if runs.is_empty() {
        let message = if verbose(text) {
            "fileop -t (verbose) output is not imported: rerun fileop without -t and import \
             its table"
        } else {
            "no `A` rows under fileop's header (` . mkdir chdir rmdir create ...`)"
        };
        return Err(error(None, message));
    }
    Ok(runs)
}

/// What the line above the table says: where fileop worked and its file size.
#[derive(Clone, Debug, PartialEq)]
struct Banner {
    dir: String,
    file_bytes: u64,
}

impl Banner {
    /// `Fileop:  Working in /data/f, File size is 1,  Output is in Ops/sec. (...)`
    fn read(line: &str) -> Result<Banner, String> {
        let bad = || format!("'{line}' is not fileop's `Working in DIR, File size is N,` line");
        let rest = line.strip_prefix(BANNER).ok_or_else(bad)?.trim_start();
        let rest = rest.strip_prefix("Working in ").ok_or_else(bad)?;
        // the directory may hold commas; the size follows the last of these
        let at = rest.rfind(", File size is ").ok_or_else(bad)?;
        let size = rest[at + ", File size is ".len()..]
            .split(',')
            .next()
            .ok_or_else(bad)?;
        Ok(Banner {
            dir: rest[..at].to_string(),
            file_bytes: count(size.trim(), "file size")?,
        })
    }
}

/// The column names of a header line (` .  mkdir  chdir ... Total_files`), or `None`.
fn columns(line: &str) -> Option<Vec<String>> {
    let mut words = line.split_whitespace();
    if words.next() != Some(".") {
        return None;
    }
    let names: Vec<String> = words.map(str::to_string).collect();
    let has = |n: &str| names.iter().any(|c| c == n);
    (has("mkdir") && has("create") && names.last().is_some_and(|l| l == "Total_files"))
        .then_some(names)
}

/// A header's columns and the banner above it, if any.
struct Table {
    columns: Vec<String>,
    banner: Option<Banner>,
}

/// A row: `A|B|W`, the force factor, a rate per operation column, the files.
struct Row {
    kind: char,
    force: u64,
    rates: Vec<Rate>,
}

impl Row {
    /// The row on `line` under a header of `columns` columns (the last the file count),
    /// `None` for a line that is no row (blank, or prose).
    fn read(line: &str, columns: usize) -> Result<Option<Row>, String> {
        let words: Vec<&str> = line.split_whitespace().collect();
        let kind = match words.first() {
            Some(&"A") => 'A',
            Some(&"B") => 'B',
            Some(&"W") => 'W',
            _ => return Ok(None),
        };
        if words.len() != columns + 2 {
            return Err(format!(
                "a row of {} fields under a header of {columns} columns",
                words.len()
            ));
        }
        let force = count(words[1], "force factor")?;
        let files = count(words[columns + 1], "Total_files")?;
        let cube = force.checked_pow(3);
        if force == 0 || cube != Some(files) {
            return Err(format!(
                "force factor {force} makes {} files, not {files}",
                cube.map_or("too many".to_string(), |c| c.to_string())
            ));
        }
        let rates = words[2..=columns]
            .iter()
            .map(|w| row_rate(w, kind))
            .collect::<Result<_, _>>()?;
        Ok(Some(Row { kind, force, rates }))
    }
}

/// A printed rate: `inf` is a phase timed at 0 µs (for `B`, an operation).
fn row_rate(word: &str, kind: char) -> Result<Rate, String> {
    if word == "inf" {
        return Ok(Rate::TooFast);
    }
    match super::ops::rate(word) {
        Some(r) => Ok(Rate::PerSecond(r)),
        None if kind != 'A' => Ok(Rate::TooFast),
        None => Err(format!(
            "'{word}' is not a rate in operations per second (fileop prints whole ones)"
        )),
    }
}

impl Table {
    fn rate(&self, row: &Row, name: &str) -> Option<Rate> {
        let at = self.columns.iter().position(|c| c == name)?;
        row.rates.get(at).copied()
    }

    /// The run of an `A` row read at line `number`.
    fn run(&self, row: &Row, number: usize) -> Result<OpsRun, ParseError> {
        let at = |m| error(Some(number), m);
        let x = row.force;
        let files = product(x * x, x, "files").map_err(at)?;
        // the cube fits, so the square does
        let dirs = (x * x + x)
            .checked_add(files)
            .ok_or_else(|| at(format!("force factor {x} makes too many directories")))?;
        let mut run = OpsRun::new("fileop");
        let file_bytes = match &self.banner {
            Some(banner) => {
                run.dir = Some(banner.dir.clone()).filter(|d| d.starts_with('/'));
                banner.file_bytes
            }
            None => {
                run.remarks.push(format!(
                    "fileop -e does not state the file size: fileop's default, \
                     {DEFAULT_FILE_BYTES} byte, taken"
                ));
                DEFAULT_FILE_BYTES
            }
        };
        run.tree = MetadataTree {
            files: x,
            dirs: x * x,
            file_bytes,
            shared_dir: false,
            random_order: false,
            warm: false,
        };
        let bytes = product(files, file_bytes, "bytes").map_err(at)?;
        let create = ["create", "write", "close"]
            .iter()
            .map(|c| self.rate(row, c))
            .collect::<Option<Vec<Rate>>>()
            .map(|steps| combined(&steps));
        let readfile = ["open", "read"]
            .iter()
            .map(|c| self.rate(row, c))
            .collect::<Option<Vec<Rate>>>()
            .map(|steps| combined(&steps));
        let figures = [
            (TestKind::Mkdir, self.rate(row, "mkdir"), dirs, 0),
            (TestKind::Create, create, files, bytes),
            (TestKind::Stat, self.rate(row, "stat"), files, 0),
            (TestKind::Open, self.rate(row, "open"), files, 0),
            (TestKind::Readfile, readfile, files, bytes),
            (TestKind::Unlink, self.rate(row, "delete"), files, 0),
            (TestKind::Rmdir, self.rate(row, "rmdir"), dirs, 0),
        ];
        for (test, rate, ops, bytes) in figures {
            if let Some(rate) = rate {
                let figure = OpFigure {
                    test,
                    repetition: 1,
                    ops,
                    bytes,
                    rate,
                    line: number,
                };
                run.add(figure)?;
            }
        }
        Ok(run)
    }
}

#[cfg(test)]
mod tests;
