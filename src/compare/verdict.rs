//! Each row of a comparison: the sides' runs matched on what was measured, each run's
//! level, the change with its interval and p-value, the correction across rows and
//! the verdict the rule gives (see the module above for the rule).

use std::collections::BTreeMap;

use uuid::Uuid;

use super::environment::SideState;
use super::history::{Across, RowHistory};
use super::{Ignored, Options, Row, RowMatch, RunsRead, TestSummary, Verdict};
use crate::model::{RoundOrder, RowKey, Run, TestKind};
use crate::stats::paired;
use crate::stats::runlevel::{self, DEFAULT_RUN_NOISE, Effect, NoiseSource, RunLevel};

/// One side of a row: each run's level, and how many figures there are.
#[derive(Default)]
pub(super) struct Side {
    runs: Vec<RunLevel>,
    /// Every repetition, finite or not, of every run.
    figures: usize,
    /// The figures of the runs read with their results: all there are whenever no run
    /// has a level (runs read as summaries all have one, `RunsRead`).
    values: Vec<f64>,
    /// Each run's level by run, to pair with the other side's when both sides are parts
    /// of the same runs; `None` for a run measured in grouped order (a cell's
    /// repetitions back to back: its parts were measured at different times).
    by_run: BTreeMap<Uuid, Option<RunLevel>>,
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

/// Each run's repetitions by row, in the order of its results (rows that a dropped
/// parameter pools take them in that order too).
fn per_run(run: &Run, ignore: Ignored) -> BTreeMap<RowMatch, Vec<f64>> {
    let mut rows: BTreeMap<RowMatch, Vec<f64>> = BTreeMap::new();
    for m in &run.results {
        let key = RowMatch::new(RowKey::of(&run.params, m), ignore);
        rows.entry(key).or_default().push(m.throughput);
    }
    rows
}

/// A run under one row key: its level, and its figures (from its results; only
/// counted, from its summaries).
struct RunRow {
    level: Option<RunLevel>,
    figures: usize,
    values: Vec<f64>,
}

/// A run's rows: from its summaries when it was read with them and no dropped parameter
/// pools several of its summaries' rows into one; from its results otherwise.
fn run_rows(run: &Run, read: &RunsRead, ignore: Ignored) -> Vec<(RowMatch, RunRow)> {
    match read.summaries_of(run) {
        Some(rows) if !ignore.pools_rows() => rows
            .iter()
            .map(|s| {
                let row = RunRow {
                    level: s.run_level(),
                    figures: s.repetitions as usize,
                    values: Vec::new(),
                };
                (RowMatch::new(s.key(&run.params), ignore), row)
            })
            .collect(),
        _ => per_run(run, ignore)
            .into_iter()
            .map(|(key, values)| {
                let row = RunRow {
                    level: RunLevel::of(&values),
                    figures: values.len(),
                    values,
                };
                (key, row)
            })
            .collect(),
    }
}

/// A run's median per row key, of its positive figures (the level's exponent): from
/// its summaries (summaries of any schema have it) when it has them and no dropped
/// parameter pools several of their rows into one; from its results otherwise.
pub(super) fn medians(run: &Run, read: &RunsRead, ignore: Ignored) -> Vec<(RowMatch, f64)> {
    match read.summaries_of(run) {
        Some(rows) if !ignore.pools_rows() => rows
            .iter()
            .filter_map(|s| {
                let key = RowMatch::new(s.key(&run.params), ignore);
                Some((key, s.positive_median?))
            })
            .collect(),
        _ => per_run(run, ignore)
            .into_iter()
            .filter_map(|(key, repetitions)| Some((key, RunLevel::of(&repetitions)?.median)))
            .collect(),
    }
}

/// Every run of a side, by row key: runs stay apart, never pooled as one sample.
pub(super) fn side(read: &RunsRead, ignore: Ignored) -> BTreeMap<RowMatch, Side> {
    let mut rows: BTreeMap<RowMatch, Side> = BTreeMap::new();
    for run in read.runs {
        let interleaved = run.params.order == RoundOrder::Interleaved;
        for (key, row) in run_rows(run, read, ignore) {
            let side = rows.entry(key).or_default();
            side.runs.extend(row.level);
            side.figures += row.figures;
            side.values.extend(row.values);
            side.by_run
                .insert(run.uuid, row.level.filter(|_| interleaved));
        }
    }
    rows
}

/// Each run's (baseline, candidate) levels, when both sides are parts of the same runs
/// measured round by round; `None` otherwise.
fn same_runs(base: &Side, cand: &Side) -> Option<Vec<(RunLevel, RunLevel)>> {
    if !base.by_run.keys().eq(cand.by_run.keys()) {
        return None;
    }
    base.by_run
        .iter()
        .map(|(uuid, b)| Some(((*b)?, cand.by_run[uuid]?)))
        .collect()
}

/// A row measured: its figures, and the test behind them when there is one (restated
/// at the corrected level by [`correct`]).
pub(super) fn measure_row(
    key: &RowMatch,
    base: &Side,
    cand: &Side,
    history: &RowHistory,
    options: &Options,
) -> (Row, Option<Effect>) {
    let (bm, cm) = (base.level(), cand.level());
    let mut row = Row {
        key: *key,
        baseline_median: bm,
        candidate_median: cm,
        change_pct: (cm / bm - 1.0) * 100.0,
        ci_low_pct: None,
        ci_high_pct: None,
        ci_level_pct: None,
        p_value: None,
        p_adjusted: None,
        verdict: Verdict::Inconclusive,
        n_baseline: base.figures,
        n_candidate: cand.figures,
        runs_baseline: base.runs.len(),
        runs_candidate: cand.runs.len(),
        noise_pct: None,
        noise_source: None,
        min_detectable_pct: None,
        runs_needed: None,
        rounds_needed: None,
        note: None,
    };
    // a single figure a side (an imported classic table, say) has no spread at all
    if base.figures < 2 || cand.figures < 2 {
        return (row, None);
    }
    let pairs = same_runs(base, cand);
    let confidence = 1.0 - options.alpha;
    let effect = match &pairs {
        Some(pairs) => paired::within_runs_effect(pairs, confidence),
        None => runs_effect(&base.runs, &cand.runs, history, confidence),
    };
    if let Some(NoiseSource::Segments { .. }) = effect.map(|e| e.noise.source) {
        widen(&mut row, history);
    }
    let Some(effect) = effect else {
        return (row, None);
    };
    fill_effect(&mut row, &effect, pairs.as_deref(), history, options);
    (row, Some(effect))
}

/// The share of alpha a step between the sides' segments must reach (its p-value
/// already Bonferroni-adjusted for where the search could put it) for the row to be
/// tested on the segments.
const STEP_ALPHA_SHARE: f64 = 0.1;

/// The change between two sides' runs (not parts of the same runs): tested as the
/// step between their segments when one parts them and the segments hold more runs
/// than the compared ones (`history::Across`: what `trend` has for that step), run
/// level against run level with the history's noise otherwise.
pub(super) fn runs_effect(
    base: &[RunLevel],
    cand: &[RunLevel],
    history: &RowHistory,
    confidence: f64,
) -> Option<Effect> {
    let step = history.across().and_then(|across| {
        let compared: Vec<&RunLevel> = base.iter().chain(cand).collect();
        let own = compared.iter().map(|r| r.own_var).sum::<f64>() / compared.len().max(1) as f64;
        runlevel::step_effect(
            &across.baseline,
            &across.candidate,
            own,
            confidence,
            across.places,
        )
    });
    // only a step clear beyond its search: one found by chance in a flat series (trend's
    // own false alarm, 1–2% of series) would otherwise add its rate to the run test's
    // 5% (the simulation: flat series, 1 run a side, 5.4% → 5.8%; gated, 5.5%)
    let step = step.filter(|e| e.places == 1 || e.p_value < STEP_ALPHA_SHARE * (1.0 - confidence));
    step.or_else(|| {
        runlevel::run_level_effect(base, cand, &history.series, DEFAULT_RUN_NOISE, confidence)
    })
}

/// The sides' levels and run counts as their segments have them.
fn widen(row: &mut Row, history: &RowHistory) {
    let Some(across) = history.across() else {
        return;
    };
    let level = |logs: &[f64]| (logs.iter().sum::<f64>() / logs.len() as f64).exp();
    row.baseline_median = level(&across.baseline);
    row.candidate_median = level(&across.candidate);
    row.runs_baseline = across.baseline.len();
    row.runs_candidate = across.candidate.len();
}

fn fill_effect(
    row: &mut Row,
    effect: &Effect,
    pairs: Option<&[(RunLevel, RunLevel)]>,
    history: &RowHistory,
    options: &Options,
) {
    let pct = |log: f64| log.exp_m1() * 100.0;
    row.change_pct = pct(effect.log_change);
    row.p_value = Some(effect.p_value);
    state_interval(row, effect, options);
    row.noise_pct = Some(pct(effect.noise.sd));
    let since = match effect.noise.source {
        NoiseSource::History(_) => history.since_text(),
        NoiseSource::Segments { .. } => history.across().map_or(String::new(), Across::since_text),
        _ => String::new(),
    };
    row.noise_source = Some(format!("{}{since}", effect.noise.source));
    let threshold = options.threshold.ln_1p();
    match pairs {
        Some(pairs) => {
            row.rounds_needed = Some(paired::rounds_needed(pairs, threshold, options.alpha))
        }
        None => {
            row.runs_needed = Some(runlevel::runs_needed(
                effect.noise.sd,
                threshold,
                options.alpha,
            ))
        }
    }
}

/// A row's interval, and the smallest change it would flag, at the effect's level.
fn state_interval(row: &mut Row, effect: &Effect, options: &Options) {
    let pct = |log: f64| log.exp_m1() * 100.0;
    row.ci_low_pct = Some(pct(effect.ci.0));
    row.ci_high_pct = Some(pct(effect.ci.1));
    row.min_detectable_pct = Some(pct(effect.min_detectable).max(options.threshold * 100.0));
}

/// Benjamini–Hochberg over the rows that have a p-value, and every such row's interval
/// restated at the false-coverage-rate level that selection calls for
/// (`stats::fcr_confidence`), so that an interval excludes zero exactly when its
/// row's adjusted p is below alpha. Returns how many rows were corrected and that
/// level.
pub(super) fn correct(
    rows: &mut [Row],
    effects: &[Option<Effect>],
    options: &Options,
) -> (usize, f64) {
    let tested: Vec<usize> = (0..rows.len())
        .filter(|&i| rows[i].p_value.is_some())
        .collect();
    let p: Vec<f64> = tested.iter().filter_map(|&i| rows[i].p_value).collect();
    for (&i, q) in tested.iter().zip(crate::stats::benjamini_hochberg(&p)) {
        rows[i].p_adjusted = Some(q);
    }
    let level = crate::stats::fcr_confidence(&p, options.alpha);
    for &i in &tested {
        if let Some(effect) = &effects[i] {
            state_interval(&mut rows[i], &effect.at(level), options);
            rows[i].ci_level_pct = Some(level * 100.0);
        }
    }
    (tested.len(), level)
}

/// What the sides' machines were like, for [`decide`].
#[derive(Clone, Debug, Default)]
pub(super) struct Busy {
    pub baseline: SideState,
    pub candidate: SideState,
}

impl Busy {
    /// Why a verdict that the busy side is the slower cannot stand, when every run of
    /// one side was busy, no run of the other, and no history measured the noise (a slowed row was once
    /// called an improvement against a baseline taken during writeback).
    fn against(&self, verdict: Verdict, source: NoiseSource) -> Option<String> {
        if matches!(
            source,
            NoiseSource::History(_) | NoiseSource::OtherSegments(_) | NoiseSource::Segments { .. }
        ) {
            return None;
        }
        let (side, reasons) = match (verdict, &self.baseline, &self.candidate) {
            (Verdict::Improvement, SideState::Busy(reasons), SideState::Quiet) => {
                ("baseline", reasons)
            }
            (Verdict::Regression, SideState::Quiet, SideState::Busy(reasons)) => {
                ("candidate", reasons)
            }
            _ => return None,
        };
        Some(format!(
            "the {side} ran on a busy machine ({reasons}), the other side on a quiet one, \
             and no history measures the noise: not called {}",
            match verdict {
                Verdict::Improvement => "an improvement",
                _ => "a regression",
            }
        ))
    }
}

pub(super) fn decide(
    row: &mut Row,
    effect: Option<&Effect>,
    history: &RowHistory,
    busy: &Busy,
    options: &Options,
) {
    let (Some(q), Some(lo), Some(hi)) = (row.p_adjusted, row.ci_low_pct, row.ci_high_pct) else {
        row.note =
            Some("n = 1 on a side: no statistics possible, the change is shown as is".into());
        row.runs_needed = None;
        row.rounds_needed = None;
        return;
    };
    row.verdict = verdict(row.change_pct, (lo, hi), q, options);
    let source = row.noise_source.clone().unwrap_or_default();
    let noise = row.noise_pct.unwrap_or(f64::NAN);
    // the same note whatever the verdict: which noise the verdict accounted for, and
    // the steps between the sides (a noise measured across them would hide them)
    let mut note = format!("noise ±{noise:.1}%, {source}{}", history.steps_text());
    match effect.map(|e| (e.noise.source, e.places)) {
        Some((NoiseSource::Segments { .. }, 1)) => note.push_str(
            "; tested on the sides' segments, every run of theirs (the same environment and \
             labels)",
        ),
        Some((NoiseSource::Segments { .. }, places)) => note.push_str(&format!(
            "; tested as that step, on its segments' runs, the best of {places} places"
        )),
        _ => {}
    }
    let busy = effect.and_then(|e| busy.against(row.verdict, e.noise.source));
    if let Some(busy) = busy {
        row.verdict = Verdict::Inconclusive;
        note = format!("{note}; {busy}");
    }
    row.note = Some(note);
    if row.verdict != Verdict::Inconclusive {
        row.runs_needed = None;
        row.rounds_needed = None;
    }
}

/// The rule, on a row's change and interval (percent) and its adjusted p-value. The
/// interval, stated at the corrected level, excludes zero exactly when q is below
/// alpha (`correct`); the verdict follows both, so that no rounding at that edge can
/// set them apart.
pub(crate) fn verdict(change_pct: f64, (lo, hi): (f64, f64), q: f64, options: &Options) -> Verdict {
    let threshold_pct = options.threshold * 100.0;
    let significant = q < options.alpha;
    if significant && change_pct < -threshold_pct && hi < 0.0 {
        Verdict::Regression
    } else if significant && change_pct > threshold_pct && lo > 0.0 {
        Verdict::Improvement
    } else if lo >= -threshold_pct && hi <= threshold_pct {
        Verdict::Unchanged
    } else {
        Verdict::Inconclusive
    }
}

pub(super) fn summarize(rows: &[Row]) -> Vec<TestSummary> {
    let mut by_test: BTreeMap<TestKind, Vec<&Row>> = BTreeMap::new();
    for row in rows {
        by_test.entry(row.key.test()).or_default().push(row);
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
