//! What the metadata importers (fileop, fs_mark, bonnie++, mdtest) share: the
//! intermediate each parser turns a tool's text into, an [`OpsRun`] of operation rates
//! over a tree of files already in our tests' terms, and the reading of the figures
//! those tools print. It parses no format itself.
//!
//! Each parser decides, in its own file and its doc, which of its tool's operations is
//! which test of ours and what the tool's figure counts; here a figure is a rate in
//! operations per second (or "too fast to measure") and the operations it counts.

use std::collections::BTreeMap;

use chrono::{DateTime, NaiveDateTime, Utc};

use super::text::error;
use super::{Origin, ParseError};
use crate::model::{
    CacheMode, EngineKind, Filesystem, Host, Measurement, MetadataTree, Params, RoundOrder, Run,
    RunStatus, Source, TestKind,
};
use crate::units::ByteSize;

/// The largest count the store keeps: it writes integers as SQLite's signed 64 bits.
const MAX_STORED: u64 = i64::MAX as u64;

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
    pub tree: MetadataTree,
    pub figures: Vec<OpFigure>,
    /// What the run's note says: figures the tool could not give, what the output did
    /// not state and was taken from the tool's default.
    pub remarks: Vec<String>,
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
            tree: MetadataTree::default(),
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

/// The runs of `parsed`, numbered in file order.
pub fn into_runs(parsed: Vec<OpsRun>, origin: &Origin) -> Result<Vec<Run>, ParseError> {
    parsed
        .into_iter()
        .enumerate()
        .map(|(i, run)| run.into_run(origin, i))
        .collect()
}

impl OpsRun {
    /// The complete run, the `index`-th of its file. A figure too fast to measure is
    /// no measurement: its test stays among the run's tests, and the note says it is
    /// unknown.
    pub fn into_run(self, origin: &Origin, index: usize) -> Result<Run, ParseError> {
        let tests = self.tests();
        let note = self.note();
        let repeat = self.figures.iter().map(|f| f.repetition).max().unwrap_or(1);
        let results = self
            .figures
            .iter()
            .filter_map(|f| match f.rate {
                Rate::PerSecond(rate) => Some(measurement(f, rate)),
                Rate::TooFast => None,
            })
            .collect::<Result<Vec<_>, _>>()?;
        let params = Params {
            engines: vec![EngineKind::Posix],
            caches: vec![self.cache],
            iodepth: 1,
            threads: self.threads,
            // a run of metadata tests alone measures no file: it states no sizes, as
            // `run` records one (its tree says what it went over)
            file_sizes: Vec::new(),
            record_sizes: Vec::new(),
            tests,
            repeat,
            // other tools measure with no warm-up and no rounds of ours
            warmup: 0,
            order: RoundOrder::legacy(),
            repeat_auto: None,
            seed: None,
            auto: false,
            verify: false,
            read_pct: None,
            stride_records: None,
            latency: false,
            dir: self.dir,
            metadata: Some(self.tree),
        };
        let mut run = Run {
            id: None,
            uuid: origin.run_uuid(index),
            started_at: self.started_at.unwrap_or(origin.imported_at),
            finished_at: None,
            status: RunStatus::Complete,
            labels: Vec::new(),
            tags: BTreeMap::new(),
            note,
            tool_version: env!("CARGO_PKG_VERSION").to_string(),
            params,
            host: Host {
                hostname: self.hostname,
                ..Host::default()
            },
            filesystem: Filesystem::default(),
            source: Some(Source {
                tool: self.tool.to_string(),
                version: self.version,
                command: self.command,
                file: Some(origin.file.clone()),
                imported_at: origin.imported_at,
                time_known: self.started_at.is_some(),
            }),
            state_at_start: None,
            state_at_end: None,
            process: None,
            results,
            warmup: Vec::new(),
        };
        run.stamp_combination();
        Ok(run)
    }

    /// The remarks, and which tests were too fast to measure, as one note.
    fn note(&self) -> Option<String> {
        let mut said = self.remarks.clone();
        let mut unknown = Vec::new();
        for test in self.tests() {
            let of_test = self.figures.iter().filter(|f| f.test == test);
            let all = of_test.clone().count();
            let fast = of_test.filter(|f| f.rate == Rate::TooFast).count();
            match fast {
                0 => {}
                _ if fast == all => unknown.push(test.to_string()),
                _ => unknown.push(format!("{test} (in {fast} of {all} repetitions)")),
            }
        }
        if !unknown.is_empty() {
            said.push(format!(
                "too fast for {} to measure, unknown (no figure): {}",
                self.tool,
                unknown.join(", ")
            ));
        }
        (!said.is_empty()).then(|| said.join("; "))
    }
}

