//! Is a change beyond what run-to-run noise explains? Measurements are hierarchical:
//! repetitions within a run, runs within a series. Each run has a level of its own
//! (machine state, file placement, time of day), so repetitions of one run say
//! nothing about how far the next run will land, and repetitions of several runs are
//! never pooled as if independent (Kalibera & Jones, "Rigorous Benchmarking in
//! Reasonable Time", ISMM 2013: estimate the variance at the level where it arises).
//!
//! Here the run is the unit. Each run contributes its level, the logarithm of the
//! median of its repetitions; the change is the difference of the two sides' mean
//! levels, and its standard error comes from the run-to-run variance of a level,
//! estimated from, in this order of preference:
//! - the history of the same series (other runs of the same host, filesystem and
//!   parameters), pooled *within segments* ([`SeriesHistory`]): a series' runs cut at
//!   the steps of its level and at every change of what they ran on, the variance taken
//!   about each segment's own mean, so that a step is never counted as noise. The
//!   segments that hold the compared runs come first, when they have at least three
//!   other runs; when the runs compared (their spread within each side, two degrees of
//!   freedom or more) spread further, both together. Consecutive runs resemble each
//!   other more than runs an hour apart, so the history's wider window is the safer
//!   measure, and it is never replaced by the quieter spread of the runs at hand;
//! - the runs compared alone, when they give at least two degrees of freedom;
//! - the other segments of the series (the same host, filesystem and row at other
//!   levels), when they have at least three runs: after the runs compared, so that a
//!   verdict about given runs that measure their own noise never changes because runs
//!   at another level were recorded since;
//! - a default: [`DEFAULT_RUN_NOISE`], or 1.25 times the compared runs' own spread
//!   between repetitions when that is larger: on the machine measured, a run's level
//!   strayed about as far as its repetitions spread (0.3 to 1.6 times, median 0.8).
//!
//! Whatever the source, the variance is never taken below what the compared runs'
//! own repetitions explain. The test is Welch-free Student t on the pooled variance
//! (a normal test when the variance is the default), and the interval comes from the
//! same statistic, so a verdict and its interval can never disagree.

use statrs::distribution::{ContinuousCDF, Normal, StudentsT};

use super::Summary;

/// The least run-to-run noise of a run's level (standard deviation on the log scale,
/// about a fraction of the level) assumed when nothing measures it: no history and
/// too few runs. Run medians of one configuration recorded one after another on this
/// project's test machine varied by 1.3–4.4% between runs in a quiet hour and by
/// 6–7% (median over rows) in a noisy one, when repetitions within a run also spread
/// by 7–9%: so the default is this or the runs' own spread between repetitions,
/// whichever is larger (docs/comparing.md: "How many runs do I need?").
pub const DEFAULT_RUN_NOISE: f64 = 0.04;
/// Without history, a run's level is assumed to stray this many times as far as its
/// repetitions spread: above the median ratio measured (0.8), below the worst row's
/// (1.6), which would cost one run a side most of its power (docs/comparing.md: "How many runs
/// do I need?").
pub const DEFAULT_SPREAD_FACTOR: f64 = 1.25;
/// Fewest history runs that count as a measurement of the noise.
pub const HISTORY_MIN_RUNS: usize = 3;
/// Power at which `min_detectable` and `runs_needed` are stated.
pub const POWER: f64 = 0.80;
/// The median of k values varies π/2 times as much as their mean (its asymptotic
/// efficiency under normal noise, 2/π), which bounds the run level's own variance.
pub(super) const MEDIAN_VARIANCE_FACTOR: f64 = std::f64::consts::FRAC_PI_2;

/// One run's figures for one row, on the log scale.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RunLevel {
    /// The median of the run's repetitions.
    pub median: f64,
    /// Its logarithm.
    pub level: f64,
    /// The variance of `level` that the run's own repetitions explain: π/2 · s²/k of
    /// their logarithms; 0 with a single repetition.
    pub own_var: f64,
    /// s, the standard deviation of the repetitions' logarithms (0 for one).
    pub spread: f64,
    pub repetitions: usize,
}

impl RunLevel {
    /// `None` when no repetition has a finite, positive figure.
    pub fn of(values: &[f64]) -> Option<RunLevel> {
        LevelParts::of(values).map(RunLevel::from)
    }
}

