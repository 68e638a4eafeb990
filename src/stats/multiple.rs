//! Adjusting p-values for multiple comparisons. A comparison tests every file size,
//! record size and test at once; at 5% each, a sweep of 40 cells would report two
//! regressions by chance alone. The Benjamini–Hochberg step-up procedure (Benjamini &
//! Hochberg 1995, "Controlling the false discovery rate") bounds instead the expected
//! share of false verdicts among those reported, and loses less power than Bonferroni.

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
    fn edge_cases() {
        assert!(benjamini_hochberg(&[]).is_empty());
        assert_close(&benjamini_hochberg(&[0.03]), &[0.03]);
        // NaN is treated as 1: m = 2, the 0.02 is the smallest of two.
        assert_close(&benjamini_hochberg(&[f64::NAN, 0.02]), &[1.0, 0.04]);
        assert_close(&benjamini_hochberg(&[0.01, 0.01]), &[0.01, 0.01]);
    }
}
