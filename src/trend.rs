//! Trends: each series of runs (same host, filesystem and parameters) in time order,
//! and the runs where its level stepped up or down. Pure: runs and their summaries
//! in (a run's median per row, never every repetition), steps out; [`read`] fills the
//! series from a store.

pub mod read;

use std::borrow::Borrow;
use std::collections::BTreeMap;

use chrono::{DateTime, Utc};
use serde::Serialize;

use crate::model::{RowKey, RowSummary, Run};
use crate::stats;

/// What makes runs comparable along time: where they ran, and the row.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct SeriesKey {
    pub hostname: Option<String>,
    pub fs_type: Option<String>,
    pub mount_point: Option<String>,
    #[serde(flatten)]
    pub row: RowKey,
}

/// A run at which a series' level changed.
#[derive(Clone, Debug, Serialize)]
pub struct Step {
    #[serde(flatten)]
    pub series: SeriesKey,
    /// The first run at the new level (`id`, as every output names a run's id).
    #[serde(rename = "id")]
    pub run_id: Option<i64>,
    pub started_at: DateTime<Utc>,
    /// Levels (geometric means of the runs' medians, bytes/s) before and after.
    pub before: f64,
    pub after: f64,
    pub change_pct: f64,
    pub runs_before: usize,
    pub runs_after: usize,
}

#[derive(Clone, Debug, Serialize)]
pub struct TrendReport {
    /// Series with enough runs to look for a step.
    pub series_examined: usize,
    pub series_too_short: usize,
    pub steps: Vec<Step>,
    /// Whether some host's series lie on more than one mount point: a listing of steps
    /// then names each step's, which the host would not tell apart.
    #[serde(skip)]
    pub mounts_differ: bool,
}

/// A series' points in time order: (start, run id, median bytes/s of the run).
pub type SeriesPoints = Vec<(DateTime<Utc>, Option<i64>, f64)>;

/// Every series met so far, each with its points; [`Series::add_run`] adds a run's.
/// Kept compact, as `trend --all` holds a point per run and row of the whole history
/// (2,000,000 for 100,000 runs of 20 rows): a point is the run's place in `runs` and
/// its median, 16 bytes, and each series becomes [`SeriesPoints`] only when it is
/// examined.
#[derive(Default)]
pub struct Series {
    /// Each run added: when it started, and its id.
    runs: Vec<(DateTime<Utc>, Option<i64>)>,
    points: BTreeMap<SeriesKey, Vec<(u32, f64)>>,
}

impl Series {
    /// Adds a run's points, one per row of its summaries with a median, from the
    /// run's facts and parameters and the summary's own key (a run may have measured
    /// several engines and cache modes: each is its own series).
    pub fn add_run(&mut self, run: &Run, summaries: &[RowSummary]) {
        let at = u32::try_from(self.runs.len()).expect("fewer than 4 billion runs");
        self.runs.push((run.started_at, run.id));
        for s in summaries {
            let Some(median) = s.median else { continue };
            let key = SeriesKey {
                hostname: run.host.hostname.clone(),
                fs_type: run.filesystem.fs_type.clone(),
                mount_point: run.filesystem.mount_point.clone(),
                row: s.key(&run.params),
            };
            self.points.entry(key).or_default().push((at, median));
        }
    }

    /// Every series, with its points in time order, each made as it is reached.
    pub fn into_points(self) -> impl Iterator<Item = (SeriesKey, SeriesPoints)> {
        let runs = self.runs;
        self.points.into_iter().map(move |(key, compact)| {
            let mut points: SeriesPoints = compact
                .into_iter()
                .map(|(at, median)| {
                    let (started_at, id) = runs[at as usize];
                    (started_at, id, median)
                })
                .collect();
            points.sort_by_key(|&(started_at, id, _)| (started_at, id));
            (key, points)
        })
    }
}

/// Steps of at least `min_step` (a fraction) with `min_runs` runs on each side, in
/// series taken one at a time (owned as `trend` makes them, or borrowed).
pub fn find_steps<K: Borrow<SeriesKey>, P: Borrow<SeriesPoints>>(
    series: impl IntoIterator<Item = (K, P)>,
    min_step: f64,
    min_runs: usize,
) -> TrendReport {
    let mut report = TrendReport::empty();
    let mut mounts: BTreeMap<Option<String>, Option<String>> = BTreeMap::new();
    for (key, points) in series {
        let (key, points) = (key.borrow(), points.borrow());
        let first = (mounts.entry(key.hostname.clone())).or_insert_with(|| key.mount_point.clone());
        report.mounts_differ |= *first != key.mount_point;
        if points.len() < 2 * min_runs {
            report.series_too_short += 1;
            continue;
        }
        report.series_examined += 1;
        let values: Vec<f64> = points.iter().map(|&(_, _, median)| median).collect();
        let found = stats::change_points(&values, min_step, min_runs);
        let bounds: Vec<usize> = std::iter::once(0)
            .chain(found.iter().map(|c| c.index))
            .chain(std::iter::once(values.len()))
            .collect();
        for (k, change) in found.iter().enumerate() {
            let (started_at, run_id, _) = points[change.index];
            report.steps.push(Step {
                series: key.clone(),
                run_id,
                started_at,
                before: change.before,
                after: change.after,
                change_pct: change.change_pct,
                runs_before: bounds[k + 1] - bounds[k],
                runs_after: bounds[k + 2] - bounds[k + 1],
            });
        }
    }
    report.sort_steps();
    report
}