/// A known figure as a measurement: the time is derived from the operations and the
/// stated rate (which no tool here states beside it), so ops / elapsed gives the rate
/// back.
fn measurement(f: &OpFigure, rate: f64) -> Result<Measurement, ParseError> {
    let elapsed = (f.ops as f64 / rate * 1e9).round();
    if !(1.0..=MAX_STORED as f64).contains(&elapsed) {
        return Err(error(
            Some(f.line),
            format!(
                "{}: {rate} operations/s for {} operations is not a plausible time",
                f.test, f.ops
            ),
        ));
    }
    Ok(Measurement {
        test: f.test,
        file_size: ByteSize(0),
        record_size: ByteSize(0),
        repetition: f.repetition,
        bytes: f.bytes,
        elapsed_ns: elapsed as u64,
        throughput: rate,
        latency_ns: None,
        // the run's, stamped when it is complete
        engine: EngineKind::default(),
        cache: CacheMode::default(),
        ops: Some(f.ops),
    })
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
    }

    fn origin() -> Origin {
        super::super::text::testing::origin("ops")
    }

    fn figure(test: TestKind, repetition: u32, rate: Rate) -> OpFigure {
        OpFigure {
            test,
            repetition,
            ops: 4096,
            bytes: 0,
            rate,
            line: 1,
        }
    }

    #[test]
    fn a_run_keeps_its_tree_and_derives_each_time_from_the_rate() {
        let mut parsed = OpsRun::new("bonnie++");
        parsed.threads = 2;
        parsed.cache = CacheMode::Sync;
        parsed.tree = MetadataTree {
            files: 2048,
            dirs: 2,
            ..MetadataTree::default()
        };
        parsed.hostname = Some("vm".into());
        parsed
            .add(figure(TestKind::Create, 1, Rate::PerSecond(2947.0)))
            .unwrap();
        let run = parsed.into_run(&origin(), 0).unwrap();
        assert_eq!(run.params.metadata.unwrap().files_per_thread(), 4096);
        assert_eq!(
            (run.params.threads, run.params.cache()),
            (2, CacheMode::Sync)
        );
        assert_eq!(run.host.hostname.as_deref(), Some("vm"));
        let m = &run.results[0];
        assert_eq!(
            (m.test, m.ops, m.cache),
            (TestKind::Create, Some(4096), CacheMode::Sync)
        );
        assert_eq!(m.throughput, 2947.0);
        // 4096 operations at 2947/s: 1.389888022 s
        assert_eq!(m.elapsed_ns, 1_389_888_022);
        assert_eq!((m.file_size, m.record_size), (ByteSize(0), ByteSize(0)));
        assert_eq!(run.note, None);
        assert!(run.check_storable().is_ok());
        let source = run.source.unwrap();
        assert_eq!(
            (source.tool.as_str(), source.time_known),
            ("bonnie++", false)
        );
    }

    #[test]
    fn too_fast_is_no_figure_and_the_note_says_unknown() {
        let mut parsed = OpsRun::new("bonnie++");
        parsed.remarks.push("a remark".into());
        for (test, repetition, rate) in [
            (TestKind::Create, 1, Rate::PerSecond(442.0)),
            (TestKind::Stat, 1, Rate::TooFast),
            (TestKind::Unlink, 1, Rate::TooFast),
            (TestKind::Create, 2, Rate::PerSecond(331.0)),
            (TestKind::Stat, 2, Rate::TooFast),
            (TestKind::Unlink, 2, Rate::PerSecond(900.0)),
        ] {
            parsed.add(figure(test, repetition, rate)).unwrap();
        }
        let run = parsed.into_run(&origin(), 0).unwrap();
        assert_eq!(
            run.params.tests,
            [TestKind::Create, TestKind::Stat, TestKind::Unlink]
        );
        assert_eq!(run.params.repeat, 2);
        assert_eq!(run.results.len(), 3);
        assert!(run.results.iter().all(|m| m.test != TestKind::Stat));
        assert!(run.results.iter().all(|m| m.throughput > 0.0));
        assert_eq!(
            run.note.as_deref(),
            Some(
                "a remark; too fast for bonnie++ to measure, unknown (no figure): stat, \
                 unlink (in 1 of 2 repetitions)"
            )
        );
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
