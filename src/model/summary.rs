//! A run's summary per row key: what the commands that walk many runs read instead of
//! every repetition. Derived from the results by [`RowSummary::of`], which the store
//! calls as it writes a run's results (and, for the runs whose figures are their own
//! summaries, as it reads them), never the only copy of anything.

use super::{CacheMode, EngineKind, Measurement, Params, RowKey, TestKind};
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

/// The tests a listing of runs heads each run with (`history`): its write and read.
pub const HEADLINE_TESTS: [TestKind; 2] = [TestKind::Write, TestKind::Read];

/// The median throughput of `test` at the run's largest file size and record size,
/// through its first engine and cache mode (a run of several has one headline: the
/// combination named first on its command line, the run's `Params::engine`/`cache`),
/// from the run's summaries: the figure a listing heads the run with.
pub fn headline(params: &Params, summaries: &[RowSummary], test: TestKind) -> Option<f64> {
    let first = (params.engine(), params.cache());
    summaries
        .iter()
        .filter(|s| s.test == test && (s.engine, s.cache) == first)
        .max_by_key(|s| (s.file_size, s.record_size))?
        .median
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
        // by row in key order, and within a row in the order a run's results are read
        // back (`Measurement::list_order`), whatever order they were measured or
        // written in: the variance's sum follows it. One sort of the figures, where a
        // map of rows would allocate a list per row: a listing of the whole history
        // summarizes every run that keeps no summaries as it reads it.
        let mut figures: Vec<(RowKey, &Measurement)> = (results.iter())
            .map(|m| (RowKey::of(&any_run, m), m))
            .collect();
        figures.sort_by_key(|(key, m)| (*key, m.repetition));
        (figures.chunk_by(|a, b| a.0 == b.0))
            .map(|row| match row {
                [(_, one)] => RowSummary::of_figure(one),
                _ => {
                    let throughputs: Vec<f64> = row.iter().map(|(_, m)| m.throughput).collect();
                    RowSummary::of_row(row[0].0, &throughputs)
                }
            })
            .collect()
    }

    /// The summary of a row's figures' throughputs, in repetition order.
    fn of_row(key: RowKey, figures: &[f64]) -> RowSummary {
        let summary = Summary::of(figures);
        let level = LevelParts::of(figures);
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
    }

    /// The summary of a row of one figure (every row of a run that keeps no summaries):
    /// the figure itself, as [`RowSummary::of_row`] finds it, without the lists that
    /// `Summary` and `LevelParts` collect and sort.
    fn of_figure(m: &Measurement) -> RowSummary {
        let finite = Some(m.throughput).filter(|f| f.is_finite());
        let positive = finite.filter(|f| *f > 0.0);
        RowSummary {
            test: m.test,
            file_size: m.file_size,
            record_size: m.record_size,
            engine: m.engine,
            cache: m.cache,
            repetitions: 1,
            median: finite,
            least: finite,
            greatest: finite,
            positive_median: positive,
            positives: Some(u32::from(positive.is_some())),
            // the sample variance of one logarithm is 0
            log_variance: positive.map(|_| 0.0),
        }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::test_figure as figure;

    #[test]
    fn a_row_of_one_figure_is_summarized_as_a_row_of_many_would_be() {
        let figures = [
            1.5e9,
            0.0,
            -3.0,
            f64::NAN,
            f64::INFINITY,
            f64::MAX,
            f64::MIN_POSITIVE,
        ];
        for f in figures {
            let m = figure(TestKind::Read, 4096, 1, f);
            let key = RowKey::of(&Params::default(), &m);
            let one = RowSummary::of_figure(&m);
            let general = RowSummary::of_row(key, &[f]);
            // NaN != NaN: compare the bits of what is kept
            assert_eq!(format!("{one:?}"), format!("{general:?}"), "{f}");
        }
    }

    #[test]
    fn rows_come_in_key_order_each_in_repetition_order() {
        let results = [
            figure(TestKind::Read, 65536, 2, 3.0),
            figure(TestKind::Write, 4096, 1, 1.0),
            figure(TestKind::Read, 65536, 1, 5.0),
            figure(TestKind::Read, 4096, 1, 2.0),
            figure(TestKind::Read, 65536, 3, 4.0),
        ];
        let rows = RowSummary::of(&results);
        let keys: Vec<(TestKind, u64, u32)> = (rows.iter())
            .map(|r| (r.test, r.record_size.bytes(), r.repetitions))
            .collect();
        let mut expected = vec![
            (TestKind::Write, 4096, 1),
            (TestKind::Read, 4096, 1),
            (TestKind::Read, 65536, 3),
        ];
        expected.sort_by_key(|(test, record, _)| {
            RowKey::of(&Params::default(), &figure(*test, *record, 1, 0.0))
        });
        assert_eq!(keys, expected);
        let three = rows.iter().find(|r| r.repetitions == 3).unwrap();
        assert_eq!(
            (three.median, three.least, three.greatest),
            (Some(4.0), Some(3.0), Some(5.0))
        );
        assert_eq!(three.positives, Some(3));
    }
}
