//! Comparing two groups of runs: the policy. Rows are matched on what was measured,
//! each row gets the sides' levels, a change with its confidence interval, a p-value
//! and a verdict, and the two sides' environments are diffed. Pure: runs in, a
//! [`Comparison`] out; the store and the renderers are elsewhere.
//!
//! The run is the unit (see `stats::runlevel`): each run contributes the median of
//! its repetitions, the change is the ratio of the sides' geometric means of those
//! medians, and run-to-run noise comes from the runs compared, the history of the
//! same series, or a documented default. The decision rule (README, "Reading a
//! comparison"):
//! - `regression` / `improvement`: the p-value, corrected across rows with
//!   Benjamini–Hochberg, is below alpha, and the change is beyond the threshold;
//! - `unchanged`: the whole (1 − alpha) interval of the change lies within ± the
//!   threshold;
//! - `inconclusive`: anything else — one measurement on a side, or too noisy to tell.
//!
//! The interval is the test's own (the same statistic at 1 − alpha), so a regression's
//! interval always lies below zero and an improvement's above it.

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;

use crate::model::{CacheMode, EngineKind, Run, TestKind};
use crate::stats::runlevel::{self, DEFAULT_RUN_NOISE, History, RunLevel};
use crate::units::ByteSize;

/// Parameters that can be dropped from the row key, for deliberate comparisons across them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Ignored {
    pub engine: bool,
    pub cache: bool,
    pub threads: bool,
    pub file_size: bool,
}

#[derive(Clone, Copy, Debug)]
pub struct Options {
    /// Smallest change that counts, as a fraction (0.05 = 5%).
    pub threshold: f64,
    pub alpha: f64,
    pub ignore: Ignored,
}

#[derive(Debug, thiserror::Error, PartialEq)]
pub enum CompareError {
    #[error("--threshold must be between 0 and 100 (percent), not {0}")]
    Threshold(f64),
    #[error("--alpha must be between 0 and 1 (exclusive), not {0}")]
    Alpha(f64),
    #[error(
        "the two sides have no row in common (same test, file size, record size, cache, engine, threads); \
         --ignore-param can drop a parameter from the match"
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

/// What a row is matched on; `None` for a parameter dropped with `--ignore-param`.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct RowKey {
    pub test: TestKind,
    pub file_size: Option<ByteSize>,
    pub record_size: ByteSize,
    pub cache: Option<CacheMode>,
    pub engine: Option<EngineKind>,
    pub threads: Option<u32>,
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
    pub key: RowKey,
    /// The geometric mean of the side's run medians (one run: its median), bytes/s.
    pub baseline_median: f64,
    pub candidate_median: f64,
    pub change_pct: f64,
    pub ci_low_pct: Option<f64>,
    pub ci_high_pct: Option<f64>,
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
    /// `runs`, `history: N runs` or `default` (see README, "How many runs do I need?").
    pub noise_source: Option<String>,
    /// The smallest change this row would flag with 80% power, in percent.
    pub min_detectable_pct: Option<f64>,
    /// About how many runs a side would resolve a change of the threshold, for rows
    /// that are inconclusive.
    pub runs_needed: Option<usize>,
    /// Why the verdict is what it is, when that is not obvious.
    pub note: Option<String>,
}

/// A fact that differs between the two sides' environments.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct EnvChange {
    pub field: String,
    pub baseline: Vec<String>,
    pub candidate: Vec<String>,
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
    pub baseline_only: Vec<RowKey>,
    pub candidate_only: Vec<RowKey>,
    pub summary: Vec<TestSummary>,
    /// How many p-values the correction was applied across.
    pub corrected_over: usize,
    pub threshold_pct: f64,
    pub alpha: f64,
    /// Runs of the compared series' history that measured the noise of some row.
    pub history_runs: usize,
}

impl Comparison {
    pub fn regressions(&self) -> usize {
        self.rows
            .iter()
            .filter(|r| r.verdict == Verdict::Regression)
            .count()
    }
}