/// What a run's level under one row is computed from, and all a summary needs to keep
/// of it (`model::RowSummary`): the median of the finite, positive figures, the sample
/// variance of their logarithms (0 for one) and how many there are. Kept, not
/// recomputed, because summing in another order or with compensation (as SQL's `sum`
/// may) would change the variance's last bits, and with them a comparison's.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LevelParts {
    pub median: f64,
    pub log_variance: f64,
    pub positives: usize,
}

impl LevelParts {
    /// From a run's repetitions in the order they were measured (repetition number):
    /// `None` when no figure is finite and positive.
    pub fn of(values: &[f64]) -> Option<LevelParts> {
        let positive: Vec<f64> = values
            .iter()
            .copied()
            .filter(|v| v.is_finite() && *v > 0.0)
            .collect();
        let median = Summary::of(&positive)?.median;
        let logs: Vec<f64> = positive.iter().map(|v| v.ln()).collect();
        let log_variance = match logs.len() {
            0 | 1 => 0.0,
            _ => variance(&logs),
        };
        Some(LevelParts {
            median,
            log_variance,
            positives: logs.len(),
        })
    }
}

impl From<LevelParts> for RunLevel {
    fn from(parts: LevelParts) -> RunLevel {
        let k = parts.positives;
        RunLevel {
            median: parts.median,
            level: parts.median.ln(),
            own_var: MEDIAN_VARIANCE_FACTOR * parts.log_variance / k as f64,
            spread: parts.log_variance.sqrt(),
            repetitions: k,
        }
    }
}

/// Sample variance (n − 1).
fn variance(v: &[f64]) -> f64 {
    let mean = v.iter().sum::<f64>() / v.len() as f64;
    v.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (v.len() - 1) as f64
}

/// The spread of run levels in the history of the series compared: squared
/// deviations of each series' levels from that series' own mean, so that several
/// series (two hosts, say) never count their difference as noise.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct History {
    pub sum_sq: f64,
    pub df: usize,
    pub runs: usize,
}

impl History {
    /// Adds one series' run levels (ln of each run's median).
    pub fn add_series(&mut self, levels: &[f64]) {
        if levels.len() < 2 {
            return;
        }
        let mean = levels.iter().sum::<f64>() / levels.len() as f64;
        self.sum_sq += levels.iter().map(|l| (l - mean).powi(2)).sum::<f64>();
        self.df += levels.len() - 1;
        self.runs += levels.len();
    }
}

/// A series' history pooled within its segments (`super::changepoint::segments`).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SeriesHistory {
    /// The history runs of the segments that hold the compared runs: their own levels.
    pub same_segments: History,
    /// The history runs of the series' other segments: the same row at other levels.
    pub other_segments: History,
}

impl History {
    /// Whether these runs measure the noise: at least [`HISTORY_MIN_RUNS`] runs and two
    /// degrees of freedom.
    fn measures(&self) -> bool {
        self.runs >= HISTORY_MIN_RUNS && self.df >= 2
    }
}

/// Where the run-to-run noise of a comparison came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NoiseSource {
    /// The runs compared (at least two degrees of freedom between them).
    Runs,
    /// The runs compared and this many runs of the series' history, in the segments
    /// of the runs compared.
    History(usize),
    /// This many runs of the series' other segments (the runs compared gave too few
    /// degrees of freedom).
    OtherSegments(usize),
    /// Nothing measured it: [`DEFAULT_RUN_NOISE`] or the runs' own spread.
    Default,
    /// Both sides are parts of the same runs, paired run by run (`super::paired`): the
    /// runs' own repetitions, or the spread of their differences with three or more.
    Paired { runs: usize, rounds: usize },
    /// The sides lie in two segments of the series (apart by what their runs ran on,
    /// their labels, or a step) and were tested on the segments' runs
    /// ([`step_effect`]): this many runs in each.
    Segments { baseline: usize, candidate: usize },
}

impl std::fmt::Display for NoiseSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            NoiseSource::Runs => f.write_str("runs"),
            NoiseSource::History(n) => write!(f, "history: {}", crate::units::count(*n, "run")),
            NoiseSource::OtherSegments(n) => write!(
                f,
                "history: {} of other segments",
                crate::units::count(*n, "run")
            ),
            NoiseSource::Default => f.write_str("default"),
            NoiseSource::Paired { runs: 1, rounds } => write!(f, "paired: {rounds} rounds"),
            NoiseSource::Paired { runs, rounds } => {
                write!(f, "paired: {rounds} rounds of {runs} runs")
            }
            NoiseSource::Segments {
                baseline,
                candidate,
            } => write!(f, "the sides' segments: {baseline} and {candidate} runs"),
        }
    }
}

