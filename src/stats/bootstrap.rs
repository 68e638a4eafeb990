//! How sure is "12% slower"? A percentile bootstrap confidence interval (Efron 1979,
//! "Bootstrap methods: another look at the jackknife"; Efron & Tibshirani 1993, ch. 13)
//! of the ratio of two medians. It assumes no distribution, which suits throughputs:
//! skewed, bounded below, with the odd slow repetition.
//!
//! Each side is resampled on its own, with replacement, since the two runs are
//! independent. The generator is seeded, so a report shows the same interval every
//! time it is rendered.

use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

use super::{Summary, median_sorted};

/// The percentile bootstrap interval of median(candidate) / median(baseline) at the
/// given `confidence` (0.95 for 95%), from `resamples` resamplings of both sides with
/// the generator seeded by `seed`: the same inputs always give the same interval.
///
/// Non-finite values are ignored. `None` when a side is empty, the baseline or
/// candidate median is 0, `confidence` is not strictly between 0 and 1, or
/// `resamples` is 0. Resamples whose baseline median is 0 (possible only when the
/// baseline holds zeros) have no ratio and are left out.
pub fn ratio_of_medians_ci(
    baseline: &[f64],
    candidate: &[f64],
    confidence: f64,
    resamples: usize,
    seed: u64,
) -> Option<(f64, f64)> {
    let valid = confidence > 0.0 && confidence < 1.0 && resamples > 0;
    let base = Summary::of(baseline)?;
    let cand = Summary::of(candidate)?;
    if !valid || base.median == 0.0 || cand.median == 0.0 {
        return None;
    }
    let base: Vec<f64> = finite(baseline);
    let cand: Vec<f64> = finite(candidate);
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let mut scratch = Vec::with_capacity(base.len().max(cand.len()));
    let mut ratios: Vec<f64> = (0..resamples)
        .map(|_| {
            let b = resampled_median(&base, &mut rng, &mut scratch);
            let c = resampled_median(&cand, &mut rng, &mut scratch);
            c / b
        })
        .filter(|r| r.is_finite())
        .collect();
    if ratios.is_empty() {
        return None;
    }
    ratios.sort_by(f64::total_cmp);
    let tail = (1.0 - confidence) / 2.0;
    Some((
        quantile_sorted(&ratios, tail),
        quantile_sorted(&ratios, 1.0 - tail),
    ))
}

fn finite(values: &[f64]) -> Vec<f64> {
    values.iter().copied().filter(|x| x.is_finite()).collect()
}

/// The median of one resample of `values` with replacement, drawn into `scratch` so
/// thousands of resamples allocate once.
fn resampled_median(values: &[f64], rng: &mut impl Rng, scratch: &mut Vec<f64>) -> f64 {
    scratch.clear();
    scratch.extend((0..values.len()).map(|_| values[uniform_index(rng, values.len())]));
    scratch.sort_by(f64::total_cmp);
    median_sorted(scratch)
}

/// A uniform index below `n` by Lemire's multiply-shift: the high word of a 64-bit
/// draw times n. The bias, n/2⁶⁴, is far below anything a bootstrap could show, and
/// the mapping is ours, so intervals do not move with the `rand` version.
fn uniform_index(rng: &mut impl Rng, n: usize) -> usize {
    ((u128::from(rng.next_u64()) * n as u128) >> 64) as usize
}

/// The q-quantile of an ascending, non-empty slice, interpolating linearly between
/// order statistics (Hyndman & Fan 1996 type 7, the default of R and NumPy).
fn quantile_sorted(v: &[f64], q: f64) -> f64 {
    let h = (v.len() - 1) as f64 * q.clamp(0.0, 1.0);
    let lo = h.floor() as usize;
    let hi = (lo + 1).min(v.len() - 1);
    v[lo] + (h - lo as f64) * (v[hi] - v[lo])
}

#[cfg(test)]
mod tests {
    use super::*;

