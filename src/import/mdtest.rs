//! mdtest's SUMMARY table (IOR's mdtest, 3.x and 4.x: `SUMMARY rate: (of N
//! iterations)`, 4.1's `SUMMARY rate (in ops/sec):`, 3.x's names ending in `:`), with
//! the lines above it: the start time, the version, the command line, the path, and
//! `T tasks, M files[/directories]` before each table. Each rate table is a run, a
//! second one (`-f`/`-l`/`-s`: another task count) another; time tables (`-P`, `-Z`)
//! are read past, and an output of times only is refused.
//!
//! mdtest's rate is the operations of all tasks over the slowest task's time per
//! iteration; the table gives the max, min, mean and standard deviation over the
//! iterations, and the mean is imported, as one figure (the run's note says of how
//! many iterations). Operations become our tests:
//!
//! - `Directory creation`, `Directory removal`: `mkdir`, `rmdir`.
//! - `File creation` (open with O_CREAT, write `-w` bytes, close): `create`.
//! - `File stat`: `stat` (in a shuffled order with `-R`, a run of its own then).
//! - `File read`: `readfile` (open, read `-e` bytes, close); with `-e 0` mdtest only
//!   opens and closes, our `open`.
//! - `File removal`: `unlink`.
//! - Not imported: `Directory stat` and `Directory rename` (ours stat and rename
//!   files), `MetadataTree creation` and `MetadataTree removal`.
//!
//! The tree: each task's items (M / T) spread evenly over the directories of `-z`
//! levels of `-b` branches (the leaves only with `-L`); tasks share it unless `-u`.
//! `-y` (fsync each file after writing) is our `sync`; `-Y` (a sync of the whole
//! system after each phase, in its time) has no counterpart and is refused.

use chrono::{DateTime, NaiveDateTime, Utc};

use super::ParseError;
use super::ops::{OpFigure, OpsRun, Rate, count, product};
use super::text::error;
use crate::model::{CacheMode, MetadataTree, TestKind};

/// Whether `text` holds mdtest's summary (of rates, or of times only, whose parse says
/// why it is not imported): its title and mdtest's banner or table.
pub fn looks_like(text: &str) -> bool {
    let summary = text.contains("SUMMARY rate") || text.contains("SUMMARY time");
    summary && (text.contains("mdtest") || text.contains("   Operation"))
}

/// The runs of every rate table in `text`.
pub fn parse(text: &str) -> Result<Vec<OpsRun>, ParseError> {
    let mut header = Header::default();
    let mut tasks: Option<(u64, u64, usize)> = None;
    let mut table: Option<Table> = None;
    let mut runs = Vec::new();
    let mut times_only = false;
    for (i, line) in text.lines().enumerate() {
        let number = i + 1;
        let at = |m| error(Some(number), m);
        let trimmed = line.trim();
        if let Some(rest) = trimmed.strip_prefix("SUMMARY ") {
            close(&mut table, &header, &mut runs)?;
            if rest.starts_with("rate") {
                let (tasks, items, line) = tasks
                    .ok_or_else(|| at("no `T tasks, M files` line before the summary".into()))?;
                table = Some(Table::new(rest, tasks, items, line).map_err(at)?);
            } else {
                times_only = true;
            }
        } else if let Some(t) = task_line(trimmed) {
            close(&mut table, &header, &mut runs)?;
            let (t, m) = t.map_err(at)?;
            tasks = Some((t, m, number));
        } else if trimmed.starts_with(STARTED) {
            // another output begins: nothing above it says anything about it
            close(&mut table, &header, &mut runs)?;
            (header, tasks) = (Header::default(), None);
            header.read(trimmed).map_err(at)?;
        } else if !header.read(trimmed).map_err(at)?
            && let Some(table) = &mut table
        {
            table.read(trimmed, number).map_err(at)?;
        }
    }
    close(&mut table, &header, &mut runs)?;
    if runs.is_empty() {
        let message = if times_only {
            "mdtest printed times, not rates (-Z): rerun without -Z to import"
        } else {
            "no mdtest `SUMMARY rate` table with figures"
        };
        return Err(error(None, message));
    }
    Ok(runs)
}

/// The first line of an output.
const STARTED: &str = "-- started at ";

/// Ends the table being read, if any, adding its runs.
fn close(
    table: &mut Option<Table>,
    header: &Header,
    runs: &mut Vec<OpsRun>,
) -> Result<(), ParseError> {
    if let Some(table) = table.take() {
        runs.extend(table.runs(header)?);
    }
    Ok(())
}

