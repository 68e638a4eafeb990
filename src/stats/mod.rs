//! Pure statistics on repetitions' figures. No I/O, no formatting.

pub mod changepoint;
#[cfg(test)]
pub(crate) mod gaussian;
pub mod multiple;
pub mod paired;
pub mod runlevel;

pub use changepoint::{ChangePoint, Segments, change_points, segments};
pub use multiple::{benjamini_hochberg, fcr_confidence};

/// Repetitions above this relative range (max − min over median) are called noisy.
pub const NOISY_RANGE: f64 = 0.10;

/// The median and spread of one cell's repetitions.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Summary {
    pub n: usize,
    pub median: f64,
    pub min: f64,
    pub max: f64,
}

impl Summary {
    /// `None` for no values; non-finite values are ignored.
    pub fn of(values: &[f64]) -> Option<Summary> {
        let mut v: Vec<f64> = values.iter().copied().filter(|x| x.is_finite()).collect();
        if v.is_empty() {
            return None;
        }
        v.sort_by(f64::total_cmp);
        Some(Summary {
            n: v.len(),
            median: median_sorted(&v),
            min: v[0],
            max: v[v.len() - 1],
        })
    }

    /// (max − min) / median: how far apart the repetitions were, relative to the figure.
    pub fn relative_range(&self) -> f64 {
        if self.median == 0.0 {
            return 0.0;
        }
        (self.max - self.min) / self.median
    }

    /// Half the relative range, in percent: the `±` shown beside a median.
    pub fn spread_pct(&self) -> f64 {
        self.relative_range() * 50.0
    }

    pub fn is_noisy(&self) -> bool {
        self.relative_range() > NOISY_RANGE
    }
}

/// A distribution-free 95% confidence interval of the median: the order statistics
/// (x₍ⱼ₎, x₍ₙ₋ⱼ₊₁₎) with the largest j whose binomial coverage 1 − 2·P(B ≤ j − 1),
/// B ~ Bin(n, ½), is still at least 95% (Conover 1999, §3.2). `None` below six values,
/// where even (min, max) covers less than 95%.
pub fn median_ci(values: &[f64]) -> Option<(f64, f64)> {
    let mut v: Vec<f64> = values.iter().copied().filter(|x| x.is_finite()).collect();
    v.sort_by(f64::total_cmp);
    let n = v.len();
    let mut j = 0; // 0-based index of the lower bound
    let mut tail = 0.5f64.powi(n as i32); // P(B ≤ j) for the candidate j + 1
    let mut choose = 1.0f64;
    if n == 0 || 1.0 - 2.0 * tail < 0.95 {
        return None;
    }
    // grow j while the interval one step narrower still covers 95%
    while j + 1 < n / 2 {
        choose *= (n - j) as f64 / (j + 1) as f64;
        let next_tail = tail + choose * 0.5f64.powi(n as i32);
        if 1.0 - 2.0 * next_tail < 0.95 {
            break;
        }
        tail = next_tail;
        j += 1;
    }
    Some((v[j], v[n - 1 - j]))
}

/// How precisely the values pin their median down: the larger distance from the
/// median to an end of its 95% interval, relative to the median. `None` when there
/// is no interval (fewer than six values) or the median is 0.
pub fn median_half_width(values: &[f64]) -> Option<f64> {
    let (lo, hi) = median_ci(values)?;
    let median = Summary::of(values)?.median;
    (median > 0.0).then(|| ((median - lo).max(hi - median)) / median)
}

/// The median of an ascending, non-empty slice.
pub fn median_sorted(v: &[f64]) -> f64 {
    let mid = v.len() / 2;
    if v.len() % 2 == 1 {
        v[mid]
    } else {
        (v[mid - 1] + v[mid]) / 2.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn median_of_odd_and_even_counts() {
        assert_eq!(Summary::of(&[3.0, 1.0, 2.0]).unwrap().median, 2.0);
        assert_eq!(Summary::of(&[4.0, 1.0, 2.0, 3.0]).unwrap().median, 2.5);
        assert_eq!(Summary::of(&[7.0]).unwrap().median, 7.0);
        assert!(Summary::of(&[]).is_none());
        assert!(Summary::of(&[f64::NAN]).is_none());
    }

    #[test]
    fn median_intervals_from_order_statistics() {
        // n = 6: only (min, max) covers 95% (96.9%); n = 5 has no interval.
        let six = [6.0, 1.0, 5.0, 2.0, 4.0, 3.0];
        assert_eq!(median_ci(&six), Some((1.0, 6.0)));
        assert_eq!(median_ci(&six[..5]), None);
        // n = 20: (x6, x15), coverage 95.9% (Conover's table); (x7, x14) is 88.5%.
        let twenty: Vec<f64> = (1..=20).map(f64::from).collect();
        assert_eq!(median_ci(&twenty), Some((6.0, 15.0)));
        // n = 10: (x2, x9), 97.9%; (x3, x8) would be 89.1%.
        let ten: Vec<f64> = (1..=10).map(f64::from).collect();
        assert_eq!(median_ci(&ten), Some((2.0, 9.0)));
        let h = median_half_width(&[99.0, 100.0, 100.0, 100.0, 100.0, 102.0]).unwrap();
        assert!((h - 0.02).abs() < 1e-12, "{h}");
    }

    #[test]
    fn spread_and_noise() {
        let s = Summary::of(&[95.0, 100.0, 105.0]).unwrap();
        assert!((s.relative_range() - 0.10).abs() < 1e-12);
        assert!((s.spread_pct() - 5.0).abs() < 1e-12);
        assert!(!s.is_noisy());
        let noisy = Summary::of(&[90.0, 100.0, 105.0]).unwrap();
        assert!(noisy.is_noisy());
        assert_eq!(Summary::of(&[0.0, 0.0]).unwrap().relative_range(), 0.0);
    }
}
