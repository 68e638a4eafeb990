//! Comparing two groups of runs: the policy. Rows are matched on what was measured,
//! each row gets the sides' levels, a change with its confidence interval, a p-value
//! and a verdict, and the two sides' environments are diffed. Pure: runs in, a
//! [`Comparison`] out; the store and the renderers are elsewhere.
//!
//! The run is the unit (see `stats::runlevel`): each run contributes the median of
//! its repetitions, the change is the ratio of the sides' geometric means of those
//! medians, and run-to-run noise comes from the runs compared, the history of the
//! same series pooled within its segments of one level (`history.rs`: cut where
//! `trend` finds a step and where the environment changed), or a documented default.
//! The decision rule (docs/comparing.md, "Reading a comparison"):
//! - `regression` / `improvement`: the p-value, corrected across rows with
//!   Benjamini–Hochberg, is below alpha, and the change is beyond the threshold;
//! - `unchanged`: the whole interval of the change lies within ± the threshold;
//! - `inconclusive`: anything else — one measurement on a side, too noisy to tell, or
//!   (with no history to measure the noise) a verdict that the side measured on a
//!   busy machine is the slower.
//!
//! The interval is the test's own (the same statistic), stated at the level the
//! correction calls for (Benjamini & Yekutieli's false-coverage-rate intervals,
//! `stats::multiple`), so a regression's interval always lies below zero, an
//! improvement's above it, and no other row's interval excludes zero with its change
//! beyond the threshold.
//!
//! When both sides are parts of the same runs (two engines of one run), each run's
//! two medians are paired instead (`stats::paired`): the run-to-run offset cancels.
//!
//! A file per topic: `verdict.rs` measures each row and decides it, `history.rs` cuts
//! each row's history into segments, `environment.rs` diffs what the sides ran on,
//! `fleet.rs` repeats the comparison per host, filesystem type or kernel, `overlap.rs`
//! finds the runs on both sides.

mod environment;
mod fleet;
mod history;
mod overlap;
pub mod read;
#[cfg(test)]
mod segment_tests;
#[cfg(test)]
mod simulation;
#[cfg(test)]
mod tests;
mod verdict;

use std::collections::BTreeMap;

use serde::Serialize;

use crate::model::{
    CacheMode, EngineKind, KeyParts, RateKind, RowKey, RowSummary, Run, Summaries, TestKind,
};
use crate::stats::runlevel::{Effect, NoiseSource};
use crate::units::ByteSize;

use environment::{environment_changes, side_state};
pub use fleet::{FleetComparison, FleetLine, Group, GroupBy, compare_by};
use history::{RowHistory, history_by_row};
pub use overlap::{Overlap, overlap};
use verdict::{Busy, correct, decide, measure_row, side, summarize};

/// Parameters that can be dropped from the row key, for deliberate comparisons across them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Ignored {
    pub engine: bool,
    pub cache: bool,
    pub iodepth: bool,
    pub threads: bool,
    pub file_size: bool,
}

impl Ignored {
    /// Whether a run's figures of several summaries' rows (file sizes, engines, cache
    /// modes) fall in one row of the comparison, so that its level there is not any one
    /// summary's.
    pub fn pools_rows(self) -> bool {
        self.file_size || self.engine || self.cache
    }

    /// The parts of the row key pooled.
    fn parts(self) -> KeyParts {
        KeyParts {
            file_size: self.file_size,
            cache: self.cache,
            engine: self.engine,
            iodepth: self.iodepth,
            threads: self.threads,
            ..KeyParts::default()
        }
    }
}

/// Runs as the store read them: each with its results, or, read without them, with its
/// summaries by run id (what a run's level needs, read instead of every repetition).
/// For the history of the compared series (whose spread measures run-to-run noise, and
/// whose levels [`Ignored::pools_rows`] takes from results), and for the sides of a
/// fleet comparison, whose runs' summaries must each hold their level
/// ([`RowSummary::run_level`]).
#[derive(Clone, Copy, Default)]
pub struct RunsRead<'a> {
    pub runs: &'a [Run],
    pub summaries: Option<&'a Summaries>,
}

impl<'a> RunsRead<'a> {
    /// Runs with their results loaded.
    pub fn with_results(runs: &'a [Run]) -> RunsRead<'a> {
        RunsRead {
            runs,
            summaries: None,
        }
    }

    /// A run's summaries, when it was read with them and without its results.
    fn summaries_of(&self, run: &Run) -> Option<&'a [RowSummary]> {
        let rows = self.summaries?.get(&run.id?)?;
        run.results.is_empty().then_some(&rows[..])
    }
}

