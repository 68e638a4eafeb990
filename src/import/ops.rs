//! What the metadata importers (fileop, fs_mark, bonnie++, mdtest) share: the
//! intermediate each parser turns a tool's text into, an [`OpsRun`] of operation rates
//! over a tree of files already in our tests' terms, and the reading of the figures
//! those tools print. It parses no format itself.
//!
//! Each parser decides, in its own file and its doc, which of its tool's operations is
//! which test of ours and what the tool's figure counts; here a figure is a rate in
//! operations per second (or "too fast to measure") and the operations it counts.

use chrono::{DateTime, NaiveDateTime, Utc};

use super::ParseError;
use super::text::error;
use crate::model::CacheMode;

/// The largest count the store keeps: it writes integers as SQLite's signed 64 bits.
const MAX_STORED: u64 = i64::MAX as u64;

/// A metadata operation as our tests name it. Stands for the model's tests of the
/// same names until the parsers are mapped onto them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum TestKind {
    Mkdir,
    Create,
    Stat,
    Open,
    Readfile,
    Readdir,
    Rename,
    Unlink,
    Rmdir,
}

impl std::fmt::Display for TestKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let name = format!("{self:?}").to_ascii_lowercase();
        f.write_str(&name)
    }
}

/// A run of metadata figures as a tool stated it.
#[derive(Clone, Debug, PartialEq)]
pub struct OpsRun {
    pub tool: &'static str,
    pub version: Option<String>,
    pub command: Option<String>,
    /// When the tool says the run began; `None` makes the import time stand in.
    pub started_at: Option<DateTime<Utc>>,
    /// The directory measured in, when the output names an absolute one.
    pub dir: Option<String>,
    /// The host, when the output names it (bonnie++'s machine name).
    pub hostname: Option<String>,
    pub cache: CacheMode,
    /// Workers (threads, processes or MPI tasks) the figures are of, together.
    pub threads: u32,
    pub tree: Tree,
    pub figures: Vec<OpFigure>,
    /// What the run's note says: figures the tool could not give, what the output did
    /// not state and was taken from the tool's default.
    pub remarks: Vec<String>,
}

/// The tree a run's operations went over, per worker.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tree {
    /// Entries per directory.
    pub files: u64,
    /// Directories (in all, when the workers share them).
    pub dirs: u64,
    /// Bytes each created file holds.
    pub file_bytes: u64,
    /// Whether the workers share one set of directories.
    pub shared_dir: bool,
    /// Whether the entries were visited in an order other than their creation's.
    pub random_order: bool,
}

/// One figure: a test's rate in one repetition.
#[derive(Clone, Debug, PartialEq)]
pub struct OpFigure {
    pub test: TestKind,
    /// 1-based.
    pub repetition: u32,
    /// The operations of all workers together that the rate counts.
    pub ops: u64,
    /// The bytes written or read with them (0 for the tests that move none).
    pub bytes: u64,
    pub rate: Rate,
    /// The line it was read from, for messages.
    pub line: usize,
}

/// A rate as a tool printed it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Rate {
    /// Operations per second: finite and positive.
    PerSecond(f64),
    /// The tool measured the phase but would not give a rate: it took too little time
    /// for its clock (bonnie++'s `+++++`, fileop's `inf`). Unknown, never zero.
    TooFast,
}

impl OpsRun {
    /// A run of `tool` with nothing stated yet: one worker, buffered, an empty tree.
    pub fn new(tool: &'static str) -> OpsRun {
        OpsRun {
            tool,
            version: None,
            command: None,
            started_at: None,
            dir: None,
            hostname: None,
            cache: CacheMode::Buffered,
            threads: 1,
            tree: Tree::default(),
            figures: Vec::new(),
            remarks: Vec::new(),
        }
    }

    /// The tests the run has a figure for (known or not), in canonical order.
    pub fn tests(&self) -> Vec<TestKind> {
        let mut tests: Vec<TestKind> = self.figures.iter().map(|f| f.test).collect();
        tests.sort();
        tests.dedup();
        tests
    }

    /// Adds a figure; a second one for the same test and repetition is an error.
    pub fn add(&mut self, figure: OpFigure) -> Result<(), ParseError> {
        let twice = self
            .figures
            .iter()
            .any(|f| (f.test, f.repetition) == (figure.test, figure.repetition));
        if twice {
            return Err(error(
                Some(figure.line),
                format!(
                    "a second {} figure in repetition {}",
                    figure.test, figure.repetition
                ),
            ));
        }
        if figure.ops == 0 || figure.ops > MAX_STORED || figure.bytes > MAX_STORED {
            return Err(error(
                Some(figure.line),
                format!(
                    "{}: {} operations of {} bytes is out of range",
                    figure.test, figure.ops, figure.bytes
                ),
            ));
        }
        self.figures.push(figure);
        Ok(())
    }
}