/// Compares `baseline` and `candidate` runs. `history` holds other complete runs of
/// the same series (host, filesystem, parameters), whose spread measures run-to-run
/// noise when a side has too few runs to; runs of either side in it are ignored.
pub fn compare(
    baseline: &[Run],
    candidate: &[Run],
    history: &[Run],
    options: &Options,
) -> Result<Comparison, CompareError> {
    options.validate()?;
    let base = side(baseline, options.ignore);
    let cand = side(candidate, options.ignore);
    let common: Vec<&RowKey> = base.keys().filter(|k| cand.contains_key(*k)).collect();
    if common.is_empty() {
        return Err(CompareError::NothingInCommon);
    }
    let compared: BTreeSet<uuid::Uuid> = baseline.iter().chain(candidate).map(|r| r.uuid).collect();
    let noise = history_by_row(history, &compared, options.ignore);
    let none = History::default();
    let mut rows: Vec<Row> = common
        .iter()
        .map(|key| {
            let history = noise.get(*key).unwrap_or(&none);
            measure_row(key, &base[*key], &cand[*key], history, options)
        })
        .collect();
    let corrected_over = correct(&mut rows);
    for row in &mut rows {
        decide(row, options);
    }
    rows.sort_by(|a, b| {
        (a.verdict, -a.change_pct.abs())
            .partial_cmp(&(b.verdict, -b.change_pct.abs()))
            .unwrap_or(std::cmp::Ordering::Equal)
    });
    Ok(Comparison {
        environment_changes: environment_changes(baseline, candidate),
        summary: summarize(&rows),
        baseline_only: base
            .keys()
            .filter(|k| !cand.contains_key(*k))
            .cloned()
            .collect(),
        candidate_only: cand
            .keys()
            .filter(|k| !base.contains_key(*k))
            .cloned()
            .collect(),
        rows,
        corrected_over,
        threshold_pct: options.threshold * 100.0,
        alpha: options.alpha,
        history_runs: noise.values().map(|h| h.runs).max().unwrap_or(0),
    })
}

/// One side of a row: each run's level, and every repetition's figure.
#[derive(Default)]
struct Side {
    runs: Vec<RunLevel>,
    values: Vec<f64>,
}

impl Side {
    /// The geometric mean of the run medians; for runs with no positive figure (a
    /// zero throughput), the plain median of what there is.
    fn level(&self) -> f64 {
        match self.runs.as_slice() {
            [] => crate::stats::Summary::of(&self.values).map_or(f64::NAN, |s| s.median),
            [one] => one.median,
            runs => (runs.iter().map(|r| r.level).sum::<f64>() / runs.len() as f64).exp(),
        }
    }
}

fn row_key(run: &Run, m: &crate::model::Measurement, ignore: Ignored) -> RowKey {
    let p = &run.params;
    RowKey {
        test: m.test,
        file_size: (!ignore.file_size).then_some(m.file_size),
        record_size: m.record_size,
        cache: (!ignore.cache).then_some(p.cache),
        engine: (!ignore.engine).then_some(p.engine),
        threads: (!ignore.threads).then_some(p.threads),
    }
}

/// Each run's repetitions by row key.
fn per_run(run: &Run, ignore: Ignored) -> BTreeMap<RowKey, Vec<f64>> {
    let mut rows: BTreeMap<RowKey, Vec<f64>> = BTreeMap::new();
    for m in &run.results {
        rows.entry(row_key(run, m, ignore))
            .or_default()
            .push(m.throughput);
    }
    rows
}

/// Every run of a side, by row key: runs stay apart, never pooled as one sample.
fn side(runs: &[Run], ignore: Ignored) -> BTreeMap<RowKey, Side> {
    let mut rows: BTreeMap<RowKey, Side> = BTreeMap::new();
    for run in runs {
        for (key, values) in per_run(run, ignore) {
            let side = rows.entry(key).or_default();
            side.runs.extend(RunLevel::of(&values));
            side.values.extend(values);
        }
    }
    rows
}

/// What a series is: runs of one host and filesystem (the row key holds the rest).
type SeriesId = (Option<String>, Option<String>, Option<String>);

/// The history's run-to-run spread per row key, each series about its own mean.
fn history_by_row(
    history: &[Run],
    compared: &BTreeSet<uuid::Uuid>,
    ignore: Ignored,
) -> BTreeMap<RowKey, History> {
    let mut levels: BTreeMap<(RowKey, SeriesId), Vec<f64>> = BTreeMap::new();
    for run in history.iter().filter(|r| !compared.contains(&r.uuid)) {
        let series: SeriesId = (
            run.host.hostname.clone(),
            run.filesystem.fs_type.clone(),
            run.filesystem.mount_point.clone(),
        );
        for (key, values) in per_run(run, ignore) {
            if let Some(level) = RunLevel::of(&values) {
                levels
                    .entry((key, series.clone()))
                    .or_default()
                    .push(level.level);
            }
        }
    }
    let mut by_row: BTreeMap<RowKey, History> = BTreeMap::new();
    for ((key, _), series_levels) in levels {
        by_row.entry(key).or_default().add_series(&series_levels);
    }
    by_row
}

