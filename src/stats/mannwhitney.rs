//! The Mann–Whitney U test (Mann & Whitney 1947; Wilcoxon 1945): did two sets of
//! repetitions come from the same distribution? Rank-based, so it needs no normality
//! and one wild repetition moves it by one rank only.
//!
//! Small samples without ties get the exact null distribution of U, counted with the
//! Gaussian binomial coefficient (the generating function of U is
//! `[m + n choose m]_q`, Mann & Whitney 1947, §2). Larger or tied samples get the
//! normal approximation with the tie-corrected variance and a continuity correction
//! of 0.5, as in `scipy.stats.mannwhitneyu(method='asymptotic')`.

use std::f64::consts::{FRAC_2_SQRT_PI, SQRT_2};

/// Both samples at most this large (and no ties) get the exact p-value. The counts
/// then stay below C(40, 20) ≈ 1.4·10¹¹, exact in integers, and by then the normal
/// approximation has caught up (0.08585 against the exact 0.08591 in the 20-a-side
/// test below; at 4 a side it is 0.0304 against 0.0286).
pub const EXACT_MAX_N: usize = 20;

/// How the p-value was computed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Method {
    /// From the exact null distribution of U (small samples, no ties).
    Exact,
    /// From the normal approximation with tie and continuity corrections.
    Normal,
}

/// The outcome of a two-sided Mann–Whitney U test.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MannWhitney {
    /// U of the first sample: its rank sum minus n_a(n_a + 1)/2, with midranks for
    /// ties. 0 when every value of `a` is below every value of `b`, n_a·n_b when above.
    pub u: f64,
    /// Two-sided p-value, in (0, 1].
    pub p_value: f64,
    /// Whether `p_value` is exact or approximate.
    pub method: Method,
}

/// Tests whether `a` and `b` differ in location, two-sided. Non-finite values are
/// ignored; `None` when either sample has no finite value.
pub fn mann_whitney_u(a: &[f64], b: &[f64]) -> Option<MannWhitney> {
    let a: Vec<f64> = a.iter().copied().filter(|x| x.is_finite()).collect();
    let b: Vec<f64> = b.iter().copied().filter(|x| x.is_finite()).collect();
    if a.is_empty() || b.is_empty() {
        return None;
    }
    let (na, nb) = (a.len(), b.len());
    let pooled: Vec<f64> = a.iter().chain(&b).copied().collect();
    let (ranks, tie_term) = midranks(&pooled);
    let rank_sum_a: f64 = ranks[..na].iter().sum();
    let u = rank_sum_a - (na * (na + 1)) as f64 / 2.0;
    let exact = tie_term == 0.0 && na <= EXACT_MAX_N && nb <= EXACT_MAX_N;
    let (p_value, method) = if exact {
        (exact_p(u, na, nb), Method::Exact)
    } else {
        (normal_p(u, na, nb, tie_term), Method::Normal)
    };
    Some(MannWhitney { u, p_value, method })
}

/// 1-based ranks, tied values sharing the mean of the ranks they span, and
/// Σ(t³ − t) over the groups of t tied values, which the variance of U needs.
fn midranks(values: &[f64]) -> (Vec<f64>, f64) {
    let mut order: Vec<usize> = (0..values.len()).collect();
    order.sort_by(|&i, &j| values[i].total_cmp(&values[j]));
    let mut ranks = vec![0.0; values.len()];
    let mut tie_term = 0.0;
    let mut start = 0;
    while start < order.len() {
        let first = values[order[start]];
        let len = order[start..]
            .iter()
            .take_while(|&&k| values[k] == first)
            .count();
        let end = start + len;
        // Ranks start + 1 ..= end, whose mean is their midpoint.
        let rank = (start + 1 + end) as f64 / 2.0;
        for &k in &order[start..end] {
            ranks[k] = rank;
        }
        let t = len as f64;
        tie_term += t * t * t - t;
        start = end;
    }
    (ranks, tie_term)
}

/// Two-sided exact p-value: twice the smaller tail at `u`, at most 1.
fn exact_p(u: f64, na: usize, nb: usize) -> f64 {
    let counts = u_null_counts(na, nb);
    let total: u64 = counts.iter().sum();
    // Without ties U is a whole number.
    let k = u as usize;
    let lower: u64 = counts[..=k].iter().sum();
    let upper: u64 = counts[k..].iter().sum();
    (2.0 * lower.min(upper) as f64 / total as f64).min(1.0)
}

