//! Comparing two groups of runs: the policy. Rows are matched on what was measured,
//! each row gets medians, a change with its confidence interval, a p-value and a
//! verdict, and the two sides' environments are diffed. Pure: runs in, a
//! [`Comparison`] out; the store and the renderers are elsewhere.
//!
//! The decision rule (README, "Reading a comparison"):
//! - `regression` / `improvement`: the Mann–Whitney p-value, corrected across rows
//!   with Benjamini–Hochberg, is below alpha, and the medians differ by more than the
//!   threshold;
//! - `unchanged`: the medians differ by at most the threshold and either the
//!   difference is significant (real but small) or the confidence interval of the
//!   change lies within ± the threshold;
//! - `inconclusive`: anything else — too few repetitions to ever reach significance,
//!   one measurement on a side, or too noisy to tell.

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;

use crate::model::{CacheMode, EngineKind, Run, TestKind};
use crate::stats::{self, Summary};
use crate::units::ByteSize;

/// Bootstrap resamples per row: enough for a stable 95% interval, cheap for hundreds of rows.
const RESAMPLES: usize = 2000;
const CONFIDENCE: f64 = 0.95;
/// Rows' bootstrap seeds derive from this, so a comparison prints the same every time.
const BOOTSTRAP_SEED: u64 = 0x10_20_30_40;

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

/// One matched row: both sides' repetitions pooled, and what they say.
#[derive(Clone, Debug, Serialize)]
pub struct Row {
    #[serde(flatten)]
    pub key: RowKey,
    pub baseline_median: f64,
    pub candidate_median: f64,
    pub change_pct: f64,
    pub ci_low_pct: Option<f64>,
    pub ci_high_pct: Option<f64>,
    pub p_value: Option<f64>,
    /// After Benjamini–Hochberg across the rows.
    pub p_adjusted: Option<f64>,
    pub verdict: Verdict,
    pub n_baseline: usize,
    pub n_candidate: usize,
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
}

impl Comparison {
    pub fn regressions(&self) -> usize {
        self.rows
            .iter()
            .filter(|r| r.verdict == Verdict::Regression)
            .count()
    }
}

pub fn compare(
    baseline: &[Run],
    candidate: &[Run],
    options: &Options,
) -> Result<Comparison, CompareError> {
    options.validate()?;
    let base = pool(baseline, options.ignore);
    let cand = pool(candidate, options.ignore);
    let common: Vec<&RowKey> = base.keys().filter(|k| cand.contains_key(*k)).collect();
    if common.is_empty() {
        return Err(CompareError::NothingInCommon);
    }
    let mut rows: Vec<Row> = common
        .iter()
        .enumerate()
        .map(|(i, key)| measure_row(key, &base[*key], &cand[*key], i as u64))
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
    })
}

/// Every repetition of every run on a side, by row key.
fn pool(runs: &[Run], ignore: Ignored) -> BTreeMap<RowKey, Vec<f64>> {
    let mut rows: BTreeMap<RowKey, Vec<f64>> = BTreeMap::new();
    for run in runs {
        let p = &run.params;
        for m in &run.results {
            let key = RowKey {
                test: m.test,
                file_size: (!ignore.file_size).then_some(m.file_size),
                record_size: m.record_size,
                cache: (!ignore.cache).then_some(p.cache),
                engine: (!ignore.engine).then_some(p.engine),
                threads: (!ignore.threads).then_some(p.threads),
            };
            rows.entry(key).or_default().push(m.throughput);
        }
    }
    rows
}

fn measure_row(key: &RowKey, base: &[f64], cand: &[f64], index: u64) -> Row {
    let median = |v: &[f64]| Summary::of(v).map_or(f64::NAN, |s| s.median);
    let (bm, cm) = (median(base), median(cand));
    // one value a side has no spread to resample: no interval rather than a point
    let ci = (base.len() > 1 && cand.len() > 1)
        .then(|| {
            stats::ratio_of_medians_ci(
                base,
                cand,
                CONFIDENCE,
                RESAMPLES,
                BOOTSTRAP_SEED.wrapping_add(index),
            )
        })
        .flatten();
    let p_value = (base.len() > 1 && cand.len() > 1)
        .then(|| stats::mann_whitney_u(base, cand).map(|t| t.p_value))
        .flatten();
    Row {
        key: key.clone(),
        baseline_median: bm,
        candidate_median: cm,
        change_pct: (cm / bm - 1.0) * 100.0,
        ci_low_pct: ci.map(|(lo, _)| (lo - 1.0) * 100.0),
        ci_high_pct: ci.map(|(_, hi)| (hi - 1.0) * 100.0),
        p_value,
        p_adjusted: None,
        verdict: Verdict::Inconclusive,
        n_baseline: base.len(),
        n_candidate: cand.len(),
        note: None,
    }
}