fn measure_row(
    key: &RowKey,
    base: &Side,
    cand: &Side,
    history: &History,
    options: &Options,
) -> Row {
    let (bm, cm) = (base.level(), cand.level());
    let mut row = Row {
        key: key.clone(),
        baseline_median: bm,
        candidate_median: cm,
        change_pct: (cm / bm - 1.0) * 100.0,
        ci_low_pct: None,
        ci_high_pct: None,
        p_value: None,
        p_adjusted: None,
        verdict: Verdict::Inconclusive,
        n_baseline: base.values.len(),
        n_candidate: cand.values.len(),
        runs_baseline: base.runs.len(),
        runs_candidate: cand.runs.len(),
        noise_pct: None,
        noise_source: None,
        min_detectable_pct: None,
        runs_needed: None,
        note: None,
    };
    // a single figure a side (an imported classic table, say) has no spread at all
    if base.values.len() < 2 || cand.values.len() < 2 {
        return row;
    }
    let Some(effect) = runlevel::run_level_effect(
        &base.runs,
        &cand.runs,
        history,
        DEFAULT_RUN_NOISE,
        1.0 - options.alpha,
    ) else {
        return row;
    };
    let pct = |log: f64| log.exp_m1() * 100.0;
    row.change_pct = pct(effect.log_change);
    row.ci_low_pct = Some(pct(effect.ci.0));
    row.ci_high_pct = Some(pct(effect.ci.1));
    row.p_value = Some(effect.p_value);
    row.noise_pct = Some(pct(effect.noise.sd));
    row.noise_source = Some(effect.noise.source.to_string());
    row.min_detectable_pct = Some(pct(effect.min_detectable).max(options.threshold * 100.0));
    row.runs_needed = Some(runlevel::runs_needed(
        effect.noise.sd,
        options.threshold.ln_1p(),
        options.alpha,
    ));
    row
}

/// Benjamini–Hochberg over the rows that have a p-value; returns how many did.
fn correct(rows: &mut [Row]) -> usize {
    let tested: Vec<usize> = (0..rows.len())
        .filter(|&i| rows[i].p_value.is_some())
        .collect();
    let p: Vec<f64> = tested.iter().filter_map(|&i| rows[i].p_value).collect();
    for (&i, q) in tested.iter().zip(crate::stats::benjamini_hochberg(&p)) {
        rows[i].p_adjusted = Some(q);
    }
    tested.len()
}

fn decide(row: &mut Row, options: &Options) {
    let (Some(q), Some(lo), Some(hi)) = (row.p_adjusted, row.ci_low_pct, row.ci_high_pct) else {
        row.note =
            Some("n = 1 on a side: no statistics possible, the change is shown as is".into());
        row.runs_needed = None;
        return;
    };
    row.verdict = verdict(row.change_pct, (lo, hi), q, options);
    let source = row.noise_source.clone().unwrap_or_default();
    let noise = row.noise_pct.unwrap_or(f64::NAN);
    // the same note whatever the verdict: which noise the verdict accounted for
    row.note = Some(format!("noise ±{noise:.1}%, {source}"));
    if row.verdict != Verdict::Inconclusive {
        row.runs_needed = None;
    }
}

/// The rule, on a row's change and interval (percent) and its adjusted p-value.
pub(crate) fn verdict(change_pct: f64, (lo, hi): (f64, f64), q: f64, options: &Options) -> Verdict {
    let threshold_pct = options.threshold * 100.0;
    let significant = q < options.alpha;
    if significant && change_pct < -threshold_pct {
        Verdict::Regression
    } else if significant && change_pct > threshold_pct {
        Verdict::Improvement
    } else if lo >= -threshold_pct && hi <= threshold_pct {
        Verdict::Unchanged
    } else {
        Verdict::Inconclusive
    }
}

fn summarize(rows: &[Row]) -> Vec<TestSummary> {
    let mut by_test: BTreeMap<TestKind, Vec<&Row>> = BTreeMap::new();
    for row in rows {
        by_test.entry(row.key.test).or_default().push(row);
    }
    by_test
        .into_iter()
        .map(|(test, rows)| {
            let logs: Vec<f64> = rows
                .iter()
                .map(|r| (r.candidate_median / r.baseline_median).ln())
                .filter(|l| l.is_finite())
                .collect();
            let mean_log = logs.iter().sum::<f64>() / logs.len().max(1) as f64;
            let count = |v: Verdict| rows.iter().filter(|r| r.verdict == v).count();
            TestSummary {
                test,
                rows: rows.len(),
                geomean_change_pct: (mean_log.exp() - 1.0) * 100.0,
                regressions: count(Verdict::Regression),
                improvements: count(Verdict::Improvement),
            }
        })
        .collect()
}