/// What the lines above the tables say.
#[derive(Debug, Default)]
struct Header {
    version: Option<String>,
    command: Option<String>,
    /// The command's words, quotes removed.
    words: Vec<String>,
    started_at: Option<DateTime<Utc>>,
    path: Option<String>,
}

impl Header {
    /// Reads `line` when it is one of the lines above the tables; whether it was.
    fn read(&mut self, line: &str) -> Result<bool, String> {
        if let Some(rest) = line.strip_prefix(STARTED) {
            let time = rest.trim_end_matches("--").trim();
            let at = NaiveDateTime::parse_from_str(time, "%m/%d/%Y %H:%M:%S")
                .map_err(|_| format!("'{time}' is not a time like 12/02/2026 05:49:20"))?;
            // mdtest prints local time without a zone: taken as UTC, as ctime's are
            self.started_at = Some(at.and_utc());
        } else if let Some(rest) = line.strip_prefix("mdtest-") {
            let (version, _) = rest.split_once(" was launched").unwrap_or((rest, ""));
            self.version = Some(version.to_string());
        } else if let Some(rest) = line.strip_prefix("Command line used:") {
            let command = rest.trim();
            self.words = command
                .split_whitespace()
                .map(|w| w.trim_matches('\'').to_string())
                .collect();
            self.command = Some(command.to_string());
        } else if let Some(rest) = line.strip_prefix("Path") {
            if let Some((_, path)) = rest.split_once(':') {
                self.path = Some(path.trim().to_string()).filter(|p| p.starts_with('/'));
            }
        } else {
            return Ok(false);
        }
        Ok(true)
    }

    /// An option's value: `-n 1000`, `-n=1000` or `-n1000`; the last one given.
    fn option(&self, flag: &str) -> Option<&str> {
        let mut value = None;
        for (i, word) in self.words.iter().enumerate() {
            if word == flag {
                value = self.words.get(i + 1).map(String::as_str);
            } else if let Some(rest) = word.strip_prefix(flag) {
                value = Some(rest.strip_prefix('=').unwrap_or(rest));
            }
        }
        value
    }

    /// A numeric option, or its default.
    fn number(&self, flag: &str, default: u64) -> Result<u64, String> {
        match self.option(flag) {
            Some(v) => count(v, &format!("mdtest {flag}")),
            None => Ok(default),
        }
    }

    fn flag(&self, flag: &str) -> bool {
        self.words.iter().any(|w| w == flag)
    }
}

/// `2 tasks, 1000 files/directories` (or `files`, `directories`): tasks and items.
fn task_line(line: &str) -> Option<Result<(u64, u64), String>> {
    let (tasks, rest) = line.split_once(" tasks, ")?;
    let (items, what) = rest.split_once(' ')?;
    if !["files", "directories", "files/directories"].contains(&what) {
        return None;
    }
    Some(count(tasks, "tasks").and_then(|t| Ok((t, count(items, "items")?))))
}

/// A rate table being read.
struct Table {
    iterations: u64,
    tasks: u64,
    items: u64,
    /// The `T tasks` line, for messages about the tree.
    tasks_line: usize,
    /// Each mapped operation's mean rate and its line.
    rows: Vec<(Operation, f64, usize)>,
}

/// The operations of mdtest's table that are tests of ours.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Operation {
    DirCreate,
    DirRemove,
    FileCreate,
    FileStat,
    FileRead,
    FileRemove,
}

impl Table {
    /// The table whose title is `SUMMARY <title>`.
    fn new(title: &str, tasks: u64, items: u64, tasks_line: usize) -> Result<Table, String> {
        let iterations = title
            .rsplit_once("(of ")
            .and_then(|(_, rest)| rest.split_whitespace().next())
            .ok_or_else(|| format!("'SUMMARY {title}' does not say of how many iterations"))?;
        Ok(Table {
            iterations: count(iterations, "iterations")?,
            tasks,
            items,
            tasks_line,
            rows: Vec::new(),
        })
    }

    /// A line under the title: the column header, dashes, a row, or what follows.
    fn read(&mut self, line: &str, number: usize) -> Result<(), String> {
        let Some(split) = line.find(|c: char| c.is_ascii_digit()) else {
            return Ok(());
        };
        let name = line[..split].trim().trim_end_matches(':').trim();
        let operation = match name {
            "Directory creation" => Operation::DirCreate,
            "Directory removal" => Operation::DirRemove,
            "File creation" => Operation::FileCreate,
            "File stat" => Operation::FileStat,
            "File read" => Operation::FileRead,
            "File removal" => Operation::FileRemove,
            _ => return Ok(()),
        };
        let numbers: Vec<&str> = line[split..].split_whitespace().collect();
        // max, min, mean, std dev; per-rank statistics (--showRankStatistics) first
        if numbers.len() != 4 && numbers.len() != 7 {
            return Err(format!(
                "'{name}': {} figures, not max min mean std-dev",
                numbers.len()
            ));
        }
        let mean = numbers[numbers.len() - 2];
        for word in &numbers {
            word.parse::<f64>()
                .map_err(|_| format!("'{name}': '{word}' is not a rate"))?;
        }
        let mean = super::ops::known_rate(mean, name)?;
        self.rows.push((operation, mean, number));
        Ok(())
    }