/// The engines and cache modes a run's figures went through, in the order its results
/// list them (`Measurement::list_order`), from its summaries when it was read with
/// them: every cell of a run has a first repetition, so the order of its cells is that
/// of its first repetitions'.
pub fn combinations(run: &Run, read: &RunsRead) -> Vec<(EngineKind, CacheMode)> {
    match read.summaries_of(run) {
        Some(rows) => {
            let mut keys: Vec<RowKey> = rows.iter().map(|s| s.key(&run.params)).collect();
            keys.sort_by_key(RowKey::list_order);
            keys.into_iter().map(|k| (k.engine, k.cache)).collect()
        }
        None => run.results.iter().map(|m| (m.engine, m.cache)).collect(),
    }
}

#[derive(Clone, Copy, Debug)]
pub struct Options {
    /// Smallest change that counts, as a fraction (0.05 = 5%).
    pub threshold: f64,
    pub alpha: f64,
    pub ignore: Ignored,
}

/// Why there is no comparison. Parameters are named as the rule knows them; the
/// command line words them with its flags (`cmd::error_message`).
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum CompareError {
    #[error("the threshold must be between 0 and 100 (percent), not {0}")]
    Threshold(f64),
    #[error("alpha must be between 0 and 1 (exclusive), not {0}")]
    Alpha(f64),
    #[error(
        "the two sides have no row in common (same test, file size, record size, cache, engine, queue depth, threads)"
    )]
    NothingInCommon,
}

impl Options {
    pub fn validate(&self) -> Result<(), CompareError> {
        if !(self.threshold >= 0.0 && self.threshold < 1.0) {
            return Err(CompareError::Threshold(self.threshold * 100.0));
        }
        if !(self.alpha > 0.0 && self.alpha < 1.0) {
            return Err(CompareError::Alpha(self.alpha));
        }
        Ok(())
    }
}

/// What a row is matched on: the row key, with the parameters dropped with
/// `--ignore-param` pooled. Its readers see a dropped one as `None` (`*` in a table,
/// null in JSON), never the value it was pooled to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct RowMatch {
    key: RowKey,
    ignored: Ignored,
}

impl RowMatch {
    pub fn new(key: RowKey, ignored: Ignored) -> RowMatch {
        RowMatch {
            key: key.pooled(ignored.parts()),
            ignored,
        }
    }

    pub fn test(&self) -> TestKind {
        self.key.test
    }

    pub fn file_size(&self) -> Option<ByteSize> {
        (!self.ignored.file_size).then_some(self.key.file_size)
    }

    pub fn record_size(&self) -> ByteSize {
        self.key.record_size
    }

    pub fn cache(&self) -> Option<CacheMode> {
        (!self.ignored.cache).then_some(self.key.cache)
    }

    pub fn engine(&self) -> Option<EngineKind> {
        (!self.ignored.engine).then_some(self.key.engine)
    }

    pub fn iodepth(&self) -> Option<u32> {
        (!self.ignored.iodepth).then_some(self.key.iodepth)
    }

    pub fn threads(&self) -> Option<u32> {
        (!self.ignored.threads).then_some(self.key.threads)
    }

    /// A metadata test's tree: (files, directories, bytes per file); `None` for the
    /// other tests.
    pub fn tree(&self) -> Option<(u64, u64, u64)> {
        let k = &self.key;
        k.test
            .is_metadata()
            .then_some((k.files, k.dirs, k.file_bytes))
    }

    /// What the row's figures count per second.
    pub fn rate_kind(&self) -> RateKind {
        self.key.rate_kind()
    }
}

/// As the row key's fields, a dropped one null.
impl Serialize for RowMatch {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let mut s = serializer.serialize_struct("RowMatch", 11)?;
        s.serialize_field("test", &self.test())?;
        s.serialize_field("file_size", &self.file_size())?;
        s.serialize_field("record_size", &self.record_size())?;
        s.serialize_field("cache", &self.cache())?;
        s.serialize_field("engine", &self.engine())?;
        s.serialize_field("iodepth", &self.iodepth())?;
        s.serialize_field("threads", &self.threads())?;
        // a metadata row's tree and unit; the other rows are as they always were
        if let Some((files, dirs, file_bytes)) = self.tree() {
            s.serialize_field("files", &files)?;
            s.serialize_field("dirs", &dirs)?;
            s.serialize_field("file_bytes", &file_bytes)?;
            s.serialize_field("rate_unit", "ops/s")?;
        }
        s.end()
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    Regression,
    Inconclusive,
    Improvement,
    Unchanged,
}

