//! A run's summary per row key: what the commands that walk many runs read instead of
//! every repetition. Derived from the results by [`RowSummary::of`], which the store
//! calls as it writes a run's results (and, for the runs whose figures are their own
//! summaries, as it reads them), never the only copy of anything.

use super::{CacheMode, EngineKind, Measurement, Params, RowKey, TestKind, by_row, throughputs};
use crate::stats::Summary;
use crate::stats::runlevel::{LevelParts, RunLevel};
use crate::units::ByteSize;

/// Runs' summaries by run id.
pub type Summaries = std::collections::HashMap<i64, Vec<RowSummary>>;

/// The measured repetitions of one run in one row ([`RowKey`]: the run's depth and
/// workers are its parameters, the rest is here, as the store keeps it): warm-up
/// rounds never count.
#[derive(Clone, Debug, PartialEq)]
pub struct RowSummary {
    pub test: TestKind,
    pub file_size: ByteSize,
    pub record_size: ByteSize,
    pub engine: EngineKind,
    pub cache: CacheMode,
    /// Every repetition, finite or not.
    pub repetitions: u32,
    /// The median of the finite figures (`stats::Summary`'s); `None` when none is.
    pub median: Option<f64>,
    /// The least and greatest finite figure: the repetitions' spread.
    pub least: Option<f64>,
    pub greatest: Option<f64>,
    /// The median of the finite, positive figures, whose logarithm is the run's level
    /// (`stats::runlevel::RunLevel`); `None` when no figure is positive.
    pub positive_median: Option<f64>,
    /// How many figures are finite and positive, and the sample variance of their
    /// logarithms (`LevelParts`): the rest of the run's level. `None` in a summary
    /// derived before they were kept (schema 9), until the store derives it again.
    pub positives: Option<u32>,
    /// `None` too when no figure is positive.
    pub log_variance: Option<f64>,
}

impl RowSummary {
    /// The summaries of `results` (measured figures, warm-up left out), a row per key
    /// in key order: `Summary` for the median and spread, `RunLevel` for the level, as
    /// the readers of the summaries compute them from repetitions.
    pub fn of(results: &[Measurement]) -> Vec<RowSummary> {
        // a run's figures share its depth and workers: its rows differ in what each
        // figure states, which is all a summary keeps (and all the store derives
        // summaries from)
        let any_run = Params::default();
        by_row(&any_run, results)
            .into_iter()
            .map(|(key, mut figures)| {
                // in the order a run's results are read back (`Measurement::list_order`),
                // whatever order they were measured or written in: the variance's sum
                // follows it
                figures.sort_by_key(|m| m.repetition);
                let figures = throughputs(&figures);
                let summary = Summary::of(&figures);
                let level = LevelParts::of(&figures);
                RowSummary {
                    test: key.test,
                    file_size: key.file_size,
                    record_size: key.record_size,
                    engine: key.engine,
                    cache: key.cache,
                    repetitions: figures.len() as u32,
                    median: summary.map(|s| s.median),
                    least: summary.map(|s| s.min),
                    greatest: summary.map(|s| s.max),
                    positive_median: level.map(|l| l.median),
                    positives: Some(level.map_or(0, |l| l.positives as u32)),
                    log_variance: level.map(|l| l.log_variance),
                }
            })
            .collect()
    }

    /// The row this summarizes, of a run with `params`.
    pub fn key(&self, params: &Params) -> RowKey {
        let stated = (
            self.test,
            self.file_size,
            self.record_size,
            self.engine,
            self.cache,
        );
        RowKey::in_run(params, stated)
    }

    /// The run's level under this key, as `RunLevel::of` its repetitions gives it:
    /// `None` when no figure is positive, or when the summary predates what it needs.
    pub fn run_level(&self) -> Option<RunLevel> {
        Some(RunLevel::from(LevelParts {
            median: self.positive_median?,
            log_variance: self.log_variance?,
            positives: self.positives? as usize,
        }))
    }

    /// Whether a run with these measured figures keeps summary rows: not when every
    /// figure is its key's first repetition (one figure per key, as every imported
    /// run has), whose summary is the figure itself. Deriving and keeping millions of
    /// rows that repeat the results would double an import's time and size.
    pub fn kept_for<'a>(results: impl IntoIterator<Item = &'a Measurement>) -> bool {
        results.into_iter().any(|m| m.repetition != 1)
    }

    /// What a summary row decodes onto: every field a column sets is overwritten.
    pub fn blank() -> RowSummary {
        RowSummary {
            test: TestKind::Write,
            file_size: ByteSize(0),
            record_size: ByteSize(0),
            engine: EngineKind::Posix,
            cache: CacheMode::Flush,
            repetitions: 0,
            median: None,
            least: None,
            greatest: None,
            positive_median: None,
            positives: None,
            log_variance: None,
        }
    }
}