impl TrendReport {
    /// A report of nothing examined yet.
    fn empty() -> TrendReport {
        TrendReport {
            series_examined: 0,
            series_too_short: 0,
            steps: Vec::new(),
            mounts_differ: false,
        }
    }

    /// One report of the series of `parts` (those of each host, in host order), its
    /// steps in the order one report of every series would list them.
    pub fn merged(parts: impl IntoIterator<Item = TrendReport>) -> TrendReport {
        let mut report = TrendReport::empty();
        for part in parts {
            report.series_examined += part.series_examined;
            report.series_too_short += part.series_too_short;
            report.steps.extend(part.steps);
            // each part is a host's: mount points differ within a host or not at all
            report.mounts_differ |= part.mounts_differ;
        }
        report.sort_steps();
        report
    }

    /// The largest drops first; a stable sort, so steps of equal change keep the
    /// series' order.
    fn sort_steps(&mut self) {
        self.steps.sort_by(|a, b| {
            a.change_pct
                .partial_cmp(&b.change_pct)
                .unwrap_or(std::cmp::Ordering::Equal)
        });
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::model::{CacheMode, EngineKind, Measurement, TestKind};
    use crate::store::tests::sample_run;
    use crate::units::ByteSize;

    /// The series of `runs`, from summaries of their results.
    pub(crate) fn series_points(runs: &[Run]) -> Vec<(SeriesKey, SeriesPoints)> {
        let mut series = Series::default();
        for run in runs {
            series.add_run(run, &crate::model::RowSummary::of(&run.results));
        }
        series.into_points().collect()
    }

    fn series_of(levels: &[f64]) -> Vec<Run> {
        levels
            .iter()
            .enumerate()
            .map(|(i, &level)| {
                let mut run = sample_run("h", i as i64 * 60);
                run.id = Some(i as i64 + 1);
                // a deterministic ±2% wobble, different for each run
                let wobble = [1.0, 0.98, 1.015, 0.99, 1.02, 0.985][i % 6];
                run.results = (1..=3)
                    .map(|rep| Measurement {
                        test: TestKind::Write,
                        file_size: ByteSize(1 << 20),
                        record_size: ByteSize(4096),
                        repetition: rep,
                        bytes: 1 << 20,
                        elapsed_ns: 1,
                        throughput: level * wobble * (1.0 + 0.001 * rep as f64),
                        latency_ns: None,
                        engine: EngineKind::Posix,
                        cache: CacheMode::Flush,
                        ops: None,
                    })
                    .collect();
                run.stamp_combination();
                run
            })
            .collect()
    }

    #[test]
    fn a_planted_step_is_found_at_its_run() {
        let mut levels = vec![100.0; 10];
        levels.extend(vec![80.0; 10]);
        let report = find_steps(series_points(&series_of(&levels)), 0.05, 3);
        assert_eq!(report.series_examined, 1);
        assert_eq!(report.steps.len(), 1, "{:?}", report.steps);
        let step = &report.steps[0];
        assert_eq!(step.run_id, Some(11));
        assert!((step.change_pct + 20.0).abs() < 3.0, "{step:?}");
        assert_eq!((step.runs_before, step.runs_after), (10, 10));
    }

    #[test]
    fn a_flat_series_has_no_step() {
        let report = find_steps(series_points(&series_of(&[100.0; 20])), 0.05, 3);
        assert_eq!(report.series_examined, 1);
        assert!(report.steps.is_empty(), "{:?}", report.steps);
    }

    #[test]
    fn short_series_are_counted_not_judged() {
        let report = find_steps(series_points(&series_of(&[100.0, 50.0, 100.0])), 0.05, 3);
        assert_eq!((report.series_examined, report.series_too_short), (0, 1));
    }

    #[test]
    fn each_engine_of_a_run_of_several_is_its_own_series() {
        let mut runs = series_of(&[100.0, 100.0, 100.0]);
        for run in &mut runs {
            crate::store::tests::also_through(run, EngineKind::Mmap, 3.0);
        }
        let series = series_points(&runs);
        assert_eq!(series.len(), 2);
        let mmap = series
            .iter()
            .find(|(key, _)| key.row.engine == EngineKind::Mmap)
            .expect("mmap's own series");
        assert_eq!(mmap.1.len(), 3);
        assert!(mmap.1.iter().all(|&(_, _, median)| median > 250.0));
    }
}