impl Verdict {
    pub fn name(self) -> &'static str {
        match self {
            Verdict::Regression => "regression",
            Verdict::Inconclusive => "inconclusive",
            Verdict::Improvement => "improvement",
            Verdict::Unchanged => "unchanged",
        }
    }
}

/// One matched row: both sides' runs, and what they say.
#[derive(Clone, Debug, Serialize)]
pub struct Row {
    #[serde(flatten)]
    pub key: RowMatch,
    /// The geometric mean of the side's run medians (one run: its median), bytes/s.
    pub baseline_median: f64,
    pub candidate_median: f64,
    pub change_pct: f64,
    pub ci_low_pct: Option<f64>,
    pub ci_high_pct: Option<f64>,
    /// The confidence of the interval, percent: 1 − alpha, widened for the correction
    /// across rows (`Comparison::ci_level_pct`).
    pub ci_level_pct: Option<f64>,
    pub p_value: Option<f64>,
    /// After Benjamini–Hochberg across the rows.
    pub p_adjusted: Option<f64>,
    pub verdict: Verdict,
    /// Repetitions on each side, all runs together.
    pub n_baseline: usize,
    pub n_candidate: usize,
    /// Runs on each side: the unit of the statistics.
    pub runs_baseline: usize,
    pub runs_candidate: usize,
    /// The run-to-run noise used: how far one run's level strays, in percent.
    pub noise_pct: Option<f64>,
    /// `runs`, `history: N runs since run M` (the segments of the series that hold the
    /// compared runs), `history: N runs of other segments`, `default` or `paired: …`
    /// (see docs/comparing.md, "How many runs do I need?").
    pub noise_source: Option<String>,
    /// The smallest change this row would flag with 80% power, in percent.
    pub min_detectable_pct: Option<f64>,
    /// About how many runs a side would resolve a change of the threshold, for rows
    /// that are inconclusive.
    pub runs_needed: Option<usize>,
    /// For rows whose sides are parts of the same runs, paired run by run: about
    /// how many rounds (`--repeat`) would resolve a change of the threshold, when the
    /// row is inconclusive.
    pub rounds_needed: Option<usize>,
    /// Why the verdict is what it is, when that is not obvious.
    pub note: Option<String>,
}

/// A fact that differs between the two sides' environments: each side's distinct
/// values, `None` (JSON null) for a run that did not record it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct EnvChange {
    pub field: String,
    pub baseline: Vec<Option<String>>,
    pub candidate: Vec<Option<String>>,
    /// For the machine's state, which differs from one run to the next: each side in
    /// a few words, what people read instead of every distinct value, and each run's
    /// value; `None` (left out of JSON) for the other facts.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub summary: Option<SidesSummary>,
}

/// The two sides of an [`EnvChange`] in a few words, and run by run.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SidesSummary {
    /// `quiet`, `busy in 2 of 3 runs: writeback 1–1.8 GiB, load 3.4`, …; null when
    /// no run of the side recorded it.
    pub baseline: Option<String>,
    pub candidate: Option<String>,
    /// Each run's value, in the side's order.
    pub baseline_runs: Vec<RunValue>,
    pub candidate_runs: Vec<RunValue>,
}

/// One run's value of a fact.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RunValue {
    /// The run's id (null for a run not recorded).
    pub id: Option<i64>,
    pub value: Option<String>,
}

/// The geometric mean of the candidate/baseline ratio of medians over a test's rows.
#[derive(Clone, Debug, Serialize)]
pub struct TestSummary {
    pub test: TestKind,
    pub rows: usize,
    pub geomean_change_pct: f64,
    pub regressions: usize,
    pub improvements: usize,
}

#[derive(Clone, Debug, Serialize)]
pub struct Comparison {
    pub environment_changes: Vec<EnvChange>,
    /// Sorted by severity: regressions (largest drop first), inconclusive, improvements, unchanged.
    pub rows: Vec<Row>,
    pub baseline_only: Vec<RowMatch>,
    pub candidate_only: Vec<RowMatch>,
    pub summary: Vec<TestSummary>,
    /// How many p-values the correction was applied across.
    pub corrected_over: usize,
    /// The confidence of every row's interval, percent: 1 − R·alpha/m for the R of m
    /// rows the correction selects (at least one), Benjamini & Yekutieli's
    /// false-coverage-rate adjusted level; 1 − alpha when every row is selected.
    pub ci_level_pct: f64,
    pub threshold_pct: f64,
    pub alpha: f64,
    /// Runs of the compared series' history that measured the noise of some row.
    pub history_runs: usize,
}

