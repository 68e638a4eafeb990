//! Two parts of the same runs: `posix` against `pread` in one `--engine posix,pread`
//! run, say. Each round of such a run visits both cells within moments of each other,
//! in a random order, so whatever moved the run's level (machine state, file placement,
//! the time of day) moved both alike: the run-to-run offset that [`super::runlevel`]
//! must allow for cancels out of the difference of the two parts' levels in one run.
//!
//! So each run contributes one difference — the log of its candidate median over its
//! baseline median, medians because single rounds of a noisy machine stray far — and
//! its standard error is what the run's own repetitions say of the two medians (π/2 ·
//! s²/k each). With three runs or more, the runs' differences also say how far the
//! difference itself moves from run to run; the wider of the two errors is used, so
//! several runs never claim more than they show.

use super::runlevel::{Effect, MEDIAN_VARIANCE_FACTOR, Noise, NoiseSource, RunLevel, units_needed};

/// The effect of the candidate parts over the baseline parts of the same runs, one
/// pair of levels per run. `None` when no run has two repetitions a side.
pub fn within_runs_effect(pairs: &[(RunLevel, RunLevel)], confidence: f64) -> Option<Effect> {
    let n = pairs.len() as f64;
    let df: usize = pairs
        .iter()
        .map(|(b, c)| b.repetitions.saturating_sub(1) + c.repetitions.saturating_sub(1))
        .sum();
    if pairs.is_empty() || df == 0 {
        return None;
    }
    let differences: Vec<f64> = pairs.iter().map(|(b, c)| c.level - b.level).collect();
    let log_change = differences.iter().sum::<f64>() / n;
    // one run's difference varies as its two medians do
    let own: Vec<f64> = pairs.iter().map(|(b, c)| b.own_var + c.own_var).collect();
    let source = NoiseSource::Paired {
        runs: pairs.len(),
        rounds: pairs.iter().map(|(b, _)| b.repetitions).sum(),
    };
    let mut noise = Noise {
        sd: (own.iter().sum::<f64>() / n).sqrt(),
        df: Some(df as f64),
        source,
    };
    let mut se = own.iter().sum::<f64>().sqrt() / n;
    if pairs.len() >= 3 {
        let between = differences
            .iter()
            .map(|d| (d - log_change).powi(2))
            .sum::<f64>()
            / (n - 1.0);
        if (between / n).sqrt() > se {
            se = (between / n).sqrt();
            noise = Noise {
                sd: between.sqrt(),
                df: Some(n - 1.0),
                source,
            };
        }
    }
    Some(Effect::of(log_change, se, noise, confidence))
}

/// About how many rounds (repetitions) in one run tell a change of `log_change` with
/// [`super::runlevel::POWER`] at `alpha`, given the two parts' spreads between
/// repetitions: each median varies as π/2 · s²/k.
pub fn rounds_needed(pairs: &[(RunLevel, RunLevel)], log_change: f64, alpha: f64) -> usize {
    let spread_sq = pairs
        .iter()
        .map(|(b, c)| b.spread.powi(2) + c.spread.powi(2))
        .sum::<f64>()
        / pairs.len().max(1) as f64;
    units_needed(MEDIAN_VARIANCE_FACTOR * spread_sq, log_change, alpha)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn level(values: &[f64]) -> RunLevel {
        RunLevel::of(values).unwrap()
    }

    #[test]
    fn one_run_tests_its_two_medians_on_their_own_repetitions() {
        let b = level(&[100.0, 101.0, 99.0, 100.5, 99.5]);
        let c = level(&[90.0, 91.0, 89.0, 90.5, 89.5]);
        let e = within_runs_effect(&[(b, c)], 0.95).unwrap();
        assert!((e.log_change - (90f64 / 100.0).ln()).abs() < 1e-12);
        assert!((e.se - (b.own_var + c.own_var).sqrt()).abs() < 1e-15);
        assert_eq!(e.noise.df, Some(8.0));
        let source = NoiseSource::Paired { runs: 1, rounds: 5 };
        assert_eq!(e.noise.source, source);
        assert!(e.ci.1 < 0.0 && e.p_value < 0.001, "{e:?}");
    }

    #[test]
    fn runs_whose_differences_disagree_widen_the_interval() {
        let quiet = |l: f64| level(&[l, l * 1.001, l * 0.999, l]);
        let agree: Vec<_> = [100.0, 80.0, 120.0]
            .iter()
            .map(|&l| (quiet(l), quiet(l * 0.95)))
            .collect();
        let disagree: Vec<_> = [(100.0, 0.85), (80.0, 1.05), (120.0, 0.95)]
            .iter()
            .map(|&(l, r)| (quiet(l), quiet(l * r)))
            .collect();
        let a = within_runs_effect(&agree, 0.95).unwrap();
        let d = within_runs_effect(&disagree, 0.95).unwrap();
        // the runs' own levels (100, 80, 120) never count: only their differences
        assert!(a.ci.1 < 0.0, "{a:?}");
        assert_eq!(a.noise.df, Some(18.0));
        assert_eq!(d.noise.df, Some(2.0));
        assert!(d.ci.1 > 0.0, "{d:?}");
    }

    #[test]
    fn one_repetition_a_side_has_nothing_to_test_against() {
        let one = level(&[100.0]);
        assert!(within_runs_effect(&[(one, one)], 0.95).is_none());
        assert!(within_runs_effect(&[], 0.95).is_none());
    }

    #[test]
    fn rounds_needed_from_the_parts_spread() {
        let b = level(&[100.0, 106.0, 94.0, 103.0, 97.0]);
        let pairs = [(b, b)];
        // π/2 · 2s² · ((1.96 + 0.8416) / ln 1.05)²
        let s2 = 2.0 * b.spread.powi(2);
        let want = (std::f64::consts::FRAC_PI_2 * s2 * (2.8016 / 1.05f64.ln()).powi(2)).ceil();
        let got = rounds_needed(&pairs, 1.05f64.ln(), 0.05) as f64;
        assert!((got - want).abs() <= 1.0, "{got} vs {want}");
        assert_eq!(rounds_needed(&pairs, 0.0, 0.05), usize::MAX);
    }
}