/// The facts compared between sides: what an upgrade changes, and the parameters
/// that are not part of the row key.
fn facts(run: &Run) -> Vec<(&'static str, Option<String>)> {
    let (h, f, p) = (&run.host, &run.filesystem, &run.params);
    let s = |v: &Option<String>| v.clone();
    let n = |v: Option<u64>| v.map(|x| x.to_string());
    vec![
        ("host.hostname", s(&h.hostname)),
        ("host.os", s(&h.os)),
        ("host.os_version", s(&h.os_version)),
        ("host.kernel", s(&h.kernel)),
        ("host.kernel_cmdline", s(&h.kernel_cmdline)),
        ("host.arch", s(&h.arch)),
        ("host.cpu_model", s(&h.cpu_model)),
        ("host.cpus", h.cpus.map(|c| c.to_string())),
        ("host.cpu_governor", s(&h.cpu_governor)),
        ("host.memory_bytes", n(h.memory_bytes)),
        ("host.page_size", n(h.page_size)),
        ("host.dirty_ratio", n(h.dirty_ratio)),
        ("host.dirty_background_ratio", n(h.dirty_background_ratio)),
        ("host.dirty_bytes", n(h.dirty_bytes)),
        ("host.dirty_background_bytes", n(h.dirty_background_bytes)),
        ("host.dirty_expire_centisecs", n(h.dirty_expire_centisecs)),
        (
            "host.dirty_writeback_centisecs",
            n(h.dirty_writeback_centisecs),
        ),
        ("host.virtualization", s(&h.virtualization)),
        ("host.container", s(&h.container)),
        ("filesystem.type", s(&f.fs_type)),
        ("filesystem.mount_point", s(&f.mount_point)),
        ("filesystem.device", s(&f.device)),
        ("filesystem.mount_options", s(&f.mount_options)),
        ("filesystem.block_size", n(f.block_size)),
        ("filesystem.block_device", s(&f.block_device)),
        ("filesystem.device_model", s(&f.device_model)),
        ("filesystem.rotational", f.rotational.map(|r| r.to_string())),
        ("filesystem.scheduler", s(&f.scheduler)),
        ("filesystem.device_size", n(f.device_size)),
        ("params.engine", Some(p.engine.name().into())),
        ("params.cache", Some(p.cache.name().into())),
        ("params.threads", Some(p.threads.to_string())),
        ("params.verify", Some(p.verify.to_string())),
        ("params.read_pct", Some(p.read_pct.to_string())),
        ("params.stride_records", Some(p.stride_records.to_string())),
        ("params.warmup", Some(p.warmup.to_string())),
        ("params.order", Some(p.order.name().into())),
        ("machine.at_start", machine(&run.state_at_start, h.cpus)),
        ("machine.at_end", machine(&run.state_at_end, h.cpus)),
        ("tool_version", Some(run.tool_version.clone())),
    ]
}

/// The machine's state as what matters for a run's level: `quiet`, or why it was
/// busy (writeback, load, pressure). Raw load figures differ between any two runs;
/// only a busy machine shifts a run.
fn machine(state: &Option<crate::model::MachineState>, cpus: Option<u32>) -> Option<String> {
    let reasons = crate::host::busy_reasons(state.as_ref()?, cpus);
    Some(match reasons.is_empty() {
        true => "quiet".into(),
        false => format!("busy: {}", reasons.join("; ")),
    })
}

