//! Adjusting p-values for multiple comparisons. A comparison tests every file size,
//! record size and test at once; at 5% each, a sweep of 40 cells would report two
//! regressions by chance alone. The Benjamini–Hochberg step-up procedure (Benjamini &
//! Hochberg 1995, "Controlling the false discovery rate") bounds instead the expected
//! share of false verdicts among those reported, and loses less power than Bonferroni.
//!
//! An interval printed beside a corrected verdict must be corrected too, or a row can
//! be called inconclusive with a 95% interval wholly below zero. Benjamini & Yekutieli
//! (2005, "False discovery rate–adjusted multiple confidence intervals for selected
//! parameters", JASA 100:71–81) give the matching construction: when the step-up
//! procedure selects R of m parameters at level q, intervals at 1 − R·q/m for the
//! selected ones keep the expected share of non-covering intervals among them (the
//! false coverage-statement rate) at q.

/// Benjamini–Hochberg adjusted p-values (q-values), in the order given: the i-th
/// smallest p becomes min over j ≥ i of p₍ⱼ₎·m/j, capped at 1, so the result keeps
/// the order of the p-values. NaN counts as 1 (no evidence) and values are clamped to
/// [0, 1]. Same as R's `p.adjust(p, "BH")`.
pub fn benjamini_hochberg(p_values: &[f64]) -> Vec<f64> {
    let p: Vec<f64> = p_values.iter().map(|&p| sanitized(p)).collect();
    let m = p.len() as f64;
    let mut order: Vec<usize> = (0..p.len()).collect();
    order.sort_by(|&i, &j| p[i].total_cmp(&p[j]));
    let mut adjusted = vec![1.0; p.len()];
    let mut running_min = 1.0_f64;
    for (rank, &i) in order.iter().enumerate().rev() {
        running_min = running_min.min(p[i] * m / (rank + 1) as f64);
        adjusted[i] = running_min;
    }
    adjusted
}

/// The confidence at which to state every row's interval after Benjamini–Hochberg at
/// `alpha` (selected: adjusted p below `alpha`, as a verdict needs): 1 − R·alpha/m, the
/// false-coverage-rate adjusted level of Benjamini & Yekutieli (2005) for the R rows
/// selected among m. Rows not selected are stated at the same level, with R taken as
/// at least 1 (the level the first selection would need), so that an interval excludes
/// zero exactly when its row is selected: a selected row's p is below R·alpha/m, every
/// other row's at or above it (the step-up rule stops at the largest such R). 1 − alpha
/// for no p-value at all.
pub fn fcr_confidence(p_values: &[f64], alpha: f64) -> f64 {
    if p_values.is_empty() {
        return 1.0 - alpha;
    }
    let m = p_values.len() as f64;
    let selected = benjamini_hochberg(p_values)
        .iter()
        .filter(|&&q| q < alpha)
        .count()
        .max(1);
    1.0 - selected as f64 * alpha / m
}

/// A p-value as the procedure can use it: NaN is no evidence, the rest in [0, 1].
fn sanitized(p: f64) -> f64 {
    if p.is_nan() { 1.0 } else { p.clamp(0.0, 1.0) }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn assert_close(actual: &[f64], expected: &[f64]) {
        assert_eq!(actual.len(), expected.len());
        for (a, e) in actual.iter().zip(expected) {
            assert!((a - e).abs() < 1e-12, "{actual:?} expected {expected:?}");
        }
    }

    // Reference values: scipy 1.17.1, scipy.stats.false_discovery_control(p,
    // method='bh'), which computes what R's p.adjust(p, "BH") does.

    #[test]
    fn unsorted_input_keeps_its_order() {
        // By hand: sorted 0.005, 0.01, 0.03, 0.04, 0.5 times 5/rank give 0.025, 0.025,
        // 0.05, 0.05, 0.5, already monotone.
        let q = benjamini_hochberg(&[0.01, 0.04, 0.03, 0.005, 0.5]);
        assert_close(&q, &[0.025, 0.05, 0.05, 0.025, 0.5]);
    }

    #[test]
    fn step_up_takes_the_minimum_from_above() {
        let p = [
            0.001, 0.008, 0.039, 0.041, 0.042, 0.06, 0.074, 0.205, 0.212, 0.216,
        ];
        let expected = [
            0.01,
            0.04,
            0.084,
            0.084,
            0.084,
            0.1,
            0.1057142857142857,
            0.216,
            0.216,
            0.216,
        ];
        assert_close(&benjamini_hochberg(&p), &expected);
    }

    #[test]
    fn never_above_one_nor_below_the_raw_value() {
        // p₍ₘ₎·m/m is the largest p itself, so the running minimum never exceeds 1
        // once out-of-range values are clamped.
        assert_close(&benjamini_hochberg(&[0.9, 0.8]), &[0.9, 0.9]);
        assert_close(&benjamini_hochberg(&[0.6, 1.5, 0.7]), &[1.0, 1.0, 1.0]);
        assert_close(&benjamini_hochberg(&[-0.1, 0.2]), &[0.0, 0.2]);
    }

    #[test]
    fn intervals_are_stated_at_the_level_of_the_selection() {
        // By hand: sorted 0.005, 0.01, 0.035, 0.045, 0.5 times 5/rank give 0.025, 0.025,
        // 0.0583, 0.05625, 0.5, adjusted 0.025, 0.025, 0.05625, 0.05625, 0.5: two below
        // 0.05, so 1 − 2·0.05/5 = 0.98.
        let p = [0.01, 0.045, 0.035, 0.005, 0.5];
        assert!((fcr_confidence(&p, 0.05) - 0.98).abs() < 1e-12);
        // the selected rows' p (0.005, 0.01) lie below 1 − 0.98, the others' above it
        let level = 1.0 - fcr_confidence(&p, 0.05);
        for (&p, q) in p.iter().zip(benjamini_hochberg(&p)) {
            assert_eq!(p < level, q < 0.05, "p {p}");
        }
        // all selected: the ordinary interval; none: as if one were (Bonferroni's)
        assert!((fcr_confidence(&[0.001, 0.002], 0.05) - 0.95).abs() < 1e-12);
        assert!((fcr_confidence(&[0.3, 0.6, 0.9, 0.04], 0.05) - 0.9875).abs() < 1e-12);
        assert!((fcr_confidence(&[0.03], 0.05) - 0.95).abs() < 1e-12);
        assert!((fcr_confidence(&[], 0.05) - 0.95).abs() < 1e-12);
    }

    #[test]
    fn edge_cases() {
        assert!(benjamini_hochberg(&[]).is_empty());
        assert_close(&benjamini_hochberg(&[0.03]), &[0.03]);
        // NaN is treated as 1: m = 2, the 0.02 is the smallest of two.
        assert_close(&benjamini_hochberg(&[f64::NAN, 0.02]), &[1.0, 0.04]);
        assert_close(&benjamini_hochberg(&[0.01, 0.01]), &[0.01, 0.01]);
    }
}