/// Benjamini–Hochberg over the rows that have a p-value; returns how many did.
fn correct(rows: &mut [Row]) -> usize {
    let tested: Vec<usize> = (0..rows.len())
        .filter(|&i| rows[i].p_value.is_some())
        .collect();
    let p: Vec<f64> = tested.iter().filter_map(|&i| rows[i].p_value).collect();
    for (&i, q) in tested.iter().zip(stats::benjamini_hochberg(&p)) {
        rows[i].p_adjusted = Some(q);
    }
    tested.len()
}

/// The smallest two-sided p-value an exact Mann–Whitney test can give for these sizes:
/// 2 / C(m + n, m). Above alpha, no difference can ever be significant.
pub fn smallest_p(m: usize, n: usize) -> f64 {
    let (m, n) = (m.min(n), m.max(n));
    let mut combinations = 1.0f64;
    for k in 1..=m {
        combinations *= (n + k) as f64 / k as f64;
    }
    (2.0 / combinations).min(1.0)
}

fn decide(row: &mut Row, options: &Options) {
    let threshold_pct = options.threshold * 100.0;
    let beyond = row.change_pct.abs() > threshold_pct;
    let (m, n) = (row.n_baseline, row.n_candidate);
    if m < 2 || n < 2 {
        row.note =
            Some("n = 1 on a side: no statistics possible, the change is shown as is".into());
        return;
    }
    if smallest_p(m, n) >= options.alpha {
        row.note = Some(format!(
            "{m} vs {n} repetitions can never reach p < {}",
            options.alpha
        ));
        return;
    }
    let significant = row.p_adjusted.is_some_and(|q| q < options.alpha);
    let ci_within = matches!(
        (row.ci_low_pct, row.ci_high_pct),
        (Some(lo), Some(hi)) if lo >= -threshold_pct && hi <= threshold_pct
    );
    row.verdict = match (significant, beyond) {
        (true, true) if row.change_pct < 0.0 => Verdict::Regression,
        (true, true) => Verdict::Improvement,
        (true, false) => Verdict::Unchanged,
        (false, false) if ci_within => Verdict::Unchanged,
        (false, _) => {
            row.note = Some("too noisy to tell".into());
            Verdict::Inconclusive
        }
    };
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
        ("tool_version", Some(run.tool_version.clone())),
    ]
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

    fn side(values: &[f64], kernel: &str) -> Vec<Run> {
        let mut run = sample_run("h", 0);
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
        vec![run]
    }

    fn options() -> Options {
        Options {
            threshold: 0.05,
            alpha: 0.05,
            ignore: Ignored::default(),
        }
    }

    fn verdict(base: &[f64], cand: &[f64]) -> Row {
        let c = compare(&side(base, "6.1"), &side(cand, "6.1"), &options()).unwrap();
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
    }

    #[test]
    fn a_clear_rise_is_an_improvement() {
        let row = verdict(
            &[80.0, 81.0, 79.0, 80.5, 79.5],
            &[100.0, 101.0, 99.0, 100.5, 99.5],
        );
        assert_eq!(row.verdict, Verdict::Improvement);
    }

    #[test]
    fn small_significant_changes_are_unchanged() {
        let row = verdict(
            &[100.0, 100.1, 99.9, 100.05, 99.95],
            &[98.0, 98.1, 97.9, 98.05, 97.95],
        );
        assert_eq!(row.verdict, Verdict::Unchanged, "{row:?}");
    }

    #[test]
    fn three_repetitions_can_never_be_significant() {
        let row = verdict(&[100.0, 101.0, 99.0], &[50.0, 51.0, 49.0]);
        assert_eq!(row.verdict, Verdict::Inconclusive);
        assert!(
            row.note.as_deref().unwrap().contains("can never reach"),
            "{row:?}"
        );
        assert!((row.change_pct + 50.0).abs() < 1e-9);
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

    #[test]
    fn smallest_p_values() {
        assert!((smallest_p(3, 3) - 0.1).abs() < 1e-12);
        assert!((smallest_p(4, 4) - 2.0 / 70.0).abs() < 1e-12);
        assert!((smallest_p(5, 5) - 2.0 / 252.0).abs() < 1e-12);
        assert!((smallest_p(1, 10) - 2.0 / 11.0).abs() < 1e-12);
    }

    #[test]
    fn environment_differences_are_listed() {
        let c = compare(
            &side(&[1.0, 2.0], "6.1"),
            &side(&[1.0, 2.0], "6.12"),
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
    fn rows_on_one_side_only_and_ignored_parameters() {
        let base = side(&[1.0, 2.0], "6.1");
        let mut cand = side(&[1.0, 2.0], "6.1");
        cand[0].params.engine = EngineKind::Mmap;
        assert_eq!(
            compare(&base, &cand, &options()).unwrap_err(),
            CompareError::NothingInCommon
        );
        let ignore = Options {
            ignore: Ignored {
                engine: true,
                ..Ignored::default()
            },
            ..options()
        };
        let c = compare(&base, &cand, &ignore).unwrap();
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
        ((*key).clone(), compare(b, c, options))
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
