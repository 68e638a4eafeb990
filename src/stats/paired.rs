//! Two parts of the same runs, measured in the same rounds: `posix` against `pread` in
//! one `--engine posix,pread` run, say. Each round visited both cells within moments
//! of each other, in a random order, so whatever moved the machine's level that round
//! (writeback, another tenant, the time of day) moved both: the run-to-run offset
//! that [`super::runlevel`] has to allow for cancels out of their ratio. The unit is
//! then the round: each gives the logarithm of its candidate/baseline ratio, and the
//! change is their mean, tested with Student t on their spread (a paired t test).
//!
//! With three runs or more the runs' own mean ratios also say how far the difference
//! itself moves from run to run; the wider of the two errors is used, so several runs
//! never claim more than their rounds can show.

use super::runlevel::{Effect, Noise, NoiseSource, POWER, quantile, tail};

/// The paired effect of the rounds' log ratios, one list per run. `None` without two
/// rounds in some run (no spread to test against).
pub fn paired_effect(per_run: &[Vec<f64>], confidence: f64) -> Option<Effect> {
    let runs: Vec<&Vec<f64>> = per_run.iter().filter(|d| !d.is_empty()).collect();
    let within_df: usize = runs.iter().map(|d| d.len() - 1).sum();
    if within_df == 0 {
        return None;
    }
    let means: Vec<f64> = runs.iter().map(|d| mean(d)).collect();
    let n = runs.len() as f64;
    let log_change = mean(&means);
    let within_ss: f64 = runs
        .iter()
        .zip(&means)
        .map(|(d, m)| d.iter().map(|x| (x - m).powi(2)).sum::<f64>())
        .sum();
    let within_sd = (within_ss / within_df as f64).sqrt();
    let rounds: usize = runs.iter().map(|d| d.len()).sum();
    // the mean of the runs' means: each run's mean varies as s²/k
    let within_se = within_sd
        * runs
            .iter()
            .map(|d| 1.0 / d.len() as f64)
            .sum::<f64>()
            .sqrt()
        / n;
    let source = NoiseSource::Paired {
        runs: runs.len(),
        rounds,
    };
    let mut noise = Noise {
        sd: within_sd,
        df: Some(within_df as f64),
        source,
    };
    let mut se = within_se;
    if runs.len() >= 3 {
        let between_sd =
            (means.iter().map(|m| (m - log_change).powi(2)).sum::<f64>() / (n - 1.0)).sqrt();
        if between_sd / n.sqrt() > within_se {
            se = between_sd / n.sqrt();
            noise = Noise {
                sd: between_sd,
                df: Some(n - 1.0),
                source,
            };
        }
    }
    let alpha = 1.0 - confidence;
    let p_value = match se > 0.0 {
        true => 2.0 * tail(noise.df, (log_change / se).abs()),
        false if log_change == 0.0 => 1.0,
        false => 0.0,
    };
    let q = quantile(noise.df, 1.0 - alpha / 2.0);
    Some(Effect {
        log_change,
        se,
        p_value: p_value.clamp(0.0, 1.0),
        ci: (log_change - q * se, log_change + q * se),
        min_detectable: (q + quantile(noise.df, POWER)) * se,
        noise,
    })
}

/// About how many rounds in one run tell a change of `log_change` with [`POWER`] at
/// `alpha`, given one round's spread `sd` (normal approximation, two-sided).
pub fn rounds_needed(sd: f64, log_change: f64, alpha: f64) -> usize {
    if log_change.abs() <= 0.0 || !sd.is_finite() {
        return usize::MAX;
    }
    let z = quantile(None, 1.0 - alpha / 2.0) + quantile(None, POWER);
    let n = (z * sd / log_change.abs()).powi(2);
    n.ceil().max(2.0) as usize
}

fn mean(v: &[f64]) -> f64 {
    v.iter().sum::<f64>() / v.len() as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    fn logs(pairs: &[(f64, f64)]) -> Vec<f64> {
        pairs.iter().map(|(b, c)| (c / b).ln()).collect()
    }

    #[test]
    fn one_run_is_a_paired_t_test_on_its_rounds() {
        // rounds that move together by ±20% while the candidate stays 3% below:
        // scipy.stats.ttest_1samp(d, 0) on d = ln(c/b): the rounds' levels drop out
        let d = logs(&[
            (100.0, 97.2),
            (120.0, 116.0),
            (85.0, 82.6),
            (110.0, 106.9),
            (95.0, 92.0),
        ]);
        let e = paired_effect(std::slice::from_ref(&d), 0.95).unwrap();
        let m = d.iter().sum::<f64>() / 5.0;
        let s = (d.iter().map(|x| (x - m).powi(2)).sum::<f64>() / 4.0).sqrt();
        assert!((e.log_change - m).abs() < 1e-15);
        assert!((e.se - s / 5f64.sqrt()).abs() < 1e-15);
        assert_eq!(e.noise.df, Some(4.0));
        assert_eq!(e.noise.source, NoiseSource::Paired { runs: 1, rounds: 5 });
        assert!(e.ci.1 < 0.0, "{e:?}");
        assert!(e.p_value < 0.001, "{}", e.p_value);
    }

    #[test]
    fn runs_that_disagree_widen_the_interval() {
        let quiet = |offset: f64| vec![offset, offset + 0.001, offset - 0.001, offset];
        let agree = [quiet(-0.05), quiet(-0.05), quiet(-0.05)];
        let disagree = [quiet(-0.15), quiet(0.05), quiet(-0.05)];
        let a = paired_effect(&agree, 0.95).unwrap();
        let b = paired_effect(&disagree, 0.95).unwrap();
        assert!((a.log_change - b.log_change).abs() < 1e-12);
        assert_eq!(a.noise.df, Some(9.0));
        assert_eq!(b.noise.df, Some(2.0));
        assert!(b.se > 10.0 * a.se, "{} vs {}", b.se, a.se);
        assert!(b.ci.1 > 0.0 && a.ci.1 < 0.0);
    }

    #[test]
    fn a_single_round_has_nothing_to_test_against() {
        assert!(paired_effect(&[vec![0.1]], 0.95).is_none());
        assert!(paired_effect(&[vec![0.1], vec![]], 0.95).is_none());
        let same = paired_effect(&[vec![0.0, 0.0, 0.0]], 0.95).unwrap();
        assert_eq!((same.p_value, same.ci), (1.0, (0.0, 0.0)));
    }

    #[test]
    fn rounds_needed_from_one_rounds_spread() {
        // ((1.96 + 0.8416) · 0.06 / ln 1.05)² = 11.9 → 12 rounds
        assert_eq!(rounds_needed(0.06, 1.05f64.ln(), 0.05), 12);
        assert_eq!(rounds_needed(0.001, 1.05f64.ln(), 0.05), 2);
        assert_eq!(rounds_needed(0.06, 0.0, 0.05), usize::MAX);
    }
}