/// The run-to-run noise used: the standard deviation of one run's level (log scale).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Noise {
    pub sd: f64,
    /// Degrees of freedom of the estimate; `None` when assumed (the default).
    pub df: Option<f64>,
    pub source: NoiseSource,
}

/// What the two sides' run levels say about the change.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Effect {
    /// Mean candidate level minus mean baseline level: ln of the ratio of the sides'
    /// geometric-mean run medians.
    pub log_change: f64,
    pub se: f64,
    pub p_value: f64,
    /// The interval of `log_change` at the confidence asked.
    pub ci: (f64, f64),
    /// The smallest |log change| these runs would find significant with [`POWER`].
    pub min_detectable: f64,
    pub noise: Noise,
    /// Among how many places a search chose where the sides part (1 when the caller
    /// chose them): the p-value and the interval are Bonferroni-adjusted for them.
    pub places: usize,
}

/// Estimates the run-to-run noise of one row (see the module's order of sources).
pub fn run_noise(
    baseline: &[RunLevel],
    candidate: &[RunLevel],
    history: &SeriesHistory,
    default_sd: f64,
) -> Noise {
    let within = |side: &[RunLevel]| {
        let levels: Vec<f64> = side.iter().map(|r| r.level).collect();
        let mut h = History::default();
        h.add_series(&levels);
        h
    };
    let (b, c) = (within(baseline), within(candidate));
    let (side_ss, side_df) = (b.sum_sq + c.sum_sq, b.df + c.df);
    let compared: Vec<&RunLevel> = baseline.iter().chain(candidate).collect();
    let mean = |f: fn(&RunLevel) -> f64| {
        compared.iter().map(|r| f(r)).sum::<f64>() / compared.len().max(1) as f64
    };
    let own = mean(|r| r.own_var);
    let estimated = |ss: f64, df: usize, source| Noise {
        sd: (ss / df as f64).max(own).sqrt(),
        df: Some(df as f64),
        source,
    };
    let runs = (side_df >= 2).then(|| estimated(side_ss, side_df, NoiseSource::Runs));
    let (same, other) = (&history.same_segments, &history.other_segments);
    if same.measures() {
        let past = estimated(same.sum_sq, same.df, NoiseSource::History(same.runs));
        match runs {
            // noisier than their history: both together, the runs' spread counted
            Some(runs) if runs.sd > past.sd => estimated(
                side_ss + same.sum_sq,
                side_df + same.df,
                NoiseSource::History(same.runs),
            ),
            _ => past,
        }
    } else if let Some(runs) = runs {
        runs
    } else if other.measures() {
        estimated(
            other.sum_sq,
            other.df,
            NoiseSource::OtherSegments(other.runs),
        )
    } else {
        let assumed = default_sd.max(DEFAULT_SPREAD_FACTOR * mean(|r| r.spread));
        Noise {
            sd: (assumed.powi(2) + own).sqrt(),
            df: None,
            source: NoiseSource::Default,
        }
    }
}

/// The change between the sides' run levels, its p-value (two-sided), its interval at
/// `confidence` and the smallest change these runs could detect at `alpha`. `None`
/// when a side has no run.
pub fn run_level_effect(
    baseline: &[RunLevel],
    candidate: &[RunLevel],
    history: &SeriesHistory,
    default_sd: f64,
    confidence: f64,
) -> Option<Effect> {
    if baseline.is_empty() || candidate.is_empty() {
        return None;
    }
    let mean = |side: &[RunLevel]| side.iter().map(|r| r.level).sum::<f64>() / side.len() as f64;
    let log_change = mean(candidate) - mean(baseline);
    let noise = run_noise(baseline, candidate, history, default_sd);
    let (m, n) = (baseline.len() as f64, candidate.len() as f64);
    let se = noise.sd * (1.0 / m + 1.0 / n).sqrt();
    Some(Effect::of(log_change, se, noise, confidence))
}

