//! Where did a series of throughputs change level? For `iozone trend`: the runs of
//! one cell in time order, and the points where the figure stepped up or down, such
//! as the upgrade that made writes 15% slower.
//!
//! Binary segmentation (Scott & Knott 1974, "A cluster analysis method for grouping
//! means"; Vostrikova 1981): split the series where two means explain it best, that
//! is where the sum of squared errors drops most, keep the split only if it is large
//! and clear, and split both halves again. It works on log throughput, so a step is a
//! ratio whatever the level, and multiplicative noise becomes additive. After the
//! search, steps that a later split left smaller than `min_step` are merged away, so
//! every change point reported is at least that large.
//!
//! [`segments`] cuts a series into the stretches of one level that a measure of noise
//! may pool (`compare` takes run-to-run variance only within them): at the change
//! points, and between runs of different strata (what a run was measured on, which
//! the caller tells), so no step, found or known, is ever counted as noise.

/// How many standard errors a step must span to count. The statistic is the
/// two-sample t with the pooled variance of the two segments, whose square is the F
/// ratio of the sum-of-squares reduction the split maximises, so the test and the
/// search agree. Pooled rather than Welch: a segment of three repetitions that
/// happen to agree would otherwise claim a tiny variance and a huge t, and an outlier
/// inflates the pooled variance instead of passing as a step. 4 rather than the
/// usual 2: the split is the best of up to n, not one chosen in advance. In a
/// simulation of flat series with 3–5% Gaussian noise, the best split's t exceeded 4
/// in about 1% of 20-point series and 0.4% of 100-point ones (2% of 8-point ones),
/// while a 15% step between two 10-point halves with 5% noise has t ≈ 6.
pub const MIN_T: f64 = 4.0;

/// A step in a series: where it happened and between which levels.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ChangePoint {
    /// Index of the first value at the new level.
    pub index: usize,
    /// The level before: the geometric mean of the segment ending at `index`.
    pub before: f64,
    /// The level after: the geometric mean of the segment starting at `index`.
    pub after: f64,
    /// after / before − 1, in percent: −15.0 for a 15% drop.
    pub change_pct: f64,
}

/// The level changes of `values`, throughputs in time order, sorted by index.
///
/// A step counts when it is larger than `min_step` (a fraction: 0.05 for 5%; in log
/// terms, so a drop counts from 1/1.05, i.e. −4.8%), spans [`MIN_T`] standard
/// errors, and leaves at least `min_segment` values on each side. Values must be
/// positive and finite to take their logarithm; any other value gives no change
/// points, as does a series shorter than 2·`min_segment`.
pub fn change_points(values: &[f64], min_step: f64, min_segment: usize) -> Vec<ChangePoint> {
    if values.iter().any(|&v| !(v.is_finite() && v > 0.0)) {
        return Vec::new();
    }
    let logs: Vec<f64> = values.iter().map(|v| v.ln()).collect();
    let min_log_step = min_step.ln_1p();
    let cuts = binary_segmentation(&logs, min_log_step, min_segment.max(1));
    let cuts = merge_small_steps(&logs, cuts, min_log_step);
    describe(&logs, &cuts)
}

/// A series cut into segments: which segment each value belongs to, and the change
/// points that cut it.
#[derive(Clone, Debug, PartialEq)]
pub struct Segments {
    /// The segment of each value, numbered in the order segments first appear.
    pub of: Vec<usize>,
    /// The change points of the whole series, as [`change_points`] finds them.
    pub steps: Vec<ChangePoint>,
}