/// How many of the C(m + n, m) orderings of two samples of sizes m and n give
/// U = 0, 1, …, m·n: the coefficients of the Gaussian binomial
/// ∏ᵢ₌₁..ₘ (1 − q^(n+i)) / (1 − q^i). Each step multiplies by the numerator, then
/// divides exactly by the denominator (a running sum with stride i), so everything
/// stays in integers; the product may dip below zero before its division, hence i64.
fn u_null_counts(m: usize, n: usize) -> Vec<u64> {
    let mut poly = vec![0i64; m * n + m + 1];
    poly[0] = 1;
    for i in 1..=m {
        for k in (n + i..poly.len()).rev() {
            poly[k] -= poly[k - n - i];
        }
        for k in i..poly.len() {
            poly[k] += poly[k - i];
        }
    }
    poly.truncate(m * n + 1);
    poly.into_iter().map(|c| c as u64).collect()
}

/// Two-sided p-value from the normal approximation: the variance corrected for ties,
/// |U − mean| reduced by 0.5 for continuity. All values tied leaves no variance and
/// no evidence: p = 1.
fn normal_p(u: f64, na: usize, nb: usize, tie_term: f64) -> f64 {
    let (na, nb) = (na as f64, nb as f64);
    let n = na + nb;
    let variance = na * nb / 12.0 * ((n + 1.0) - tie_term / (n * (n - 1.0)));
    if variance <= 0.0 {
        return 1.0;
    }
    let z = ((u - na * nb / 2.0).abs() - 0.5) / variance.sqrt();
    if z <= 0.0 {
        return 1.0;
    }
    // 2·P(Z > z) for a standard normal Z.
    erfc(z / SQRT_2).min(1.0)
}

/// The complementary error function, to about 1e-13 relative. std has none yet.
/// Below 2, 1 − erf(x) from erf's series of positive terms (no cancellation inside
/// the sum); from 2 on, the Laplace continued fraction, which converges fast there
/// and keeps the relative accuracy of the tiny tails.
fn erfc(x: f64) -> f64 {
    if x < 0.0 {
        2.0 - erfc(-x)
    } else if x < 2.0 {
        1.0 - erf_series(x)
    } else {
        erfc_continued_fraction(x)
    }
}

/// erf(x) = 2/√π · e^(−x²) · Σₖ 2ᵏ x^(2k+1) / (1·3·…·(2k+1)), for 0 ≤ x < 2.
fn erf_series(x: f64) -> f64 {
    let mut term = x;
    let mut sum = x;
    let mut k = 0.0;
    while term > 1e-17 * sum {
        k += 1.0;
        term *= 2.0 * x * x / (2.0 * k + 1.0);
        sum += term;
    }
    FRAC_2_SQRT_PI * (-x * x).exp() * sum
}