/// The change between the two segments of a series on either side of a step, as
/// `trend` sees it: each segment's run levels (ln of each run's median), the noise
/// pooled within the two about their own means, never below `own_var` (what the
/// compared runs' repetitions explain). `places` is the number of places the search
/// could have put the step: a step chosen as the best of many is no ordinary
/// two-sample difference, so the p-value and the interval are adjusted for that
/// choice (Bonferroni), and a flat series' best split stays unflagged. `None` when the
/// segments give fewer than two degrees of freedom.
pub fn step_effect(
    baseline: &[f64],
    candidate: &[f64],
    own_var: f64,
    confidence: f64,
    places: usize,
) -> Option<Effect> {
    let mut within = History::default();
    within.add_series(baseline);
    within.add_series(candidate);
    if within.df < 2 || baseline.len() < 2 || candidate.len() < 2 {
        return None;
    }
    let mean = |side: &[f64]| side.iter().sum::<f64>() / side.len() as f64;
    let noise = Noise {
        sd: (within.sum_sq / within.df as f64).max(own_var).sqrt(),
        df: Some(within.df as f64),
        source: NoiseSource::Segments {
            baseline: baseline.len(),
            candidate: candidate.len(),
        },
    };
    let (m, n) = (baseline.len() as f64, candidate.len() as f64);
    let se = noise.sd * (1.0 / m + 1.0 / n).sqrt();
    let log_change = mean(candidate) - mean(baseline);
    Some(Effect::among(log_change, se, noise, confidence, places))
}

impl Effect {
    /// The test of `log_change` against its standard error `se` (Student t on the
    /// noise's degrees of freedom, normal when assumed), and the interval at
    /// `confidence` from the same statistic.
    pub(super) fn of(log_change: f64, se: f64, noise: Noise, confidence: f64) -> Effect {
        Effect::among(log_change, se, noise, confidence, 1)
    }

    /// [`Effect::of`], Bonferroni-adjusted for a search among `places`.
    fn among(log_change: f64, se: f64, noise: Noise, confidence: f64, places: usize) -> Effect {
        let places = places.max(1);
        let alpha = (1.0 - confidence) / places as f64;
        let p_value = match se > 0.0 {
            true => 2.0 * tail(noise.df, (log_change / se).abs()) * places as f64,
            false if log_change == 0.0 => 1.0,
            false => 0.0,
        };
        let q = quantile(noise.df, 1.0 - alpha / 2.0);
        Effect {
            log_change,
            se,
            p_value: p_value.clamp(0.0, 1.0),
            ci: (log_change - q * se, log_change + q * se),
            min_detectable: (q + quantile(noise.df, POWER)) * se,
            noise,
            places,
        }
    }

    /// The same test with its interval and detectable change stated at `confidence`
    /// (a multiple-comparison correction's level, `super::multiple::fcr_confidence`).
    pub fn at(&self, confidence: f64) -> Effect {
        Effect::among(
            self.log_change,
            self.se,
            self.noise,
            confidence,
            self.places,
        )
    }
}

/// About how many runs a side detect a change of `log_change` with [`POWER`] at
/// `alpha`, given a run's noise `sd` (normal approximation, two-sided).
pub fn runs_needed(sd: f64, log_change: f64, alpha: f64) -> usize {
    // the difference of two sides' means of n runs varies as 2·sd²/n
    units_needed(2.0 * sd * sd, log_change, alpha)
}

/// How many units (runs, rounds) tell `log_change` with [`POWER`] at `alpha` when the
/// estimate from n of them varies as `variance / n` (normal approximation, two-sided);
/// never fewer than 2, `usize::MAX` when nothing would.
pub(super) fn units_needed(variance: f64, log_change: f64, alpha: f64) -> usize {
    if log_change.abs() <= 0.0 || !variance.is_finite() {
        return usize::MAX;
    }
    let z = quantile(None, 1.0 - alpha / 2.0) + quantile(None, POWER);
    let n = variance * (z / log_change.abs()).powi(2);
    n.ceil().max(2.0) as usize
}

/// P(T > x) for Student t with `df` degrees of freedom (normal when `None`).
fn tail(df: Option<f64>, x: f64) -> f64 {
    1.0 - cdf(df, x)
}

fn cdf(df: Option<f64>, x: f64) -> f64 {
    match df {
        Some(df) => StudentsT::new(0.0, 1.0, df)
            .expect("degrees of freedom are positive")
            .cdf(x),
        None => standard_normal().cdf(x),
    }
}

pub(super) fn quantile(df: Option<f64>, p: f64) -> f64 {
    match df {
        Some(df) => StudentsT::new(0.0, 1.0, df)
            .expect("degrees of freedom are positive")
            .inverse_cdf(p),
        None => standard_normal().inverse_cdf(p),
    }
}