impl Comparison {
    pub fn regressions(&self) -> usize {
        regressions(&self.rows)
    }
}

/// How many of `rows` regressed.
fn regressions(rows: &[Row]) -> usize {
    rows.iter()
        .filter(|r| r.verdict == Verdict::Regression)
        .count()
}

/// Compares `baseline` and `candidate` runs. `history` holds other complete runs of
/// the same series (host, filesystem, parameters), before or after the compared ones,
/// whose spread within segments of one level (`history.rs`) measures run-to-run noise;
/// runs of either side in it are ignored.
pub fn compare(
    baseline: &[Run],
    candidate: &[Run],
    history: RunsRead,
    options: &Options,
) -> Result<Comparison, CompareError> {
    options.validate()?;
    let (baseline, candidate) = (
        RunsRead::with_results(baseline),
        RunsRead::with_results(candidate),
    );
    let measured = measure(&baseline, &candidate, history, options)?;
    Ok(Comparison {
        environment_changes: environment_changes(&baseline, &candidate),
        summary: summarize(&measured.rows),
        baseline_only: measured.baseline_only,
        candidate_only: measured.candidate_only,
        rows: measured.rows,
        corrected_over: measured.corrected_over,
        ci_level_pct: measured.ci_level * 100.0,
        threshold_pct: options.threshold * 100.0,
        alpha: options.alpha,
        history_runs: measured.history_runs,
    })
}

/// The rows of a comparison, each measured and decided, worst first; the keys of one
/// side only; how many p-values were corrected, and the level of the intervals; how
/// many history runs measured noise.
struct Measured {
    rows: Vec<Row>,
    baseline_only: Vec<RowMatch>,
    candidate_only: Vec<RowMatch>,
    corrected_over: usize,
    ci_level: f64,
    history_runs: usize,
}

/// A comparison's rows, without what is said of the sides' environments (which a fleet
/// comparison says once for the whole fleet, not for each group).
fn measure(
    baseline: &RunsRead,
    candidate: &RunsRead,
    history: RunsRead,
    options: &Options,
) -> Result<Measured, CompareError> {
    let base = side(baseline, options.ignore);
    let cand = side(candidate, options.ignore);
    let common: Vec<&RowMatch> = base.keys().filter(|k| cand.contains_key(*k)).collect();
    if common.is_empty() {
        return Err(CompareError::NothingInCommon);
    }
    let histories = history_by_row(baseline, candidate, &history, options.ignore);
    let busy = Busy {
        baseline: side_state(baseline),
        candidate: side_state(candidate),
    };
    let none = RowHistory::default();
    let history_of = |key: &RowMatch| histories.get(key).unwrap_or(&none);
    let (mut rows, effects): (Vec<Row>, Vec<Option<Effect>>) = common
        .iter()
        .map(|key| measure_row(key, &base[*key], &cand[*key], history_of(key), options))
        .unzip();
    let (corrected_over, ci_level) = correct(&mut rows, &effects, options);
    for (row, effect) in rows.iter_mut().zip(&effects) {
        let history = history_of(&row.key);
        decide(row, effect.as_ref(), history, &busy, options);
    }
    let history_runs = (effects.iter().flatten())
        .map(|e| match e.noise.source {
            NoiseSource::History(n) | NoiseSource::OtherSegments(n) => n,
            _ => 0,
        })
        .max()
        .unwrap_or(0);
    rows.sort_by(|a, b| {
        (a.verdict, -a.change_pct.abs())
            .partial_cmp(&(b.verdict, -b.change_pct.abs()))
            .unwrap_or(std::cmp::Ordering::Equal)
    });
    Ok(Measured {
        baseline_only: one_sided(&base, &cand),
        candidate_only: one_sided(&cand, &base),
        rows,
        corrected_over,
        ci_level,
        history_runs,
    })
}

/// The rows of `one` side that `other` has not.
fn one_sided(
    one: &BTreeMap<RowMatch, verdict::Side>,
    other: &BTreeMap<RowMatch, verdict::Side>,
) -> Vec<RowMatch> {
    let only = one.keys().filter(|k| !other.contains_key(*k));
    only.copied().collect()
}
