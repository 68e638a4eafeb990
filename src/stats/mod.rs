//! Pure statistics on repetitions' figures. No I/O, no formatting.

pub mod bootstrap;
pub mod changepoint;
pub mod mannwhitney;
pub mod multiple;
#[cfg(test)]
mod simulation;

pub use bootstrap::ratio_of_medians_ci;
pub use changepoint::{ChangePoint, change_points};
pub use mannwhitney::{MannWhitney, mann_whitney_u};
pub use multiple::benjamini_hochberg;

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