/// A rate in operations per second as printed: a finite positive number, or `None`.
pub fn rate(word: &str) -> Option<f64> {
    word.parse::<f64>()
        .ok()
        .filter(|r| r.is_finite() && *r > 0.0)
}

/// A rate or an error naming `what` and the word.
pub fn known_rate(word: &str, what: &str) -> Result<f64, String> {
    rate(word).ok_or_else(|| format!("{what} '{word}' is not a rate in operations per second"))
}

/// A whole number or an error naming `what` and the word.
pub fn count(word: &str, what: &str) -> Result<u64, String> {
    word.parse()
        .map_err(|_| format!("{what} '{word}' is not a whole number"))
}

/// `a × b`, or an error naming `what` when it is too large to keep.
pub fn product(a: u64, b: u64, what: &str) -> Result<u64, String> {
    a.checked_mul(b)
        .filter(|&p| p <= MAX_STORED)
        .ok_or_else(|| format!("{what} {a} × {b} is too large"))
}

/// The rate of a phase made of steps each tool timed apart over the same operations
/// (fileop's create, write and close of each file): the steps' times add, so the
/// rates' inverses do. A step too fast for the tool's clock adds nothing it could see;
/// all of them too fast is too fast.
pub fn combined(steps: &[Rate]) -> Rate {
    let seconds_per_op: f64 = steps
        .iter()
        .map(|r| match r {
            Rate::PerSecond(r) => 1.0 / r,
            Rate::TooFast => 0.0,
        })
        .sum();
    if seconds_per_op > 0.0 {
        Rate::PerSecond(1.0 / seconds_per_op)
    } else {
        Rate::TooFast
    }
}

/// `Tue Dec  1 22:49:34 2026`, as C's ctime prints it. The tools print local time
/// without a zone; it is taken as UTC, as the iozone3 importer does (off by the zone's
/// offset when the machine was not on UTC).
pub fn ctime(text: &str) -> Option<DateTime<Utc>> {
    let normalized = text.split_whitespace().collect::<Vec<_>>().join(" ");
    NaiveDateTime::parse_from_str(&normalized, "%a %b %e %H:%M:%S %Y")
        .ok()
        .map(|t| t.and_utc())
}

/// The value after `-flag` in a command's words, e.g. `-n 2000`; the last one given.
pub fn option<'a>(words: &[&'a str], flag: &str) -> Option<&'a str> {
    words
        .windows(2)
        .filter(|w| w[0] == flag)
        .map(|w| w[1])
        .next_back()
}

/// Whether `-flag` is among a command's words.
pub fn has_flag(words: &[&str], flag: &str) -> bool {
    words.contains(&flag)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steps_timed_apart_add_their_times() {
        let create = combined(&[Rate::PerSecond(1000.0), Rate::PerSecond(1000.0)]);
        assert_eq!(create, Rate::PerSecond(500.0));
        let unseen = combined(&[Rate::PerSecond(1000.0), Rate::TooFast]);
        assert_eq!(unseen, Rate::PerSecond(1000.0));
        assert_eq!(combined(&[Rate::TooFast, Rate::TooFast]), Rate::TooFast);
    }

    #[test]
    fn rates_are_finite_and_positive() {
        assert_eq!(rate("2947"), Some(2947.0));
        assert_eq!(rate("28607.0"), Some(28607.0));
        for bad in ["inf", "nan", "-1", "0", "+++++", ""] {
            assert_eq!(rate(bad), None, "{bad}");
        }
        assert!(known_rate("x", "create rate").unwrap_err().contains("'x'"));
    }

    #[test]
    fn ctime_reads_the_padded_day() {
        let t = ctime("Tue Dec  1 22:49:34 2026").unwrap();
        assert_eq!(t.to_rfc3339(), "2026-12-01T22:49:34+00:00");
        assert_eq!(ctime("yesterday"), None);
    }

    #[test]
    fn options_read_the_last_value_given() {
        let words = ["fs_mark", "-d", "/a", "-n", "5", "-d", "/b", "-k"];
        assert_eq!(option(&words, "-d"), Some("/b"));
        assert_eq!(option(&words, "-n"), Some("5"));
        assert_eq!(option(&words, "-k"), None);
        assert!(has_flag(&words, "-k"));
    }

    #[test]
    fn a_second_figure_for_a_test_and_repetition_is_refused() {
        let mut run = OpsRun::new("test");
        let figure = OpFigure {
            test: TestKind::Create,
            repetition: 1,
            ops: 10,
            bytes: 0,
            rate: Rate::PerSecond(1.0),
            line: 3,
        };
        run.add(figure.clone()).unwrap();
        let e = run.add(figure.clone()).unwrap_err();
        assert_eq!(e.line, Some(3));
        run.add(OpFigure {
            repetition: 2,
            ..figure.clone()
        })
        .unwrap();
        assert!(run.add(OpFigure { ops: 0, ..figure }).is_err());
        assert_eq!(run.tests(), [TestKind::Create]);
    }
}