fn standard_normal() -> Normal {
    Normal::new(0.0, 1.0).expect("a standard normal")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn levels(values: &[f64]) -> Vec<RunLevel> {
        values
            .iter()
            .map(|&v| RunLevel {
                median: v,
                level: v.ln(),
                own_var: 0.0,
                spread: 0.0,
                repetitions: 5,
            })
            .collect()
    }

    /// A history whose runs all lie in the compared runs' segments.
    fn same(history: History) -> SeriesHistory {
        SeriesHistory {
            same_segments: history,
            ..SeriesHistory::default()
        }
    }

    #[test]
    fn other_segments_measure_the_noise_only_when_the_runs_cannot() {
        let mut other = History::default();
        other.add_series(&[0.0, 0.1, -0.1, 0.05]);
        let history = SeriesHistory {
            same_segments: History::default(),
            other_segments: other,
        };
        // one run a side: the other segments, not the default
        let n = run_noise(&levels(&[100.0]), &levels(&[95.0]), &history, 0.04);
        assert_eq!(n.source, NoiseSource::OtherSegments(4));
        assert!((n.sd - (other.sum_sq / 3.0).sqrt()).abs() < 1e-12);
        assert_eq!(n.source.to_string(), "history: 4 runs of other segments");
        // two a side measure their own: runs at other levels change nothing
        let (a, b) = (levels(&[100.0, 101.0]), levels(&[95.0, 95.5]));
        let alone = run_noise(&a, &b, &SeriesHistory::default(), 0.04);
        assert_eq!(run_noise(&a, &b, &history, 0.04), alone);
        assert_eq!(alone.source, NoiseSource::Runs);
        // the compared runs' own segments come first, also when quieter
        let mut quiet = History::default();
        quiet.add_series(&[0.0, 0.001, -0.001]);
        let both = SeriesHistory {
            same_segments: quiet,
            other_segments: other,
        };
        let n = run_noise(&levels(&[100.0]), &levels(&[95.0]), &both, 0.04);
        assert_eq!(n.source, NoiseSource::History(3));
    }

    #[test]
    fn effects_restated_at_another_level_keep_their_test() {
        let e = run_level_effect(
            &levels(&[100.0, 102.0, 99.0]),
            &levels(&[90.0, 91.0, 89.5]),
            &SeriesHistory::default(),
            0.05,
            0.95,
        )
        .unwrap();
        let wider = e.at(0.99);
        assert_eq!((wider.p_value, wider.se), (e.p_value, e.se));
        assert!(wider.ci.0 < e.ci.0 && wider.ci.1 > e.ci.1);
        // t(4) quantiles: 2.7764 at 97.5%, 4.6041 at 99.5%
        let ratio = (wider.ci.1 - wider.log_change) / (e.ci.1 - e.log_change);
        assert!((ratio - 4.6041 / 2.7764).abs() < 1e-3, "{ratio}");
    }

    #[test]
    fn a_run_level_is_its_median_with_the_medians_own_variance() {
        let r = RunLevel::of(&[100.0, 110.0, 90.0, 105.0, 95.0]).unwrap();
        assert!((r.level - 100f64.ln()).abs() < 1e-12);
        let logs: Vec<f64> = [100.0f64, 110.0, 90.0, 105.0, 95.0]
            .iter()
            .map(|v| v.ln())
            .collect();
        assert!((r.own_var - FRAC_PI_2 * variance(&logs) / 5.0).abs() < 1e-15);
        assert_eq!(RunLevel::of(&[7.0]).unwrap().own_var, 0.0);
        assert!(RunLevel::of(&[0.0, f64::NAN]).is_none());
    }

    use std::f64::consts::FRAC_PI_2;

    #[test]
    fn three_runs_a_side_are_a_two_sample_t_test() {
        // scipy.stats.ttest_ind(log b, log a): t = -6.66490, p = 0.0026330, df = 4
        let a = levels(&[100.0, 103.0, 98.0]);
        let b = levels(&[90.0, 91.0, 88.5]);
        let e = run_level_effect(&a, &b, &SeriesHistory::default(), 0.05, 0.95).unwrap();
        assert_eq!(e.noise.source, NoiseSource::Runs);
        assert_eq!(e.noise.df, Some(4.0));
        let t = e.log_change / e.se;
        assert!((t + 6.66490).abs() < 1e-4, "t = {t}");
        assert!((e.p_value - 0.0026330).abs() < 1e-6, "p = {}", e.p_value);
        assert!(e.ci.1 < 0.0);
    }

    #[test]
    fn one_run_a_side_takes_its_noise_from_history_else_the_default() {
        let a = levels(&[100.0]);
        let b = levels(&[95.0]);
        let none = run_level_effect(&a, &b, &SeriesHistory::default(), 0.05, 0.95).unwrap();
        assert_eq!(none.noise.source, NoiseSource::Default);
        assert!((none.noise.sd - 0.05).abs() < 1e-12);
        // z = ln(0.95) / (0.05·√2) = -0.7254, p = 0.468
        assert!((none.p_value - 0.468).abs() < 1e-3, "{}", none.p_value);
        let mut history = History::default();
        history.add_series(&[100f64.ln(), 100.5f64.ln(), 99.5f64.ln(), 100.2f64.ln()]);
        let with = run_level_effect(&a, &b, &same(history), 0.05, 0.95).unwrap();
        assert_eq!(with.noise.source, NoiseSource::History(4));
        assert_eq!(with.noise.df, Some(3.0));
        assert!(with.p_value < 0.01, "{}", with.p_value);
    }

    #[test]
    fn the_default_grows_with_the_runs_own_spread() {
        let quiet = RunLevel::of(&[100.0, 101.0, 99.0, 100.5, 99.5]).unwrap();
        let noisy = RunLevel::of(&[100.0, 120.0, 85.0, 110.0, 92.0]).unwrap();
        let none = SeriesHistory::default();
        let n = run_noise(&[quiet], &[quiet], &none, 0.04);
        assert_eq!(n.source, NoiseSource::Default);
        assert!((n.sd - (0.04f64.powi(2) + quiet.own_var).sqrt()).abs() < 1e-12);
        let n = run_noise(&[noisy], &[noisy], &none, 0.04);
        assert!(noisy.spread > 0.1);
        let assumed = (DEFAULT_SPREAD_FACTOR * noisy.spread).powi(2);
        assert!((n.sd - (assumed + noisy.own_var).sqrt()).abs() < 1e-12);
    }

    #[test]
    fn several_series_do_not_count_their_difference_as_noise() {
        let mut h = History::default();
        h.add_series(&[1.0, 1.0, 1.0]);
        h.add_series(&[5.0, 5.0]);
        assert_eq!((h.sum_sq, h.df, h.runs), (0.0, 3, 5));
        h.add_series(&[2.0]);
        assert_eq!(h.runs, 5);
    }

    #[test]
    fn noise_never_falls_below_the_runs_own_repetitions() {
        let mut a = levels(&[100.0]);
        let mut b = levels(&[100.0]);
        a[0].own_var = 0.01;
        b[0].own_var = 0.03;
        let mut quiet = History::default();
        quiet.add_series(&[0.0, 0.0, 0.0, 0.0]);
        let e = run_level_effect(&a, &b, &same(quiet), 0.05, 0.95).unwrap();
        assert!((e.noise.sd - 0.02f64.sqrt()).abs() < 1e-12);
    }

    #[test]
    fn detectable_change_and_runs_needed() {
        // normal: (1.96 + 0.8416) · 0.05 · √2 = 0.1981
        let e = run_level_effect(
            &levels(&[1.0]),
            &levels(&[1.0]),
            &SeriesHistory::default(),
            0.05,
            0.95,
        )
        .unwrap();
        assert!((e.min_detectable - 0.1981).abs() < 1e-3);
        assert_eq!(e.p_value, 1.0);
        // 2 · ((1.96 + 0.8416) · 0.03 / ln 1.05)² = 5.93 → 6 runs a side
        assert_eq!(runs_needed(0.03, 1.05f64.ln(), 0.05), 6);
        assert_eq!(runs_needed(0.001, 1.05f64.ln(), 0.05), 2);
    }

    #[test]
    fn a_step_found_by_search_pays_for_its_places() {
        let before = [0.0, 0.02, -0.01, 0.01, -0.02, 0.0];
        let after = [-0.1, -0.08, -0.12, -0.09, -0.11, -0.1];
        let chosen = step_effect(&before, &after, 0.0, 0.95, 1).unwrap();
        let searched = step_effect(&before, &after, 0.0, 0.95, 7).unwrap();
        assert_eq!(
            searched.noise.source,
            NoiseSource::Segments {
                baseline: 6,
                candidate: 6
            }
        );
        assert!((searched.p_value - 7.0 * chosen.p_value).abs() < 1e-12);
        assert!(searched.ci.0 < chosen.ci.0 && searched.ci.1 > chosen.ci.1);
        // the interval still excludes zero exactly when the adjusted p is below 5%
        assert_eq!(searched.ci.1 < 0.0, searched.p_value < 0.05);
        // a segment of one run has no spread of its own: nothing to test on
        assert!(step_effect(&before[..1], &after[..2], 0.0, 0.95, 3).is_none());
    }
}