/// erfc(x) = e^(−x²)/√π · 1/(x + (1/2)/(x + 1/(x + (3/2)/(x + …)))), evaluated
/// backwards from a depth that reaches full double precision at x = 2.
fn erfc_continued_fraction(x: f64) -> f64 {
    let mut f = x;
    for k in (1..=60).rev() {
        f = x + (k as f64 / 2.0) / f;
    }
    FRAC_2_SQRT_PI / 2.0 * (-x * x).exp() / f
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(actual: f64, expected: f64) -> bool {
        (actual - expected).abs() <= 1e-9 * expected.abs().max(1e-300)
    }

    fn check(a: &[f64], b: &[f64], u: f64, p: f64, method: Method) {
        let r = mann_whitney_u(a, b).unwrap();
        assert_eq!(r.u, u, "U of {a:?} vs {b:?}");
        assert!(close(r.p_value, p), "p {} expected {p}", r.p_value);
        assert_eq!(r.method, method);
    }

    // Reference values: scipy 1.17.1,
    // scipy.stats.mannwhitneyu(a, b, method=M, use_continuity=True,
    // alternative='two-sided'), with M = 'exact' for Method::Exact and
    // 'asymptotic' for Method::Normal; U is scipy's statistic (that of `a`).

    #[test]
    fn complete_separation_is_exact() {
        let low = [1.0, 2.0, 3.0, 4.0];
        let high = [5.0, 6.0, 7.0, 8.0];
        check(&low, &high, 0.0, 0.02857142857142857, Method::Exact);
        check(&high, &low, 16.0, 0.02857142857142857, Method::Exact);
    }

    #[test]
    fn overlapping_small_samples() {
        let a = [1.1, 2.3, 3.5, 5.2, 6.0];
        let b = [2.0, 4.1, 4.8, 7.3, 8.8, 9.5];
        check(&a, &b, 8.0, 0.24675324675324672, Method::Exact);
        check(
            &[2.0, 9.0, 1.0],
            &[4.0, 6.0, 5.0, 3.0, 8.0, 7.0],
            6.0,
            0.5476190476190476,
            Method::Exact,
        );
    }

    #[test]
    fn unequal_sizes() {
        let b = [
            1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 11.0, 12.0, 13.0,
        ];
        check(
            &[10.0, 20.0, 30.0],
            &b,
            33.0,
            0.03076923076923077,
            Method::Exact,
        );
        // 21 values are beyond EXACT_MAX_N: normal even without ties.
        let a: Vec<f64> = (0..21).map(f64::from).collect();
        let b = [2.5, 7.5, 30.5, 40.5, 50.5];
        check(&a, &b, 31.0, 0.17185733906279932, Method::Normal);
    }

    #[test]
    fn exact_at_the_largest_exact_size() {
        let a: Vec<f64> = (0..20).map(|i| f64::from(2 * i)).collect();
        let b: Vec<f64> = (0..20).map(|i| f64::from(2 * i + 7)).collect();
        check(&a, &b, 136.0, 0.0859140199856938, Method::Exact);
    }

    #[test]
    fn ties_use_the_corrected_normal_approximation() {
        let a = [1.0, 2.0, 2.0, 3.0, 3.0, 3.0, 4.0];
        let b = [2.0, 3.0, 4.0, 4.0, 5.0, 5.0, 6.0, 7.0];
        check(&a, &b, 8.5, 0.025279736885893914, Method::Normal);
    }

    #[test]
    fn large_samples_use_the_normal_approximation() {
        let a: Vec<f64> = (1..=30).map(f64::from).collect();
        let b: Vec<f64> = a.iter().map(|x| x + 10.5).collect();
        check(&a, &b, 190.0, 0.00012477053789099933, Method::Normal);
    }

    #[test]
    fn identical_samples_give_no_evidence() {
        let a = [1.0, 2.0, 3.0];
        check(&a, &a, 4.5, 1.0, Method::Normal);
        check(&[5.0; 3], &[5.0; 4], 6.0, 1.0, Method::Normal);
        check(&[5.0], &[5.0], 0.5, 1.0, Method::Normal);
    }

    #[test]
    fn one_value_each() {
        check(&[3.0], &[7.0], 0.0, 1.0, Method::Exact);
        check(&[7.0], &[3.0], 1.0, 1.0, Method::Exact);
    }

    #[test]
    fn empty_or_non_finite_samples() {
        assert!(mann_whitney_u(&[], &[1.0]).is_none());
        assert!(mann_whitney_u(&[1.0], &[]).is_none());
        assert!(mann_whitney_u(&[f64::NAN], &[1.0]).is_none());
        check(
            &[1.0, f64::NAN, 2.0],
            &[3.0, 4.0],
            0.0,
            1.0 / 3.0,
            Method::Exact,
        );
    }

    #[test]
    fn null_counts_are_the_gaussian_binomial() {
        // [4 choose 2]_q = 1 + q + 2q² + q³ + q⁴.
        assert_eq!(u_null_counts(2, 2), vec![1, 1, 2, 1, 1]);
        assert_eq!(u_null_counts(1, 3), vec![1, 1, 1, 1]);
        assert_eq!(u_null_counts(0, 3), vec![1]);
        let total: u64 = u_null_counts(20, 20).iter().sum();
        assert_eq!(total, 137_846_528_820); // C(40, 20)
    }

    #[test]
    fn midranks_share_tied_ranks() {
        let (ranks, ties) = midranks(&[3.0, 1.0, 3.0, 2.0, 3.0]);
        assert_eq!(ranks, vec![4.0, 1.0, 4.0, 2.0, 4.0]);
        assert_eq!(ties, 24.0); // one group of 3: 27 − 3
    }

    #[test]
    fn erfc_matches_reference_values() {
        // Python's math.erfc.
        let cases = [
            (0.0, 1.0),
            (0.1, 0.8875370839817152),
            (0.5, 0.4795001221869535),
            (1.0, 0.15729920705028513),
            (1.5, 0.033894853524689274),
            (2.0, 0.004677734981047265),
            (2.5, 0.0004069520174449589),
            (3.0, 2.2090496998585438e-05),
            (5.0, 1.5374597944280351e-12),
            (10.0, 2.088487583762545e-45),
        ];
        for (x, expected) in cases {
            let got = erfc(x);
            assert!(
                (got - expected).abs() <= 1e-12 * expected,
                "erfc({x}) = {got}"
            );
        }
        assert!((erfc(-1.0) - (2.0 - 0.15729920705028513)).abs() < 1e-15);
    }
}