/// Cuts `values` (throughputs in time order) at the change points [`change_points`]
/// finds in the whole series with `min_step` and `min_segment`, and apart by
/// `strata` (one per value): two values share a segment when no change point lies
/// between them and their strata are equal. A stratum may come back after others
/// (two configurations measured in turn): its values between the same change points
/// are one segment, since nothing says they differ.
pub fn segments(values: &[f64], strata: &[usize], min_step: f64, min_segment: usize) -> Segments {
    assert_eq!(values.len(), strata.len(), "a stratum per value");
    let steps = change_points(values, min_step, min_segment);
    let mut numbers: std::collections::HashMap<(usize, usize), usize> = Default::default();
    let of = (0..values.len())
        .map(|i| {
            let piece = steps.iter().take_while(|c| c.index <= i).count();
            let next = numbers.len();
            *numbers.entry((piece, strata[i])).or_insert(next)
        })
        .collect();
    Segments { of, steps }
}

/// The accepted split indices, ascending. A work list rather than recursion keeps
/// long histories off the call stack.
fn binary_segmentation(logs: &[f64], min_log_step: f64, min_segment: usize) -> Vec<usize> {
    let mut cuts = Vec::new();
    let mut pending = vec![(0, logs.len())];
    while let Some((lo, hi)) = pending.pop() {
        let segment = &logs[lo..hi];
        let Some(k) = best_split(segment, min_segment) else {
            continue;
        };
        if is_clear_step(&segment[..k], &segment[k..], min_log_step) {
            cuts.push(lo + k);
            pending.push((lo, lo + k));
            pending.push((lo + k, hi));
        }
    }
    cuts.sort_unstable();
    cuts
}

/// The split k (segment[..k] | segment[k..]) that most reduces the sum of squared
/// errors around the mean, both sides at least `min_segment` long. That reduction is
/// n₁n₂/n · (mean₁ − mean₂)², computed from prefix sums.
fn best_split(segment: &[f64], min_segment: usize) -> Option<usize> {
    let n = segment.len();
    if n < 2 * min_segment {
        return None;
    }
    let prefix: Vec<f64> = std::iter::once(0.0)
        .chain(segment.iter().scan(0.0, |sum, x| {
            *sum += x;
            Some(*sum)
        }))
        .collect();
    let reduction = |k: usize| {
        let (n1, n2) = (k as f64, (n - k) as f64);
        let gap = prefix[k] / n1 - (prefix[n] - prefix[k]) / n2;
        n1 * n2 / (n1 + n2) * gap * gap
    };
    (min_segment..=n - min_segment).max_by(|&a, &b| reduction(a).total_cmp(&reduction(b)))
}

/// Whether the step between two adjacent segments is both larger than
/// `min_log_step` and at least [`MIN_T`] pooled standard errors.
fn is_clear_step(left: &[f64], right: &[f64], min_log_step: f64) -> bool {
    let (n1, n2) = (left.len() as f64, right.len() as f64);
    if n1 + n2 <= 2.0 {
        // No degree of freedom left to estimate the noise.
        return false;
    }
    let (m1, m2) = (mean(left), mean(right));
    let pooled_variance =
        (squared_deviations(left, m1) + squared_deviations(right, m2)) / (n1 + n2 - 2.0);
    let standard_error = (pooled_variance * (1.0 / n1 + 1.0 / n2)).sqrt();
    let step = (m2 - m1).abs();
    // Multiplied rather than divided: noiseless segments have a standard error of 0.
    step > min_log_step && step >= MIN_T * standard_error
}

/// Drops, one at a time and smallest first, the cuts whose neighbouring segments
/// differ by no more than `min_log_step`: a later split can leave an accepted step
/// between two smaller segments whose levels are closer than the halves' were.
fn merge_small_steps(logs: &[f64], mut cuts: Vec<usize>, min_log_step: f64) -> Vec<usize> {
    loop {
        let bounds = bounds(&cuts, logs.len());
        let smallest = bounds
            .windows(3)
            .map(|w| (mean(&logs[w[1]..w[2]]) - mean(&logs[w[0]..w[1]])).abs())
            .enumerate()
            .min_by(|a, b| a.1.total_cmp(&b.1));
        match smallest {
            Some((i, step)) if step <= min_log_step => {
                cuts.remove(i);
            }
            _ => return cuts,
        }
    }
}