    const BASE: [f64; 5] = [101.0, 98.5, 100.2, 103.1, 97.9];

    #[test]
    fn the_same_seed_gives_the_same_interval() {
        let cand = [90.0, 95.5, 92.1, 99.0, 91.3];
        let first = ratio_of_medians_ci(&BASE, &cand, 0.95, 2000, 7);
        assert_eq!(first, ratio_of_medians_ci(&BASE, &cand, 0.95, 2000, 7));
        assert!(first.is_some());
    }

    #[test]
    fn the_seed_matters() {
        // Five values give few distinct medians, so two seeds often agree on the
        // interval; forty spread values make the interpolated bounds seed-specific.
        let base: Vec<f64> = (0..40)
            .map(|i| 100.0 + f64::from(i * 7 % 40) / 4.0)
            .collect();
        let cand: Vec<f64> = base.iter().map(|x| x * 0.9).collect();
        let a = ratio_of_medians_ci(&base, &cand, 0.95, 500, 7);
        assert_ne!(a, ratio_of_medians_ci(&base, &cand, 0.95, 500, 8));
    }

    #[test]
    fn identical_samples_contain_one() {
        let (low, high) = ratio_of_medians_ci(&BASE, &BASE, 0.95, 2000, 1).unwrap();
        assert!(low <= 1.0 && 1.0 <= high, "({low}, {high})");
        assert!(low > 0.9 && high < 1.1, "({low}, {high})");
    }

    #[test]
    fn a_doubling_is_bracketed_and_excludes_one() {
        let cand: Vec<f64> = BASE.iter().map(|x| 2.0 * x).collect();
        let (low, high) = ratio_of_medians_ci(&BASE, &cand, 0.95, 2000, 1).unwrap();
        assert!(low <= 2.0 && 2.0 <= high, "({low}, {high})");
        assert!(low > 1.8 && high < 2.2, "({low}, {high})");
    }

    #[test]
    fn single_values_give_a_degenerate_interval() {
        assert_eq!(
            ratio_of_medians_ci(&[50.0], &[75.0], 0.95, 100, 3),
            Some((1.5, 1.5))
        );
    }

    #[test]
    fn refuses_what_has_no_ratio() {
        assert_eq!(ratio_of_medians_ci(&[], &[1.0], 0.95, 100, 0), None);
        assert_eq!(ratio_of_medians_ci(&[1.0], &[f64::NAN], 0.95, 100, 0), None);
        assert_eq!(
            ratio_of_medians_ci(&[0.0, 0.0, 1.0], &[1.0], 0.95, 100, 0),
            None
        );
        assert_eq!(ratio_of_medians_ci(&[1.0], &[0.0], 0.95, 100, 0), None);
        assert_eq!(ratio_of_medians_ci(&[1.0], &[2.0], 1.0, 100, 0), None);
        assert_eq!(ratio_of_medians_ci(&[1.0], &[2.0], 0.95, 0, 0), None);
    }

    #[test]
    fn quantiles_interpolate_between_order_statistics() {
        // numpy.quantile([1, 2, 3, 4], [0, 0.25, 0.5, 1]) = [1, 1.75, 2.5, 4].
        let v = [1.0, 2.0, 3.0, 4.0];
        assert_eq!(quantile_sorted(&v, 0.0), 1.0);
        assert_eq!(quantile_sorted(&v, 0.25), 1.75);
        assert_eq!(quantile_sorted(&v, 0.5), 2.5);
        assert_eq!(quantile_sorted(&v, 1.0), 4.0);
        assert_eq!(quantile_sorted(&[7.0], 0.3), 7.0);
    }

    #[test]
    fn indices_stay_in_range_and_cover_it() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(0);
        let mut seen = [0usize; 3];
        for _ in 0..3000 {
            seen[uniform_index(&mut rng, 3)] += 1;
        }
        assert!(seen.iter().all(|&c| (900..1100).contains(&c)), "{seen:?}");
    }
}