fn environment_changes(baseline: &[Run], candidate: &[Run]) -> Vec<EnvChange> {
    let collect = |runs: &[Run]| {
        let mut values: BTreeMap<&'static str, BTreeSet<String>> = BTreeMap::new();
        for run in runs {
            for (field, value) in facts(run) {
                values
                    .entry(field)
                    .or_default()
                    .insert(value.unwrap_or_else(|| "unknown".into()));
            }
        }
        values
    };
    let (base, cand) = (collect(baseline), collect(candidate));
    // keep the order of `facts`, which groups host, filesystem and parameters
    let order = baseline
        .first()
        .or(candidate.first())
        .map(facts)
        .unwrap_or_default();
    order
        .into_iter()
        .map(|(field, _)| field)
        .filter(|field| base.get(field) != cand.get(field))
        .map(|field| EnvChange {
            field: field.to_string(),
            baseline: base
                .get(field)
                .map(|v| v.iter().cloned().collect())
                .unwrap_or_default(),
            candidate: cand
                .get(field)
                .map(|v| v.iter().cloned().collect())
                .unwrap_or_default(),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Measurement;
    use crate::store::tests::sample_run;

    fn run_of(values: &[f64], kernel: &str, minutes: i64) -> Run {
        let mut run = sample_run("h", minutes);
        run.host.kernel = Some(kernel.into());
        run.results = values
            .iter()
            .enumerate()
            .map(|(i, &v)| Measurement {
                test: TestKind::Write,
                file_size: ByteSize(1 << 20),
                record_size: ByteSize(4096),
                repetition: i as u32 + 1,
                bytes: 1 << 20,
                elapsed_ns: 1,
                throughput: v,
                latency_ns: None,
            })
            .collect();
        run
    }

    fn side(values: &[f64], kernel: &str) -> Vec<Run> {
        vec![run_of(values, kernel, 0)]
    }

    /// Runs whose repetitions sit tightly around each level.
    fn runs_at(levels: &[f64], first_minute: i64) -> Vec<Run> {
        levels
            .iter()
            .enumerate()
            .map(|(i, &l)| {
                run_of(
                    &[l, l * 1.002, l * 0.998, l * 1.001, l * 0.999],
                    "6.1",
                    first_minute + i as i64,
                )
            })
            .collect()
    }

    fn options() -> Options {
        Options {
            threshold: 0.05,
            alpha: 0.05,
            ignore: Ignored::default(),
        }
    }

    fn verdict(base: &[f64], cand: &[f64]) -> Row {
        let c = compare(&side(base, "6.1"), &side(cand, "6.1"), &[], &options()).unwrap();
        c.rows[0].clone()
    }

    #[test]
    fn a_clear_drop_is_a_regression() {
        let row = verdict(
            &[100.0, 101.0, 99.0, 100.5, 99.5],
            &[80.0, 81.0, 79.0, 80.5, 79.5],
        );
        assert_eq!(row.verdict, Verdict::Regression);
        assert!((row.change_pct + 20.0).abs() < 1e-9);
        assert!(row.ci_high_pct.unwrap() < 0.0);
        assert!(row.p_value.unwrap() < 0.01);
        assert_eq!(row.noise_source.as_deref(), Some("default"));
        assert_eq!((row.runs_baseline, row.runs_candidate), (1, 1));
        assert_eq!((row.n_baseline, row.n_candidate), (5, 5));
    }

    #[test]
    fn a_clear_rise_is_an_improvement() {
        let row = verdict(
            &[80.0, 81.0, 79.0, 80.5, 79.5],
            &[100.0, 101.0, 99.0, 100.5, 99.5],
        );
        assert_eq!(row.verdict, Verdict::Improvement);
        assert!(row.ci_low_pct.unwrap() > 0.0);
    }

    #[test]
    fn a_run_to_run_offset_is_not_a_regression_without_evidence_of_the_noise() {
        // two runs 8% apart whose repetitions agree closely: the old pooled test called
        // this significant; one run a side says nothing about the next run's level
        let row = verdict(
            &[100.0, 100.2, 99.8, 100.1, 99.9],
            &[92.0, 92.2, 91.8, 92.1, 91.9],
        );
        assert_eq!(row.verdict, Verdict::Inconclusive, "{row:?}");
        assert!(row.runs_needed.unwrap() >= 2);
        assert!(row.note.as_deref().unwrap().contains("default"));
    }

    #[test]
    fn a_quiet_history_makes_the_same_offset_a_regression() {
        let history = runs_at(&[100.0, 100.8, 99.5, 100.3, 99.7, 100.1], 10);
        let base = runs_at(&[100.0], 0);
        let cand = runs_at(&[92.0], 1);
        let c = compare(&base, &cand, &history, &options()).unwrap();
        let row = &c.rows[0];
        assert_eq!(row.verdict, Verdict::Regression, "{row:?}");
        assert_eq!(row.noise_source.as_deref(), Some("history: 6 runs"));
        assert!(row.noise_pct.unwrap() < 1.0);
        assert_eq!(c.history_runs, 6);
        // a noisy history, by contrast, explains it
        let noisy = runs_at(&[100.0, 109.0, 93.0, 104.0, 90.0, 106.0], 10);
        let c = compare(&base, &cand, &noisy, &options()).unwrap();
        assert_eq!(c.rows[0].verdict, Verdict::Inconclusive, "{:?}", c.rows[0]);
    }

    #[test]
    fn the_compared_runs_and_other_series_are_not_history() {
        let base = runs_at(&[100.0], 0);
        let cand = runs_at(&[92.0], 1);
        // the compared runs themselves, and a host far away at another level
        let mut elsewhere = runs_at(&[50.0, 55.0, 45.0], 10);
        for run in &mut elsewhere {
            run.host.hostname = Some("far".into());
        }
        let mut history: Vec<Run> = [base.clone(), cand.clone()].concat();
        history.extend(elsewhere);
        history.extend(runs_at(&[100.0, 100.5, 99.6], 20));
        let c = compare(&base, &cand, &history, &options()).unwrap();
        assert_eq!(c.rows[0].noise_source.as_deref(), Some("history: 6 runs"));
        assert_eq!(c.history_runs, 6);
    }

    #[test]
    fn three_runs_a_side_measure_their_noise_with_the_history() {
        let base = runs_at(&[100.0, 101.0, 99.0], 0);
        let cand = runs_at(&[85.0, 86.0, 84.5], 5);
        let c = compare(&base, &cand, &[], &options()).unwrap();
        let row = &c.rows[0];
        assert_eq!(row.noise_source.as_deref(), Some("runs"));
        assert_eq!(row.verdict, Verdict::Regression, "{row:?}");
        assert_eq!((row.runs_baseline, row.n_baseline), (3, 15));
        // a history that wandered further (runs an hour apart) is the noise
        let wider = runs_at(&[100.0, 104.0, 96.5, 101.0], 20);
        let with = compare(&base, &cand, &wider, &options()).unwrap();
        assert_eq!(
            with.rows[0].noise_source.as_deref(),
            Some("history: 4 runs")
        );
        assert!(with.rows[0].noise_pct.unwrap() > row.noise_pct.unwrap());
        // a quieter one pools with the runs: more degrees of freedom, their spread kept
        let quiet = runs_at(&[100.0, 100.1, 99.9, 100.0], 20);
        let with = compare(&base, &cand, &quiet, &options()).unwrap();
        assert_eq!(
            with.rows[0].noise_source.as_deref(),
            Some("history: 4 runs")
        );
        assert!(with.rows[0].noise_pct.unwrap() < row.noise_pct.unwrap());
        assert!(with.rows[0].noise_pct.unwrap() > 0.5);
    }

    #[test]
    fn small_changes_with_a_tight_interval_are_unchanged() {
        let base = runs_at(&[100.0, 100.1, 99.9], 0);
        let cand = runs_at(&[98.0, 98.1, 97.9], 5);
        let row = compare(&base, &cand, &[], &options()).unwrap().rows[0].clone();
        assert_eq!(row.verdict, Verdict::Unchanged, "{row:?}");
        assert!(row.ci_low_pct.unwrap() >= -5.0 && row.ci_high_pct.unwrap() <= 5.0);
    }

    #[test]
    fn one_measurement_a_side_still_shows_the_change() {
        let row = verdict(&[100.0], &[90.0]);
        assert_eq!(row.verdict, Verdict::Inconclusive);
        assert!((row.change_pct + 10.0).abs() < 1e-9);
        assert!(row.p_value.is_none());
        assert!(row.note.as_deref().unwrap().contains("n = 1"));
    }

    #[test]
    fn noise_beyond_the_threshold_is_inconclusive() {
        let row = verdict(
            &[100.0, 140.0, 70.0, 120.0, 90.0],
            &[95.0, 60.0, 130.0, 80.0, 110.0],
        );
        assert_eq!(row.verdict, Verdict::Inconclusive, "{row:?}");
    }

    proptest::proptest! {
        /// Whatever the figures: a regression's interval lies below zero, an
        /// improvement's above it, an unchanged row's within ± the threshold.
        #[test]
        fn a_verdict_never_contradicts_its_interval(
            base in proptest::collection::vec(proptest::collection::vec(50.0..150.0f64, 1..6), 1..5),
            cand in proptest::collection::vec(proptest::collection::vec(50.0..150.0f64, 1..6), 1..5),
            history in proptest::collection::vec(80.0..120.0f64, 0..8),
            threshold in 0.0..0.3f64,
            alpha in 0.01..0.2f64,
        ) {
            let runs = |sides: &[Vec<f64>], at: i64| -> Vec<Run> {
                sides.iter().enumerate().map(|(i, v)| run_of(v, "6.1", at + i as i64)).collect()
            };
            let options = Options { threshold, alpha, ignore: Ignored::default() };
            let c = compare(&runs(&base, 0), &runs(&cand, 10), &runs_at(&history, 20), &options).unwrap();
            for row in &c.rows {
                let (lo, hi) = (row.ci_low_pct, row.ci_high_pct);
                match row.verdict {
                    Verdict::Regression => proptest::prop_assert!(hi.unwrap() < 0.0 && row.change_pct < -threshold * 100.0),
                    Verdict::Improvement => proptest::prop_assert!(lo.unwrap() > 0.0 && row.change_pct > threshold * 100.0),
                    Verdict::Unchanged => proptest::prop_assert!(lo.unwrap() >= -threshold * 100.0 && hi.unwrap() <= threshold * 100.0),
                    Verdict::Inconclusive => {}
                }
                if let (Some(lo), Some(hi)) = (lo, hi) {
                    proptest::prop_assert!(lo <= row.change_pct + 1e-9 && row.change_pct <= hi + 1e-9);
                }
            }
        }
    }

    #[test]
    fn environment_differences_are_listed() {
        let c = compare(
            &side(&[1.0, 2.0], "6.1"),
            &side(&[1.0, 2.0], "6.12"),
            &[],
            &options(),
        )
        .unwrap();
        assert_eq!(
            c.environment_changes,
            [EnvChange {
                field: "host.kernel".into(),
                baseline: vec!["6.1".into()],
                candidate: vec!["6.12".into()],
            }]
        );
    }

    #[test]
    fn a_busy_machine_is_an_environment_change() {
        let base = side(&[1.0, 2.0], "6.1");
        let mut cand = side(&[1.0, 2.0], "6.1");
        cand[0].state_at_start = Some(crate::model::MachineState {
            writeback_bytes: Some(200 << 20),
            dirty_bytes: Some(900 << 20),
            ..Default::default()
        });
        let c = compare(&base, &cand, &[], &options()).unwrap();
        let change = c
            .environment_changes
            .iter()
            .find(|e| e.field == "machine.at_start")
            .expect("listed");
        assert_eq!(change.baseline, ["quiet"]);
        assert!(
            change.candidate[0].starts_with("busy: writeback"),
            "{change:?}"
        );
    }

    #[test]
    fn rows_on_one_side_only_and_ignored_parameters() {
        let base = side(&[1.0, 2.0], "6.1");
        let mut cand = side(&[1.0, 2.0], "6.1");
        cand[0].params.engine = EngineKind::Mmap;
        assert_eq!(
            compare(&base, &cand, &[], &options()).unwrap_err(),
            CompareError::NothingInCommon
        );
        let ignore = Options {
            ignore: Ignored {
                engine: true,
                ..Ignored::default()
            },
            ..options()
        };
        let c = compare(&base, &cand, &[], &ignore).unwrap();
        assert_eq!(c.rows.len(), 1);
        assert_eq!(c.rows[0].key.engine, None);
        assert!(
            c.environment_changes
                .iter()
                .any(|e| e.field == "params.engine")
        );
    }

    #[test]
    fn bad_options_are_refused() {
        let bad = Options {
            threshold: 1.5,
            ..options()
        };
        assert!(matches!(bad.validate(), Err(CompareError::Threshold(_))));
        let bad = Options {
            alpha: 0.0,
            ..options()
        };
        assert!(matches!(bad.validate(), Err(CompareError::Alpha(_))));
    }
}

/// What `compare --by` groups runs on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, clap::ValueEnum)]
#[serde(rename_all = "snake_case")]
pub enum GroupBy {
    Host,
    Fs,
    Kernel,
}

impl GroupBy {
    pub fn name(self) -> &'static str {
        match self {
            GroupBy::Host => "host",
            GroupBy::Fs => "fs",
            GroupBy::Kernel => "kernel",
        }
    }

    fn key(self, run: &Run) -> String {
        let value = match self {
            GroupBy::Host => &run.host.hostname,
            GroupBy::Fs => &run.filesystem.fs_type,
            GroupBy::Kernel => &run.host.kernel,
        };
        value.clone().unwrap_or_else(|| "unknown".into())
    }
}

/// One group's comparison (one host, filesystem type or kernel).
#[derive(Clone, Debug, Serialize)]
pub struct Group {
    pub key: String,
    /// The worst row's verdict.
    pub verdict: Verdict,
    pub regressions: usize,
    /// The worst row: the largest drop among the regressions, else the largest drop.
    pub worst: Option<Row>,
    pub rows: Vec<Row>,
}

/// "12 of 200 hosts regressed in write at 4 KiB".
#[derive(Clone, Debug, Serialize)]
pub struct FleetLine {
    pub test: TestKind,
    pub record_size: ByteSize,
    pub regressed: usize,
    pub of: usize,
}

#[derive(Clone, Debug, Serialize)]
pub struct FleetComparison {
    pub by: GroupBy,
    /// Sorted by severity: regressed groups first, the most regressed rows first.
    pub groups: Vec<Group>,
    pub summary: Vec<FleetLine>,
    pub groups_regressed: usize,
    /// Groups present on one side only, or with no row in common.
    pub baseline_only: Vec<String>,
    pub candidate_only: Vec<String>,
    pub nothing_in_common: Vec<String>,
    pub environment_changes: Vec<EnvChange>,
    pub threshold_pct: f64,
    pub alpha: f64,
}

/// Compares each group (host, filesystem type, kernel) on its own: the fleet view
/// after a rollout. Groups are compared in parallel; each is an ordinary comparison.
pub fn compare_by(
    baseline: &[Run],
    candidate: &[Run],
    options: &Options,
    by: GroupBy,
) -> Result<FleetComparison, CompareError> {
    options.validate()?;
    let split = |runs: &[Run]| {
        let mut groups: BTreeMap<String, Vec<Run>> = BTreeMap::new();
        for run in runs {
            groups.entry(by.key(run)).or_default().push(run.clone());
        }
        groups
    };
    let (base, cand) = (split(baseline), split(candidate));
    let both: Vec<(&String, &Vec<Run>, &Vec<Run>)> = base
        .iter()
        .filter_map(|(k, b)| cand.get(k).map(|c| (k, b, c)))
        .collect();
    let outcomes = in_parallel(&both, |(key, b, c)| {
        ((*key).clone(), compare(b, c, &[], options))
    });
    let mut groups = Vec::new();
    let mut nothing_in_common = Vec::new();
    for (key, outcome) in outcomes {
        match outcome {
            Ok(c) => groups.push(group(key, c)),
            Err(CompareError::NothingInCommon) => nothing_in_common.push(key),
            Err(e) => return Err(e),
        }
    }
    if groups.is_empty() {
        return Err(CompareError::NothingInCommon);
    }
    groups.sort_by(|a, b| {
        let drop = |g: &Group| g.worst.as_ref().map_or(0.0, |r| r.change_pct);
        (a.verdict, std::cmp::Reverse(a.regressions))
            .cmp(&(b.verdict, std::cmp::Reverse(b.regressions)))
            .then(drop(a).total_cmp(&drop(b)))
    });
    Ok(FleetComparison {
        by,
        summary: fleet_lines(&groups),
        groups_regressed: groups.iter().filter(|g| g.regressions > 0).count(),
        baseline_only: base
            .keys()
            .filter(|k| !cand.contains_key(*k))
            .cloned()
            .collect(),
        candidate_only: cand
            .keys()
            .filter(|k| !base.contains_key(*k))
            .cloned()
            .collect(),
        nothing_in_common,
        environment_changes: environment_changes(baseline, candidate),
        groups,
        threshold_pct: options.threshold * 100.0,
        alpha: options.alpha,
    })
}

fn group(key: String, c: Comparison) -> Group {
    let regressions = c.regressions();
    // rows are sorted worst first
    let worst = c.rows.first().cloned();
    Group {
        key,
        verdict: worst.as_ref().map_or(Verdict::Unchanged, |r| r.verdict),
        regressions,
        worst,
        rows: c.rows,
    }
}

/// For each test and record size: in how many groups it regressed, out of how many.
fn fleet_lines(groups: &[Group]) -> Vec<FleetLine> {
    let mut counts: BTreeMap<(TestKind, ByteSize), (usize, usize)> = BTreeMap::new();
    for g in groups {
        let mut seen: BTreeMap<(TestKind, ByteSize), bool> = BTreeMap::new();
        for row in &g.rows {
            let regressed = seen.entry((row.key.test, row.key.record_size)).or_default();
            *regressed |= row.verdict == Verdict::Regression;
        }
        for (key, regressed) in seen {
            let entry = counts.entry(key).or_default();
            entry.0 += regressed as usize;
            entry.1 += 1;
        }
    }
    let mut lines: Vec<FleetLine> = counts
        .into_iter()
        .map(|((test, record_size), (regressed, of))| FleetLine {
            test,
            record_size,
            regressed,
            of,
        })
        .collect();
    lines.sort_by_key(|l| (std::cmp::Reverse(l.regressed), l.test, l.record_size));
    lines
}

/// Maps `work` over `items` on every core; results keep the items' order.
fn in_parallel<T: Sync, R: Send>(items: &[T], work: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let chunk = items.len().div_ceil(threads).max(1);
    std::thread::scope(|scope| {
        let handles: Vec<_> = items
            .chunks(chunk)
            .map(|part| scope.spawn(|| part.iter().map(&work).collect::<Vec<R>>()))
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
            .collect()
    })
}

#[cfg(test)]
mod fleet_tests {
    use super::*;
    use crate::model::Measurement;
    use crate::store::tests::sample_run;

    fn host_run(host: &str, level: f64) -> Run {
        let mut run = sample_run(host, 0);
        run.results = (1..=5)
            .map(|rep| Measurement {
                test: TestKind::Write,
                file_size: ByteSize(1 << 20),
                record_size: ByteSize(4096),
                repetition: rep,
                bytes: 1 << 20,
                elapsed_ns: 1,
                throughput: level * (1.0 + 0.005 * rep as f64),
                latency_ns: None,
            })
            .collect();
        run
    }

    #[test]
    fn one_host_of_three_regressed() {
        let before: Vec<Run> = ["a", "b", "c"].iter().map(|h| host_run(h, 100.0)).collect();
        let mut after: Vec<Run> = ["a", "b"].iter().map(|h| host_run(h, 100.0)).collect();
        after.push(host_run("c", 70.0));
        after.push(host_run("d", 100.0));
        let options = Options {
            threshold: 0.05,
            alpha: 0.05,
            ignore: Ignored::default(),
        };
        let fleet = compare_by(&before, &after, &options, GroupBy::Host).unwrap();
        assert_eq!(fleet.groups.len(), 3);
        assert_eq!(fleet.groups[0].key, "c");
        assert_eq!(fleet.groups[0].verdict, Verdict::Regression);
        assert_eq!(fleet.groups[0].regressions, 1);
        assert!(fleet.groups[1..].iter().all(|g| g.regressions == 0));
        assert_eq!(fleet.groups_regressed, 1);
        assert_eq!(fleet.candidate_only, ["d"]);
        assert_eq!(
            (
                fleet.summary[0].test,
                fleet.summary[0].regressed,
                fleet.summary[0].of
            ),
            (TestKind::Write, 1, 3)
        );
    }
}