/// The change points at `cuts`, each between the segments on either side.
fn describe(logs: &[f64], cuts: &[usize]) -> Vec<ChangePoint> {
    bounds(cuts, logs.len())
        .windows(3)
        .map(|w| {
            let before = mean(&logs[w[0]..w[1]]).exp();
            let after = mean(&logs[w[1]..w[2]]).exp();
            ChangePoint {
                index: w[1],
                before,
                after,
                change_pct: (after / before - 1.0) * 100.0,
            }
        })
        .collect()
}

/// The segment boundaries: 0, the cuts, then `len`.
fn bounds(cuts: &[usize], len: usize) -> Vec<usize> {
    std::iter::once(0)
        .chain(cuts.iter().copied())
        .chain(std::iter::once(len))
        .collect()
}

fn mean(values: &[f64]) -> f64 {
    values.iter().sum::<f64>() / values.len() as f64
}

fn squared_deviations(values: &[f64], mean: f64) -> f64 {
    values.iter().map(|x| (x - mean) * (x - mean)).sum()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::gaussian::Gaussian;

    const MIN_STEP: f64 = 0.05;
    const MIN_SEGMENT: usize = 3;

    /// `levels` with multiplicative Gaussian noise of relative size `noise`.
    fn noisy(levels: &[f64], noise: f64, seed: u64) -> Vec<f64> {
        let mut z = Gaussian::new(seed);
        levels
            .iter()
            .map(|l| l * (1.0 + noise * z.sample()))
            .collect()
    }

    fn steps(levels: &[(f64, usize)]) -> Vec<f64> {
        levels
            .iter()
            .flat_map(|&(l, n)| std::iter::repeat_n(l, n))
            .collect()
    }

    fn indices(points: &[ChangePoint]) -> Vec<usize> {
        points.iter().map(|p| p.index).collect()
    }

    #[test]
    fn flat_noisy_series_have_no_change_points() {
        for seed in 0..20 {
            for noise in [0.03, 0.05] {
                let values = noisy(&[100.0; 20], noise, seed);
                let found = change_points(&values, MIN_STEP, MIN_SEGMENT);
                assert!(found.is_empty(), "seed {seed}, noise {noise}: {found:?}");
            }
        }
    }

    #[test]
    fn a_clean_step_down_is_found_exactly() {
        let values = steps(&[(100.0, 10), (85.0, 10)]);
        let found = change_points(&values, MIN_STEP, MIN_SEGMENT);
        assert_eq!(found.len(), 1);
        let p = found[0];
        assert_eq!(p.index, 10);
        assert!((p.before - 100.0).abs() < 1e-9 && (p.after - 85.0).abs() < 1e-9);
        assert!((p.change_pct + 15.0).abs() < 1e-9);
    }

    #[test]
    fn a_noisy_step_down_is_found_at_its_index() {
        for seed in 0..20 {
            let values = noisy(&steps(&[(100.0, 10), (85.0, 10)]), 0.03, seed);
            let found = change_points(&values, MIN_STEP, MIN_SEGMENT);
            assert_eq!(indices(&found), vec![10], "seed {seed}: {found:?}");
            assert!(
                (found[0].change_pct + 15.0).abs() < 4.0,
                "seed {seed}: {found:?}"
            );
        }
    }

    #[test]
    fn a_step_up_is_found() {
        let values = noisy(&steps(&[(100.0, 8), (120.0, 12)]), 0.03, 1);
        let found = change_points(&values, MIN_STEP, MIN_SEGMENT);
        assert_eq!(indices(&found), vec![8]);
        assert!(
            found[0].change_pct > 10.0 && found[0].change_pct < 30.0,
            "{found:?}"
        );
    }

    #[test]
    fn two_steps_are_both_found() {
        let values = noisy(&steps(&[(100.0, 10), (80.0, 10), (110.0, 10)]), 0.03, 2);
        let found = change_points(&values, MIN_STEP, MIN_SEGMENT);
        assert_eq!(indices(&found), vec![10, 20], "{found:?}");
        assert!(found[0].change_pct < 0.0 && found[1].change_pct > 0.0);
        // Adjacent levels are shared: the second step starts where the first ended.
        assert_eq!(found[0].after, found[1].before);
    }

    #[test]
    fn a_step_at_the_edge_respects_min_segment() {
        let values = steps(&[(100.0, 2), (70.0, 10)]);
        assert!(change_points(&values, MIN_STEP, MIN_SEGMENT).is_empty());
        let values = steps(&[(100.0, 3), (70.0, 10)]);
        assert_eq!(
            indices(&change_points(&values, MIN_STEP, MIN_SEGMENT)),
            vec![3]
        );
    }

    #[test]
    fn short_series_have_no_change_points() {
        let values = steps(&[(100.0, 3), (50.0, 2)]);
        assert!(change_points(&values, MIN_STEP, MIN_SEGMENT).is_empty());
        assert!(change_points(&[], MIN_STEP, MIN_SEGMENT).is_empty());
        assert!(change_points(&[100.0], MIN_STEP, 0).is_empty());
    }

    #[test]
    fn one_outlier_is_not_a_change() {
        for at in [0, 1, 5, 10, 18, 19] {
            let mut values = noisy(&[100.0; 20], 0.03, 3);
            values[at] = 50.0;
            let found = change_points(&values, MIN_STEP, MIN_SEGMENT);
            assert!(found.is_empty(), "outlier at {at}: {found:?}");
        }
    }

    #[test]
    fn steps_below_min_step_are_ignored() {
        let values = steps(&[(100.0, 10), (97.0, 10)]);
        assert!(change_points(&values, MIN_STEP, MIN_SEGMENT).is_empty());
    }

    #[test]
    fn values_without_a_logarithm_give_nothing() {
        let mut values = steps(&[(100.0, 10), (50.0, 10)]);
        values[4] = 0.0;
        assert!(change_points(&values, MIN_STEP, MIN_SEGMENT).is_empty());
        values[4] = f64::NAN;
        assert!(change_points(&values, MIN_STEP, MIN_SEGMENT).is_empty());
    }

    #[test]
    fn segments_are_cut_at_change_points_and_between_strata() {
        // 100 ×6 then 80 ×6 (one step at 6), strata A A B A A A | A A A B B A
        let values = steps(&[(100.0, 6), (80.0, 6)]);
        let strata = [0, 0, 1, 0, 0, 0, 0, 0, 0, 1, 1, 0];
        let s = segments(&values, &strata, MIN_STEP, MIN_SEGMENT);
        assert_eq!(indices(&s.steps), vec![6]);
        assert_eq!(s.of, vec![0, 0, 1, 0, 0, 0, 2, 2, 2, 3, 3, 2]);
        // no step and one stratum: one segment
        let flat = segments(&[100.0; 5], &[7; 5], MIN_STEP, MIN_SEGMENT);
        assert_eq!(flat.of, vec![0; 5]);
        assert!(flat.steps.is_empty());
        assert_eq!(
            segments(&[], &[], MIN_STEP, MIN_SEGMENT).of,
            Vec::<usize>::new()
        );
    }

    #[test]
    fn merging_removes_steps_a_later_split_shrank() {
        // Logs 0 | 0.1 | 0.05 with cuts at 3 and 6: steps of 0.1 and 0.05, both above
        // ln 1.05 ≈ 0.0488. At a threshold of 0.07 the second goes, and the first,
        // now between 0 and 0.075, stays.
        let logs = [0.0, 0.0, 0.0, 0.1, 0.1, 0.1, 0.05, 0.05, 0.05];
        assert_eq!(
            merge_small_steps(&logs, vec![3, 6], 0.05_f64.ln_1p()),
            vec![3, 6]
        );
        assert_eq!(merge_small_steps(&logs, vec![3, 6], 0.07), vec![3]);
    }
}