    /// The table's runs: one, or two with `-R` (stat shuffled, the rest in order).
    fn runs(self, header: &Header) -> Result<Vec<OpsRun>, ParseError> {
        let at = |m| error(Some(self.tasks_line), m);
        let shape = Shape::of(header, self.tasks, self.items).map_err(at)?;
        let mut run = OpsRun::new("mdtest");
        run.version = header.version.clone();
        run.command = header.command.clone();
        run.started_at = header.started_at;
        run.dir = header.path.clone();
        run.cache = shape.cache;
        run.threads = u32::try_from(self.tasks).map_err(|_| at("too many tasks".into()))?;
        run.tree = shape.tree;
        if self.iterations > 1 {
            run.remarks.push(format!(
                "mdtest summarised {} iterations: each figure is their mean",
                self.iterations
            ));
        }
        let mut shuffled = run.clone();
        shuffled.tree.random_order = true;
        for (operation, mean, line) in self.rows {
            let (test, bytes_per_op) = match operation {
                Operation::DirCreate => (TestKind::Mkdir, 0),
                Operation::DirRemove => (TestKind::Rmdir, 0),
                Operation::FileCreate => (TestKind::Create, shape.write_bytes),
                Operation::FileStat => (TestKind::Stat, 0),
                Operation::FileRead if shape.read_bytes > 0 => {
                    (TestKind::Readfile, shape.read_bytes)
                }
                Operation::FileRead => (TestKind::Open, 0),
                Operation::FileRemove => (TestKind::Unlink, 0),
            };
            let line_at = |m| error(Some(line), m);
            let figure = OpFigure {
                test,
                repetition: 1,
                ops: self.items,
                bytes: product(self.items, bytes_per_op, "bytes").map_err(line_at)?,
                rate: Rate::PerSecond(mean),
                line,
            };
            if test == TestKind::Stat && shape.random_stat {
                shuffled.add(figure)?;
            } else {
                run.add(figure)?;
            }
        }
        Ok([run, shuffled]
            .into_iter()
            .filter(|r| !r.figures.is_empty())
            .collect())
    }
}

/// What the command line says about the tree and how its files were written.
struct Shape {
    tree: MetadataTree,
    write_bytes: u64,
    read_bytes: u64,
    random_stat: bool,
    cache: CacheMode,
}

impl Shape {
    fn of(header: &Header, tasks: u64, items: u64) -> Result<Shape, String> {
        if header.flag("-Y") {
            return Err(
                "mdtest -Y times a sync of the whole system after each phase: no mode of \
                 ours does, not imported"
                    .to_string(),
            );
        }
        if tasks == 0 || !items.is_multiple_of(tasks) {
            return Err(format!("{items} items are not {tasks} tasks' alike"));
        }
        let per_task = items / tasks;
        let depth = header.number("-z", 0)?;
        let branches = header.number("-b", 1)?;
        let levels = u32::try_from(depth).map_err(|_| format!("depth {depth} is too deep"))?;
        let dirs = if header.flag("-L") {
            branches.checked_pow(levels)
        } else {
            (0..=levels).try_fold(0u64, |sum, l| sum.checked_add(branches.checked_pow(l)?))
        }
        .filter(|&d| d > 0)
        .ok_or_else(|| format!("a tree {depth} deep of {branches} branches is too large"))?;
        if !per_task.is_multiple_of(dirs) {
            return Err(format!(
                "{per_task} items per task over {dirs} directories: not the same number in each"
            ));
        }
        Ok(Shape {
            tree: MetadataTree {
                files: per_task / dirs,
                dirs,
                file_bytes: header.number("-w", 0)?,
                shared_dir: tasks > 1 && !header.flag("-u"),
                random_order: false,
                warm: false,
            },
            write_bytes: header.number("-w", 0)?,
            read_bytes: header.number("-e", 0)?,
            random_stat: header.flag("-R"),
            cache: if header.flag("-y") {
                CacheMode::Sync
            } else {
                CacheMode::Buffered
            },
        })
    }
}

#[cfg(test)]
mod tests;
